#pragma once

#include <string>
#include <string_view>

// Small text helpers shared by the option and URL parsers of this folder; not part of the
// options API.
namespace rateperf::options {

// A value as error messages show it, in single quotes. Built by appending, because GCC 12 at -O3
// can give a false -Wrestrict warning for "'" + std::string(...) where this is inlined.
inline std::string quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '\'';
  out += text;
  out += '\'';
  return out;
}

// True when `text` holds a space or an ASCII control character, which would break the request
// line or the Host header the value ends up in.
inline bool has_space_or_control(std::string_view text) {
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return true;
  }
  return false;
}

}  // namespace rateperf::options
