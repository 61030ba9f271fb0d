#include "run/dump.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/failure.hpp"
#include "core/version.hpp"
#include "options/options.hpp"
#include "options/values.hpp"
#include "stats/record.hpp"

namespace rateperf::run {

using nlohmann::json;

namespace {

constexpr const char* kFormat = "rateperf-dump";

// The schedule a configuration describes, whatever part of it one process ran and however: the
// command line as one process running all of it would echo it, without what belongs to one
// machine (its source addresses and ports, threads, CPUs, buffer sizes, way of waiting) or to
// one process's report (its thresholds, what it prints).
std::string schedule_of(options::Config config) {
  const options::Config defaults;
  config.shard_index = 0;
  config.shard_count = 1;
  config.threads = 1;
  config.cpus.clear();
  config.start_at_unix_ns.reset();
  config.myaddr.clear();
  config.hog = false;
  config.send_buffer_bytes.reset();
  config.recv_buffer_bytes.reset();
  config.timing = defaults.timing;
  config.max_lag = defaults.max_lag;
  config.max_error_rate_percent = defaults.max_error_rate_percent;
  config.print_request = defaults.print_request;
  config.print_reply = defaults.print_reply;
  config.verbose = 0;
  config.argv0 = "rateperf";
  return options::echo_command_line(config);
}

}  // namespace

DumpFile::DumpFile(const std::string& path) : path_(path) {
  temp_path_ = path + ".XXXXXX";
  fd_ = ::mkostemp(temp_path_.data(), O_CLOEXEC);
  if (fd_ < 0) {
    throw RunError("--dump: cannot write '" + path + "': " + std::strerror(errno));
  }
}

DumpFile::~DumpFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
}

void DumpFile::write(const options::Config& config, const stats::Collector& collector,
                     const stats::RunInfo& info, std::int64_t start_unix_ns) {
  json document = {
      {"format", kFormat},
      {"schema", kDumpSchema},
      {"rateperf_version", kVersion},
      {"arguments", config.arguments},
      {"schedule", schedule_of(config)},
      {"shard", {{"index", config.shard_index}, {"count", config.shard_count}}},
      {"start_at_unix_ns",
       config.start_at_unix_ns ? json(*config.start_at_unix_ns) : json(nullptr)},
      {"start_unix_ns", start_unix_ns},
      {"record", stats::write_record(collector, info)},
  };
  const std::string text = document.dump() + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw RunError("--dump: cannot write '" + path_ + "': " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd_, 0644) != 0 || ::fsync(fd_) != 0 || ::close(fd_) != 0) {
    fd_ = -1;
    throw RunError("--dump: cannot write '" + path_ + "': " + std::strerror(errno));
  }
  fd_ = -1;
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    throw RunError("--dump: cannot write '" + path_ + "': " + std::strerror(errno));
  }
  temp_path_.clear();
}

namespace {

// One dump read back, with what the merge checks.
struct Dump {
  std::string path;
  json document;
  options::Config config;
  std::string schedule;
  std::uint32_t index = 0;
  std::uint32_t count = 1;
  std::optional<std::int64_t> start_at;
  std::int64_t start_unix_ns = 0;
};

[[noreturn]] void refuse(const std::string& path, const std::string& problem) {
  throw UsageError("merge: " + path + ": " + problem);
}

Dump read_dump(const std::string& path) {
  Dump dump;
  dump.path = path;
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, std::string("cannot read: ") + std::strerror(errno));
  try {
    dump.document = json::parse(in);
  } catch (const json::exception&) {
    refuse(path, "not a whole rateperf dump (truncated or corrupt JSON)");
  }
  const json& d = dump.document;
  if (!d.is_object() || !d.contains("format") || d["format"] != kFormat) {
    refuse(path, "not a rateperf dump (no \"format\": \"rateperf-dump\")");
  }
  try {
    const int schema = d.at("schema").get<int>();
    if (schema != kDumpSchema) {
      refuse(path, "dump schema " + std::to_string(schema) + " (written by rateperf " +
                       d.value("rateperf_version", std::string("?")) + "); this rateperf " +
                       kVersion + " reads schema " + std::to_string(kDumpSchema));
    }
    const auto arguments = d.at("arguments").get<std::vector<std::string>>();
    std::vector<const char*> argv{"rateperf"};
    for (const std::string& argument : arguments) argv.push_back(argument.c_str());
    try {
      dump.config = options::parse(static_cast<int>(argv.size()), argv.data(), true).config;
    } catch (const UsageError& e) {
      refuse(path, std::string("its command line does not parse: ") + e.what());
    }
    dump.schedule = d.at("schedule").get<std::string>();
    dump.index = d.at("shard").at("index").get<std::uint32_t>();
    dump.count = d.at("shard").at("count").get<std::uint32_t>();
    if (dump.count == 0 || dump.index >= dump.count)
      refuse(path, "corrupt: a shard outside 0..N-1");
    if (!d.at("start_at_unix_ns").is_null())
      dump.start_at = d["start_at_unix_ns"].get<std::int64_t>();
    dump.start_unix_ns = d.at("start_unix_ns").get<std::int64_t>();
    if (!d.at("record").is_object()) refuse(path, "corrupt: no record");
  } catch (const json::exception& e) {
    refuse(path, "corrupt: " + stats::json_problem(e));
  }
  return dump;
}

std::string part_name(const Dump& dump) {
  return std::to_string(dump.index) + "/" + std::to_string(dump.count);
}

// The dumps must be parts of one schedule, each once.
void check_parts(const std::vector<Dump>& dumps, std::vector<std::string>& notes) {
  const Dump& first = dumps.front();
  std::map<std::uint32_t, const Dump*> parts;
  for (const Dump& dump : dumps) {
    if (dump.schedule != first.schedule) {
      refuse(dump.path, "another schedule than " + first.path +
                            "'s: " + options::quoted(dump.schedule) + " against " +
                            options::quoted(first.schedule));
    }
    if (dump.count != first.count) {
      refuse(dump.path, "shard " + part_name(dump) + ", but " + first.path + " is shard " +
                            part_name(first) + " (the shards of one schedule share N)");
    }
    if (dump.start_at != first.start_at) {
      refuse(dump.path, "another --start-at than " + first.path +
                            "'s (the shards of one schedule start together)");
    }
    if (const auto [it, fresh] = parts.emplace(dump.index, &dump); !fresh) {
      refuse(dump.path,
             "shard " + part_name(dump) + " again (" + it->second->path + " is that shard too)");
    }
  }
  if (parts.size() < first.count) {
    std::string missing;
    for (std::uint32_t i = 0; i < first.count; ++i) {
      if (parts.count(i) != 0) continue;
      if (!missing.empty()) missing += ", ";
      missing += std::to_string(i);
    }
    notes.push_back("rateperf merge: warning: missing shards " + missing + " (of 0.." +
                    std::to_string(first.count - 1) + "): the report covers " +
                    std::to_string(parts.size()) + " of the schedule's " +
                    std::to_string(first.count) + " parts");
  }
}

}  // namespace

Merged merge_dumps(const std::vector<std::string>& paths) {
  std::vector<Dump> dumps;
  dumps.reserve(paths.size());
  for (const std::string& path : paths) dumps.push_back(read_dump(path));
  Merged merged;
  check_parts(dumps, merged.notes);

  // The earliest start is the merged run's. Each part's times keep their distance from it; its
  // reply-rate samples are taken from its own start, so that parts started apart still meet
  // sample by sample (with --start-at they started at one instant, and the two agree).
  std::int64_t origin = dumps.front().start_unix_ns;
  for (const Dump& dump : dumps) origin = std::min(origin, dump.start_unix_ns);
  const TimePoint start{};
  std::optional<stats::Collector> collector;
  stats::RunInfo info;
  info.start = start;
  info.end = start;
  std::int64_t latest = origin;
  for (const Dump& dump : dumps) {
    latest = std::max(latest, dump.start_unix_ns);
    stats::Record record;
    try {
      record = stats::read_record(dump.document["record"],
                                  start + Duration(dump.start_unix_ns - origin), start);
    } catch (const std::runtime_error& e) {
      refuse(dump.path, std::string("corrupt: ") + e.what());
    }
    const stats::RunInfo& part = record.info;
    const bool part_arrived = record.collector.arrivals() > 0;
    if (collector) {
      collector->merge(record.collector);
    } else {
      collector = std::move(record.collector);
    }
    info.end = std::max(info.end, part.end);
    info.cpu_user_s += part.cpu_user_s;
    info.cpu_system_s += part.cpu_system_s;
    info.offered_rate_per_s += part.offered_rate_per_s;
    info.interrupted = info.interrupted || part.interrupted;
    info.request_mode = part.request_mode;
    info.concurrency += part.concurrency;
    info.think_s = part.think_s;
    info.sessions = part.sessions;
    info.tls = part.tls;
    info.clock_kernel = info.clock_kernel || part.clock_kernel;
    if (info.clock_fallback.empty()) info.clock_fallback = part.clock_fallback;
    info.batch_reads_s = part.batch_reads_s;
    info.wall_clock_steps += part.wall_clock_steps;
    info.largest_step_ms = std::max(info.largest_step_ms, part.largest_step_ms);
    info.timing.mode = part.timing.mode;
    info.timing.add(part.timing);
    // A part without arrivals (a shard past the end of a short schedule) has no arrival times.
    if (part_arrived) {
      info.include_arrivals(part.first_arrival, part.last_arrival, part.first_intended,
                            part.last_intended);
    }
  }

  merged.config = dumps.front().config;
  merged.config.shard_index = 0;
  merged.config.shard_count = 1;
  merged.config.start_at_unix_ns = dumps.front().start_at;
  merged.config.dump_path.clear();
  merged.config.json_path.clear();
  merged.config.csv_path.clear();
  info.command_line = options::echo_command_line(merged.config);
  info.verbose = merged.config.verbose > 0;
  info.start_time_utc = options::format_wall_time(origin);
  merged.summary = stats::summarize(*collector, info);

  if (dumps.size() > 1) {
    char spread[160];
    std::snprintf(spread, sizeof spread, "%.3f s", static_cast<double>(latest - origin) / 1e9);
    merged.notes.push_back(
        "rateperf merge: " + std::to_string(dumps.size()) + " parts; their starts spread " +
        spread + " by their own clocks" +
        (dumps.front().start_at ? " (one --start-at)"
                                : " (no --start-at: each started on its own)") +
        "; the offsets between the machines' clocks, which no dump can measure, add to it and to "
        "every time compared across parts: bound them (NTP, PTP). Maximum connections is the sum "
        "of the parts' peaks, an upper bound.");
  }
  return merged;
}

}  // namespace rateperf::run
