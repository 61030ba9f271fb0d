#pragma once

// demo_server's command line (see demo_server.cpp for what the server does with it).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace rateperf::demo {

struct Options {
  std::string host = "127.0.0.1";         // address to listen on
  std::uint16_t port = 0;                 // 0: any free port (printed on stdout)
  int workers = 2;                        // virtual worker slots
  int service_ms = 10;                    // how long a request occupies a slot
  std::size_t queue = 500;                // requests waiting for a slot; 0: unbounded
  int backlog = 32;                       // listen() backlog
  int shed_pause_ms = 200;                // after shedding, accept nothing for this long
  std::optional<std::size_t> body_bytes;  // reply body size; unset: the search form page
};

// Thrown for a bad command line; main() prints the usage and exits with status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The usage text (for --help, and after a UsageError).
extern const char* const usage_text;

// Accepts "--name value" and "--name=value"; --help prints the usage and exits.
Options parse_options(int argc, char** argv);

}  // namespace rateperf::demo
