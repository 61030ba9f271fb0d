#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rateperf {

// Why a call (a connection's request, or an arrival that never got a connection) ended without
// a reply. The first eight
// are httperf's report categories; the parse errors are rateperf's own split of httperf's
// "other" for malformed replies.
enum class ErrorKind : std::uint8_t {
  client_timo,   // the --timeout inactivity watchdog fired
  socket_timo,   // connect() failed with ETIMEDOUT
  connrefused,   // ECONNREFUSED
  connreset,     // ECONNRESET, EPIPE, or the server closed before the reply was complete
  fd_unavail,    // EMFILE: the client ran out of descriptors
  addrunavail,   // EADDRNOTAVAIL: out of local ports
  ftab_full,     // ENFILE: the system's file table is full
  other,         // any other errno
  parse_status,  // malformed status line
  parse_header,  // malformed header or Content-Length
  parse_chunk,   // invalid chunked encoding
  parse_other,   // any other malformed reply
  // A call that got no reply because its connection ended before it: the server closed the
  // connection after earlier replies (a "Connection: close" reply, an HTTP/1.0 reply without
  // keep-alive, or a close before any byte of this call's reply), or an earlier call of the
  // connection failed; the call was never sent, or sent and never answered.
  unanswered,
  tls_handshake,    // the TLS handshake failed (a peer that is not TLS, no common protocol)
  tls_certificate,  // --ssl-verify rejected the server's certificate
  tls_alert,        // the server ended the handshake with a fatal TLS alert
  count_,
};

inline constexpr std::size_t kErrorKinds = static_cast<std::size_t>(ErrorKind::count_);

// The label of an error kind as the report prints it ("client-timo", "parse-status"...).
std::string_view error_label(ErrorKind kind);

// Errors counted by kind.
using ErrorCounts = std::array<std::uint64_t, kErrorKinds>;

// The count of one kind.
inline std::uint64_t count_of(const ErrorCounts& counts, ErrorKind kind) {
  return counts[static_cast<std::size_t>(kind)];
}

}  // namespace rateperf
