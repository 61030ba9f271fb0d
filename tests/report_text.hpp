#pragma once

// What the tests that run the real binary share: where it is, and how to read a figure out of
// its text report.

#include <cstdlib>
#include <regex>
#include <string>

#include <doctest/doctest.h>

namespace rateperf::test {

// A program the build made, whose path meson passes in the environment variable `name`.
inline std::string built_program(const char* name) {
  const char* path = std::getenv(name);
  REQUIRE_MESSAGE(path != nullptr, name << " must name a built program (meson sets it)");
  return path;
}

inline std::string rateperf_binary() { return built_program("RATEPERF_BIN"); }

// The text of the first report line that starts with `prefix` (empty if none).
inline std::string report_line(const std::string& report, const std::string& prefix) {
  std::size_t at = 0;
  while (at < report.size()) {
    const std::size_t end = report.find('\n', at);
    const std::string current = report.substr(at, end == std::string::npos ? end : end - at);
    if (current.rfind(prefix, 0) == 0) return current;
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
