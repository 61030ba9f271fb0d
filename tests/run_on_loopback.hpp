#pragma once

// rateperf run against a test server on 127.0.0.1, as the "run_options" suite runs it.

#include <cstdint>
#include <string>
#include <vector>

#include "process.hpp"
#include "report_text.hpp"

namespace rateperf::test {

// Runs rateperf with `args` against 127.0.0.1:`port`.
inline ProcessResult run_rateperf(std::uint16_t port, const std::vector<std::string>& args) {
  return run_rateperf_on("127.0.0.1", port, args);
}

}  // namespace rateperf::test
