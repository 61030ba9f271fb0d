#pragma once

#include <string>
#include <vector>

namespace rateperf::search {

// `rateperf search [SEARCH OPTIONS] TARGET...` (docs/search.md). Returns the exit status.
// Throws UsageError (exit 2) for a bad command line.
int search_command(const std::vector<std::string>& words);

}  // namespace rateperf::search
