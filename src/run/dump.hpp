#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "options/config.hpp"
#include "stats/collector.hpp"
#include "stats/summary.hpp"

namespace rateperf::run {

// The version of the dump's layout; `rateperf merge` reads this one only.
inline constexpr int kDumpSchema = 1;

// --dump FILE: a run's lossless result file, for `rateperf merge`. It holds the run's command
// line, its part of the schedule (shard I/N), its wall-clock start, and its counts whole (see
// stats/record.hpp). It is written into a temporary file beside FILE and renamed over FILE once
// whole, so that FILE is never half-written.
class DumpFile {
 public:
  // Creates the temporary file now, so that a path that cannot be written stops rateperf before
  // it sends anything; throws RunError naming --dump, the path and the reason.
  explicit DumpFile(const std::string& path);
  ~DumpFile();  // removes the temporary file when it was not renamed
  DumpFile(const DumpFile&) = delete;
  DumpFile& operator=(const DumpFile&) = delete;

  // Writes the run and renames the file into place; throws RunError when it cannot.
  void write(const options::Config& config, const stats::Collector& collector,
             const stats::RunInfo& info, std::int64_t start_unix_ns);

 private:
  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
};

// What `rateperf merge` makes of several dumps: the report one process running the whole
// schedule would have printed, with the configuration it would have had.
struct Merged {
  options::Config config;
  stats::Summary summary;
  std::vector<std::string> notes;  // what the merge could not make exact, for stderr
};

// Reads and merges the dumps of the shards of one schedule. Throws UsageError naming the file
// and the problem for a file that is not a whole dump of this schema, and for dumps that cannot
// be merged (other schedules, other starts, the same shard twice). Missing shards are a note.
Merged merge_dumps(const std::vector<std::string>& paths);

}  // namespace rateperf::run
