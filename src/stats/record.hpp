#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/clock.hpp"
#include "stats/collector.hpp"
#include "stats/summary.hpp"

namespace rateperf::stats {

// A run's counts and bookkeeping read back from their record.
struct Record {
  Collector collector;
  RunInfo info;
};

// The whole of a run's counts and bookkeeping as a JSON value that loses nothing: every counter,
// every histogram's buckets and exact sums, every reply-rate sample, and the run's times as
// nanoseconds from info.start (a steady-clock time means nothing to another process). What
// `rateperf merge` reads back to merge as the workers of one run are merged.
nlohmann::json write_record(const Collector& collector, const RunInfo& info);

// Reads a record back, its times placed from `start` and its reply-rate samples from
// `samples_from` (`rateperf merge` meets the samples of runs that started apart by their time
// from their own starts). Throws std::runtime_error naming the first field that is missing, of
// the wrong type or out of range.
Record read_record(const nlohmann::json& value, TimePoint start, TimePoint samples_from);

// What a nlohmann::json exception says, without its "[json.exception.type.N] " prefix: the key
// that is missing ("key 'lag' not found") or the type found in its place.
std::string json_problem(const nlohmann::json::exception& error);

}  // namespace rateperf::stats
