#include "options/values.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <system_error>

#include "core/failure.hpp"

namespace rateperf::options {

void fail(std::string_view option, const std::string& problem) {
  throw UsageError(std::string(option) + ": " + problem);
}

// Built by appending, because GCC 12 at -O3 can give a false -Wrestrict warning for
// "'" + std::string(...) where this is inlined.
std::string quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '\'';
  out += text;
  out += '\'';
  return out;
}

std::string format_g(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

bool has_space_or_control(std::string_view text) {
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return true;
  }
  return false;
}

// Parses the whole of `text` as a finite real number. std::from_chars takes no leading blanks,
// no '+', no hexadecimal and no locale, so what it accepts is exactly what a user would call a
// number; "inf" and "nan" parse but are refused afterwards.
double parse_real(std::string_view option, std::string_view text) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range && ptr == end)
    fail(option, quoted(text) + " is out of range");
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) {
    fail(option, quoted(text) + " is not a number");
  }
  return value;
}

// Seconds as typed on the command line: non-negative and at most kMaxSeconds.
double parse_seconds(std::string_view option, std::string_view text) {
  const double value = parse_real(option, text);
  if (value < 0) fail(option, "must not be negative (got " + std::string(text) + ")");
  if (value > kMaxSeconds) {
    fail(option, "must be at most " + format_g(kMaxSeconds) + " s (got " + std::string(text) + ")");
  }
  return value;
}

// Seconds to the nearest nanosecond (clock.hpp's from_s truncates). A positive value below the
// clock's resolution would silently become zero, which means "none" or "sequential" elsewhere,
// so it is refused.
Duration to_duration(std::string_view option, double seconds, std::string_view shown) {
  const auto duration = std::chrono::round<Duration>(std::chrono::duration<double>(seconds));
  if (seconds > 0 && duration == Duration::zero()) {
    fail(option, "below the 1 ns resolution (got " + std::string(shown) + ")");
  }
  return duration;
}

// A whole number within [min, max]. The range message comes first, so that "-5" reads as out of
// range rather than as not a whole number.
std::uint64_t parse_whole(std::string_view option, std::string_view text, std::uint64_t min,
                          std::uint64_t max) {
  const double approx = parse_real(option, text);
  auto out_of_range = [&]() {
    std::string rule;
    if (approx > 0 && max == kNoLimit) {
      rule = "too large";
    } else if (max != kNoLimit) {
      rule = "must be within " + std::to_string(min) + ".." + std::to_string(max);
    } else if (min == 0) {
      rule = "must not be negative";
    } else {
      rule = "must be at least " + std::to_string(min);
    }
    fail(option, rule + " (got " + std::string(text) + ")");
  };
  if (approx < static_cast<double>(min) || approx > static_cast<double>(max)) out_of_range();
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range) out_of_range();
  if (ec != std::errc() || ptr != end) fail(option, quoted(text) + " is not a whole number");
  if (value < min || value > max) out_of_range();
  return value;
}

// A request target as it goes on the request line: a space or a control character there would
// break the request, and everything but an absolute path is for proxies.
std::string check_uri(std::string_view option, std::string_view uri) {
  if (uri.empty() || uri.front() != '/')
    fail(option, "must start with '/' (got " + quoted(uri) + ")");
  if (has_space_or_control(uri)) {
    fail(option, "must not contain spaces or control characters (got " + quoted(uri) + ")");
  }
  return std::string(uri);
}

// getaddrinfo() wants an IPv6 literal without the brackets URLs put around it.
std::string check_host(std::string_view option, std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) fail(option, "must not be empty");
  if (has_space_or_control(host))
    fail(option, "must not contain spaces (got " + quoted(host) + ")");
  return std::string(host);
}

// RFC 9110 token characters: a method is a token, anything else makes a malformed request.
bool is_token(std::string_view text) {
  if (text.empty()) return false;
  constexpr std::string_view extra = "!#$%&'*+-.^_`|~";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    const bool alnum = (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z');
    if (!alnum && extra.find(c) == std::string_view::npos) return false;
  }
  return true;
}

}  // namespace rateperf::options
