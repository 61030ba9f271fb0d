#pragma once

#include <chrono>
#include <string>
#include <vector>

// Runs a program as a child process and collects what it printed, for tests that drive the real
// binaries (the CLI, the integration runs).
namespace rateperf::test {

struct ProcessResult {
  int exit_code = -1;      // the exit status, or 128 + the signal that ended the child
  bool timed_out = false;  // the child outlived the timeout and was killed with SIGKILL
  std::string out;         // everything it wrote to stdout
  std::string err;         // everything it wrote to stderr
  long max_rss_kb = 0;     // the child's peak resident set size (getrusage's ru_maxrss)
};

// A signal sent to the child `after` its start (if it is still running then).
struct TimedSignal {
  std::chrono::milliseconds after{};
  int signal = 0;
};

// Starts argv[0] (looked up in PATH like a shell does) with argv, stdin from /dev/null, and
// waits for it to end, at most `timeout`. Throws std::runtime_error when the child cannot be
// started at all; a program that does not exist gives exit code 127, as in a shell.
ProcessResult run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          const std::vector<TimedSignal>& signals = {});

}  // namespace rateperf::test
