#pragma once

#include <string>
#include <string_view>

// Text for the HTML report: escaping, numbers written for people, and joining.
namespace rateperf::report {

// Text made safe inside HTML and SVG, in element content and in quoted attributes.
std::string escape_html(std::string_view text);

// A number for people: at most four significant digits, no exponent, no trailing zeros
// ("199.8", "0.0123", "12346", "0").
std::string format_number(double value);

// The parts, one after another. Strings of the report are built by appending: GCC 12 warns
// falsely (-Wrestrict) on "literal" + std::string.
template <typename... Parts>
std::string joined(const Parts&... parts) {
  std::string text;
  ((text += parts), ...);
  return text;
}

}  // namespace rateperf::report
