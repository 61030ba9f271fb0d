#pragma once

#include <string>
#include <vector>

#include "options/config.hpp"

namespace rateperf::engine {

// Sets --send-buffer and --recv-buffer (SO_SNDBUF, SO_RCVBUF) on a new socket, where given.
// Returns false when the kernel refused one of them.
bool set_buffer_sizes(int fd, const options::Config& config);

// Tries the given buffer sizes on a throwaway socket of `family` before the run, and returns a
// one-line warning for each that the kernel refused or did not take as asked (Linux doubles the
// size for its bookkeeping and keeps it within net.core.wmem_max / rmem_max and a minimum of its
// own): once, instead of once per connection.
std::vector<std::string> check_buffer_sizes(int family, const options::Config& config);

}  // namespace rateperf::engine
