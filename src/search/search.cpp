#include "search/search.hpp"

#include "core/failure.hpp"

namespace rateperf::search {

int search_command(const std::vector<std::string>& /*words*/) {
  throw UsageError("search: not built yet");
}

}  // namespace rateperf::search
