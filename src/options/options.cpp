#include "options/options.hpp"

#include <boost/program_options.hpp>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string_view>
#include <system_error>
#include <utility>

#include "options/help.hpp"
#include "options/text.hpp"
#include "options/url.hpp"

#ifndef RATEPERF_VERSION
#define RATEPERF_VERSION "dev"
#endif

namespace rateperf::options {

namespace {

namespace po = boost::program_options;

// The longest span any option may give, in seconds (about 11.6 days). It keeps every value, and
// the sums a schedule makes of them, far inside a 64-bit count of nanoseconds.
constexpr double max_seconds = 1e6;
constexpr std::uint64_t no_limit = std::numeric_limits<std::uint64_t>::max();

[[noreturn]] void fail(std::string_view option, const std::string& problem) {
  throw UsageError(std::string(option) + ": " + problem);
}

std::string format_g(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
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

// Seconds as typed on the command line: non-negative and at most max_seconds.
double parse_seconds(std::string_view option, std::string_view text) {
  const double value = parse_real(option, text);
  if (value < 0) fail(option, "must not be negative (got " + std::string(text) + ")");
  if (value > max_seconds) {
    fail(option, "must be at most " + format_g(max_seconds) + " s (got " + std::string(text) + ")");
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
                          std::uint64_t max = no_limit) {
  const double approx = parse_real(option, text);
  auto out_of_range = [&]() {
    std::string rule;
    if (approx > 0 && max == no_limit) {
      rule = "too large";
    } else if (max != no_limit) {
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

struct ParsedPeriod {
  Period period;
  double rate_per_s = 0;
};

// --period [d|u|e|v]T1[,T2...], every number in seconds. Zero gaps are refused except for d0,
// which is httperf's "sequential"; for e, u and v they would ask for an infinite rate.
ParsedPeriod parse_period(std::string_view text) {
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
    if (value > max_seconds) {
      fail(option, "numbers must be at most " + format_g(max_seconds) + " s (got " + shown + ")");
    }
    numbers.push_back(value);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }

  auto seconds = [&](double s) { return to_duration(option, s, shown); };
  ParsedPeriod result;
  Period& period = result.period;
  switch (letter) {
    case 'd':
      if (numbers.size() != 1)
        fail(option, "d takes one number, the gap in seconds (got " + shown + ")");
      period.kind = PeriodKind::deterministic;
      period.mean = seconds(numbers[0]);
      result.rate_per_s = numbers[0] > 0 ? 1 / numbers[0] : 0;
      break;
    case 'e':
      if (numbers.size() != 1)
        fail(option, "e takes one number, the mean gap in seconds (got " + shown + ")");
      if (numbers[0] <= 0) fail(option, "the mean gap of e must be positive (got " + shown + ")");
      period.kind = PeriodKind::exponential;
      period.mean = seconds(numbers[0]);
      result.rate_per_s = 1 / numbers[0];
      break;
    case 'u':
      if (numbers.size() != 2) fail(option, "u takes two numbers, T1,T2 (got " + shown + ")");
      if (numbers[0] > numbers[1]) fail(option, "u needs T1 <= T2 (got " + shown + ")");
      if (numbers[1] <= 0) fail(option, "u needs T2 > 0 (got " + shown + ")");
      period.kind = PeriodKind::uniform;
      period.low = seconds(numbers[0]);
      period.high = seconds(numbers[1]);
      result.rate_per_s = 2 / (numbers[0] + numbers[1]);
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
      result.rate_per_s = arrivals / cycle_s;
      break;
    }
  }
  return result;
}

// Options that may appear more than once: --add-header and --verbose accumulate, a repeated
// --quiet, --help or --version changes nothing, and URLs are counted after the loop. Every other
// option takes one value and may appear once.
bool repeatable(const std::string& key) {
  return key == "add-header" || key == "verbose" || key == "quiet" || key == "url" ||
         key == "help" || key == "version";
}

}  // namespace

Parsed parse(int argc, const char* const* argv) {
  const Descriptions descriptions = make_descriptions();

  // The raw parse keeps every occurrence in order; no variables_map, so that repeated --verbose
  // counts and the messages for bad values are ours. Boost's own errors (unknown option, missing
  // value) are already one line naming the option.
  std::vector<po::option> raw;
  try {
    po::positional_options_description positional;
    positional.add("url", -1);
    raw = po::command_line_parser(argc, argv)
              .options(descriptions.all)
              .positional(positional)
              .run()
              .options;
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }

  Parsed result;
  Config& config = result.config;
  if (argc > 0 && argv[0] != nullptr && argv[0][0] != '\0') config.argv0 = argv[0];

  std::map<std::string, std::string> given;  // single-valued options
  std::vector<std::string> urls;
  for (const po::option& option : raw) {
    const std::string& key = option.string_key;
    const std::string value = option.value.empty() ? std::string() : option.value.front();
    if (key == "help") result.action = Action::help;
    if (key == "version" && result.action == Action::run) result.action = Action::version;
    if (key == "verbose") ++config.verbose;
    if (key == "quiet") config.quiet = true;
    if (key == "add-header") config.add_headers.push_back(value);
    if (key == "url") urls.push_back(value);
    if (!repeatable(key) && !given.emplace(key, value).second)
      fail("--" + key, "given more than once");
  }
  // Help and version answer whatever else the command line holds, as GNU tools do.
  if (result.action == Action::help) {
    result.text = help_text(descriptions);
    return result;
  }
  if (result.action == Action::version) {
    result.text = "rateperf " RATEPERF_VERSION "\n";
    return result;
  }

  auto get = [&](const char* key) -> const std::string* {
    const auto found = given.find(key);
    return found == given.end() ? nullptr : &found->second;
  };

  // A URL fills server, port and uri; explicit --server, --port and --uri then override its
  // parts, whatever their order on the line, so a URL can be reused with one part changed.
  if (urls.size() > 1) {
    throw UsageError("only one URL may be given (got " + quoted(urls[0]) + " and " +
                     quoted(urls[1]) + ")");
  }
  if (urls.size() == 1) {
    const Url url = parse_url(urls[0]);
    config.server = url.host;
    config.port = url.port;
    config.uri = url.target;
  }
  if (const auto* v = get("server")) config.server = check_host("--server", *v);
  if (const auto* v = get("port"))
    config.port = static_cast<std::uint16_t>(parse_whole("--port", *v, 1, 65535));
  if (const auto* v = get("uri")) config.uri = check_uri("--uri", *v);
  if (const auto* v = get("server-name")) config.server_name = check_host("--server-name", *v);

  if (get("rate") != nullptr && get("period") != nullptr)
    throw UsageError("--rate and --period are exclusive");
  if (const auto* v = get("rate")) {
    const double rate = parse_real("--rate", *v);
    if (rate < 0) fail("--rate", "must not be negative (got " + *v + ")");
    // The gap 1/rate must be within max_seconds and at least the clock's 1 ns resolution.
    if (rate > 0 && 1 / rate > max_seconds) {
      fail("--rate", "must be 0 or at least " + format_g(1 / max_seconds) + " (got " + *v + ")");
    }
    if (rate > 1e9) fail("--rate", "must be at most 1e+09 (got " + *v + ")");
    config.rate_given = true;
    config.rate_per_s = rate;
    config.period.kind = PeriodKind::deterministic;
    config.period.mean = rate > 0 ? to_duration("--rate", 1 / rate, *v) : Duration::zero();
  }
  if (const auto* v = get("period")) {
    ParsedPeriod period = parse_period(*v);
    config.period_given = true;
    config.period_text = *v;
    config.period = std::move(period.period);
    config.rate_per_s = period.rate_per_s;
  }

  if (const auto* v = get("num-conns")) config.num_conns = parse_whole("--num-conns", *v, 1);
  if (const auto* v = get("num-calls")) {
    config.num_calls = parse_whole("--num-calls", *v, 1);
    if (config.num_calls > 1) {
      fail("--num-calls", "values above 1 need keep-alive, which rateperf does not support yet");
    }
  }
  if (const auto* v = get("timeout")) {
    config.timeout_s = parse_seconds("--timeout", *v);
    config.timeout = to_duration("--timeout", config.timeout_s, *v);
  }
  if (const auto* v = get("think-timeout")) {
    config.think_timeout_s = parse_seconds("--think-timeout", *v);
    config.think_timeout = to_duration("--think-timeout", config.think_timeout_s, *v);
  }

  if (const auto* v = get("method")) {
    if (!is_token(*v)) fail("--method", quoted(*v) + " is not a valid method name");
    config.method = *v;
  }
  if (const auto* v = get("http-version")) {
    if (*v != "1.0" && *v != "1.1")
      fail("--http-version", "expected 1.0 or 1.1 (got " + quoted(*v) + ")");
    config.http_version = *v;
  }

  constexpr std::uint64_t max_buffer = std::numeric_limits<std::uint32_t>::max();
  if (const auto* v = get("send-buffer")) {
    config.send_buffer_bytes =
        static_cast<std::uint32_t>(parse_whole("--send-buffer", *v, 1, max_buffer));
    config.send_buffer_given = true;
  }
  if (const auto* v = get("recv-buffer")) {
    config.recv_buffer_bytes =
        static_cast<std::uint32_t>(parse_whole("--recv-buffer", *v, 1, max_buffer));
    config.recv_buffer_given = true;
  }

  if (const auto* v = get("client")) {
    const std::string_view text = *v;
    const std::size_t slash = text.find('/');
    std::uint32_t id = 0;
    std::uint32_t count = 0;
    bool ok = slash != std::string_view::npos;
    if (ok) {
      const auto [p1, e1] = std::from_chars(text.data(), text.data() + slash, id);
      const auto [p2, e2] =
          std::from_chars(text.data() + slash + 1, text.data() + text.size(), count);
      ok = e1 == std::errc() && p1 == text.data() + slash && e2 == std::errc() &&
           p2 == text.data() + text.size() && id < count;
    }
    if (!ok) fail("--client", "expected I/N with 0 <= I < N (got " + quoted(text) + ")");
    config.client_id = id;
    config.client_count = count;
  }

  // Without --seed, clients of one run draw different gaps while a repeated run draws the same.
  if (const auto* v = get("seed")) {
    config.seed = parse_whole("--seed", *v, 0);
    config.seed_given = true;
  } else {
    config.seed = 1 + std::uint64_t{config.client_id};
  }

  // Output. An empty name is refused here rather than failing at the end of a long run.
  if (const auto* v = get("json")) {
    if (v->empty()) fail("--json", "expects a file name or -");
    config.json_path = *v;
  }
  if (const auto* v = get("csv")) {
    if (v->empty()) fail("--csv", "expects a file name or -");
    config.csv_path = *v;
  }
  // Two documents one after the other on stdout could not be told apart by whatever reads it.
  if (config.json_path == "-" && config.csv_path == "-")
    throw UsageError("--json and --csv cannot both write to stdout");

  // Thresholds. Zero lag would fail every run, so "none" is spelt by leaving the option out.
  if (const auto* v = get("max-lag")) {
    const double lag_ms = parse_real("--max-lag", *v);
    if (lag_ms <= 0) fail("--max-lag", "must be greater than 0 (got " + *v + ")");
    if (lag_ms > max_seconds * 1000) {
      fail("--max-lag", "must be at most " + format_g(max_seconds * 1000) + " ms (got " + *v + ")");
    }
    config.max_lag = to_duration("--max-lag", lag_ms / 1000, *v);
  }
  if (const auto* v = get("max-error-rate")) {
    const double percent = parse_real("--max-error-rate", *v);
    if (percent < 0 || percent > 100)
      fail("--max-error-rate", "must be within 0..100 (got " + *v + ")");
    config.max_error_rate_percent = percent;
  }
  return result;
}

std::string echo_command_line(const Config& config) {
  // The program's own name, as httperf prints "httperf" whatever path started it.
  std::string line = config.argv0.substr(config.argv0.rfind('/') + 1);
  if (line.empty()) line = "rateperf";
  auto add = [&](const std::string& text) { line += " " + text; };

  // httperf's order; options it does not have (--seed, the thresholds) come last. The output
  // options (--json, --csv, --quiet) are left out: they change where results go, not the run,
  // and httperf's line has none of them.
  if (config.verbose > 0) add("--verbose");
  if (config.think_timeout_s > 0) add("--think-timeout=" + format_g(config.think_timeout_s));
  if (config.timeout_s > 0) add("--timeout=" + format_g(config.timeout_s));
  add("--client=" + std::to_string(config.client_id) + "/" + std::to_string(config.client_count));
  add("--server=" + config.server);
  // httperf spells this one --server_name here, which it would not accept back; we echo the
  // spelling the option has.
  if (!config.server_name.empty()) add("--server-name=" + config.server_name);
  add("--port=" + std::to_string(config.port));
  add("--uri=" + config.uri);
  if (config.http_version != "1.1") add("--http-version=" + config.http_version);
  // Like httperf, a fixed period is echoed as the rate it amounts to, and a sequential run
  // (rate 0) shows neither.
  const Period& period = config.period;
  if (!period.sequential()) {
    switch (period.kind) {
      case PeriodKind::deterministic:
        add("--rate=" + format_g(config.rate_per_s));
        break;
      case PeriodKind::uniform:
        add("--period=u" + format_g(to_s(period.low)) + "," + format_g(to_s(period.high)));
        break;
      case PeriodKind::exponential:
        add("--period=e" + format_g(to_s(period.mean)));
        break;
      case PeriodKind::variable: {
        std::string text = "--period=v";
        for (std::size_t i = 0; i < period.steps.size(); ++i) {
          if (i > 0) text += ",";
          text +=
              format_g(to_s(period.steps[i].gap)) + "," + format_g(to_s(period.steps[i].length));
        }
        add(text);
        break;
      }
    }
  }
  add("--send-buffer=" + std::to_string(config.send_buffer_bytes));
  add("--recv-buffer=" + std::to_string(config.recv_buffer_bytes));
  for (const std::string& header : config.add_headers) add("--add-header='" + header + "'");
  if (config.method != "GET") add("--method=" + config.method);
  add("--num-conns=" + std::to_string(config.num_conns));
  add("--num-calls=" + std::to_string(config.num_calls));
  if (config.seed_given) add("--seed=" + std::to_string(config.seed));
  if (config.max_lag > Duration::zero()) add("--max-lag=" + format_g(to_ms(config.max_lag)));
  if (config.max_error_rate_percent >= 0)
    add("--max-error-rate=" + format_g(config.max_error_rate_percent));
  return line;
}

}  // namespace rateperf::options
