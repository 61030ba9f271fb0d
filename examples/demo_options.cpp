#include "demo_options.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace rateperf::demo {

const char* const usage_text =
    "usage: demo_server [--host ADDR] [--port N] [--workers N] [--service-ms M]\n"
    "                   [--queue N] [--backlog N] [--shed-pause-ms N] [--body-bytes N]\n"
    "  capacity = workers * 1000 / service-ms replies/s (default 2 * 1000 / 10 = 200);\n"
    "  --queue 0 means unbounded (default 500); a request that finds the queue full is\n"
    "  reset, and the server then accepts nothing for --shed-pause-ms (default 200), so\n"
    "  that new connections wait in the listen backlog (--backlog, default 32) or have\n"
    "  their SYNs dropped by the kernel.\n";


namespace {

template <typename T>
T parse_number(std::string_view name, std::string_view text, T min, T max) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < min || value > max) {
    throw UsageError("bad value for " + std::string(name) + ": '" + std::string(text) + "'");
  }
  return value;
}

}  // namespace

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage_text, stdout);
      std::exit(0);
    }
    std::string_view value;
    if (const auto eq = arg.find('='); eq != std::string_view::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      throw UsageError("missing value for " + std::string(arg));
    }
    if (arg == "--host") {
      options.host = value;
    } else if (arg == "--port") {
      options.port = parse_number<std::uint16_t>(arg, value, 0, 65535);
    } else if (arg == "--workers") {
      options.workers = parse_number<int>(arg, value, 1, 100000);
    } else if (arg == "--service-ms") {
      options.service_ms = parse_number<int>(arg, value, 0, 3600 * 1000);
    } else if (arg == "--queue") {
      options.queue = parse_number<std::size_t>(arg, value, 0, 10'000'000);
    } else if (arg == "--shed-pause-ms") {
      options.shed_pause_ms = parse_number<int>(arg, value, 0, 60'000);
    } else if (arg == "--backlog") {
      options.backlog = parse_number<int>(arg, value, 1, 1 << 20);
    } else if (arg == "--body-bytes") {
      options.body_bytes = parse_number<std::size_t>(arg, value, 0, 64 << 20);
    } else {
      throw UsageError("unknown option " + std::string(arg));
    }
  }
  return options;
}

}  // namespace rateperf::demo
