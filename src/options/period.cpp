#include "options/period.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <system_error>
#include <vector>

#include "options/values.hpp"

namespace rateperf::options {

// --period [d|u|e|v]T1[,T2...], every number in seconds. Zero gaps are refused except for d0,
// which is httperf's "sequential"; for e, u and v they would ask for an infinite rate.
Period parse_period(std::string_view text) {
  constexpr std::string_view option = "--period";
  const std::string shown = quoted(text);
  if (text.empty()) fail(option, "expected [d|u|e|v]T1[,T2...] (got '')");

  char letter = 'd';
  std::string_view rest = text;
  if (const auto first = static_cast<unsigned char>(text.front()); std::isalpha(first)) {
    letter = text.front();
    rest.remove_prefix(1);
    if (std::string_view("duev").find(letter) == std::string_view::npos) {
      fail(option, "unknown distribution '" + std::string(1, letter) +
                       "', expected d, u, e or v (got " + shown + ")");
    }
  }

  std::vector<double> numbers;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view piece = rest.substr(0, comma);
    double value = 0;
    const char* end = piece.data() + piece.size();
    const auto [ptr, ec] = std::from_chars(piece.data(), end, value);
    if (ec != std::errc() || ptr != end || !std::isfinite(value)) {
      fail(option, quoted(piece) + " is not a number (in " + shown + ")");
    }
    if (value < 0) fail(option, "numbers must not be negative (got " + shown + ")");
    if (value > kMaxSeconds) {
      fail(option, "numbers must be at most " + format_g(kMaxSeconds) + " s (got " + shown + ")");
    }
    numbers.push_back(value);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }

  auto seconds = [&](double s) { return to_duration(option, s, shown); };
  Period period;
  switch (letter) {
    case 'd':
      if (numbers.size() != 1)
        fail(option, "d takes one number, the gap in seconds (got " + shown + ")");
      period.kind = PeriodKind::deterministic;
      period.mean = seconds(numbers[0]);
      period.rate_per_s = numbers[0] > 0 ? 1 / numbers[0] : 0;
      break;
    case 'e':
      if (numbers.size() != 1)
        fail(option, "e takes one number, the mean gap in seconds (got " + shown + ")");
      if (numbers[0] <= 0) fail(option, "the mean gap of e must be positive (got " + shown + ")");
      period.kind = PeriodKind::exponential;
      period.mean = seconds(numbers[0]);
      period.rate_per_s = 1 / numbers[0];
      break;
    case 'u':
      if (numbers.size() != 2) fail(option, "u takes two numbers, T1,T2 (got " + shown + ")");
      if (numbers[0] > numbers[1]) fail(option, "u needs T1 <= T2 (got " + shown + ")");
      if (numbers[1] <= 0) fail(option, "u needs T2 > 0 (got " + shown + ")");
      period.kind = PeriodKind::uniform;
      period.low = seconds(numbers[0]);
      period.high = seconds(numbers[1]);
      period.rate_per_s = 2 / (numbers[0] + numbers[1]);
      break;
    case 'v': {
      if (numbers.size() % 2 != 0) {
        fail(option, "v takes pairs of gap and step length, T1,D1[,T2,D2...] (got " + shown + ")");
      }
      period.kind = PeriodKind::variable;
      // The time-weighted mean rate: arrivals in one cycle over the cycle's length.
      double arrivals = 0;
      double cycle_s = 0;
      for (std::size_t i = 0; i < numbers.size(); i += 2) {
        if (numbers[i] <= 0) fail(option, "v gaps must be positive (got " + shown + ")");
        if (numbers[i + 1] <= 0)
          fail(option, "v step lengths must be positive (got " + shown + ")");
        period.steps.push_back({seconds(numbers[i]), seconds(numbers[i + 1])});
        arrivals += numbers[i + 1] / numbers[i];
        cycle_s += numbers[i + 1];
      }
      period.rate_per_s = arrivals / cycle_s;
      break;
    }
  }
  return period;
}

Period period_of_rate(std::string_view text) {
  constexpr std::string_view option = "--rate";
  const std::string v(text);
  const double rate = parse_real(option, text);
  if (rate < 0) fail(option, "must not be negative (got " + v + ")");
  // The gap 1/rate must be within kMaxSeconds and at least the clock's 1 ns resolution.
  if (rate > 0 && 1 / rate > kMaxSeconds) {
    fail(option, "must be 0 or at least " + format_g(1 / kMaxSeconds) + " (got " + v + ")");
  }
  if (rate > 1e9) fail(option, "must be at most 1e+09 (got " + v + ")");
  Period period;
  period.kind = PeriodKind::deterministic;
  period.mean = rate > 0 ? to_duration(option, 1 / rate, v) : Duration::zero();
  period.rate_per_s = rate;
  return period;
}

std::string echo_period(const Period& period) {
  if (period.sequential()) return "";
  switch (period.kind) {
    case PeriodKind::deterministic:
      return "--rate=" + format_g(period.rate_per_s);
    case PeriodKind::uniform:
      return "--period=u" + format_g(to_s(period.low)) + "," + format_g(to_s(period.high));
    case PeriodKind::exponential:
      return "--period=e" + format_g(to_s(period.mean));
    case PeriodKind::variable: {
      std::string text = "--period=v";
      for (std::size_t i = 0; i < period.steps.size(); ++i) {
        if (i > 0) text += ",";
        text += format_g(to_s(period.steps[i].gap)) + "," + format_g(to_s(period.steps[i].length));
      }
      return text;
    }
  }
  return "";
}

}  // namespace rateperf::options
