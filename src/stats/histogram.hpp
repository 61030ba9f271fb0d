#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rateperf::stats {

// A log-linear histogram of non-negative integer values (rateperf records nanoseconds), in the
// manner of HdrHistogram: each power of two is split into 128 linear sub-buckets, so a value is
// known to within 1/128 (< 1 %) of itself, from 0 up to 2^42 ns (about 73 minutes); larger
// values fall in an overflow bucket whose figures use the exact maximum. Memory is fixed at
// construction, whatever the run length. Count, sum, sum of squares, min and max are exact.
//
// Mergeable: merging two histograms gives exactly the histogram of the union of their values.
// Pure; owned by one collector on one thread.
class Histogram {
 public:
  Histogram();

  void record(std::uint64_t value);
  void merge(const Histogram& other);

  std::uint64_t count() const { return count_; }
  std::uint64_t min() const;  // 0 when empty
  std::uint64_t max() const { return max_; }
  double mean() const;        // exact; 0 when empty
  double stddev() const;      // exact population standard deviation... 0 with fewer than 2
  // The value at or below which `percent` % of the values lie (0 < percent <= 100), to within
  // the bucket error; percent 100 gives the exact max. 0 when empty.
  std::uint64_t percentile(double percent) const;

  // The layout, for counts kept elsewhere in the same buckets (stats/series.hpp): the number of
  // buckets, the bucket of a value, and the highest value a bucket holds (UINT64_MAX for the
  // overflow bucket, whose values only their exact maximum bounds).
  static std::size_t bucket_count();
  static std::size_t bucket_of(std::uint64_t value);
  static std::uint64_t bucket_top(std::size_t index);

 private:
  friend struct RecordCodec;  // writes and reads a histogram whole (stats/record.hpp)

  std::size_t index_of(std::uint64_t value) const;
  std::uint64_t value_of(std::size_t index) const;  // a representative value of a bucket

  // A 128-bit sum cannot overflow: fewer than 2^64 values, each below 2^64.
  __extension__ using Sum = unsigned __int128;

  std::vector<std::uint64_t> buckets_;  // the last one is the overflow bucket
  std::uint64_t count_ = 0;
  std::uint64_t min_ = UINT64_MAX;
  std::uint64_t max_ = 0;
  Sum sum_ = 0;  // exact, so that the mean is exact and merging loses nothing
  // Welford's running mean and sum of squared deviations: a plain sum of squares would cancel
  // catastrophically for tight distributions far from zero (stddev 1 us around a 1 s mean).
  double running_mean_ = 0;
  double squared_deviations_ = 0;
};

}  // namespace rateperf::stats
