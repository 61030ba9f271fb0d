#pragma once

#include <string>
#include <vector>

#include "search/controller.hpp"
#include "search/slo.hpp"

namespace rateperf::search {

// `rateperf search`'s command line: its own options, and TARGET, the words of the run it steps.
struct Command {
  bool help = false;
  Slo slo;
  Settings settings;
  double step_s = 5;          // --step: each step's length of schedule
  double cool_down_s = 2;     // --cool-down: the pause between steps
  double divergence = 0.02;   // --divergence: the growth of open connections that fails a step
  bool request_mode = false;  // --request-mode: steps set --request-rate, not --rate
  std::string json_path;      // --json: the search's JSON ("-": stdout); empty: none
  std::string csv_path;       // --csv: one row per step ("-": stdout); empty: none
  std::string report_path;    // --report, -o: the HTML report; empty: none
  std::vector<std::string> target;
};

// Parses the words after `rateperf search`: its options, anywhere before a `--`, and every
// other word as TARGET's. Throws UsageError naming the option and the problem.
Command parse_command(const std::vector<std::string>& words);

// The help of `rateperf search`.
std::string help_text();

// The words of search's options, from the table parse_command() reads ("--slo", ..., and the
// short forms "-o" and "-h"): for the bash completion.
std::vector<std::string> option_words();

}  // namespace rateperf::search
