#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "stats/histogram.hpp"

using rateperf::stats::Histogram;

namespace {

// The percentiles every accuracy check covers, in per mille so that the reference rank is
// computed in integers, independently of the histogram's floating-point rank.
constexpr std::uint64_t kPerMille[] = {10, 100, 500, 900, 990, 999, 1000};

// The nearest-rank percentile of sorted values: the smallest value with at least p of them at
// or below it.
std::uint64_t reference_percentile(const std::vector<std::uint64_t>& sorted,
                                   std::uint64_t per_mille) {
  const std::uint64_t n = sorted.size();
  std::uint64_t rank = (per_mille * n + 999) / 1000;
  rank = std::max<std::uint64_t>(rank, 1);
  return sorted[rank - 1];
}

struct Shape {
  std::string name;
  std::function<std::uint64_t(std::mt19937_64&)> draw;
};

std::uint64_t clamp_to_u64(double x) {
  return static_cast<std::uint64_t>(std::max(0.0, x));
}

std::vector<Shape> shapes() {
  return {
      {"uniform small (crosses the exact range)",
       [](std::mt19937_64& rng) {
         return std::uniform_int_distribution<std::uint64_t>(0, 2000)(rng);
       }},
      {"uniform",
       [](std::mt19937_64& rng) {
         return std::uniform_int_distribution<std::uint64_t>(0, 10'000'000)(rng);
       }},
      {"exponential",
       [](std::mt19937_64& rng) {
         return clamp_to_u64(std::exponential_distribution<double>(1.0 / 2e6)(rng));
       }},
      {"log-normal",
       [](std::mt19937_64& rng) {
         return clamp_to_u64(std::lognormal_distribution<double>(std::log(1e6), 1.0)(rng));
       }},
      {"bimodal",
       [](std::mt19937_64& rng) {
         if (std::bernoulli_distribution(0.7)(rng))
           return clamp_to_u64(std::normal_distribution<double>(1e5, 1e4)(rng));
         return clamp_to_u64(std::normal_distribution<double>(5e7, 5e6)(rng));
       }},
      {"constant", [](std::mt19937_64&) { return std::uint64_t{123'456'789}; }},
  };
}

std::vector<std::uint64_t> draw(const Shape& shape, std::uint64_t seed, std::size_t n) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> values(n);
  for (auto& v : values) v = shape.draw(rng);
  return values;
}

double reference_mean(const std::vector<std::uint64_t>& values) {
  long double sum = 0;
  for (auto v : values) sum += static_cast<long double>(v);
  return static_cast<double>(sum / static_cast<long double>(values.size()));
}

double reference_stddev(const std::vector<std::uint64_t>& values) {
  const long double mean = reference_mean(values);
  long double squares = 0;
  for (auto v : values) {
    const long double d = static_cast<long double>(v) - mean;
    squares += d * d;
  }
  return static_cast<double>(std::sqrt(squares / static_cast<long double>(values.size())));
}

double relative_error(double got, double want) {
  if (want == 0) return got == 0 ? 0 : INFINITY;
  return std::fabs(got - want) / std::fabs(want);
}

Histogram histogram_of(const std::vector<std::uint64_t>& values) {
  Histogram h;
  for (auto v : values) h.record(v);
  return h;
}

}  // namespace

TEST_SUITE("histogram") {
  TEST_CASE("an empty histogram reports zeros") {
    const Histogram h;
    CHECK(h.count() == 0);
    CHECK(h.min() == 0);
    CHECK(h.max() == 0);
    CHECK(h.mean() == 0);
    CHECK(h.stddev() == 0);
    CHECK(h.percentile(50) == 0);
    CHECK(h.percentile(100) == 0);
  }

  TEST_CASE("values below 256 are exact") {
    Histogram h;
    for (std::uint64_t v = 0; v < 256; ++v) h.record(v);
    CHECK(h.count() == 256);
    CHECK(h.min() == 0);
    CHECK(h.max() == 255);
    // With one value each, the p-th percentile is the value of rank ceil(p% of 256), minus 1.
    CHECK(h.percentile(50) == 127);
    CHECK(h.percentile(25) == 63);
    CHECK(h.percentile(1) == 2);
    CHECK(h.percentile(99.9) == 255);
    CHECK(h.percentile(100) == 255);
    Histogram single;
    single.record(200);
    CHECK(single.percentile(1) == 200);
    CHECK(single.percentile(50) == 200);
    CHECK(single.min() == 200);
  }

  TEST_CASE("percentiles are within 1 % of the true ones, never below it, on several shapes") {
    std::uint64_t seed = 42;
    for (const auto& shape : shapes()) {
      CAPTURE(shape.name);
      auto values = draw(shape, seed++, 100'000);
      const Histogram h = histogram_of(values);
      std::sort(values.begin(), values.end());
      REQUIRE(h.count() == values.size());
      CHECK(h.min() == values.front());
      CHECK(h.max() == values.back());
      for (const auto per_mille : kPerMille) {
        const double percent = static_cast<double>(per_mille) / 10.0;
        CAPTURE(percent);
        const auto want = reference_percentile(values, per_mille);
        const auto got = h.percentile(percent);
        CAPTURE(want);
        CAPTURE(got);
        CHECK(relative_error(static_cast<double>(got), static_cast<double>(want)) <= 0.01);
        // The contract: at least `percent` % of the values are at or below the reported value.
        const auto at_or_below = static_cast<std::uint64_t>(
            std::upper_bound(values.begin(), values.end(), got) - values.begin());
        CHECK(at_or_below * 1000 >= per_mille * values.size());
        CHECK(got >= h.min());
        CHECK(got <= h.max());
      }
      CHECK(h.percentile(100) == values.back());
    }
  }

  TEST_CASE("percentiles never decrease as the percent grows") {
    std::uint64_t seed = 7;
    for (const auto& shape : shapes()) {
      CAPTURE(shape.name);
      const Histogram h = histogram_of(draw(shape, seed++, 20'000));
      std::uint64_t previous = 0;
      for (int hundredths = 1; hundredths <= 10'000; ++hundredths) {
        const auto value = h.percentile(hundredths / 100.0);
        CAPTURE(hundredths);
        CHECK(value >= previous);
        previous = value;
      }
      CHECK(previous == h.max());
    }
  }

  TEST_CASE("mean and stddev match a reference computed from the values") {
    std::uint64_t seed = 1000;
    for (const auto& shape : shapes()) {
      CAPTURE(shape.name);
      const auto values = draw(shape, seed++, 50'000);
      const Histogram h = histogram_of(values);
      CHECK(relative_error(h.mean(), reference_mean(values)) <= 1e-12);
      const double want = reference_stddev(values);
      if (want == 0) {
        CHECK(h.stddev() == 0);
      } else {
        CHECK(relative_error(h.stddev(), want) <= 1e-9);
      }
    }
    // A tight spread far from zero: 1 s give or take a few microseconds.
    std::mt19937_64 rng(3);
    std::vector<std::uint64_t> tight(10'000);
    for (auto& v : tight)
      v = 1'000'000'000 + std::uniform_int_distribution<std::uint64_t>(0, 5000)(rng);
    const Histogram h = histogram_of(tight);
    CHECK(relative_error(h.stddev(), reference_stddev(tight)) <= 1e-6);
    // Fewer than two values have no spread.
    Histogram one;
    one.record(5'000'000);
    CHECK(one.stddev() == 0);
    CHECK(one.mean() == 5'000'000);
  }

  TEST_CASE("merging two histograms gives the histogram of the union") {
    std::uint64_t seed = 99;
    const auto all_shapes = shapes();
    for (std::size_t i = 0; i < all_shapes.size(); ++i) {
      // Different shapes on each side make the merge mix distant buckets.
      const auto& left_shape = all_shapes[i];
      const auto& right_shape = all_shapes[(i + 2) % all_shapes.size()];
      CAPTURE(left_shape.name);
      CAPTURE(right_shape.name);
      const auto left = draw(left_shape, seed++, 30'000);
      const auto right = draw(right_shape, seed++, 10'000);
      auto both = left;
      both.insert(both.end(), right.begin(), right.end());

      Histogram merged = histogram_of(left);
      merged.merge(histogram_of(right));
      const Histogram whole = histogram_of(both);

      CHECK(merged.count() == whole.count());
      CHECK(merged.min() == whole.min());
      CHECK(merged.max() == whole.max());
      CHECK(merged.mean() == whole.mean());
      CHECK(relative_error(merged.stddev(), reference_stddev(both)) <= 1e-9);
      for (int tenths = 1; tenths <= 1000; ++tenths) {
        CAPTURE(tenths);
        CHECK(merged.percentile(tenths / 10.0) == whole.percentile(tenths / 10.0));
      }
    }
  }

  TEST_CASE("merging with an empty histogram changes nothing") {
    const auto values = draw(shapes()[2], 5, 1000);
    const Histogram reference = histogram_of(values);

    Histogram into_empty;
    into_empty.merge(reference);
    Histogram from_empty = histogram_of(values);
    from_empty.merge(Histogram{});

    for (const Histogram* h : {&into_empty, &from_empty}) {
      CHECK(h->count() == reference.count());
      CHECK(h->min() == reference.min());
      CHECK(h->max() == reference.max());
      CHECK(h->mean() == reference.mean());
      CHECK(h->stddev() == reference.stddev());
      CHECK(h->percentile(50) == reference.percentile(50));
      CHECK(h->percentile(99) == reference.percentile(99));
    }
    // Recording after a merge into an empty histogram keeps the figures right.
    into_empty.record(values.front());
    auto more = values;
    more.push_back(values.front());
    CHECK(relative_error(into_empty.stddev(), reference_stddev(more)) <= 1e-9);
  }

  TEST_CASE("values beyond 2^42 are counted in the overflow bucket with an exact max") {
    const std::uint64_t top = std::uint64_t{1} << 42;
    Histogram h;
    for (std::uint64_t v = 1; v <= 98; ++v) h.record(v * 1000);
    h.record(top + 12'345);
    h.record(top * 3 + 7);
    CHECK(h.count() == 100);
    CHECK(h.max() == top * 3 + 7);
    CHECK(h.percentile(100) == top * 3 + 7);
    // The 99th value lies in the overflow bucket, whose only known figure is the max.
    CHECK(h.percentile(99) == top * 3 + 7);
    // Values in range keep their precision.
    CHECK(relative_error(static_cast<double>(h.percentile(50)), 50'000.0) <= 0.01);
    CHECK(relative_error(h.mean(), (98.0 * 99 / 2 * 1000 + static_cast<double>(top) * 4 + 12'352) /
                                       100) <= 1e-12);

    Histogram huge;
    huge.record(UINT64_MAX);
    huge.record(UINT64_MAX);
    CHECK(huge.count() == 2);
    CHECK(huge.min() == UINT64_MAX);
    CHECK(huge.max() == UINT64_MAX);
    CHECK(huge.percentile(50) == UINT64_MAX);
    CHECK(huge.mean() == static_cast<double>(UINT64_MAX));
    CHECK(huge.stddev() == 0);
  }

  TEST_CASE("the largest in-range value is still bucketed within 1 %") {
    const std::uint64_t below_top = (std::uint64_t{1} << 42) - 1;
    Histogram h;
    h.record(below_top);
    h.record(below_top - 1'000'000'000);
    CHECK(h.max() == below_top);
    const auto low = h.percentile(50);
    CHECK(low >= below_top - 1'000'000'000);
    CHECK(relative_error(static_cast<double>(low),
                         static_cast<double>(below_top - 1'000'000'000)) <= 0.01);
  }
}
