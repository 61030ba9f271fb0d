#pragma once

#include <string>
#include <vector>

#include "core/failure.hpp"
#include "options/config.hpp"

namespace rateperf::options {

// A bad command line (exit status 2); see core/failure.hpp.
using rateperf::UsageError;

// What the command line asks for.
enum class Action { run, help, version };

struct Parsed {
  Action action = Action::run;
  Config config;     // valid when action == run
  std::string text;  // the help or version text when action != run
};

// Parses and validates argv against the option table (httperf's option names, plus a URL form
// `rateperf http://host:port/path ...`). Throws UsageError on any bad input. `recorded`: the
// command line is read back from a dump (Config::recorded), not given on this machine.
Parsed parse(int argc, const char* const* argv, bool recorded = false);

// `rateperf merge [--json FILE] [--csv FILE] DUMP...`: one report of the dumps of a sharded run.
struct MergeCommand {
  bool help = false;
  std::vector<std::string> dumps;
  std::string json_path;  // as --json and --csv of a run: "-" is stdout, empty is none
  std::string csv_path;
};

// Parses the words after `rateperf merge`. Throws UsageError on any bad input.
MergeCommand parse_merge(const std::vector<std::string>& words);

// The help of `rateperf merge`.
std::string merge_help_text();

// The report's first line: the command line normalised the way httperf echoes it, e.g.
// "rateperf --timeout=5 --client=0/1 --server=127.0.0.1 --port=8080 --uri=/ --rate=300
//  --send-buffer=4096 --recv-buffer=16384 --num-conns=40000 --num-calls=1".
std::string echo_command_line(const Config& config);

}  // namespace rateperf::options
