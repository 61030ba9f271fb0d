#include "stats/record.hpp"

#include <mutex>
#include <set>
#include <stdexcept>
#include <string>

namespace rateperf::stats {

using nlohmann::json;

namespace {

// The 128-bit sum of a histogram as decimal text (JSON numbers stop at 64 bits).
template <typename Sum>
std::string sum_text(Sum sum) {
  if (sum == 0) return "0";
  std::string digits;
  for (; sum > 0; sum /= 10) digits.insert(digits.begin(), static_cast<char>('0' + sum % 10));
  return digits;
}

template <typename Sum>
Sum sum_of(const std::string& text) {
  if (text.empty() || text.size() > 39)
    throw std::runtime_error("a histogram's sum is not a number");
  Sum sum = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') throw std::runtime_error("a histogram's sum is not a number");
    sum = sum * 10 + static_cast<unsigned>(c - '0');
  }
  return sum;
}

// TLS names are OpenSSL's static strings in a live run; read back, they live here for the
// process's life (a handful of distinct names).
const char* interned(const json& value) {
  if (value.is_null()) return nullptr;
  static std::mutex mutex;
  static std::set<std::string> names;
  const std::lock_guard lock(mutex);
  return names.insert(value.get<std::string>()).first->c_str();
}

std::int64_t offset_ns(TimePoint t, TimePoint start) {
  return (t - start).count();
}
TimePoint at_ns(const json& value, TimePoint start) {
  return start + Duration(value.get<std::int64_t>());
}

}  // namespace

json write_buckets(const SparseBuckets& b) {
  return {{"count", b.count}, {"max", b.max}, {"buckets", b.counts}};
}

SparseBuckets read_buckets(const json& j) {
  SparseBuckets b;
  b.count = j.at("count").get<std::uint64_t>();
  b.max = j.at("max").get<std::uint64_t>();
  b.counts = j.at("buckets").get<decltype(b.counts)>();
  std::uint64_t counted = 0;
  for (const auto& [bucket, n] : b.counts) {
    if (bucket >= Histogram::bucket_count())
      throw std::runtime_error("a series bucket is out of range");
    counted += n;
  }
  if (counted != b.count) throw std::runtime_error("a series interval's buckets do not add up");
  return b;
}

json write_series(const std::vector<SeriesPoint>& points, Duration interval, TimePoint start) {
  json out = json::array();
  for (const SeriesPoint& p : points) {
    out.push_back({{"start_ns", offset_ns(p.start, start)},
                   {"length_ns", p.length.count()},
                   {"arrivals", p.arrivals},
                   {"replies", p.replies},
                   {"errors", p.errors},
                   {"open", p.open},
                   {"latency", write_buckets(p.latency)},
                   {"lag", write_buckets(p.lag)}});
  }
  return {{"interval_ns", interval.count()}, {"points", std::move(out)}};
}

// Friend of Histogram and Collector: their fields, in and out.
struct RecordCodec {
  static json write(const Histogram& h) {
    json buckets = json::array();  // [index, count] of every bucket that is not empty
    for (std::size_t i = 0; i < h.buckets_.size(); ++i) {
      if (h.buckets_[i] != 0) buckets.push_back({i, h.buckets_[i]});
    }
    return {{"count", h.count_},
            {"min", h.min_},
            {"max", h.max_},
            {"sum", sum_text(h.sum_)},
            {"mean", h.running_mean_},
            {"squared_deviations", h.squared_deviations_},
            {"buckets", std::move(buckets)}};
  }

  static void read(const json& j, Histogram& h) {
    h.count_ = j.at("count").get<std::uint64_t>();
    h.min_ = j.at("min").get<std::uint64_t>();
    h.max_ = j.at("max").get<std::uint64_t>();
    h.sum_ = sum_of<Histogram::Sum>(j.at("sum").get<std::string>());
    h.running_mean_ = j.at("mean").get<double>();
    h.squared_deviations_ = j.at("squared_deviations").get<double>();
    std::uint64_t counted = 0;
    for (const json& bucket : j.at("buckets")) {
      const auto index = bucket.at(0).get<std::size_t>();
      if (index >= h.buckets_.size())
        throw std::runtime_error("a histogram bucket is out of range");
      h.buckets_[index] = bucket.at(1).get<std::uint64_t>();
      counted += h.buckets_[index];
    }
    if (counted != h.count_)
      throw std::runtime_error("a histogram's buckets do not add up to its count");
  }

  // [[bytes, replies], ...]
  static json body_lengths(const Collector& c) {
    json pairs = json::array();
    for (const Collector::BodyLength& length : c.body_lengths_) {
      pairs.push_back({length.bytes, length.replies});
    }
    return pairs;
  }

  static json write(const Collector& c, TimePoint start) {
    json samples = json::array();
    for (const IntervalSample& s : c.samples_) {
      samples.push_back(
          {offset_ns(s.start, start), offset_ns(s.end, start), s.replies, s.errors, s.sessions});
    }
    return {
        {"arrivals", c.arrivals_},
        {"late_arrivals", c.late_arrivals_},
        {"max_burst", c.max_burst_},
        {"moved_arrivals", c.moved_arrivals_},
        {"connections", c.connections_},
        {"open", c.open_},
        {"max_concurrent", c.max_concurrent()},
        {"max_concurrent_is_bound", c.max_concurrent_is_bound()},
        {"connects", c.connects_},
        {"requests", c.requests_},
        {"request_bytes", c.request_bytes_},
        {"replies", c.replies_},
        {"reply_header_bytes", c.reply_header_bytes_},
        {"reply_body_bytes", c.reply_body_bytes_},
        {"reply_footer_bytes", c.reply_footer_bytes_},
        {"connections_with_reply", c.connections_with_reply_},
        {"replies_on_answered_connections", c.replies_on_answered_connections_},
        {"status_classes", c.status_classes_},
        {"errors", c.errors_},
        {"lag", write(c.lag_)},
        {"connect", write(c.connect_)},
        {"response", write(c.response_)},
        {"transfer", write(c.transfer_)},
        {"lifetime", write(c.lifetime_)},
        {"latency_intended", write(c.latency_intended_)},
        {"latency_actual", write(c.latency_actual_)},
        {"request_wait", write(c.request_wait_)},
        {"call_connect", write(c.call_connect_)},
        {"processing", write(c.processing_)},
        {"kernel_replies", c.kernel_replies_},
        {"kernel_sends", c.kernel_sends_},
        {"user_response", write(c.user_response_)},
        {"user_transfer", write(c.user_transfer_)},
        {"user_latency", write(c.user_latency_)},
        {"body_lengths", body_lengths(c)},
        {"other_body_lengths", c.other_body_lengths_},
        {"tls_full", c.tls_full_},
        {"tls_resumed", c.tls_resumed_},
        {"tls_handshake", write(c.tls_handshake_)},
        {"tls_protocol", c.tls_protocol_ ? json(c.tls_protocol_) : json(nullptr)},
        {"tls_cipher", c.tls_cipher_ ? json(c.tls_cipher_) : json(nullptr)},
        {"sessions_completed", c.sessions_completed_},
        {"sessions_failed", c.sessions_failed_},
        {"session_lifetime_ns", c.session_lifetime_sum_.count()},
        {"session_failtime_ns", c.session_failtime_sum_.count()},
        {"session_connections", c.session_connections_},
        {"session_lengths", c.session_lengths_},
        {"samples", std::move(samples)},
        {"series", write_series(c.series_.points(), c.series_.interval(), start)},
    };
  }

  static Collector read(const json& j, TimePoint samples_from) {
    // A gauge of its own with the run's peak: merged with another, the peaks add (a bound). A
    // record of a bound stays one: its peak is then a merged part's.
    const auto peak = j.at("max_concurrent").get<std::uint64_t>();
    const bool bound = j.at("max_concurrent_is_bound").get<bool>();
    Collector c(std::make_shared<OpenGauge>(bound ? 0 : peak));
    if (bound) c.merged_peaks_ = peak;
    c.arrivals_ = j.at("arrivals").get<std::uint64_t>();
    c.late_arrivals_ = j.at("late_arrivals").get<std::uint64_t>();
    c.max_burst_ = j.at("max_burst").get<std::uint64_t>();
    // Dumps of versions before --threads moved arrivals have none.
    c.moved_arrivals_ = j.value("moved_arrivals", std::uint64_t{0});
    c.connections_ = j.at("connections").get<std::uint64_t>();
    c.open_ = j.at("open").get<std::uint64_t>();
    c.connects_ = j.at("connects").get<std::uint64_t>();
    c.requests_ = j.at("requests").get<std::uint64_t>();
    c.request_bytes_ = j.at("request_bytes").get<std::uint64_t>();
    c.replies_ = j.at("replies").get<std::uint64_t>();
    c.reply_header_bytes_ = j.at("reply_header_bytes").get<std::uint64_t>();
    c.reply_body_bytes_ = j.at("reply_body_bytes").get<std::uint64_t>();
    c.reply_footer_bytes_ = j.at("reply_footer_bytes").get<std::uint64_t>();
    c.connections_with_reply_ = j.at("connections_with_reply").get<std::uint64_t>();
    c.replies_on_answered_connections_ =
        j.at("replies_on_answered_connections").get<std::uint64_t>();
    c.status_classes_ = j.at("status_classes").get<decltype(c.status_classes_)>();
    c.errors_ = j.at("errors").get<ErrorCounts>();
    read(j.at("lag"), c.lag_);
    read(j.at("connect"), c.connect_);
    read(j.at("response"), c.response_);
    read(j.at("transfer"), c.transfer_);
    read(j.at("lifetime"), c.lifetime_);
    read(j.at("latency_intended"), c.latency_intended_);
    read(j.at("latency_actual"), c.latency_actual_);
    read(j.at("request_wait"), c.request_wait_);
    // Records older than ab's figures (--format ab) have none of them.
    if (j.contains("call_connect")) read(j.at("call_connect"), c.call_connect_);
    if (j.contains("processing")) read(j.at("processing"), c.processing_);
    // Records older than --clock have the client's figures only: those of every reply.
    c.kernel_replies_ = j.value("kernel_replies", std::uint64_t{0});
    c.kernel_sends_ = j.value("kernel_sends", std::uint64_t{0});
    read(j.contains("user_response") ? j.at("user_response") : j.at("response"), c.user_response_);
    read(j.contains("user_transfer") ? j.at("user_transfer") : j.at("transfer"), c.user_transfer_);
    read(j.contains("user_latency") ? j.at("user_latency") : j.at("latency_intended"),
         c.user_latency_);
    if (j.contains("body_lengths")) {
      for (const json& pair : j.at("body_lengths")) {
        c.body_lengths_.push_back(
            {pair.at(0).get<std::uint64_t>(), pair.at(1).get<std::uint64_t>()});
      }
    }
    c.other_body_lengths_ = j.value("other_body_lengths", std::uint64_t{0});
    c.tls_full_ = j.at("tls_full").get<std::uint64_t>();
    c.tls_resumed_ = j.at("tls_resumed").get<std::uint64_t>();
    read(j.at("tls_handshake"), c.tls_handshake_);
    c.tls_protocol_ = interned(j.at("tls_protocol"));
    c.tls_cipher_ = interned(j.at("tls_cipher"));
    c.sessions_completed_ = j.at("sessions_completed").get<std::uint64_t>();
    c.sessions_failed_ = j.at("sessions_failed").get<std::uint64_t>();
    c.session_lifetime_sum_ = Duration(j.at("session_lifetime_ns").get<std::int64_t>());
    c.session_failtime_sum_ = Duration(j.at("session_failtime_ns").get<std::int64_t>());
    c.session_connections_ = j.at("session_connections").get<std::uint64_t>();
    c.session_lengths_ = j.at("session_lengths").get<std::vector<std::uint64_t>>();
    for (const json& s : j.at("samples")) {
      c.samples_.push_back({at_ns(s.at(0), samples_from), at_ns(s.at(1), samples_from),
                            s.at(2).get<std::uint64_t>(), s.at(3).get<std::uint64_t>(),
                            s.at(4).get<std::uint64_t>()});
    }
    // The series (a dump of before it had none).
    if (j.contains("series")) {
      const json& series = j.at("series");
      std::vector<SeriesPoint> points;
      for (const json& p : series.at("points")) {
        SeriesPoint point;
        point.start = at_ns(p.at("start_ns"), samples_from);
        point.length = Duration(p.at("length_ns").get<std::int64_t>());
        point.arrivals = p.at("arrivals").get<std::uint64_t>();
        point.replies = p.at("replies").get<std::uint64_t>();
        point.errors = p.at("errors").get<ErrorCounts>();
        point.open = p.at("open").get<std::uint64_t>();
        point.latency = read_buckets(p.at("latency"));
        point.lag = read_buckets(p.at("lag"));
        points.push_back(std::move(point));
      }
      const Duration interval(series.at("interval_ns").get<std::int64_t>());
      if (interval <= Duration::zero())
        throw std::runtime_error("the series' interval is not above 0");
      c.series_.restore(interval, std::move(points));
    }
    return c;
  }
};

json write_record(const Collector& collector, const RunInfo& info) {
  const TimingFigures& t = info.timing;
  return {
      {"collector", RecordCodec::write(collector, info.start)},
      {"run",
       {{"command_line", info.command_line},
        {"end_ns", offset_ns(info.end, info.start)},
        {"first_arrival_ns", offset_ns(info.first_arrival, info.start)},
        {"last_arrival_ns", offset_ns(info.last_arrival, info.start)},
        {"first_intended_ns", offset_ns(info.first_intended, info.start)},
        {"last_intended_ns", offset_ns(info.last_intended, info.start)},
        {"cpu_user_s", info.cpu_user_s},
        {"cpu_system_s", info.cpu_system_s},
        {"offered_rate_per_s", info.offered_rate_per_s},
        {"request_mode", info.request_mode},
        {"concurrency", info.concurrency},
        {"think_s", info.think_s},
        {"sessions", info.sessions},
        {"tls", info.tls},
        {"interrupted", info.interrupted},
        {"verbose", info.verbose},
        {"start_time_utc", info.start_time_utc},
        {"clock_kernel", info.clock_kernel},
        {"clock_fallback", info.clock_fallback},
        {"batch_reads_s", info.batch_reads_s},
        {"wall_clock_steps", info.wall_clock_steps},
        {"largest_step_ms", info.largest_step_ms},
        {"timing",
         {{"mode", t.mode},
          {"sleeps", t.sleeps},
          {"polls", t.polls},
          {"timer_arms", t.timer_arms},
          {"timer_wakeups", t.timer_wakeups},
          {"lateness_p50_ms", t.lateness_p50_ms},
          {"lateness_p99_ms", t.lateness_p99_ms},
          {"margin_ms", t.margin_ms},
          {"poll_below_ms", t.poll_below_ms},
          {"turn_ms", t.turn_ms}}}}},
  };
}

Record read_record(const json& value, TimePoint start, TimePoint samples_from) {
  try {
    Record record{RecordCodec::read(value.at("collector"), samples_from), RunInfo{}};
    const json& run = value.at("run");
    RunInfo& info = record.info;
    info.start = start;
    info.command_line = run.at("command_line").get<std::string>();
    info.end = at_ns(run.at("end_ns"), start);
    info.first_arrival = at_ns(run.at("first_arrival_ns"), start);
    info.last_arrival = at_ns(run.at("last_arrival_ns"), start);
    info.first_intended = at_ns(run.at("first_intended_ns"), start);
    info.last_intended = at_ns(run.at("last_intended_ns"), start);
    info.cpu_user_s = run.at("cpu_user_s").get<double>();
    info.cpu_system_s = run.at("cpu_system_s").get<double>();
    info.offered_rate_per_s = run.at("offered_rate_per_s").get<double>();
    info.request_mode = run.at("request_mode").get<bool>();
    // Dumps older than the closed loop (--concurrency) have neither.
    info.concurrency = run.value("concurrency", std::uint64_t{0});
    info.think_s = run.value("think_s", 0.0);
    info.sessions = run.at("sessions").get<bool>();
    info.tls = run.at("tls").get<bool>();
    info.interrupted = run.at("interrupted").get<bool>();
    info.verbose = run.at("verbose").get<bool>();
    info.start_time_utc = run.at("start_time_utc").get<std::string>();
    // Dumps older than --clock were timed by the client's clock alone.
    info.clock_kernel = run.value("clock_kernel", false);
    info.clock_fallback = run.value("clock_fallback", std::string());
    info.batch_reads_s = run.value("batch_reads_s", 0.0);
    info.wall_clock_steps = run.value("wall_clock_steps", std::uint64_t{0});
    info.largest_step_ms = run.value("largest_step_ms", 0.0);
    const json& t = run.at("timing");
    info.timing.mode = t.at("mode").get<std::string>();
    info.timing.sleeps = t.at("sleeps").get<std::uint64_t>();
    info.timing.polls = t.at("polls").get<std::uint64_t>();
    info.timing.timer_arms = t.at("timer_arms").get<std::uint64_t>();
    info.timing.timer_wakeups = t.at("timer_wakeups").get<std::uint64_t>();
    info.timing.lateness_p50_ms = t.at("lateness_p50_ms").get<double>();
    info.timing.lateness_p99_ms = t.at("lateness_p99_ms").get<double>();
    info.timing.margin_ms = t.at("margin_ms").get<double>();
    info.timing.poll_below_ms = t.at("poll_below_ms").get<double>();
    // Dumps older than auto's turns took turns only with --timing batch, and said nothing.
    info.timing.turn_ms = t.value("turn_ms", 0.0);
    return record;
  } catch (const json::exception& e) {
    throw std::runtime_error(json_problem(e));
  }
}

std::string json_problem(const json::exception& error) {
  std::string what = error.what();
  if (const std::size_t end = what.find("] "); end != std::string::npos) what.erase(0, end + 2);
  return what;
}

}  // namespace rateperf::stats
