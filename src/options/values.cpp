#include "options/values.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
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


namespace {

// The digits of text[at, at + n) as a number, or -1 when one of them is not a digit.
int digits_at(std::string_view text, std::size_t at, std::size_t n) {
  if (at + n > text.size()) return -1;
  int value = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

// Nanoseconds of a fraction ".25" at text[at...], advancing `at` past it; a '.' with no digit
// after it is -1.
std::int64_t fraction_at(std::string_view text, std::size_t& at) {
  if (at >= text.size() || text[at] != '.') return 0;
  ++at;
  std::int64_t ns = 0;
  std::int64_t scale = 100'000'000;
  const std::size_t first = at;
  for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at) {
    ns += (text[at] - '0') * scale;  // digits past the ninth add nothing
    scale /= 10;
  }
  return at == first ? -1 : ns;
}

constexpr std::int64_t kNsPerSecond = 1'000'000'000;
// Instants after 9999-12-31 are refused: RFC 3339 has four digits of year.
constexpr std::int64_t kLastSecond = 253'402'300'799;

}  // namespace

std::int64_t parse_wall_time(std::string_view option, std::string_view text) {
  const auto bad = [&] {
    fail(option,
         "expected an RFC 3339 time like 2026-12-04T18:00:00Z or seconds since the epoch (got " +
             quoted(text) + ")");
  };
  std::size_t at = 0;
  // Seconds since the epoch: digits, and a fraction.
  if (text.find_first_not_of("0123456789.") == std::string_view::npos) {
    std::int64_t seconds = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    at = static_cast<std::size_t>(end - text.data());
    const std::int64_t ns = fraction_at(text, at);
    if (ec != std::errc() || ns < 0 || at != text.size() || seconds > kLastSecond) bad();
    return seconds * kNsPerSecond + ns;
  }
  // YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)
  const int year = digits_at(text, 0, 4);
  const int month = digits_at(text, 5, 2);
  const int day = digits_at(text, 8, 2);
  const int hour = digits_at(text, 11, 2);
  const int minute = digits_at(text, 14, 2);
  const int second = digits_at(text, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 ||
      minute < 0 || minute > 59 || second < 0 || second > 60 || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't' && text[10] != ' ') || text[13] != ':' ||
      text[16] != ':') {
    bad();
  }
  at = 19;
  const std::int64_t ns = fraction_at(text, at);
  if (ns < 0 || at >= text.size()) bad();
  std::int64_t offset_s = 0;
  if (text[at] == 'Z' || text[at] == 'z') {
    ++at;
  } else if (text[at] == '+' || text[at] == '-') {
    const int offset_hour = digits_at(text, at + 1, 2);
    const int offset_minute = digits_at(text, at + 4, 2);
    if (offset_hour < 0 || offset_hour > 23 || offset_minute < 0 || offset_minute > 59 ||
        at + 3 >= text.size() || text[at + 3] != ':') {
      bad();
    }
    offset_s = (text[at] == '+' ? 1 : -1) * (offset_hour * 3600 + offset_minute * 60);
    at += 6;
  } else {
    bad();
  }
  if (at != text.size()) bad();
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  const std::int64_t seconds = static_cast<std::int64_t>(::timegm(&tm)) - offset_s;
  // timegm carries a 31st of a short month into the next: the date did not exist.
  if (tm.tm_mday != day || seconds < 0) bad();
  return seconds * kNsPerSecond + ns;
}

std::string format_wall_time(std::int64_t unix_ns) {
  const std::time_t whole = static_cast<std::time_t>(unix_ns / kNsPerSecond);
  const auto ms = static_cast<int>((unix_ns % kNsPerSecond) / 1'000'000);
  std::tm utc{};
  ::gmtime_r(&whole, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &utc);
  char text[48];
  std::snprintf(text, sizeof text, "%s.%03dZ", date, ms);
  return text;
}

}  // namespace rateperf::options
