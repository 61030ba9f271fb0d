#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rateperf::net {

class Addresses;

// What each new socket is given: --send-buffer and --recv-buffer (SO_SNDBUF and SO_RCVBUF in
// bytes, where given), SO_LINGER for --close-with-reset, and TCP_NODELAY for pipelined calls, where Nagle's algorithm would hold
// a request back until the one before it is acknowledged (httperf sets it always; one
// setsockopt a connection is spared where nothing is pipelined).
struct SocketOptions {
  std::optional<std::uint32_t> send_bytes;
  std::optional<std::uint32_t> recv_bytes;
  bool no_delay = false;
  // --close-with-reset: SO_LINGER on with a zero timeout, so that close() sends a reset.
  bool reset_on_close = false;
  // --myaddr, --hog: binds each socket before its connect; none: the kernel chooses.
  Addresses* addresses = nullptr;
};

// Sets the options on a new socket. Returns false when the kernel refused a buffer size.
bool set_socket_options(int fd, const SocketOptions& sizes);

// Tries the given buffer sizes on a throwaway socket of `family` before the run, and returns a
// one-line warning for each that the kernel refused or did not take as asked (Linux doubles the
// size for its bookkeeping and keeps it within net.core.wmem_max / rmem_max and a minimum of its
// own): once, instead of once per connection.
std::vector<std::string> check_buffer_sizes(int family, const SocketOptions& sizes);

}  // namespace rateperf::net
