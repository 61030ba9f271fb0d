// fault_server: a server that misbehaves on purpose, for trying rateperf (or any client) against
// one fault by hand:
//
//   fault_server --mode NAME [--port N]
//
// prints "port N" once it listens on 127.0.0.1, then serves until SIGINT or SIGTERM. --help
// lists the modes; tests/fault_server.hpp says what each one does.

#include <signal.h>

#include <charconv>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "fault_script.hpp"
#include "fault_server.hpp"

namespace {

using rateperf::test::FaultMode;

// The modes whose script answers the first request of a connection only, or every one.
void print_modes(std::FILE* to, bool first_request_only) {
  for (const FaultMode mode : rateperf::test::all_faults()) {
    if (rateperf::test::script_of(mode).first_request_only != first_request_only) continue;
    const std::string_view name = rateperf::test::fault_name(mode);
    std::fprintf(to, " %.*s", static_cast<int>(name.size()), name.data());
  }
  std::fprintf(to, "\n");
}

void print_usage(std::FILE* to) {
  std::fprintf(to, "usage: fault_server --mode NAME [--port N]\n");
  std::fprintf(to, "modes that answer the first request of a connection only:");
  print_modes(to, true);
  std::fprintf(to, "keep-alive modes, which answer every request of a connection:");
  print_modes(to, false);
}

// A usage error: one line on stderr, exit status 2.
int usage_error(const std::string& message) {
  std::fprintf(stderr, "fault_server: %s (try --help)\n", message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode_name;
  unsigned port = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      print_usage(stdout);
      return 0;
    }
    if (arg != "--mode" && arg != "--port")
      return usage_error("unknown option '" + std::string(arg) + "'");
    if (i + 1 == argc) return usage_error(std::string(arg) + " needs a value");
    const std::string_view value = argv[++i];
    if (arg == "--mode") {
      mode_name = value;
    } else {
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), port);
      if (error != std::errc() || end != value.data() + value.size() || port > 65535) {
        return usage_error("invalid --port '" + std::string(value) + "'");
      }
    }
  }
  if (mode_name.empty()) return usage_error("--mode is required");
  const auto mode = rateperf::test::fault_from_name(mode_name);
  if (!mode) return usage_error("unknown mode '" + mode_name + "'");

  // Blocked before the server's thread starts, so that the thread inherits the mask and the
  // signals wait for sigwait() below.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  try {
    rateperf::test::FaultServer server(*mode, static_cast<std::uint16_t>(port));
    std::printf("port %u\n", static_cast<unsigned>(server.port()));
    std::fflush(stdout);
    int signal = 0;
    sigwait(&stop_signals, &signal);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fault_server: %s\n", error.what());
    return 1;
  }
  return 0;
}
