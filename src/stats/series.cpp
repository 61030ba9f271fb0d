#include "stats/series.hpp"

#include <algorithm>
#include <cmath>

#include "stats/histogram.hpp"

namespace rateperf::stats {

void SparseBuckets::merge(const SparseBuckets& other) {
  if (other.count == 0) return;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> sum;
  sum.reserve(counts.size() + other.counts.size());
  auto mine = counts.begin();
  auto theirs = other.counts.begin();
  while (mine != counts.end() || theirs != other.counts.end()) {
    if (theirs == other.counts.end() || (mine != counts.end() && mine->first < theirs->first)) {
      sum.push_back(*mine++);
    } else if (mine == counts.end() || theirs->first < mine->first) {
      sum.push_back(*theirs++);
    } else {
      sum.emplace_back(mine->first, mine->second + theirs->second);
      ++mine;
      ++theirs;
    }
  }
  counts = std::move(sum);
  count += other.count;
  max = std::max(max, other.max);
}

std::uint64_t SparseBuckets::percentile(double percent) const {
  if (count == 0) return 0;
  if (percent >= 100) return max;
  // The rank as Histogram::percentile takes it.
  const double exact_rank = percent / 100.0 * static_cast<double>(count);
  const double rank =
      std::clamp(std::ceil(exact_rank - exact_rank * 1e-12), 1.0, static_cast<double>(count));
  const auto wanted = static_cast<std::uint64_t>(rank);
  std::uint64_t seen = 0;
  for (const auto& [bucket, n] : counts) {
    seen += n;
    if (seen >= wanted) return std::min(Histogram::bucket_top(bucket), max);
  }
  return max;
}

void SeriesPoint::merge(const SeriesPoint& other) {
  const TimePoint end = std::max(start + length, other.start + other.length);
  // Of two adjacent intervals, the later one's end is the end's; of the same, both are.
  if (other.start > start) {
    open = other.open;
  } else if (other.start == start) {
    open += other.open;
  }
  start = std::min(start, other.start);
  length = end - start;
  arrivals += other.arrivals;
  replies += other.replies;
  for (std::size_t i = 0; i < errors.size(); ++i) errors[i] += other.errors[i];
  latency.merge(other.latency);
  lag.merge(other.lag);
}

void SeriesRecorder::Scratch::add(std::uint64_t value) {
  if (counts.empty()) counts.assign(Histogram::bucket_count(), 0);
  const auto bucket = static_cast<std::uint32_t>(Histogram::bucket_of(value));
  if (counts[bucket]++ == 0) touched.push_back(bucket);
  ++count;
  max = std::max(max, value);
}

SparseBuckets SeriesRecorder::Scratch::take() {
  SparseBuckets out;
  std::sort(touched.begin(), touched.end());
  out.counts.reserve(touched.size());
  for (const std::uint32_t bucket : touched) {
    out.counts.emplace_back(bucket, counts[bucket]);
    counts[bucket] = 0;
  }
  touched.clear();
  out.count = count;
  out.max = max;
  count = 0;
  max = 0;
  return out;
}

SeriesRecorder::SeriesRecorder(Duration interval) : interval_(interval) {}

void SeriesRecorder::arrival(std::uint64_t lag_ns) {
  ++current_.arrivals;
  lag_.add(lag_ns);
}

void SeriesRecorder::reply(std::uint64_t latency_ns) {
  ++current_.replies;
  latency_.add(latency_ns);
}

void SeriesRecorder::error(ErrorKind kind, std::uint64_t count) {
  current_.errors[static_cast<std::size_t>(kind)] += count;
}

void SeriesRecorder::close(TimePoint start, TimePoint end, std::uint64_t open) {
  current_.start = start;
  current_.length = end - start;
  current_.open = open;
  current_.latency = latency_.take();
  current_.lag = lag_.take();
  points_.push_back(std::move(current_));
  current_ = SeriesPoint{};
  if (points_.size() >= kMaxPoints) {
    points_ = halved(points_);
    interval_ *= 2;
  }
}

std::vector<SeriesPoint> SeriesRecorder::halved(const std::vector<SeriesPoint>& points) {
  std::vector<SeriesPoint> out;
  out.reserve(points.size() / 2 + 1);
  for (std::size_t i = 0; i < points.size(); i += 2) {
    out.push_back(points[i]);
    if (i + 1 < points.size()) out.back().merge(points[i + 1]);
  }
  return out;
}

void SeriesRecorder::merge(const SeriesRecorder& other) {
  if (other.points_.empty()) return;
  // An empty series (a run's merge before its first worker) takes the other's interval.
  if (points_.empty()) {
    interval_ = other.interval_;
    points_ = other.points_;
    return;
  }
  std::vector<SeriesPoint> theirs = other.points_;
  Duration their_interval = other.interval_;
  // The series of one schedule's start halve at the same points: the finer becomes the other.
  while (their_interval < interval_) {
    theirs = halved(theirs);
    their_interval *= 2;
  }
  while (interval_ < their_interval) {
    points_ = halved(points_);
    interval_ *= 2;
  }
  points_ = merge_by_start(points_, theirs,
                           [](SeriesPoint& sum, const SeriesPoint& part) { sum.merge(part); });
}

void SeriesRecorder::restore(Duration interval, std::vector<SeriesPoint> points) {
  interval_ = interval;
  points_ = std::move(points);
}

}  // namespace rateperf::stats
