#include "report/svg_markup.hpp"

#include <cstdio>

#include "report/html_text.hpp"

namespace rateperf::report {

std::string px(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

namespace {

void append_attributes(std::string& out, Attributes attributes) {
  for (const auto& [key, value] : attributes) {
    out += ' ';
    out += key;
    out += "=\"";
    out += escape_html(value);
    out += '"';
  }
}

}  // namespace

// Strings are built by appending throughout: GCC 12 warns falsely (-Wrestrict) on
// "literal" + std::string.
void open_tag(std::string& out, std::string_view name, Attributes attributes, bool empty) {
  out += '<';
  out += name;
  append_attributes(out, attributes);
  out += empty ? "/>" : ">";
}

void text_element(std::string& out, Attributes attributes, std::string_view content) {
  open_tag(out, "text", attributes);
  out += escape_html(content);
  out += "</text>";
}

void line_element(std::string& out, double x1, double y1, double x2, double y2, Attributes extra) {
  out += "<line";
  append_attributes(out, {{"x1", px(x1)}, {"y1", px(y1)}, {"x2", px(x2)}, {"y2", px(y2)}});
  append_attributes(out, extra);
  out += "/>";
}

}  // namespace rateperf::report
