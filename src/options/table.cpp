#include "options/table.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include <unistd.h>

#include "options/period.hpp"
#include "options/values.hpp"

namespace rateperf::options {

namespace {

using nlohmann::json;

// Appends " WORD" to the echoed line.
void add(std::string& line, const std::string& word) {
  line += ' ';
  line += word;
}

// A duration echoed as the seconds it was given in, or nothing when zero (not given).
void echo_seconds(std::string& line, const char* flag, Duration value) {
  if (value > Duration::zero()) add(line, std::string(flag) + "=" + format_g(to_s(value)));
}

std::uint32_t buffer_bytes(std::string_view option, std::string_view value) {
  constexpr std::uint64_t max_buffer = 0xffffffffu;
  return static_cast<std::uint32_t>(parse_whole(option, value, 1, max_buffer));
}

// I/N with 0 <= I < N, for `option` (--client, --shard).
std::pair<std::uint32_t, std::uint32_t> parse_part(std::string_view option, std::string_view text) {
  const std::size_t slash = text.find('/');
  std::uint32_t id = 0;
  std::uint32_t count = 0;
  bool ok = slash != std::string_view::npos;
  if (ok) {
    const auto [p1, e1] = std::from_chars(text.data(), text.data() + slash, id);
    const auto [p2, e2] =
        std::from_chars(text.data() + slash + 1, text.data() + text.size(), count);
    ok = e1 == std::errc() && p1 == text.data() + slash && e2 == std::errc() &&
         p2 == text.data() + text.size() && id < count;
  }
  if (!ok) fail(option, "expected I/N with 0 <= I < N (got " + quoted(text) + ")");
  return {id, count};
}

// --client I/N.
void apply_client(Config& c, std::string_view text) {
  std::tie(c.client_id, c.client_count) = parse_part("--client", text);
}

// The index and count of this process among the tasks of a job, from the variables that a job
// engine sets: Kubernetes Indexed Jobs (the index only: the count is `count`, from --shard env/N,
// or RATEPERF_SHARDS), Slurm, Open MPI, MPICH and Intel MPI (PMI).
std::pair<std::uint32_t, std::uint32_t> shard_from_environment(std::optional<std::uint32_t> count) {
  struct Engine {
    const char* index;
    const char* count;
  };
  static constexpr std::array<Engine, 4> kEngines = {{
      {"JOB_COMPLETION_INDEX", "RATEPERF_SHARDS"},
      {"SLURM_PROCID", "SLURM_NTASKS"},
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMI_RANK", "PMI_SIZE"},
  }};
  for (const Engine& engine : kEngines) {
    const char* index_text = std::getenv(engine.index);
    if (index_text == nullptr) continue;
    const std::string index_name = std::string(engine.index) + "=" + index_text;
    const auto index = static_cast<std::uint32_t>(
        parse_whole(std::string("--shard env: ") + engine.index, index_text, 0, UINT32_MAX - 1));
    const char* count_text = std::getenv(engine.count);
    std::optional<std::uint32_t> total = count;
    if (count_text != nullptr) {
      const auto from_engine = static_cast<std::uint32_t>(
          parse_whole(std::string("--shard env: ") + engine.count, count_text, 1, UINT32_MAX));
      if (count && *count != from_engine) {
        fail("--shard", "env/" + std::to_string(*count) + " but " + engine.count + "=" +
                            count_text + " (give env alone, or the same count)");
      }
      total = from_engine;
    }
    if (!total) {
      fail("--shard", std::string("env: ") + index_name +
                          " gives the index but not the count (give --shard env/N or set " +
                          engine.count + ")");
    }
    if (index >= *total) {
      fail("--shard", std::string("env: ") + index_name + " is not below the count " +
                          std::to_string(*total));
    }
    return {index, *total};
  }
  fail("--shard", std::string(count ? "env/N" : "env") +
                      ": no shard index in the environment (JOB_COMPLETION_INDEX, SLURM_PROCID, "
                      "OMPI_COMM_WORLD_RANK or PMI_RANK)");
}

// --shard I/N, env or env/N.
void apply_shard(Config& c, std::string_view text) {
  if (text != "env" && !text.starts_with("env/")) {
    std::tie(c.shard_index, c.shard_count) = parse_part("--shard", text);
    return;
  }
  std::optional<std::uint32_t> count;
  if (text.size() > 4) {
    count = static_cast<std::uint32_t>(parse_whole("--shard env/N", text.substr(4), 1, UINT32_MAX));
  }
  // Read back from a dump, the part is the dump's own, not this environment's.
  if (c.recorded) {
    c.shard_index = 0;
    c.shard_count = count.value_or(1);
    return;
  }
  std::tie(c.shard_index, c.shard_count) = shard_from_environment(count);
}

// --cpus LIST: CPU numbers and ranges A-B, separated by commas, each a CPU of this machine.
void apply_cpus(Config& c, std::string_view text) {
  const long configured = ::sysconf(_SC_NPROCESSORS_CONF);
  const auto cpus = static_cast<std::uint64_t>(configured > 0 ? configured : 1);
  std::vector<std::uint32_t> list;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const std::size_t dash = item.find('-');
    const std::string_view first_text = item.substr(0, dash);
    const std::string_view last_text =
        dash == std::string_view::npos ? first_text : item.substr(dash + 1);
    if (first_text.empty() || last_text.empty()) {
      fail("--cpus", "expected CPU numbers or ranges A-B separated by commas (got " +
                         quoted(text) + ")");
    }
    const std::uint64_t first = parse_whole("--cpus", first_text, 0);
    const std::uint64_t last = parse_whole("--cpus", last_text, 0);
    if (last < first) fail("--cpus", "the range " + quoted(item) + " runs backwards");
    if (last >= cpus && !c.recorded) {
      fail("--cpus", "CPU " + std::to_string(last) + " does not exist (this machine has CPUs 0-" +
                         std::to_string(cpus - 1) + ")");
    }
    for (std::uint64_t cpu = first; cpu <= last; ++cpu) {
      list.push_back(static_cast<std::uint32_t>(cpu));
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  c.cpus = std::move(list);
}

// A CPU list as --cpus takes it: runs of consecutive CPUs written A-B.
std::string cpu_list_text(const std::vector<std::uint32_t>& cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += std::to_string(cpus[i]);
    if (j > i) text += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return text;
}

const char* period_kind_name(const Period& period) {
  // httperf's --rate 0 is a deterministic period of 0, but a reader of the document should not
  // have to know that to tell a sequential run from a paced one.
  if (period.sequential()) return "sequential";
  switch (period.kind) {
    case PeriodKind::deterministic:
      return "deterministic";
    case PeriodKind::uniform:
      return "uniform";
    case PeriodKind::exponential:
      return "exponential";
    case PeriodKind::variable:
      return "variable";
  }
  return "deterministic";
}

json period_json(const Period& period) {
  json steps = json::array();
  for (const PeriodStep& step : period.steps) {
    steps.push_back({{"gap_s", to_s(step.gap)}, {"length_s", to_s(step.length)}});
  }
  return {{"kind", period_kind_name(period)},
          {"mean_s", to_s(period.mean)},
          {"low_s", to_s(period.low)},
          {"high_s", to_s(period.high)},
          {"steps", steps}};
}

// Options that were not given (or are switched off) are null in the document rather than a
// default number, so that a reader cannot mistake "the kernel's default" or "no threshold" for
// a value.
json given_or_null(const std::optional<std::uint32_t>& value) {
  return value ? json(*value) : json(nullptr);
}

constexpr std::array<std::string_view, 2> kHttpVersions = {"1.0", "1.1"};
constexpr std::array<std::string_view, 2> kPrintParts = {"header", "body"};
constexpr std::array<std::string_view, 2> kServerAddresses = {"first", "all"};
constexpr std::array<std::string_view, 5> kSslProtocols = {"auto", "TLSv1.0", "TLSv1.1", "TLSv1.2",
                                                          "TLSv1.3"};
constexpr std::array<std::string_view, 5> kTimings = {"auto", "sleep", "hybrid", "spin", "batch"};
constexpr std::array<std::string_view, 2> kClocks = {"kernel", "user"};
constexpr std::array<std::string_view, 3> kFormats = {"httperf", "ab", "siege"};

void apply_timing(Config& c, std::string_view v) {
  for (const Timing timing :
       {Timing::automatic, Timing::sleep, Timing::hybrid, Timing::spin, Timing::batch}) {
    if (v == timing_name(timing)) {
      c.timing = timing;
      return;
    }
  }
  fail("--timing", "expected auto, sleep, hybrid, spin or batch (got " + quoted(v) + ")");
}

void apply_format(Config& c, std::string_view v) {
  for (const ReportFormat format : {ReportFormat::httperf, ReportFormat::ab, ReportFormat::siege}) {
    if (v == kFormats[static_cast<std::size_t>(format)]) {
      c.format = format;
      return;
    }
  }
  fail("--format", "expected httperf, ab or siege (got " + quoted(v) + ")");
}

// --wlog B,FILE.
void apply_wlog(Config& c, std::string_view v) {
  if (v.size() < 3 || (v[0] != 'y' && v[0] != 'n') || v[1] != ',') {
    fail("--wlog", "expected y,FILE or n,FILE (got " + quoted(v) + ")");
  }
  c.wlog_wrap = v[0] == 'y';
  c.wlog_path = std::string(v.substr(2));
}

// --wsess N1,N2,X.
void apply_wsess(Config& c, std::string_view v) {
  const std::size_t first = v.find(',');
  const std::size_t second = first == std::string_view::npos ? first : v.find(',', first + 1);
  if (second == std::string_view::npos) {
    fail("--wsess", "expected N1,N2,X: sessions, calls per session, think time (got " + quoted(v) + ")");
  }
  c.sessions = parse_whole("--wsess", v.substr(0, first), 1);
  c.wsess_calls = parse_whole("--wsess", v.substr(first + 1, second - first - 1), 1, 1000000);
  const std::string_view think = v.substr(second + 1);
  c.session_think = to_duration("--wsess", parse_seconds("--wsess", think), think);
}

// --wsesslog N,X,FILE.
void apply_wsesslog(Config& c, std::string_view v) {
  const std::size_t first = v.find(',');
  const std::size_t second = first == std::string_view::npos ? first : v.find(',', first + 1);
  if (second == std::string_view::npos || second + 1 == v.size()) {
    fail("--wsesslog", "expected N,X,FILE: sessions, think time, session file (got " + quoted(v) + ")");
  }
  c.sessions = parse_whole("--wsesslog", v.substr(0, first), 1);
  const std::string_view think = v.substr(first + 1, second - first - 1);
  c.session_think = to_duration("--wsesslog", parse_seconds("--wsesslog", think), think);
  c.wsesslog_path = std::string(v.substr(second + 1));
}

// How the echoed line and the document show the think time: httperf's three decimals.
std::string think_text(Duration think) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", to_s(think));
  return text;
}

// --wset N,X.
void apply_wset(Config& c, std::string_view v) {
  const std::size_t comma = v.find(',');
  if (comma == std::string_view::npos) fail("--wset", "expected N,X (got " + quoted(v) + ")");
  c.wset_files = parse_whole("--wset", v.substr(0, comma), 1);
  c.wset_rate = parse_real("--wset", v.substr(comma + 1));
  if (!(c.wset_rate > 0 && c.wset_rate <= 1)) {
    fail("--wset", "X, the new files per call, must be above 0 and at most 1 (got " +
                       quoted(v.substr(comma + 1)) + ")");
  }
}

// --print-request and --print-reply: header, body, or both (given without a value).
PrintParts print_parts(std::string_view option, std::string_view v) {
  if (v == "header") return {.header = true, .body = false};
  if (v == "body") return {.header = false, .body = true};
  if (v == "all") return {.header = true, .body = true};
  fail(option, "expected header or body, or no value for both (got " + quoted(v) + ")");
}

// How the echoed command line and the JSON document name them ("" when off).
std::string print_parts_name(const PrintParts& parts) {
  if (parts.header && parts.body) return "all";
  if (parts.header) return "header";
  if (parts.body) return "body";
  return "";
}

void echo_print(std::string& line, const char* flag, const PrintParts& parts) {
  if (!parts.any()) return;
  // httperf's form: the option alone for both.
  add(line, parts.header && parts.body ? std::string(flag) : flag + ("=" + print_parts_name(parts)));
}

json print_json(const PrintParts& parts) {
  return parts.any() ? print_parts_name(parts) : "none";
}

// One option per entry; the lambdas are the only place that says how each parses, echoes and
// exports. clang-format would spread each entry over many more lines. GCC 12 warns about the
// members an entry leaves to their defaults, which is the point of designated initializers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
// clang-format off
const std::array kOptions = {
  // Target
  OptionSpec{.name = "server", .group = Group::target, .kind = ValueKind::host, .value_name = "S",
    .help = "host name or address of the server (default localhost)",
    .apply = [](Config& c, std::string_view v) { c.server = check_host("--server", v); },
    .echo_rank = 50, .echo = [](const Config& c, std::string& l) { add(l, "--server=" + c.server); },
    .json = [](const Config& c, json& j) { j["server"] = c.server; }},
  OptionSpec{.name = "port", .group = Group::target, .kind = ValueKind::whole, .value_name = "N",
    .help = "TCP port of the server, 1..65535 (default 80)",
    .apply = [](Config& c, std::string_view v) {
      c.port = static_cast<std::uint16_t>(parse_whole("--port", v, 1, 65535)); },
    .echo_rank = 70,
    .echo = [](const Config& c, std::string& l) { add(l, "--port=" + std::to_string(c.port)); },
    .json = [](const Config& c, json& j) { j["port"] = c.port; }},
  OptionSpec{.name = "uri", .group = Group::target, .kind = ValueKind::text, .value_name = "S",
    .help = "request target, starting with '/' (default /)",
    .apply = [](Config& c, std::string_view v) { c.uri = check_uri("--uri", v); },
    .echo_rank = 80, .echo = [](const Config& c, std::string& l) { add(l, "--uri=" + c.uri); },
    .json = [](const Config& c, json& j) { j["uri"] = c.uri; }},
  OptionSpec{.name = "server-name", .group = Group::target, .kind = ValueKind::host,
    .value_name = "S", .help = "Host header (default: the server, plus :port if not 80)",
    .apply = [](Config& c, std::string_view v) { c.server_name = check_host("--server-name", v); },
    // httperf spells this one --server_name here, which it would not accept back; we echo the
    // spelling the option has.
    .echo_rank = 60, .echo = [](const Config& c, std::string& l) {
      if (!c.server_name.empty()) add(l, "--server-name=" + c.server_name); },
    .json = [](const Config& c, json& j) { j["server_name"] = c.server_name; }},

  // Load
  OptionSpec{.name = "server-addresses", .group = Group::target, .kind = ValueKind::choice,
    .value_name = "first|all",
    .help = "connect to the first address the server's name has, or to each in turn (default first)",
    .choices = kServerAddresses,
    .apply = [](Config& c, std::string_view v) {
      if (v != "first" && v != "all") fail("--server-addresses", "expected first or all (got " + quoted(v) + ")");
      c.all_server_addresses = v == "all"; },
    .echo_rank = 65, .echo = [](const Config& c, std::string& l) {
      if (c.all_server_addresses) add(l, "--server-addresses=all"); },
    .json = [](const Config& c, json& j) { j["server_addresses"] = c.all_server_addresses ? "all" : "first"; }},
  OptionSpec{.name = "rate", .group = Group::load, .kind = ValueKind::real, .value_name = "X",
    .help = "connections per second; 0: one after another (default 0)",
    .apply = [](Config& c, std::string_view v) { c.period = period_of_rate(v); },
    // Like httperf, a fixed period is echoed as the rate it amounts to, and a sequential run
    // (rate 0) shows neither; this one entry echoes --period too.
    .echo_rank = 100, .echo = [](const Config& c, std::string& l) {
      if (const std::string text = echo_period(c.period); !text.empty()) {
        // In request mode the period schedules requests: "--rate" becomes "--request-rate".
        add(l, c.request_mode && text.starts_with("--rate=") ? "--request-" + text.substr(2) : text);
      } },
    .json = [](const Config& c, json& j) { j["rate_per_s"] = c.period.rate_per_s; }},
  OptionSpec{.name = "period", .group = Group::load, .kind = ValueKind::period,
    .value_name = "[d|u|e|v]T1[,T2...]", .help = "gaps between connections, instead of --rate (see below)",
    .apply = [](Config& c, std::string_view v) { c.period = parse_period(v); },
    .json = [](const Config& c, json& j) { j["period"] = period_json(c.period); }},
  OptionSpec{.name = "num-conns", .group = Group::load, .kind = ValueKind::whole, .value_name = "N",
    .help = "connections to issue in all (default 1)",
    .apply = [](Config& c, std::string_view v) { c.num_conns = parse_whole("--num-conns", v, 1); },
    .echo_rank = 150, .echo = [](const Config& c, std::string& l) {
      if (!c.request_mode && c.sessions == 0) add(l, "--num-conns=" + std::to_string(c.num_conns)); },
    .json = [](const Config& c, json& j) { j["num_conns"] = c.num_conns; }},
  OptionSpec{.name = "num-calls", .group = Group::load, .kind = ValueKind::whole, .value_name = "N",
    .help = "calls on each connection, one after another, then close (default 1)",
    .apply = [](Config& c, std::string_view v) { c.num_calls = parse_whole("--num-calls", v, 1); },
    .echo_rank = 160, .echo = [](const Config& c, std::string& l) {
      if (!c.request_mode && c.sessions == 0) add(l, "--num-calls=" + std::to_string(c.num_calls)); },
    .json = [](const Config& c, json& j) { j["num_calls"] = c.num_calls; }},
  OptionSpec{.name = "burst-length", .group = Group::load, .kind = ValueKind::whole,
    .value_name = "B", .help = "calls pipelined at once, next burst after their replies (default 1)",
    .apply = [](Config& c, std::string_view v) {
      c.burst_length = parse_whole("--burst-length", v, 1, 1000000); },
    .echo_rank = 210, .echo = [](const Config& c, std::string& l) {
      if (c.burst_length != 1) add(l, "--burst-length=" + std::to_string(c.burst_length)); },
    .json = [](const Config& c, json& j) { j["burst_length"] = c.burst_length; }},
  OptionSpec{.name = "max-piped-calls", .group = Group::load, .kind = ValueKind::whole,
    .value_name = "P", .help = "most calls in flight on one connection (default 32)",
    .apply = [](Config& c, std::string_view v) {
      c.max_piped_calls = parse_whole("--max-piped-calls", v, 1, kMaxPipedCalls); },
    .echo_rank = 220, .echo = [](const Config& c, std::string& l) {
      if (c.max_piped_calls != 32) add(l, "--max-piped-calls=" + std::to_string(c.max_piped_calls)); },
    .json = [](const Config& c, json& j) { j["max_piped_calls"] = c.max_piped_calls; }},
  OptionSpec{.name = "request-rate", .group = Group::load, .kind = ValueKind::real,
    .value_name = "R", .help = "requests per second over --connections persistent connections",
    .apply = [](Config& c, std::string_view v) {
      c.period = period_of_rate(v);
      if (c.period.sequential()) fail("--request-rate", "must be greater than 0 (got " + std::string(v) + ")");
      c.request_mode = true; },
    .json = [](const Config& c, json& j) {
      j["request_rate_per_s"] = c.request_mode ? json(c.period.rate_per_s) : json(nullptr); }},
  OptionSpec{.name = "connections", .group = Group::load, .kind = ValueKind::whole,
    .value_name = "C", .help = "persistent connections of --request-rate, opened at the start (default 10)",
    .apply = [](Config& c, std::string_view v) {
      c.connections = parse_whole("--connections", v, 1, 1000000);
      c.request_mode = true; },
    .echo_rank = 230, .echo = [](const Config& c, std::string& l) {
      if (c.request_mode) add(l, "--connections=" + std::to_string(c.connections)); },
    .json = [](const Config& c, json& j) {
      j["connections"] = c.request_mode ? json(c.connections) : json(nullptr); }},
  OptionSpec{.name = "requests", .group = Group::load, .kind = ValueKind::whole, .value_name = "N",
    .help = "requests in all, with --request-rate (or --concurrency: over persistent connections)",
    .apply = [](Config& c, std::string_view v) { c.requests = parse_whole("--requests", v, 1); },
    .echo_rank = 240, .echo = [](const Config& c, std::string& l) {
      if (c.requests > 0) add(l, "--requests=" + std::to_string(c.requests)); },
    .json = [](const Config& c, json& j) {
      j["requests"] = c.requests > 0 ? json(c.requests) : json(nullptr); }},
  OptionSpec{.name = "duration", .group = Group::load, .kind = ValueKind::seconds, .value_name = "S",
    .help = "seconds of schedule, with --request-rate or --concurrency, instead of a count",
    .apply = [](Config& c, std::string_view v) {
      c.duration = to_duration("--duration", parse_seconds("--duration", v), v);
      if (c.duration <= Duration::zero()) fail("--duration", "must be greater than 0 (got " + std::string(v) + ")"); },
    .echo_rank = 250, .echo = [](const Config& c, std::string& l) {
      echo_seconds(l, "--duration", c.duration); },
    .json = [](const Config& c, json& j) {
      j["duration_s"] = c.duration > Duration::zero() ? json(to_s(c.duration)) : json(nullptr); }},
  OptionSpec{.name = "timeout", .group = Group::load, .kind = ValueKind::seconds, .value_name = "X",
    .help = "inactivity timeout in seconds; 0: none (default 0)",
    .apply = [](Config& c, std::string_view v) {
      c.timeout = to_duration("--timeout", parse_seconds("--timeout", v), v); },
    .echo_rank = 30,
    .echo = [](const Config& c, std::string& l) { echo_seconds(l, "--timeout", c.timeout); },
    .json = [](const Config& c, json& j) { j["timeout_s"] = to_s(c.timeout); }},
  OptionSpec{.name = "think-timeout", .group = Group::load, .kind = ValueKind::seconds,
    .value_name = "X", .help = "seconds added to --timeout for the reply to start (default 0)",
    .apply = [](Config& c, std::string_view v) {
      c.think_timeout = to_duration("--think-timeout", parse_seconds("--think-timeout", v), v); },
    .echo_rank = 20, .echo = [](const Config& c, std::string& l) {
      echo_seconds(l, "--think-timeout", c.think_timeout); },
    .json = [](const Config& c, json& j) { j["think_timeout_s"] = to_s(c.think_timeout); }},
  OptionSpec{.name = "concurrency", .group = Group::load, .kind = ValueKind::whole,
    .value_name = "C", .help = "closed loop: C slots, each starting its next connection (or request) when its last one ended",
    .apply = [](Config& c, std::string_view v) {
      c.concurrency = parse_whole("--concurrency", v, 1, 1000000); },
    .echo_rank = 105, .echo = [](const Config& c, std::string& l) {
      if (c.closed_loop()) add(l, "--concurrency=" + std::to_string(c.concurrency)); },
    .json = [](const Config& c, json& j) {
      j["concurrency"] = c.closed_loop() ? json(c.concurrency) : json(nullptr); }},
  OptionSpec{.name = "think", .group = Group::load, .kind = ValueKind::seconds, .value_name = "S",
    .help = "seconds a --concurrency slot waits after one arrival ended before its next (default 0)",
    .apply = [](Config& c, std::string_view v) {
      c.think = to_duration("--think", parse_seconds("--think", v), v); },
    .echo_rank = 106, .echo = [](const Config& c, std::string& l) {
      echo_seconds(l, "--think", c.think); },
    .json = [](const Config& c, json& j) { j["think_s"] = to_s(c.think); }},
  OptionSpec{.name = "timing", .group = Group::load, .kind = ValueKind::choice,
    .value_name = "MODE", .help = "auto, sleep, hybrid, spin or batch: how the client waits (default auto); batch takes a turn every --batch-reads S (default 0.2 ms), the arrivals due since the last and the replies that came (kernel clock); auto takes batch's turns from 20,000 calls/s a worker",
    .choices = kTimings, .apply = apply_timing,
    .echo_rank = 200, .echo = [](const Config& c, std::string& l) {
      if (c.timing != Timing::automatic) add(l, "--timing=" + std::string(timing_name(c.timing))); },
    .json = [](const Config& c, json& j) { j["timing"] = timing_name(c.timing); }},
  OptionSpec{.name = "clock", .group = Group::load, .kind = ValueKind::choice,
    .value_name = "CLOCK", .help = "kernel or user: what times the replies, the kernel's packet timestamps or the client's reads (default kernel; user in a closed loop, as ab and siege)",
    .choices = kClocks, .apply = [](Config& c, std::string_view v) {
      if (v == "kernel") c.clock = ReplyClock::kernel;
      else if (v == "user") c.clock = ReplyClock::user;
      else fail("--clock", "expected kernel or user (got " + quoted(v) + ")");
      c.clock_given = true; },
    .echo_rank = 201, .echo = [](const Config& c, std::string& l) {
      // Echoed where it is not the loop's default.
      if (c.reply_clock() != c.default_clock()) add(l, c.clock == ReplyClock::user ? "--clock=user" : "--clock=kernel"); },
    .json = [](const Config& c, json& j) { j["clock"] = c.reply_clock() == ReplyClock::kernel ? "kernel" : "user"; }},
  OptionSpec{.name = "batch-reads", .group = Group::load, .kind = ValueKind::seconds,
    .value_name = "S", .help = "read replies at the loop's next wake-up, at most S seconds after they came, not at once (kernel clock; default 0: at once)",
    .apply = [](Config& c, std::string_view v) {
      c.batch_reads = to_duration("--batch-reads", parse_seconds("--batch-reads", v), v);
      if (c.batch_reads > std::chrono::seconds(1)) fail("--batch-reads", "must be at most 1 second (got " + std::string(v) + ")"); },
    .echo_rank = 202, .echo = [](const Config& c, std::string& l) {
      echo_seconds(l, "--batch-reads", c.batch_reads); },
    .json = [](const Config& c, json& j) { j["batch_reads_s"] = to_s(c.batch_reads); }},
  OptionSpec{.name = "threads", .group = Group::load, .kind = ValueKind::whole, .value_name = "N",
    .help = "workers on threads of their own, each taking every Nth arrival of the one schedule (default 1)",
    .apply = [](Config& c, std::string_view v) {
      c.threads = static_cast<std::uint32_t>(parse_whole("--threads", v, 1, kMaxThreads)); },
    .echo_rank = 205, .echo = [](const Config& c, std::string& l) {
      if (c.threads > 1) add(l, "--threads=" + std::to_string(c.threads)); },
    .json = [](const Config& c, json& j) { j["threads"] = c.threads; }},
  OptionSpec{.name = "cpus", .group = Group::load, .kind = ValueKind::text, .value_name = "LIST",
    .help = "pin the --threads workers to these CPUs in turn, e.g. 0,2-3 (default: the kernel places them)",
    .apply = apply_cpus,
    .echo_rank = 206, .echo = [](const Config& c, std::string& l) {
      if (!c.cpus.empty()) add(l, "--cpus=" + cpu_list_text(c.cpus)); },
    .json = [](const Config& c, json& j) { j["cpus"] = c.cpus.empty() ? json(nullptr) : json(c.cpus); }},
  OptionSpec{.name = "shard", .group = Group::load, .kind = ValueKind::fraction,
    .value_name = "I/N", .help = "run part I of N of the schedule (arrivals I, I + N, ...), 0 <= I < N (default 0/1); env or env/N: I and N from a job engine's variables",
    .apply = apply_shard,
    .echo_rank = 207, .echo = [](const Config& c, std::string& l) {
      if (c.shard_count > 1) {
        add(l, "--shard=" + std::to_string(c.shard_index) + "/" + std::to_string(c.shard_count));
      } },
    .json = [](const Config& c, json& j) {
      j["shard"] = {{"index", c.shard_index}, {"count", c.shard_count}}; }},
  OptionSpec{.name = "start-at", .group = Group::load, .kind = ValueKind::text, .value_name = "TIME",
    .help = "start the schedule at this wall-clock instant, RFC 3339 or seconds since the epoch (the shards' common start)",
    .apply = [](Config& c, std::string_view v) { c.start_at_unix_ns = parse_wall_time("--start-at", v); },
    .echo_rank = 208, .echo = [](const Config& c, std::string& l) {
      if (c.start_at_unix_ns) add(l, "--start-at=" + format_wall_time(*c.start_at_unix_ns)); },
    .json = [](const Config& c, json& j) {
      j["start_at"] = c.start_at_unix_ns ? json(format_wall_time(*c.start_at_unix_ns)) : json(nullptr); }},
  OptionSpec{.name = "seed", .group = Group::load, .kind = ValueKind::whole, .value_name = "N",
    .help = "seed of the u and e gaps (default 1 + I of --client)",
    .apply = [](Config& c, std::string_view v) {
      c.seed = parse_whole("--seed", v, 0);
      c.seed_given = true; },
    .echo_rank = 170, .echo = [](const Config& c, std::string& l) {
      if (c.seed_given) add(l, "--seed=" + std::to_string(c.seed)); },
    .json = [](const Config& c, json& j) { j["seed"] = c.seed; }},

  // Request
  OptionSpec{.name = "method", .group = Group::request, .kind = ValueKind::text, .value_name = "S",
    .help = "request method (default GET)",
    .apply = [](Config& c, std::string_view v) {
      if (!is_token(v)) fail("--method", quoted(v) + " is not a valid method name");
      c.method = v; },
    .echo_rank = 140, .echo = [](const Config& c, std::string& l) {
      if (c.method != "GET") add(l, "--method=" + c.method); },
    .json = [](const Config& c, json& j) { j["method"] = c.method; }},
  OptionSpec{.name = "add-header", .group = Group::request, .kind = ValueKind::text,
    .value_name = "S", .help = "extra header, repeatable; \\n separates lines (default none)",
    .repeatable = true,
    .apply = [](Config& c, std::string_view v) { c.add_headers.emplace_back(v); },
    .echo_rank = 130, .echo = [](const Config& c, std::string& l) {
      for (const std::string& header : c.add_headers) add(l, "--add-header='" + header + "'"); },
    .json = [](const Config& c, json& j) { j["add_headers"] = c.add_headers; }},
  OptionSpec{.name = "no-host-hdr", .group = Group::request,
    .help = "send no Host header (HTTP/1.1 servers should answer 400)",
    .apply = [](Config& c, std::string_view) { c.no_host_header = true; },
    .echo_rank = 260, .echo = [](const Config& c, std::string& l) {
      if (c.no_host_header) add(l, "--no-host-hdr"); },
    .json = [](const Config& c, json& j) { j["no_host_header"] = c.no_host_header; }},
  OptionSpec{.name = "wlog", .group = Group::request, .kind = ValueKind::text,
    .value_name = "B,FILE",
    .help = "each call takes the next URI of FILE (NUL- or line-separated); B=y wraps, n ends the run there",
    .apply = apply_wlog,
    .echo_rank = 270, .echo = [](const Config& c, std::string& l) {
      if (!c.wlog_path.empty()) add(l, std::string("--wlog=") + (c.wlog_wrap ? "y," : "n,") + c.wlog_path); },
    .json = [](const Config& c, json& j) {
      j["wlog_file"] = c.wlog_path.empty() ? json(nullptr) : json(c.wlog_path);
      j["wlog_wrap"] = c.wlog_wrap; }},
  OptionSpec{.name = "wset", .group = Group::request, .kind = ValueKind::text, .value_name = "N,X",
    .help = "each call takes a URI of N files under --uri (URI/0/1/0/3.html), X new files per call",
    .apply = apply_wset,
    .echo_rank = 215, .echo = [](const Config& c, std::string& l) {
      if (c.wset_files > 0) add(l, "--wset=" + std::to_string(c.wset_files) + "," + format_g(c.wset_rate)); },
    .json = [](const Config& c, json& j) {
      j["wset_files"] = c.wset_files > 0 ? json(c.wset_files) : json(nullptr);
      j["wset_rate"] = c.wset_files > 0 ? json(c.wset_rate) : json(nullptr); }},
  OptionSpec{.name = "http-version", .group = Group::request, .kind = ValueKind::choice,
    .value_name = "V", .help = "1.0 or 1.1 (default 1.1)", .choices = kHttpVersions,
    .apply = [](Config& c, std::string_view v) {
      if (v != "1.0" && v != "1.1") fail("--http-version", "expected 1.0 or 1.1 (got " + quoted(v) + ")");
      c.http_version = v; },
    .echo_rank = 90, .echo = [](const Config& c, std::string& l) {
      if (c.http_version != "1.1") add(l, "--http-version=" + c.http_version); },
    .json = [](const Config& c, json& j) { j["http_version"] = c.http_version; }},

  // Socket
  OptionSpec{.name = "wsess", .group = Group::session, .kind = ValueKind::text,
    .value_name = "N1,N2,X",
    .help = "N1 sessions of N2 calls each, think time X s after each burst's replies",
    .apply = apply_wsess,
    .echo_rank = 145, .echo = [](const Config& c, std::string& l) {
      if (c.wsess_calls > 0) add(l, "--wsess=" + std::to_string(c.sessions) + "," + std::to_string(c.wsess_calls) + "," + think_text(c.session_think)); },
    .json = [](const Config& c, json& j) {
      j["sessions"] = c.sessions;
      j["session_think_s"] = c.sessions > 0 ? json(to_s(c.session_think)) : json(nullptr);
      j["wsess_calls"] = c.wsess_calls > 0 ? json(c.wsess_calls) : json(nullptr); }},
  OptionSpec{.name = "wsesslog", .group = Group::session, .kind = ValueKind::text,
    .value_name = "N,X,FILE",
    .help = "N sessions from FILE's session templates (round robin), default think time X s",
    .apply = apply_wsesslog,
    .echo_rank = 144, .echo = [](const Config& c, std::string& l) {
      if (!c.wsesslog_path.empty()) add(l, "--wsesslog=" + std::to_string(c.sessions) + "," + think_text(c.session_think) + "," + c.wsesslog_path); },
    .json = [](const Config& c, json& j) {
      j["wsesslog_file"] = c.wsesslog_path.empty() ? json(nullptr) : json(c.wsesslog_path); }},
  OptionSpec{.name = "max-connections", .group = Group::session, .kind = ValueKind::whole,
    .value_name = "N", .help = "connections a session may have open at once (default 4)",
    .apply = [](Config& c, std::string_view v) {
      c.max_connections = parse_whole("--max-connections", v, 1, kMaxSessionConnections); },
    .echo_rank = 92, .echo = [](const Config& c, std::string& l) {
      if (c.sessions > 0) add(l, "--max-connections=" + std::to_string(c.max_connections)); },
    .json = [](const Config& c, json& j) { j["max_connections"] = c.max_connections; }},
  OptionSpec{.name = "failure-status", .group = Group::session, .kind = ValueKind::whole,
    .value_name = "S", .help = "a reply with status S fails its session",
    .apply = [](Config& c, std::string_view v) {
      c.failure_status = static_cast<int>(parse_whole("--failure-status", v, 100, 599)); },
    .echo_rank = 85, .echo = [](const Config& c, std::string& l) {
      if (c.failure_status > 0) add(l, "--failure-status=" + std::to_string(c.failure_status)); },
    .json = [](const Config& c, json& j) {
      j["failure_status"] = c.failure_status > 0 ? json(c.failure_status) : json(nullptr); }},
  OptionSpec{.name = "retry-on-failure", .group = Group::session,
    .help = "send a call that got --failure-status again (at most 8 times) instead of failing",
    .apply = [](Config& c, std::string_view) { c.retry_on_failure = true; },
    .echo_rank = 115, .echo = [](const Config& c, std::string& l) {
      if (c.retry_on_failure) add(l, "--retry-on-failure"); },
    .json = [](const Config& c, json& j) { j["retry_on_failure"] = c.retry_on_failure; }},
  OptionSpec{.name = "session-cookies", .group = Group::session,
    .help = "send back in a session's later requests the cookies its replies set",
    .apply = [](Config& c, std::string_view) { c.session_cookies = true; },
    .echo_rank = 125, .echo = [](const Config& c, std::string& l) {
      if (c.session_cookies) add(l, "--session-cookies"); },
    .json = [](const Config& c, json& j) { j["session_cookies"] = c.session_cookies; }},
  OptionSpec{.name = "send-buffer", .group = Group::socket, .kind = ValueKind::whole,
    .value_name = "N", .help = "SO_SNDBUF in bytes (default: the kernel's, echoed as 4096)",
    .apply = [](Config& c, std::string_view v) { c.send_buffer_bytes = buffer_bytes("--send-buffer", v); },
    .echo_rank = 110, .echo = [](const Config& c, std::string& l) {
      add(l, "--send-buffer=" + std::to_string(c.send_buffer_bytes.value_or(4096))); },
    .json = [](const Config& c, json& j) { j["send_buffer_bytes"] = given_or_null(c.send_buffer_bytes); }},
  OptionSpec{.name = "close-with-reset", .group = Group::socket,
    .help = "close with a reset (RST) instead of a FIN: no TIME_WAIT left behind",
    .apply = [](Config& c, std::string_view) { c.close_with_reset = true; },
    .echo_rank = 15, .echo = [](const Config& c, std::string& l) {
      if (c.close_with_reset) add(l, "--close-with-reset"); },
    .json = [](const Config& c, json& j) { j["close_with_reset"] = c.close_with_reset; }},
  OptionSpec{.name = "recv-buffer", .group = Group::socket, .kind = ValueKind::whole,
    .value_name = "N", .help = "SO_RCVBUF in bytes (default: the kernel's, echoed as 16384)",
    .apply = [](Config& c, std::string_view v) { c.recv_buffer_bytes = buffer_bytes("--recv-buffer", v); },
    .echo_rank = 120, .echo = [](const Config& c, std::string& l) {
      add(l, "--recv-buffer=" + std::to_string(c.recv_buffer_bytes.value_or(16384))); },
    .json = [](const Config& c, json& j) { j["recv_buffer_bytes"] = given_or_null(c.recv_buffer_bytes); }},

  // Output. Where results go is not part of the run: not echoed, not in the document.
  OptionSpec{.name = "myaddr", .group = Group::socket, .kind = ValueKind::text,
    .value_name = "A[-A2]",
    .help = "bind connections to this source address, or each of a range in turn (repeatable)",
    .repeatable = true,
    .apply = [](Config& c, std::string_view v) {
      if (v.empty()) fail("--myaddr", "expected an address or a range A1-A2");
      c.myaddr.emplace_back(v); },
    .echo_rank = 135, .echo = [](const Config& c, std::string& l) {
      for (const std::string& spec : c.myaddr) add(l, "--myaddr=" + spec); },
    .json = [](const Config& c, json& j) { j["myaddr"] = c.myaddr; }},
  OptionSpec{.name = "hog", .group = Group::socket,
    .help = "each socket binds a port of its own from 1024 up, past the local port range",
    .apply = [](Config& c, std::string_view) { c.hog = true; },
    .echo_rank = 13, .echo = [](const Config& c, std::string& l) { if (c.hog) add(l, "--hog"); },
    .json = [](const Config& c, json& j) { j["hog"] = c.hog; }},
  OptionSpec{.name = "ssl", .group = Group::tls,
    .help = "speak TLS (HTTPS), as an https:// URL does; port 443 unless one is named",
    .apply = [](Config& c, std::string_view) { c.tls = true; },
    .echo_rank = 126, .echo = [](const Config& c, std::string& l) { if (c.tls) add(l, "--ssl"); },
    .json = [](const Config& c, json& j) { j["tls"] = c.tls; }},
  OptionSpec{.name = "tls-server-name", .group = Group::tls, .kind = ValueKind::host,
    .value_name = "NAME", .help = "the name sent as SNI and verified (default: --server's, unless an address)",
    .apply = [](Config& c, std::string_view v) { c.tls_server_name = check_host("--tls-server-name", v); },
    .echo_rank = 127, .echo = [](const Config& c, std::string& l) {
      if (!c.tls_server_name.empty()) add(l, "--tls-server-name=" + c.tls_server_name); },
    .json = [](const Config& c, json& j) {
      j["tls_server_name"] = c.tls_server_name.empty() ? json(nullptr) : json(c.tls_server_name); }},
  OptionSpec{.name = "ssl-protocol", .group = Group::tls, .kind = ValueKind::choice,
    .value_name = "P", .help = "auto, or only TLSv1.0, TLSv1.1, TLSv1.2 or TLSv1.3 (default auto)",
    .choices = kSslProtocols,
    .apply = [](Config& c, std::string_view v) {
      if (std::find(kSslProtocols.begin(), kSslProtocols.end(), v) == kSslProtocols.end()) {
        fail("--ssl-protocol", "expected auto, TLSv1.0, TLSv1.1, TLSv1.2 or TLSv1.3 (got " + quoted(v) + ")");
      }
      c.ssl_protocol = std::string(v); },
    .echo_rank = 128, .echo = [](const Config& c, std::string& l) {
      if (c.ssl_protocol != "auto") add(l, "--ssl-protocol=" + c.ssl_protocol); },
    .json = [](const Config& c, json& j) { j["ssl_protocol"] = c.ssl_protocol; }},
  OptionSpec{.name = "ssl-ciphers", .group = Group::tls, .kind = ValueKind::text,
    .value_name = "LIST", .help = "TLS 1.2 cipher list, OpenSSL's syntax (default: OpenSSL's DEFAULT set, ECDHE's AES-128-GCM first, the browsers' order)",
    .apply = [](Config& c, std::string_view v) {
      if (v.empty()) fail("--ssl-ciphers", "the cipher list is empty");
      c.ssl_ciphers = std::string(v); },
    .echo_rank = 129, .echo = [](const Config& c, std::string& l) {
      if (!c.ssl_ciphers.empty()) add(l, "--ssl-ciphers=" + c.ssl_ciphers); },
    .json = [](const Config& c, json& j) {
      j["ssl_ciphers"] = c.ssl_ciphers.empty() ? json(nullptr) : json(c.ssl_ciphers); }},
  OptionSpec{.name = "tls-ciphersuites", .group = Group::tls, .kind = ValueKind::text,
    .value_name = "LIST", .help = "TLS 1.3 ciphersuites, colon-separated (default: AES-128-GCM, AES-256-GCM, CHACHA20, the browsers' order)",
    .apply = [](Config& c, std::string_view v) {
      if (v.empty()) fail("--tls-ciphersuites", "the list is empty");
      c.tls_ciphersuites = std::string(v); },
    .echo_rank = 131, .echo = [](const Config& c, std::string& l) {
      if (!c.tls_ciphersuites.empty()) add(l, "--tls-ciphersuites=" + c.tls_ciphersuites); },
    .json = [](const Config& c, json& j) {
      j["tls_ciphersuites"] = c.tls_ciphersuites.empty() ? json(nullptr) : json(c.tls_ciphersuites); }},
  OptionSpec{.name = "ssl-no-reuse", .group = Group::tls,
    .help = "a full handshake on every connection (default: resume the last session)",
    .apply = [](Config& c, std::string_view) { c.ssl_reuse = false; },
    .echo_rank = 132, .echo = [](const Config& c, std::string& l) {
      if (!c.ssl_reuse) add(l, "--ssl-no-reuse"); },
    .json = [](const Config& c, json& j) { j["ssl_reuse"] = c.ssl_reuse; }},
  OptionSpec{.name = "ssl-verify", .group = Group::tls,
    .help = "check the server's certificate and name (default: not checked)",
    .apply = [](Config& c, std::string_view) { c.ssl_verify = true; },
    .echo_rank = 133, .echo = [](const Config& c, std::string& l) {
      if (c.ssl_verify) add(l, "--ssl-verify"); },
    .json = [](const Config& c, json& j) { j["ssl_verify"] = c.ssl_verify; }},
  OptionSpec{.name = "ssl-ca-file", .group = Group::tls, .kind = ValueKind::file,
    .value_name = "FILE", .help = "CA certificates (PEM) for --ssl-verify (default: the system's)",
    .apply = [](Config& c, std::string_view v) {
      if (v.empty()) fail("--ssl-ca-file", "the file name is empty");
      c.ssl_ca_file = std::string(v); },
    .echo_rank = 134, .echo = [](const Config& c, std::string& l) {
      if (!c.ssl_ca_file.empty()) add(l, "--ssl-ca-file=" + c.ssl_ca_file); },
    .json = [](const Config& c, json& j) {
      j["ssl_ca_file"] = c.ssl_ca_file.empty() ? json(nullptr) : json(c.ssl_ca_file); }},
  OptionSpec{.name = "verbose", .short_name = 'v', .group = Group::output,
    .help = "print 5-s reply-rate samples on stderr, and ab's table (default off)",
    .repeatable = true, .apply = [](Config& c, std::string_view) { ++c.verbose; },
    .echo_rank = 10, .echo = [](const Config& c, std::string& l) {
      if (c.verbose > 0) add(l, "--verbose"); },
    .json = [](const Config& c, json& j) { j["verbose"] = c.verbose; }},
  OptionSpec{.name = "print-request", .group = Group::output, .kind = ValueKind::choice,
    .value_name = "header|body", .implicit_value = "all",
    .help = "print each request on stdout: header lines (SH), body lines (SB), sizes (SS)",
    .choices = kPrintParts,
    .apply = [](Config& c, std::string_view v) { c.print_request = print_parts("--print-request", v); },
    .echo_rank = 12, .echo = [](const Config& c, std::string& l) {
      echo_print(l, "--print-request", c.print_request); },
    .json = [](const Config& c, json& j) { j["print_request"] = print_json(c.print_request); }},
  OptionSpec{.name = "print-reply", .group = Group::output, .kind = ValueKind::choice,
    .value_name = "header|body", .implicit_value = "all",
    .help = "print each reply on stdout: header lines (RH), body lines (RB), sizes (RS)",
    .choices = kPrintParts,
    .apply = [](Config& c, std::string_view v) { c.print_reply = print_parts("--print-reply", v); },
    .echo_rank = 11, .echo = [](const Config& c, std::string& l) {
      echo_print(l, "--print-reply", c.print_reply); },
    .json = [](const Config& c, json& j) { j["print_reply"] = print_json(c.print_reply); }},
  OptionSpec{.name = "json", .group = Group::output, .kind = ValueKind::file, .value_name = "FILE",
    .help = "write the results as one JSON document to FILE (- for stdout)",
    .apply = [](Config& c, std::string_view v) {
      // An empty name is refused here rather than failing at the end of a long run.
      if (v.empty()) fail("--json", "expects a file name or -");
      c.json_path = v; }},
  OptionSpec{.name = "csv", .group = Group::output, .kind = ValueKind::file, .value_name = "FILE",
    .help = "append a row of results to FILE (header if new; - for stdout)",
    .apply = [](Config& c, std::string_view v) {
      if (v.empty()) fail("--csv", "expects a file name or -");
      c.csv_path = v; }},
  OptionSpec{.name = "format", .group = Group::output, .kind = ValueKind::choice,
    .value_name = "NAME", .help = "the text report: httperf, ab or siege, with that tool's labels (default httperf)",
    .choices = kFormats, .apply = apply_format},
  OptionSpec{.name = "interval", .group = Group::output, .kind = ValueKind::seconds,
    .value_name = "S", .help = "length of the time series' intervals, in seconds (default 1)",
    .apply = [](Config& c, std::string_view v) {
      const double seconds = parse_seconds("--interval", v);
      if (seconds < 0.001) fail("--interval", "must be at least 0.001 s (got " + std::string(v) + ")");
      c.interval = to_duration("--interval", seconds, v); },
    .echo_rank = 209, .echo = [](const Config& c, std::string& l) {
      if (c.interval != std::chrono::seconds(1)) add(l, "--interval=" + format_g(to_s(c.interval))); },
    .json = [](const Config& c, json& j) { j["interval_s"] = to_s(c.interval); }},
  OptionSpec{.name = "series", .group = Group::output, .kind = ValueKind::file, .value_name = "FILE",
    .help = "write the time series, one row an interval, as CSV to FILE (- for stdout)",
    .apply = [](Config& c, std::string_view v) {
      if (v.empty()) fail("--series", "expects a file name or -");
      c.series_path = v; }},
  OptionSpec{.name = "call-log", .group = Group::output, .kind = ValueKind::file, .value_name = "FILE",
    .help = "write one CSV row per reply to FILE: its port and times, by the client's and the kernel's clocks",
    .apply = [](Config& c, std::string_view v) {
      if (v.empty()) fail("--call-log", "expects a file name");
      c.call_log_path = v; }},
  OptionSpec{.name = "dump", .group = Group::output, .kind = ValueKind::file, .value_name = "FILE",
    .help = "write this run's lossless result file to FILE, for rateperf merge",
    .apply = [](Config& c, std::string_view v) {
      if (v.empty()) fail("--dump", "expects a file name");
      c.dump_path = v; }},
  OptionSpec{.name = "quiet", .short_name = 'q', .group = Group::output,
    .help = "no live progress line on stderr", .repeatable = true,
    .apply = [](Config& c, std::string_view) { c.quiet = true; }},

  // Thresholds. Zero lag would fail every run, so "none" is spelt by leaving the option out.
  OptionSpec{.name = "max-lag", .group = Group::thresholds, .kind = ValueKind::real,
    .value_name = "MS", .help = "exit 3 when the p99 lag of the client exceeds MS ms",
    .apply = [](Config& c, std::string_view v) {
      const double lag_ms = parse_real("--max-lag", v);
      if (lag_ms <= 0) fail("--max-lag", "must be greater than 0 (got " + std::string(v) + ")");
      if (lag_ms > kMaxSeconds * 1000) {
        fail("--max-lag", "must be at most " + format_g(kMaxSeconds * 1000) + " ms (got " +
                              std::string(v) + ")");
      }
      c.max_lag = to_duration("--max-lag", lag_ms / 1000, v); },
    .echo_rank = 180, .echo = [](const Config& c, std::string& l) {
      if (c.max_lag > Duration::zero()) add(l, "--max-lag=" + format_g(to_ms(c.max_lag))); },
    .json = [](const Config& c, json& j) {
      j["max_lag_ms"] = c.max_lag > Duration::zero() ? json(to_ms(c.max_lag)) : json(nullptr); }},
  OptionSpec{.name = "max-error-rate", .group = Group::thresholds, .kind = ValueKind::real,
    .value_name = "P", .help = "exit 3 when more than P % of the calls fail",
    .apply = [](Config& c, std::string_view v) {
      const double percent = parse_real("--max-error-rate", v);
      if (percent < 0 || percent > 100) {
        fail("--max-error-rate", "must be within 0..100 (got " + std::string(v) + ")");
      }
      c.max_error_rate_percent = percent; },
    .echo_rank = 190, .echo = [](const Config& c, std::string& l) {
      if (c.max_error_rate_percent >= 0) {
        add(l, "--max-error-rate=" + format_g(c.max_error_rate_percent));
      } },
    .json = [](const Config& c, json& j) {
      j["max_error_rate_percent"] =
          c.max_error_rate_percent >= 0 ? json(c.max_error_rate_percent) : json(nullptr); }},

  // Misc
  OptionSpec{.name = "client", .group = Group::misc, .kind = ValueKind::fraction,
    .value_name = "I/N", .help = "this is client I of N, 0 <= I < N (default 0/1)",
    .apply = apply_client,
    .echo_rank = 40, .echo = [](const Config& c, std::string& l) {
      add(l, "--client=" + std::to_string(c.client_id) + "/" + std::to_string(c.client_count)); },
    .json = [](const Config& c, json& j) {
      j["client"] = {{"id", c.client_id}, {"count", c.client_count}}; }},
  OptionSpec{.name = "help", .short_name = 'h', .group = Group::misc,
    .help = "print this help and exit", .repeatable = true},
  OptionSpec{.name = "version", .short_name = 'V', .group = Group::misc,
    .help = "print the version and exit", .repeatable = true},
};
// clang-format on
#pragma GCC diagnostic pop

}  // namespace

std::span<const OptionSpec> option_table() {
  return kOptions;
}

const OptionSpec* find_option(std::string_view name) {
  for (const OptionSpec& spec : kOptions) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::string_view timing_name(Timing timing) {
  switch (timing) {
    case Timing::automatic: return "auto";
    case Timing::sleep: return "sleep";
    case Timing::hybrid: return "hybrid";
    case Timing::spin: return "spin";
    case Timing::batch:
      return "batch";
  }
  return "auto";
}

std::string_view group_caption(Group group) {
  switch (group) {
    case Group::target:
      return "Target";
    case Group::load:
      return "Load";
    case Group::request:
      return "Request";
    case Group::session:
      return "Sessions";
    case Group::socket:
      return "Socket";
    case Group::tls:
      return "TLS";
    case Group::output:
      return "Output";
    case Group::thresholds:
      return "Thresholds";
    case Group::misc:
      return "Misc";
  }
  return "Misc";
}

}  // namespace rateperf::options
