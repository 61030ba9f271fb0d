#pragma once

#include <string>
#include <vector>

namespace rateperf::report {

// `rateperf report [-o OUT.html] FILE...`: one self-contained HTML page of the results in
// FILE... (a run's JSON, a sweep's or a search's CSV, a search's JSON). Returns the exit
// status: 0 written, 1 the page could not be written. Throws UsageError (exit 2) for a bad
// command line or an input that is not a rateperf result (naming its path).
int report_command(const std::vector<std::string>& words);

// The help of `rateperf report`.
std::string report_help_text();

}  // namespace rateperf::report
