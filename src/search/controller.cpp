#include "search/controller.hpp"

#include <cmath>
#include <cstdio>

#include "core/errors.hpp"

namespace rateperf::search {

namespace {

// The growth is read from the intervals the schedule covers whole, so that the drain after the
// last arrival (connections closing, nothing arriving) does not pull the slope down.
std::vector<std::pair<double, double>> in_flight_points(const stats::Summary& step) {
  std::vector<std::pair<double, double>> points;
  double outstanding = 0;  // request mode: requests issued and not yet ended
  const double schedule_end = step.issue_window_s + 1e-6;
  for (std::size_t i = 0; i < step.series.size(); ++i) {
    const stats::SeriesFigures& point = step.series[i];
    outstanding += static_cast<double>(point.arrivals) - static_cast<double>(point.replies) -
                   static_cast<double>(point.errors_total);
    const double end = point.start_s + point.length_s;
    if (i == 0 || end > schedule_end) continue;
    points.emplace_back(
        end, step.request_mode ? outstanding : static_cast<double>(point.open_connections));
  }
  return points;
}

// Four significant digits: rates that print as typed, still finer than any resolution.
double round_rate(double rate) {
  if (rate <= 0) return rate;
  const double unit = std::pow(10.0, std::floor(std::log10(rate)) - 3);
  return std::round(rate / unit) * unit;
}

std::string format_rate(double rate) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", rate);
  return text;
}

// True when every failure of a judged step is a latency term that the step's lag p99, taken off
// its figure, would have met: nothing but the client's lateness need have failed it.
bool lag_explains(const Judgement& judgement, const stats::Summary& step) {
  if (judgement.diverging) return false;
  for (const Check& check : judgement.checks) {
    if (check.passed) continue;
    const SloTerm& term = *check.term;
    const bool latency = term.metric == Metric::latency_percentile ||
                         term.metric == Metric::latency_max || term.metric == Metric::latency_mean;
    if (!latency || check.value - step.lag_p99_ms > term.bound) return false;
  }
  return true;
}

}  // namespace

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::pass:
      return "pass";
    case Verdict::fail:
      return "fail";
    case Verdict::client_limited:
      return "client-limited";
  }
  return "?";
}

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::running:
      return "running";
    case Outcome::found:
      return "found";
    case Outcome::below_start:
      return "below-start";
    case Outcome::client_limited:
      return "client-limited";
    case Outcome::max_rate:
      return "max-rate";
    case Outcome::interrupted:
      return "interrupted";
  }
  return "?";
}

Growth in_flight_growth(const stats::Summary& step) {
  const auto points = in_flight_points(step);
  Growth growth;
  if (points.size() < 3) return growth;
  double mean_t = 0;
  double mean_y = 0;
  for (const auto& [t, y] : points) {
    mean_t += t;
    mean_y += y;
  }
  mean_t /= static_cast<double>(points.size());
  mean_y /= static_cast<double>(points.size());
  double covariance = 0;
  double variance = 0;
  for (const auto& [t, y] : points) {
    covariance += (t - mean_t) * (y - mean_y);
    variance += (t - mean_t) * (t - mean_t);
  }
  if (variance <= 0) return growth;
  growth.slope_per_s = covariance / variance;
  growth.grown = growth.slope_per_s * (points.back().first - points.front().first);
  return growth;
}

Judgement judge_step(const Slo& slo, const stats::Summary& step, double divergence_fraction) {
  Judgement judgement;
  judgement.checks = check_slo(slo, step);
  const Growth growth = in_flight_growth(step);
  judgement.in_flight_slope_per_s = growth.slope_per_s;
  judgement.diverging = growth.slope_per_s >= divergence_fraction * step.offered_rate_per_s &&
                        growth.grown >= kLeastDivergence;

  char text[200];
  if (step.issued_rate_per_s < 0.99 * step.offered_rate_per_s) {
    std::snprintf(text, sizeof text, "the client issued %.6g/s of the %.6g/s offered",
                  step.issued_rate_per_s, step.offered_rate_per_s);
    judgement.reasons.emplace_back(text);
  }
  for (const ErrorKind kind :
       {ErrorKind::fd_unavail, ErrorKind::addrunavail, ErrorKind::ftab_full}) {
    if (const std::uint64_t n = count_of(step.errors, kind); n > 0) {
      judgement.reasons.push_back("the client ran out of resources (" + std::to_string(n) + " " +
                                  std::string(error_label(kind)) + ")");
    }
  }
  if (!judgement.reasons.empty()) {
    judgement.verdict = Verdict::client_limited;
    return judgement;
  }
  for (const Check& check : judgement.checks) {
    if (!check.passed) judgement.reasons.push_back(check.describe());
  }
  if (judgement.diverging) {
    std::snprintf(text, sizeof text, "open connections grew %.3g/s (%.0f in the step)",
                  growth.slope_per_s, growth.grown);
    judgement.reasons.emplace_back(text);
  }
  judgement.verdict = judgement.reasons.empty() ? Verdict::pass : Verdict::fail;
  // A late client: the latency from the intended start counts its lag, so a step that passed
  // passed with it; one that failed only on latency terms, each by no more than the lag, may
  // have failed on the client's lateness rather than the server's.
  if (judgement.verdict == Verdict::fail && step.client_limited && lag_explains(judgement, step)) {
    std::snprintf(text, sizeof text,
                  "the client fell behind its schedule (lag p99 %.3g ms), as late as the latency "
                  "terms failed by",
                  step.lag_p99_ms);
    judgement.reasons.assign(1, text);
    judgement.verdict = Verdict::client_limited;
  }
  return judgement;
}

Controller::Controller(const Settings& settings) : settings_(settings), rate_(settings.start_rate) {
  if (settings_.max_rate > 0 && rate_ > settings_.max_rate) rate_ = settings_.max_rate;
}

void Controller::record(Verdict verdict) {
  if (done()) return;
  ++(verdict == Verdict::pass ? passes_ : verdict == Verdict::fail ? fails_ : limits_);
  const int majority = settings_.repeat / 2 + 1;
  if (limits_ >= majority) {
    limited_ = rate_;
    outcome_ = Outcome::client_limited;
  } else if (passes_ >= majority || (!bisecting_ && passes_ == 1 && fails_ + limits_ == 0)) {
    decided(true);
  } else if (fails_ >= majority) {
    decided(false);
  } else if (passes_ + fails_ + limits_ >= settings_.repeat) {
    decided(passes_ > fails_);  // no majority (runs the client limited): a tie fails
  }
}

void Controller::interrupt() {
  if (!done()) outcome_ = Outcome::interrupted;
}

void Controller::decided(bool passed) {
  passes_ = 0;
  fails_ = 0;
  limits_ = 0;
  if (!passed) {
    failed_ = rate_;
    if (passed_ == 0) {
      outcome_ = Outcome::below_start;
      return;
    }
    bisecting_ = true;
    bisect();
    return;
  }
  passed_ = rate_;
  if (bisecting_) {
    bisect();
  } else if (settings_.max_rate > 0 && rate_ >= settings_.max_rate) {
    outcome_ = Outcome::max_rate;
  } else {
    rate_ *= 2;
    if (settings_.max_rate > 0 && rate_ > settings_.max_rate) rate_ = settings_.max_rate;
  }
}

void Controller::bisect() {
  if (failed_ - passed_ <= settings_.resolution * passed_) {
    outcome_ = Outcome::found;
    return;
  }
  const double middle = (passed_ + failed_) / 2;
  const double rounded = round_rate(middle);
  rate_ = rounded > passed_ && rounded < failed_ ? rounded : middle;
}

std::string capacity_line(const Controller& controller, const std::string& unit) {
  std::string line = "Capacity [" + unit + "]: ";
  const double passed = controller.passed_rate();
  const double failed = controller.failed_rate();
  if (controller.outcome() == Outcome::found) {
    char text[64];
    std::snprintf(text, sizeof text, "%.1f +- %.1f", controller.capacity(),
                  controller.uncertainty());
    return line + text;
  }
  if (passed > 0 && failed > 0) {
    line += "between " + format_rate(passed) + " and " + format_rate(failed);
  } else if (passed > 0) {
    line += ">= " + format_rate(passed);
  } else if (failed > 0) {
    line += "< " + format_rate(failed);
  } else {
    line += "unknown";
  }
  switch (controller.outcome()) {
    case Outcome::below_start:
      return line + " (below the start rate)";
    case Outcome::client_limited:
      return line + " (the client was the limit at " + format_rate(controller.limited_rate()) + ")";
    case Outcome::max_rate:
      return line + " (--max-rate reached)";
    case Outcome::interrupted:
      return line + " (interrupted)";
    default:
      return line;
  }
}

}  // namespace rateperf::search
