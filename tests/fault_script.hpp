#pragma once

// What a FaultServer writes on a connection, decided without I/O: the server reads, counts the
// requests and asks answer_requests() what is due, so that the bytes of every mode can be
// checked exactly, and the server loop stays one loop for all modes.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fault_server.hpp"

namespace rateperf::test {

// What a connection does once the writes planned for it are out.
enum class AfterWrites {
  keep_open,     // waits for more requests, or for the client to close
  close,         // close() at once (an unread request byte turns it into a reset)
  linger_close,  // shutdown(SHUT_WR), then reads and discards until the client closes, so that
                 // requests sent meanwhile meet an end of file rather than a reset
  reset,         // SO_LINGER 0 and close(): RST
};

// How a mode treats every connection.
struct FaultScript {
  bool accepts = true;  // false: accept_nothing's full backlog
  bool resets_on_accept = false;
  bool reads = true;  // false: accept_never_read
  // The single-reply modes answer the first request only and discard everything after its
  // blank line; the keep-alive modes count and answer every request.
  bool first_request_only = true;
  // > 0: writes go out `pace_bytes` at a time, one every `pace_gap_ms` (the first at once).
  std::size_t pace_bytes = 0;
  int pace_gap_ms = 0;
  // > 0: requests are answered only once no byte arrived for this long, all in one write,
  // so that a pipelined burst gets its replies together.
  int quiet_ms = 0;
  // TCP_NODELAY: each write leaves in a segment of its own, as the mode means it to arrive.
  bool no_delay = false;
};

FaultScript script_of(FaultMode mode);

// What is due for the requests of one connection that arrived since the last answer.
struct Answer {
  std::vector<std::string> writes;  // each its own send() (pacing splits them further)
  std::uint64_t handled = 0;        // requests answered or skipped so far, these included
  std::uint64_t replies = 0;        // status lines among the writes
  AfterWrites after = AfterWrites::keep_open;  // not keep_open: later requests are ignored
};

// The answer to requests (`handled`, `read`] of a connection (numbered from 1): what to write,
// and how far they are handled. A request may stay unhandled until more arrive (out_of_order
// answers pairs).
Answer answer_requests(FaultMode mode, std::uint64_t handled, std::uint64_t read);

// A valid 200 with a body of kSlowBodyBytes (38 header bytes): slow_bytes' reply, and the one
// the keep-alive modes send to a request they answer plainly.
inline constexpr std::string_view kHelloReply = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
// The modes whose connections end after this many replies (close_after_3, close_header_3).
inline constexpr std::uint64_t kRepliesBeforeClose = 3;

}  // namespace rateperf::test
