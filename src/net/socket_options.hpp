#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rateperf::net {

// --send-buffer and --recv-buffer: SO_SNDBUF and SO_RCVBUF in bytes, where given.
struct BufferSizes {
  std::optional<std::uint32_t> send_bytes;
  std::optional<std::uint32_t> recv_bytes;
};

// Sets the given sizes on a new socket. Returns false when the kernel refused one of them.
bool set_buffer_sizes(int fd, const BufferSizes& sizes);

// Tries the given buffer sizes on a throwaway socket of `family` before the run, and returns a
// one-line warning for each that the kernel refused or did not take as asked (Linux doubles the
// size for its bookkeeping and keeps it within net.core.wmem_max / rmem_max and a minimum of its
// own): once, instead of once per connection.
std::vector<std::string> check_buffer_sizes(int family, const BufferSizes& sizes);

}  // namespace rateperf::net
