#include "search/slo.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>

#include "core/errors.hpp"
#include "core/failure.hpp"
#include "options/values.hpp"

namespace rateperf::search {

namespace {

using options::fail;
using options::format_g;
using options::quoted;

// The percentiles a step's summary holds: the text report's and ab's table's.
struct KnownPercentile {
  std::string_view name;
  double percent;
};
constexpr KnownPercentile kPercentiles[] = {{"p50", 50}, {"p66", 66}, {"p75", 75},
                                            {"p80", 80}, {"p90", 90}, {"p95", 95},
                                            {"p98", 98}, {"p99", 99}, {"p99.9", 99.9}};

std::string_view trim(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  return text;
}

bool is_latency(Metric metric) {
  return metric == Metric::latency_percentile || metric == Metric::latency_max ||
         metric == Metric::latency_mean;
}

[[noreturn]] void bad_term(std::string_view token, const std::string& problem) {
  fail("--slo", quoted(token) + ": " + problem);
}

// The metric's name, setting `term`'s metric and percentile.
void parse_metric(std::string_view token, std::string_view name, SloTerm& term) {
  for (const KnownPercentile& known : kPercentiles) {
    if (name == known.name) {
      term.metric = Metric::latency_percentile;
      term.percentile = known.percent;
      return;
    }
  }
  if (name == "max") {
    term.metric = Metric::latency_max;
  } else if (name == "mean") {
    term.metric = Metric::latency_mean;
  } else if (name == "errors") {
    term.metric = Metric::errors;
  } else if (name == "timeouts") {
    term.metric = Metric::timeouts;
  } else if (name == "non2xx") {
    term.metric = Metric::non_2xx;
  } else if (!name.empty() && name.front() == 'p') {
    bad_term(token, "percentile '" + std::string(name) +
                        "' is not measured (p50, p66, p75, p80, p90, p95, p98, p99, p99.9)");
  } else {
    bad_term(token, "unknown metric '" + std::string(name) +
                        "' (a percentile such as p99, max, mean, errors, timeouts, non2xx)");
  }
}

// The bound in the metric's unit: a time in ms for a latency, a percentage for a share.
double parse_bound(std::string_view token, std::string_view value, Metric metric) {
  std::string_view number = value;
  double scale = 1;
  if (is_latency(metric)) {
    if (number.ends_with("ms")) {
      number.remove_suffix(2);
    } else if (number.ends_with("us")) {
      number.remove_suffix(2);
      scale = 1e-3;
    } else if (number.ends_with("s")) {
      number.remove_suffix(1);
      scale = 1e3;
    } else {
      bad_term(token, "a latency needs a unit (us, ms or s)");
    }
  } else if (number.ends_with("%")) {
    number.remove_suffix(1);
  } else {
    bad_term(token, "a share needs a '%' (e.g. 0.1%)");
  }
  number = trim(number);
  double bound = 0;
  try {
    bound = options::parse_real("--slo", number);
  } catch (const UsageError&) {
    bad_term(token, quoted(number) + " is not a number");
  }
  if (bound < 0) bad_term(token, "the bound must not be negative");
  if (!is_latency(metric) && bound > 100) bad_term(token, "a share is at most 100%");
  return bound * scale;
}

std::string unit_of(Metric metric) {
  return is_latency(metric) ? " ms" : "%";
}

std::string metric_name(const SloTerm& term) {
  switch (term.metric) {
    case Metric::latency_percentile:
      for (const KnownPercentile& known : kPercentiles) {
        if (known.percent == term.percentile) return std::string(known.name);
      }
      return "p" + format_g(term.percentile);
    case Metric::latency_max:
      return "max";
    case Metric::latency_mean:
      return "mean";
    case Metric::errors:
      return "errors";
    case Metric::timeouts:
      return "timeouts";
    case Metric::non_2xx:
      return "non2xx";
  }
  return "?";
}

SloTerm parse_term(std::string_view token) {
  const std::size_t op = token.find('<');
  if (op == std::string_view::npos) {
    bad_term(token, "expected METRIC<=VALUE or METRIC<VALUE, e.g. p99<=100ms");
  }
  SloTerm term;
  parse_metric(token, trim(token.substr(0, op)), term);
  std::string_view rest = token.substr(op + 1);
  if (!rest.empty() && rest.front() == '=') {
    rest.remove_prefix(1);
  } else {
    term.strict = true;
  }
  rest = trim(rest);
  if (rest.empty()) bad_term(token, "no bound after the comparison");
  term.bound = parse_bound(token, rest, term.metric);
  term.text = metric_name(term) + (term.strict ? "<" : "<=") + std::string(rest);
  return term;
}

double share_percent(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

double latency_percentile_ms(const stats::Summary& step, double percent) {
  const stats::Percentiles& latency = step.latency_intended;
  if (percent == 90) return latency.p90_ms;
  if (percent == 99.9) return latency.p999_ms;
  for (std::size_t i = 0; i < stats::kServedWithinPercents.size(); ++i) {
    if (stats::kServedWithinPercents[i] == percent) return step.served_within_ms[i];
  }
  return latency.p99_ms;  // not reached: parse_metric takes the percentiles above only
}

// The step's figure for one metric. A step without a reply has no latency: its latency terms
// fail (an infinite figure) rather than pass on a latency of 0.
double figure(const SloTerm& term, const stats::Summary& step) {
  const bool no_reply = step.latency_intended.count == 0;
  switch (term.metric) {
    case Metric::latency_percentile:
      return no_reply ? HUGE_VAL : latency_percentile_ms(step, term.percentile);
    case Metric::latency_max:
      return no_reply ? HUGE_VAL : step.latency_intended.max_ms;
    case Metric::latency_mean:
      return no_reply ? HUGE_VAL : step.latency_intended.avg_ms;
    case Metric::errors:
      return share_percent(step.errors_total, step.calls);
    case Metric::timeouts:
      return share_percent(count_of(step.errors, ErrorKind::client_timo) +
                               count_of(step.errors, ErrorKind::socket_timo),
                           step.calls);
    case Metric::non_2xx:
      return share_percent(step.replies - step.status_classes[1], step.replies);
  }
  return 0;
}

std::string format_figure(double value) {
  if (value == HUGE_VAL) return "none (no reply)";
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

}  // namespace

std::string Slo::text() const {
  std::string joined;
  for (const SloTerm& term : terms) {
    if (!joined.empty()) joined += ',';
    joined += term.text;
  }
  return joined;
}

Slo parse_slo(std::string_view text) {
  Slo slo;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const std::string_view token = trim(text.substr(begin, comma - begin));
    if (token.empty()) fail("--slo", quoted(text) + ": an empty term (two commas, or none)");
    slo.terms.push_back(parse_term(token));
    begin = comma + 1;
  }
  return slo;
}

std::string Check::describe() const {
  std::string line = metric_name(*term) + " " + format_figure(value) + unit_of(term->metric);
  line += passed ? (term->strict ? " < " : " <= ") : (term->strict ? " >= " : " > ");
  line += format_figure(term->bound) + unit_of(term->metric);
  return line;
}

std::vector<Check> check_slo(const Slo& slo, const stats::Summary& step) {
  std::vector<Check> checks;
  for (const SloTerm& term : slo.terms) {
    Check check;
    check.term = &term;
    check.value = figure(term, step);
    check.passed = term.strict ? check.value < term.bound : check.value <= term.bound;
    checks.push_back(check);
  }
  return checks;
}

double largest_latency_bound_ms(const Slo& slo) {
  double largest = 0;
  for (const SloTerm& term : slo.terms) {
    if (is_latency(term.metric)) largest = std::max(largest, term.bound);
  }
  return largest;
}

}  // namespace rateperf::search
