#include "report/report_command.hpp"

#include "core/failure.hpp"

namespace rateperf::report {

int report_command(const std::vector<std::string>& /*words*/) {
  throw UsageError("report: not built yet");
}

std::string report_help_text() {
  return "Usage: rateperf report [-o OUT.html] FILE...\n";
}

}  // namespace rateperf::report
