#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

// Writing SVG elements into a string: the attributes are escaped, coordinates rounded.
namespace rateperf::report {

// A coordinate in the drawing: a tenth of a pixel is finer than any screen needs.
std::string px(double value);

// An element's attributes, in order: name and (unescaped) value.
using Attributes = std::initializer_list<std::pair<std::string_view, std::string_view>>;

// Appends <NAME a="v"...> (or <NAME .../> when `empty`).
void open_tag(std::string& out, std::string_view name, Attributes attributes, bool empty = false);

// Appends <text ...>CONTENT</text>, the content escaped.
void text_element(std::string& out, Attributes attributes, std::string_view content);

// Appends <line> from (x1, y1) to (x2, y2), with more attributes.
void line_element(std::string& out, double x1, double y1, double x2, double y2, Attributes extra);

}  // namespace rateperf::report
