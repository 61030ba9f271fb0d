#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "core/clock.hpp"

// Parsing and checking of option values, in one place for every option of the table: numbers,
// durations, host names, request targets, tokens. Each function names the option in the
// UsageError it throws ("--rate: 'abc' is not a number").
namespace rateperf::options {

// The longest span any option may give, in seconds (about 11.6 days). It keeps every value, and
// the sums a schedule makes of them, far inside a 64-bit count of nanoseconds.
inline constexpr double kMaxSeconds = 1e6;
inline constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();

// Throws UsageError("OPTION: PROBLEM").
[[noreturn]] void fail(std::string_view option, const std::string& problem);

// A value as error messages show it, in single quotes.
std::string quoted(std::string_view text);

// printf's %g: how numbers are echoed and shown in messages.
std::string format_g(double value);

// True when `text` holds a space or an ASCII control character, which would break the request
// line or the Host header the value ends up in.
bool has_space_or_control(std::string_view text);

// The whole of `text` as a finite real number (no blanks, no '+', no hexadecimal, no locale).
double parse_real(std::string_view option, std::string_view text);

// Seconds as typed on the command line: non-negative and at most kMaxSeconds.
double parse_seconds(std::string_view option, std::string_view text);

// Seconds to the nearest nanosecond. A positive value below the clock's resolution would become
// zero, which means "none" or "sequential" elsewhere, so it is refused; `shown` is the text the
// message quotes.
Duration to_duration(std::string_view option, double seconds, std::string_view shown);

// A whole number within [min, max].
std::uint64_t parse_whole(std::string_view option, std::string_view text, std::uint64_t min,
                          std::uint64_t max = kNoLimit);

// A request target as it goes on the request line: starts with '/', no space or control.
std::string check_uri(std::string_view option, std::string_view uri);

// A host name or address; an IPv6 literal loses the brackets URLs put around it.
std::string check_host(std::string_view option, std::string_view host);

// RFC 9110 token characters (a method is a token).
bool is_token(std::string_view text);

// A wall-clock instant, as nanoseconds since the Unix epoch, from an RFC 3339 date and time
// ("2026-12-04T18:00:00Z", "2026-12-04T19:00:00.250+01:00") or seconds since the epoch
// ("1796407200", "1796407200.25").
std::int64_t parse_wall_time(std::string_view option, std::string_view text);

// An instant as RFC 3339 in UTC with milliseconds: "2026-12-04T18:00:00.250Z".
std::string format_wall_time(std::int64_t unix_ns);

}  // namespace rateperf::options
