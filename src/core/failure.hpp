#pragma once

#include <stdexcept>

// The failures that end rateperf before or instead of a run, and the exit statuses main() maps
// them to. A misbehaving server is never one of them: it is a result.
namespace rateperf {

// A bad command line: what() is the whole one-line message, naming the option and the problem,
// e.g. "--rate: 'abc' is not a number". Exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The run cannot be done (a name that does not resolve, an output file that cannot be
// written...). Exit status 1.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitCannotRun = 1;
inline constexpr int kExitUsage = 2;
// The run completed but crossed a threshold the user set (--max-lag, --max-error-rate):
// distinct from the others, so that a CI pipeline can gate on it.
inline constexpr int kExitThresholdCrossed = 3;
// SIGINT or SIGTERM stopped a subcommand that reports what it did (`rateperf search`): 128 + 2,
// as a shell reports a command Ctrl-C ended.
inline constexpr int kExitInterrupted = 130;

}  // namespace rateperf
