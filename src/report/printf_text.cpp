#include "report/printf_text.hpp"

#include <cstdarg>
#include <cstdio>
#include <vector>

namespace rateperf::report {

void appendf(std::string& out, const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::va_list again;
  va_copy(again, args);
  char small[256];
  const int length = std::vsnprintf(small, sizeof small, format, args);
  va_end(args);
  if (length < 0) {
    va_end(again);
    return;
  }
  if (static_cast<std::size_t>(length) < sizeof small) {
    out.append(small, static_cast<std::size_t>(length));
  } else {
    std::vector<char> large(static_cast<std::size_t>(length) + 1);
    std::vsnprintf(large.data(), large.size(), format, again);
    out.append(large.data(), static_cast<std::size_t>(length));
  }
  va_end(again);
}

void append_within_table(std::string& out,
                         const std::array<double, stats::kServedWithinPercents.size()>& ms) {
  out += '\n';
  out += "Percentage of the requests served within a certain time (ms)\n";
  for (std::size_t i = 0; i < stats::kServedWithinPercents.size(); ++i) {
    const int percent = stats::kServedWithinPercents[i];
    appendf(out, " %3d%%  %5.0f%s\n", percent, ms[i], percent == 100 ? " (longest request)" : "");
  }
}

}  // namespace rateperf::report
