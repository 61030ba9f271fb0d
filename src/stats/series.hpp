#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/clock.hpp"
#include "core/errors.hpp"

namespace rateperf::stats {

// Counts of values (nanoseconds) in the buckets of stats::Histogram's layout, only those not
// empty, with the exact maximum: a histogram of one short interval in a few hundred bytes.
struct SparseBuckets {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> counts;  // (bucket, count), by bucket
  std::uint64_t count = 0;
  std::uint64_t max = 0;

  // Adds `other`'s values: exactly the buckets of both.
  void merge(const SparseBuckets& other);
  // As Histogram::percentile: the top of the bucket that holds the value at `percent`, at most
  // the maximum; 0 when empty.
  std::uint64_t percentile(double percent) const;
};

// Merges two lists of intervals, each in order of its `start`: an interval of one list with
// the same start as one of the other becomes one (`add(mine, theirs)` adds theirs into mine);
// the others are kept, in time order. The reply-rate samples and the time series of the parts
// of a run meet this way: by the time they cover, not by their index.
template <typename Interval, typename Add>
std::vector<Interval> merge_by_start(const std::vector<Interval>& mine,
                                     const std::vector<Interval>& theirs, Add add) {
  std::vector<Interval> merged;
  merged.reserve(std::max(mine.size(), theirs.size()));
  auto a = mine.begin();
  auto b = theirs.begin();
  while (a != mine.end() || b != theirs.end()) {
    if (b == theirs.end() || (a != mine.end() && a->start < b->start)) {
      merged.push_back(*a++);
    } else if (a == mine.end() || b->start < a->start) {
      merged.push_back(*b++);
    } else {
      merged.push_back(*a++);
      add(merged.back(), *b++);
    }
  }
  return merged;
}

// One interval of the run's time series (--interval).
struct SeriesPoint {
  TimePoint start{};
  Duration length{};           // the last one, at the run's end, may be shorter
  std::uint64_t arrivals = 0;  // arrivals issued in it
  std::uint64_t replies = 0;   // replies completed in it
  ErrorCounts errors{};        // calls that ended with an error in it, by kind
  std::uint64_t open = 0;      // connections open at its end
  SparseBuckets latency;       // its replies' intended start -> reply complete
  SparseBuckets lag;           // its arrivals' actual - intended start

  // Adds a point of the same interval (another worker's, or a shard's), or of the interval
  // that follows it (when two are made one): counts and buckets add, and so do the open
  // connections of the same instant; the later of two adjacent intervals gives its end's.
  void merge(const SeriesPoint& other);
};

// Records the time series of one worker: the current interval's counts as they come, closed
// into a SeriesPoint at each boundary. Memory is bounded: when kMaxPoints points are kept, the
// series is halved (each two adjacent points made one) and the interval doubled, so that the
// boundaries stay those of the schedule's start and a day at 1 s ends as 2,700 points of 32 s.
// Used on its worker's thread.
class SeriesRecorder {
 public:
  static constexpr std::size_t kMaxPoints = 4096;

  explicit SeriesRecorder(Duration interval = std::chrono::seconds(1));

  void arrival(std::uint64_t lag_ns);
  void reply(std::uint64_t latency_ns);
  void error(ErrorKind kind, std::uint64_t count);
  // Closes the current interval, [start, end), with `open` connections open at its end.
  void close(TimePoint start, TimePoint end, std::uint64_t open);

  // The length of the intervals now (the next boundary is the last one plus this).
  Duration interval() const { return interval_; }
  const std::vector<SeriesPoint>& points() const { return points_; }

  // Adds `other`'s series, point by point by time (the workers of a run, and the shards of one
  // schedule, close their intervals at the same instants of the schedule); the finer of two
  // series is first made as coarse as the other.
  void merge(const SeriesRecorder& other);
  // A series read back from a record.
  void restore(Duration interval, std::vector<SeriesPoint> points);

 private:
  // The current interval's counts in one of the two histograms, dense, with the buckets it
  // touched: taking them out costs what was recorded, not the layout's size.
  struct Scratch {
    std::vector<std::uint64_t> counts;
    std::vector<std::uint32_t> touched;
    std::uint64_t count = 0;
    std::uint64_t max = 0;
    void add(std::uint64_t value);
    SparseBuckets take();
  };

  // Makes each two adjacent points of `points` one.
  static std::vector<SeriesPoint> halved(const std::vector<SeriesPoint>& points);

  Duration interval_;
  std::vector<SeriesPoint> points_;
  SeriesPoint current_;
  Scratch latency_;
  Scratch lag_;
};

}  // namespace rateperf::stats
