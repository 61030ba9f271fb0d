#include "stats/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace rateperf::stats {

namespace {

// Layout of the buckets. Values below kExactLimit get one bucket each (so they are exact). Above
// it, each power of two [2^k, 2^(k+1)) is split into kSubBuckets buckets of equal width
// 2^(k - kSubBits); a bucket is therefore at most 1/128 of its lower bound wide, which bounds
// the error of any value reported from it. Values from 2^kTopBits up go to the overflow bucket.
constexpr unsigned kSubBits = 7;
constexpr std::uint64_t kSubBuckets = std::uint64_t{1} << kSubBits;  // 128
constexpr unsigned kExactBits = kSubBits + 1;
constexpr std::uint64_t kExactLimit = std::uint64_t{1} << kExactBits;  // 256
constexpr unsigned kTopBits = 42;
constexpr std::uint64_t kOverflowFrom = std::uint64_t{1} << kTopBits;
constexpr std::size_t kLinearBuckets =
    kExactLimit + (kTopBits - kExactBits) * kSubBuckets;  // 256 + 34 * 128
constexpr std::size_t kOverflowIndex = kLinearBuckets;
constexpr std::size_t kBuckets = kLinearBuckets + 1;

}  // namespace

Histogram::Histogram() : buckets_(kBuckets, 0) {}

std::size_t Histogram::bucket_count() { return kBuckets; }

std::size_t Histogram::bucket_of(std::uint64_t value) {
  if (value < kExactLimit) return static_cast<std::size_t>(value);
  if (value >= kOverflowFrom) return kOverflowIndex;
  const unsigned power = static_cast<unsigned>(std::bit_width(value)) - 1;  // >= kExactBits
  const unsigned shift = power - kSubBits;
  const std::uint64_t sub = (value >> shift) - kSubBuckets;  // 0 .. kSubBuckets - 1
  return static_cast<std::size_t>(kExactLimit + (power - kExactBits) * kSubBuckets + sub);
}

// The highest value that falls in a bucket, so that a percentile is never under-reported (for
// latencies the conservative side); clamped to [min, max] by the caller. The overflow bucket
// has no upper bound: its representative is the exact maximum.
std::size_t Histogram::index_of(std::uint64_t value) const { return bucket_of(value); }

std::uint64_t Histogram::value_of(std::size_t index) const {
  return index >= kOverflowIndex ? max_ : bucket_top(index);
}

std::uint64_t Histogram::bucket_top(std::size_t index) {
  if (index < kExactLimit) return index;
  if (index >= kOverflowIndex) return UINT64_MAX;
  const std::size_t offset = index - kExactLimit;
  const unsigned power = kExactBits + static_cast<unsigned>(offset / kSubBuckets);
  const unsigned shift = power - kSubBits;
  const std::uint64_t lower = (kSubBuckets + offset % kSubBuckets) << shift;
  return lower + (std::uint64_t{1} << shift) - 1;
}

void Histogram::record(std::uint64_t value) {
  ++buckets_[index_of(value)];
  ++count_;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  sum_ += value;
  const double x = static_cast<double>(value);
  const double delta = x - running_mean_;
  running_mean_ += delta / static_cast<double>(count_);
  squared_deviations_ += delta * (x - running_mean_);
}

void Histogram::merge(const Histogram& other) {
  if (other.count_ == 0) return;
  if (count_ == 0) {
    *this = other;
    return;
  }
  for (std::size_t i = 0; i < kBuckets; ++i) buckets_[i] += other.buckets_[i];
  // Chan et al.'s pairwise update of the squared deviations, from the exact means of each side.
  const double n_a = static_cast<double>(count_);
  const double n_b = static_cast<double>(other.count_);
  const double delta = other.mean() - mean();
  squared_deviations_ += other.squared_deviations_ + delta * delta * n_a * n_b / (n_a + n_b);
  count_ += other.count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
  running_mean_ = mean();
}

std::uint64_t Histogram::min() const {
  return count_ == 0 ? 0 : min_;
}

double Histogram::mean() const {
  return count_ == 0 ? 0 : static_cast<double>(sum_) / static_cast<double>(count_);
}

double Histogram::stddev() const {
  if (count_ < 2) return 0;
  return std::sqrt(std::max(0.0, squared_deviations_ / static_cast<double>(count_)));
}

std::uint64_t Histogram::percentile(double percent) const {
  if (count_ == 0) return 0;
  if (percent >= 100) return max_;
  // The rank (1-based) of the value asked for: the smallest r with r >= percent% of count. The
  // tiny relative slack keeps a rank that is an integer in exact arithmetic (99.9 % of 1000)
  // from being pushed to the next one by the rounding of 99.9 in binary.
  const double exact_rank = percent / 100.0 * static_cast<double>(count_);
  double rank = std::ceil(exact_rank - exact_rank * 1e-12);
  rank = std::clamp(rank, 1.0, static_cast<double>(count_));
  const auto wanted = static_cast<std::uint64_t>(rank);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (seen >= wanted) return std::clamp(value_of(i), min_, max_);
  }
  return max_;  // not reached: the buckets hold count_ values
}

}  // namespace rateperf::stats
