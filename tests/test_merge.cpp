// --dump, --start-at and `rateperf merge` in real runs: a run's dump merged alone gives back its
// report, JSON and CSV; shards of one schedule started together merge into that schedule; a
// start in the future is waited for and one in the past shows as lag; bad dumps and bad sets
// of dumps are refused by name, and a dump is never half-written.

#include <dirent.h>
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "options/values.hpp"
#include "process.hpp"
#include "report_text.hpp"
#include "run_on_loopback.hpp"
#include "temp_file.hpp"
#include "test_server.hpp"

namespace {

using namespace std::chrono_literals;
using rateperf::test::ProcessResult;
using rateperf::test::rateperf_binary;
using rateperf::test::read_json;
using rateperf::test::report_figure;
using rateperf::test::run_process;
using rateperf::test::run_rateperf;
using rateperf::test::ServerMode;
using rateperf::test::TempFile;
using rateperf::test::TestServer;

// A directory of its own under /tmp, removed with what it holds.
class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/rateperf-merge-XXXXXX";
    path_ = ::mkdtemp(name);
  }
  ~TempDir() {
    for (const std::string& entry : entries()) std::remove((path_ + "/" + entry).c_str());
    ::rmdir(path_.c_str());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  // The names in it, but . and ..
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    if (DIR* dir = ::opendir(path_.c_str())) {
      while (const dirent* entry = ::readdir(dir)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") names.push_back(name);
      }
      ::closedir(dir);
    }
    return names;
  }

 private:
  std::string path_;
};

ProcessResult merge(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {rateperf_binary(), "merge"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, 30s);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Nanoseconds since the epoch by this machine's clock.
std::int64_t unix_ns_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// An instant as --start-at takes it: seconds since the epoch, to the nanosecond.
std::string epoch_text(std::int64_t unix_ns) {
  char text[48];
  std::snprintf(text, sizeof text, "%lld.%09lld", static_cast<long long>(unix_ns / 1'000'000'000),
                static_cast<long long>(unix_ns % 1'000'000'000));
  return text;
}

// The line of `text` that starts with `prefix`; empty if none.
std::string line_starting(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return {};
}

}  // namespace

TEST_SUITE("merge") {
  TEST_CASE("merging one run's dump gives back its report, its JSON and its CSV row") {
    // A seeded Poisson schedule against a server that answers: the merge of the run's one dump
    // prints what the run printed, and its JSON and CSV are the run's to the last figure.
    TestServer server(ServerMode::reply);
    const TempDir dir;
    const ProcessResult run = run_rateperf(
        server.port(), {"--period", "e0.004", "--num-conns", "400", "--seed", "3", "--dump",
                        dir / "run.dump", "--json", dir / "run.json", "--csv", dir / "run.csv"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(server.requests() == 400);
    const ProcessResult merged =
        merge({"--json", dir / "merged.json", "--csv", dir / "merged.csv", dir / "run.dump"});
    INFO(merged.out << merged.err);
    REQUIRE(merged.exit_code == 0);
    CHECK(merged.out == run.out);
    CHECK(read_json(dir / "merged.json") == read_json(dir / "run.json"));
    CHECK(slurp(dir / "merged.csv") == slurp(dir / "run.csv"));
    // The merge with the export on stdout: the document there, the report on stderr.
    const ProcessResult to_stdout = merge({"--json", "-", dir / "run.dump"});
    REQUIRE(to_stdout.exit_code == 0);
    CHECK(nlohmann::json::parse(to_stdout.out) == read_json(dir / "run.json"));
    CHECK(to_stdout.err.rfind(run.out, 0) == 0);
  }

  TEST_CASE("three shards with one --start-at merge into the one schedule") {
    // 600 arrivals at 300/s over three processes (the second with two threads) started at one
    // instant: the merge counts every arrival once, offers 300/s, and its schedule (first to
    // last intended start) is one process's (to the rounding of each gap to a nanosecond).
    TestServer server(ServerMode::reply);
    const TempDir dir;
    const std::vector<std::string> schedule = {
        "--server",    "127.0.0.1", "--port", std::to_string(server.port()), "--rate", "300",
        "--num-conns", "600",       "-q"};
    const std::int64_t start_at = unix_ns_now() + 1'500'000'000;
    std::string script;
    for (int i = 0; i < 3; ++i) {
      script += "\"$0\"";
      for (const std::string& word : schedule) script += " " + word;
      script += " --shard " + std::to_string(i) + "/3 --start-at " + epoch_text(start_at) +
                " --dump " + dir / ("shard-" + std::to_string(i) + ".dump") +
                (i == 1 ? " --threads 2" : "") + " > " +
                dir / ("shard-" + std::to_string(i) + ".txt") + " 2>&1 & ";
    }
    script += "wait";
    const ProcessResult shards = run_process({"sh", "-c", script, rateperf_binary()}, 60s);
    REQUIRE(shards.exit_code == 0);
    for (int i = 0; i < 3; ++i) {
      const std::string report = slurp(dir / ("shard-" + std::to_string(i) + ".txt"));
      CAPTURE(report);
      CHECK(report_figure(report, "Total:", "replies") == 200);
      // Each says that its start is by its own clock, which no process can check against another's.
      CHECK(report.find("(--start-at) by this host's clock") != std::string::npos);
    }
    CHECK(server.requests() == 600);

    const ProcessResult merged = merge({"--json", dir / "merged.json", dir / "shard-2.dump",
                                        dir / "shard-0.dump", dir / "shard-1.dump"});
    INFO(merged.out << merged.err);
    REQUIRE(merged.exit_code == 0);
    CHECK(report_figure(merged.out, "Total:", "connections") == 600);
    CHECK(report_figure(merged.out, "Total:", "replies") == 600);
    CHECK(report_figure(merged.out, "Offered rate:", "Offered rate:") == doctest::Approx(300));
    // The merged report's command line is the one schedule's, with no part of it.
    CHECK(merged.out.find("--shard") == std::string::npos);
    CHECK(merged.out.find("--start-at=" + rateperf::options::format_wall_time(start_at)) !=
          std::string::npos);
    CHECK(merged.err.find("3 parts; their starts spread 0.000 s") != std::string::npos);
    const nlohmann::json doc = read_json(dir / "merged.json");
    CHECK(doc.at("totals").at("arrivals") == 600);
    // The shards' series meet interval by interval: 300 arrivals in the first whole second.
    std::uint64_t series_arrivals = 0;
    for (const nlohmann::json& p : doc.at("series").at("points")) {
      series_arrivals += p.at("arrivals").get<std::uint64_t>();
    }
    CHECK(series_arrivals == 600);
    // (The 301st is due at 300 gaps of 3,333,333 ns, 0.1 us before 1 s.)
    CHECK(std::abs(doc.at("series").at("points").at(0).at("arrivals").get<int>() - 300) <= 2);
    CHECK(doc.at("config").at("shard").at("count") == 1);
    CHECK(doc.at("start_time_utc") == rateperf::options::format_wall_time(start_at));
    // 600 arrivals 1/300 s apart: 599/300 s from the first intended start to the last.
    CHECK(doc.at("schedule").at("intended_window_s").get<double>() ==
          doctest::Approx(599.0 / 300).epsilon(1e-6));
    // Started together, no arrival waited long for its time (a generous bound for a busy CI).
    CHECK(doc.at("lag").at("max_ms").get<double>() < 200);

    // A missing shard is said by its number; the report is then of the parts there are.
    const ProcessResult partial = merge({dir / "shard-0.dump", dir / "shard-2.dump"});
    CHECK(partial.exit_code == 0);
    CHECK(partial.err.find("warning: missing shards 1 (of 0..2)") != std::string::npos);
    CHECK(report_figure(partial.out, "Total:", "replies") == 400);
  }

  TEST_CASE(
      "--start-at: a future start is waited for, a late one shows as lag, one 2 s late is "
      "refused") {
    TestServer server(ServerMode::reply);
    const TempFile json("");
    // 1.2 s ahead: the run's 10 arrivals at 100/s take 0.09 s, so it lasts at least 1.2 s.
    const auto before = std::chrono::steady_clock::now();
    const ProcessResult ahead = run_rateperf(
        server.port(), {"--rate", "100", "--num-conns", "10", "--start-at",
                        epoch_text(unix_ns_now() + 1'200'000'000), "--json", json.path()});
    const auto took = std::chrono::steady_clock::now() - before;
    INFO(ahead.out << ahead.err);
    REQUIRE(ahead.exit_code == 0);
    CHECK(took >= 1200ms);
    CHECK(read_json(json.path()).at("lag").at("p50_ms").get<double>() < 100);

    // 0.5 s late: the arrivals whose time has passed go at once, each as late as it is.
    const ProcessResult late = run_rateperf(
        server.port(), {"--rate", "100", "--num-conns", "100", "--start-at",
                        epoch_text(unix_ns_now() - 500'000'000), "--json", json.path()});
    INFO(late.out << late.err);
    REQUIRE(late.exit_code == 0);
    CHECK(report_figure(late.out, "Total:", "replies") == 100);
    CHECK(read_json(json.path()).at("lag").at("max_ms").get<double>() >= 400);

    const ProcessResult refused =
        run_rateperf(server.port(), {"--rate", "100", "--num-conns", "10", "--start-at",
                                     epoch_text(unix_ns_now() - 2'000'000'000)});
    CHECK(refused.exit_code == 2);
    CHECK(line_starting(refused.err, "rateperf: --start-at: ")
              .find("s in the past (at most 1 s late may still start)") != std::string::npos);
    CHECK(server.requests() == 110);
  }

  TEST_CASE("bad dumps and bad sets of dumps are refused by name; a dump is never half-written") {
    TestServer server(ServerMode::reply);
    const TempDir dir;
    // What belongs to one machine may differ between the shards: here the second has source
    // addresses, two threads and a threshold of its own.
    for (const std::string shard : {"0/2", "1/2"}) {
      std::vector<std::string> args = {"--rate",  "200",   "--num-conns", "40",
                                       "--shard", shard,   "--dump",
                                       dir / ("s" + shard.substr(0, 1) + ".dump")};
      if (shard == "1/2") {
        args.insert(args.end(), {"--myaddr", "127.0.0.2", "--threads", "2", "--max-lag", "500"});
      }
      const ProcessResult run = run_rateperf(server.port(), args);
      REQUIRE(run.exit_code == 0);
    }
    const ProcessResult other = run_rateperf(
        server.port(),
        {"--rate", "100", "--num-conns", "40", "--shard", "1/2", "--dump", dir / "other.dump"});
    REQUIRE(other.exit_code == 0);
    const std::string whole = slurp(dir / "s0.dump");
    write_file(dir / "truncated.dump", whole.substr(0, whole.size() / 2));
    nlohmann::json schema2 = nlohmann::json::parse(whole);
    schema2["schema"] = 2;
    write_file(dir / "schema2.dump", schema2.dump());
    nlohmann::json no_lag = nlohmann::json::parse(whole);
    no_lag["record"]["collector"].erase("lag");
    write_file(dir / "nolag.dump", no_lag.dump());
    write_file(dir / "not.dump", "{\"format\": \"something else\"}");

    struct Bad {
      std::vector<std::string> files;
      std::string message;
    };
    const std::vector<Bad> bad = {
        {{dir / "truncated.dump"},
         dir / "truncated.dump: not a whole rateperf dump (truncated or corrupt JSON)"},
        {{dir / "schema2.dump"}, dir / "schema2.dump: dump schema 2 (written by rateperf "},
        {{dir / "nolag.dump"}, dir / "nolag.dump: corrupt: key 'lag' not found"},
        {{dir / "not.dump"}, dir / "not.dump: not a rateperf dump"},
        {{dir / "absent.dump"}, dir / "absent.dump: cannot read: No such file or directory"},
        {{dir / "s0.dump", dir / "s0.dump"}, dir / "s0.dump: shard 0/2 again"},
        {{dir / "s0.dump", dir / "other.dump"},
         dir / "other.dump: another schedule than " + dir / "s0.dump's"},
        {{}, "merge: expects the dump files to merge"},
    };
    for (const Bad& b : bad) {
      CAPTURE(b.message);
      const ProcessResult result = merge(b.files);
      CHECK(result.exit_code == 2);
      CHECK(result.out.empty());
      CHECK(result.err.find(b.message) != std::string::npos);
      CHECK(result.err.rfind("rateperf: merge", 0) == 0);
    }
    const ProcessResult both = merge({dir / "s1.dump", dir / "s0.dump"});
    REQUIRE(both.exit_code == 0);
    CHECK(report_figure(both.out, "Total:", "replies") == 40);

    // A run that cannot start leaves neither its dump nor a temporary file; neither does a
    // --dump in a directory that does not exist.
    const std::size_t files = dir.entries().size();
    const ProcessResult no_list =
        run_rateperf(server.port(), {"--rate", "100", "--num-conns", "10", "--wlog",
                                     "n," + dir / "absent.txt", "--dump", dir / "never.dump"});
    CHECK(no_list.exit_code != 0);
    CHECK(dir.entries().size() == files);
    const ProcessResult no_dir = run_rateperf(
        server.port(), {"--rate", "100", "--num-conns", "10", "--dump", dir / "no/such/dir.dump"});
    CHECK(no_dir.exit_code == 1);
    CHECK(no_dir.err.find("--dump: cannot write '" + dir / "no/such/dir.dump" + "'") !=
          std::string::npos);
    // An interrupted run still writes its dump, whole, and says it was interrupted.
    const ProcessResult stopped = run_process(
        {rateperf_binary(), "--server", "127.0.0.1", "--port", std::to_string(server.port()),
         "--rate", "100", "--num-conns", "1000", "--dump", dir / "stopped.dump"},
        30s, {{500ms, SIGINT}});
    CHECK(stopped.exit_code == 0);
    const nlohmann::json dump = read_json(dir / "stopped.dump");
    CHECK(dump.at("record").at("run").at("interrupted") == true);
    CHECK(dir.entries().size() == files + 1);
  }

  TEST_CASE("the time series shows connections piling up and timing out, over two threads") {
    // 300 arrivals at 200/s to a server that never answers, --timeout 1, 0.5-s intervals, two
    // workers: each interval of the schedule issues 100 arrivals; the connections open at the
    // intervals' ends climb by 100 until the first timeouts, 1 s in, and then fall as each
    // interval's arrivals time out in the interval 1 s later. The series' counts add up to the
    // run's, and its CSV says the same as its JSON.
    TestServer server(ServerMode::never_answer);
    const TempDir dir;
    const ProcessResult run = run_rateperf(
        server.port(), {"--rate", "200", "--num-conns", "300", "--timeout", "1", "--interval",
                        "0.5", "--threads", "2", "--json", dir / "run.json", "--series",
                        dir / "series.csv", "--verbose"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    const nlohmann::json doc = read_json(dir / "run.json");
    const nlohmann::json& series = doc.at("series");
    CHECK(series.at("interval_s").get<double>() == doctest::Approx(0.5));
    const nlohmann::json& points = series.at("points");
    REQUIRE(points.size() >= 5);
    std::uint64_t arrivals = 0;
    std::uint64_t timeouts = 0;
    for (const nlohmann::json& p : points) {
      arrivals += p.at("arrivals").get<std::uint64_t>();
      timeouts += p.at("errors").at("client_timo").get<std::uint64_t>();
    }
    CHECK(arrivals == 300);
    CHECK(timeouts == 300);
    const auto open_at = [&](std::size_t i) { return points[i].at("open_connections").get<int>(); };
    const auto arrivals_in = [&](std::size_t i) { return points[i].at("arrivals").get<int>(); };
    for (std::size_t i = 0; i < 3; ++i) CHECK(std::abs(arrivals_in(i) - 100) <= 2);
    // A stall of the machine may move a few arrivals over a boundary: within 10.
    CHECK(std::abs(open_at(0) - 100) <= 10);
    CHECK(std::abs(open_at(1) - 200) <= 10);
    CHECK(std::abs(open_at(2) - 200) <= 10);  // 100 more, 100 timed out
    CHECK(std::abs(open_at(3) - 100) <= 10);
    CHECK(open_at(points.size() - 1) == 0);
    CHECK(points[0].at("lag_p99_ms").get<double>() < 100);
    // The CSV: a header, then one row per point, with the same counts.
    std::istringstream csv(slurp(dir / "series.csv"));
    std::string line;
    std::getline(csv, line);
    CHECK(line.rfind("start_s,length_s,arrivals,replies,errors,errors_client_timo,", 0) == 0);
    std::size_t rows = 0;
    while (std::getline(csv, line)) {
      CHECK(line.rfind(std::to_string(points[rows].at("arrivals").get<int>()),
                       line.find(',', line.find(',') + 1) + 1) != std::string::npos);
      ++rows;
    }
    CHECK(rows == points.size());
    // --verbose: the series on stderr after the report, one line a point.
    std::size_t lines = 0;
    std::istringstream err(run.err);
    while (std::getline(err, line)) lines += line.rfind("Series: ", 0) == 0 ? 1 : 0;
    CHECK(lines == points.size());
  }
}
