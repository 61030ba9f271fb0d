#pragma once

// What the tests that run the real binary share: where it is, how to run it against a test
// server, and how to read a figure out of its text report.

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "process.hpp"

namespace rateperf::test {

// A program the build made, whose path meson passes in the environment variable `name`.
inline std::string built_program(const char* name) {
  const char* path = std::getenv(name);
  REQUIRE_MESSAGE(path != nullptr, name << " must name a built program (meson sets it)");
  return path;
}

inline std::string rateperf_binary() { return built_program("RATEPERF_BIN"); }

// Runs rateperf against `host`:`port` with the given extra arguments, for at most `limit`.
inline ProcessResult run_rateperf_on(const std::string& host, std::uint16_t port,
                                     const std::vector<std::string>& args,
                                     std::chrono::milliseconds limit = std::chrono::seconds(60)) {
  std::vector<std::string> argv = {rateperf_binary(), "--server", host, "--port",
                                   std::to_string(port)};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, limit);
}

// The text of the report line that starts with `prefix` (the first one, or the one after
// `skip` others that start with it); empty if none.
inline std::string report_line(const std::string& report, const std::string& prefix,
                               int skip = 0) {
  std::size_t at = 0;
  while (at < report.size()) {
    const std::size_t end = report.find('\n', at);
    const std::string current = report.substr(at, end == std::string::npos ? end : end - at);
    if (current.rfind(prefix, 0) == 0 && skip-- == 0) return current;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return "";
}

// The number that follows `label` on the line that starts with `prefix`.
inline double report_figure(const std::string& report, const std::string& prefix,
                            const std::string& label) {
  const std::string text = report_line(report, prefix);
  const std::regex pattern(label + R"(\s*([-0-9.]+))");
  std::smatch match;
  REQUIRE_MESSAGE(std::regex_search(text, match, pattern),
                  "no '" << label << "' in line '" << prefix << "' of:\n" << report);
  return std::stod(match[1].str());
}

}  // namespace rateperf::test
