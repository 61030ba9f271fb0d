// --threads and --cpus in real runs: the workers' shares add up to the one schedule the options
// describe (the server's count, the report, the JSON's schedule), the URI list and the pool of
// --request-rate are the whole run's, and each worker runs on the CPUs --cpus names. The exact
// merge of the workers' collectors is the "workers" suite's.

#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "process.hpp"
#include "report_text.hpp"
#include "run_on_loopback.hpp"
#include "temp_file.hpp"
#include "test_server.hpp"

namespace {

using namespace std::chrono_literals;
using rateperf::test::Family;
using rateperf::test::ProcessResult;
using rateperf::test::rateperf_binary;
using rateperf::test::read_json;
using rateperf::test::report_figure;
using rateperf::test::request_lines;
using rateperf::test::run_process;
using rateperf::test::run_rateperf;
using rateperf::test::ServerMode;
using rateperf::test::TempFile;
using rateperf::test::TestServer;

}  // namespace

TEST_SUITE("run_options") {
  TEST_CASE("--threads 1, 2 and 3 offer the one seeded schedule and report it whole") {
    // The same exponential schedule (seed 5) over one, two and three workers: the server counts
    // every arrival, the report and the JSON say the run's figures, not one worker's, and the
    // intended window (first to last intended start) is the single worker's to the nanosecond.
    double window_of_one = 0;
    double rate_of_one = 0;
    for (const std::string threads : {"1", "2", "3"}) {
      CAPTURE(threads);
      TestServer server(ServerMode::reply);
      const TempFile json("");
      const ProcessResult run = run_rateperf(
          server.port(), {"--period", "e0.002", "--num-conns", "600", "--seed", "5", "--threads",
                          threads, "--json", json.path()});
      INFO(run.out << run.err);
      REQUIRE(run.exit_code == 0);
      CHECK(server.requests() == 600);
      CHECK(report_figure(run.out, "Total:", "connections") == 600);
      CHECK(report_figure(run.out, "Total:", "replies") == 600);
      CHECK(report_figure(run.out, "Errors: total", "total") == 0);
      const nlohmann::json doc = read_json(json.path());
      CHECK(doc.at("config").at("threads") == std::stoi(threads));
      // The seeded gaps' own mean, near the 2 ms asked for.
      const double rate = doc.at("schedule").at("intended_rate_per_s").get<double>();
      CHECK(rate == doctest::Approx(500).epsilon(0.05));
      const double window = doc.at("schedule").at("intended_window_s").get<double>();
      if (threads == "1") {
        window_of_one = window;
        rate_of_one = rate;
        CHECK(run.out.find("--threads") == std::string::npos);
      } else {
        CHECK(window == doctest::Approx(window_of_one).epsilon(1e-9));
        CHECK(rate == doctest::Approx(rate_of_one).epsilon(1e-9));
        CHECK(run.out.find("--threads=" + threads) != std::string::npos);
      }
    }
  }

  TEST_CASE("--threads 2: --wlog n ends the whole run at the list's end; --request-rate's requests are the run's") {
    const TempFile list("/u0\n/u1\n/u2\n/u3\n/u4\n/u5\n/u6\n");
    // Seven URIs for twenty arrivals: each URI once, over both workers, then the run ends.
    TestServer server(ServerMode::reply);
    const ProcessResult ended = run_rateperf(
        server.port(), {"--num-conns", "20", "--rate", "200", "--threads", "2", "--wlog", "n," + list.path()});
    INFO(ended.out << ended.err);
    REQUIRE(ended.exit_code == 0);
    std::vector<std::string> lines = request_lines(server);
    std::sort(lines.begin(), lines.end());
    CHECK(lines == std::vector<std::string>{"GET /u0 HTTP/1.1", "GET /u1 HTTP/1.1", "GET /u2 HTTP/1.1",
                                            "GET /u3 HTTP/1.1", "GET /u4 HTTP/1.1", "GET /u5 HTTP/1.1",
                                            "GET /u6 HTTP/1.1"});
    CHECK(report_figure(ended.out, "Total:", "requests") == 7);
    CHECK(report_figure(ended.out, "Errors: total", "total") == 0);

    // --request-rate and --requests describe the whole run: 400 requests at 400/s over two
    // workers, each with part of the 5 connections. The server closes after each reply and says
    // so (Connection: close), so that the pool opens the next connection: without the header a
    // request may go out on the connection before the server's FIN comes, and go unanswered
    // (CI of 3c1d763 and ceb88b6: 399 of 400, one "unanswered"), a server's doing, not the run's.
    TestServer pooled(ServerMode::reply, {200}, "hello\n", 0, Family::ipv4,
                      "Connection: close\r\n");
    const ProcessResult requests = run_rateperf(
        pooled.port(), {"--request-rate", "400", "--connections", "5", "--requests", "400", "--threads", "2"});
    INFO(requests.out << requests.err);
    REQUIRE(requests.exit_code == 0);
    CHECK(pooled.requests() == 400);
    CHECK(report_figure(requests.out, "Total:", "replies") == 400);
    CHECK(report_figure(requests.out, "Request rate:", "Request rate:") == doctest::Approx(400).epsilon(0.05));
  }

  TEST_CASE(
      "--threads 2: a worker with time to spare starts the due arrivals of one behind its share") {
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 2) {
      std::printf("skipped: slowing one worker's CPU alone needs two CPUs (this machine has %ld)\n",
                  cpus);
      return;
    }
    // Worker 1 shares CPU 1 with a busy loop, worker 0 has CPU 0 to itself, and the rate is
    // more than either keeps up with: worker 0 ends its own half first and then starts worker
    // 1's due arrivals, so that the run is not held to the slower CPU's pace. The run's
    // arrivals stay the schedule's: every one of them once, at its intended time.
    const std::uint16_t port = rateperf::test::closed_port();
    const TempFile json("");
    const std::string script =
        "taskset -c 1 sh -c 'while :; do :; done' & hog=$!; \"$0\" --server 127.0.0.1 --port " +
        std::to_string(port) +
        " --timeout 2 --rate 400000 --num-conns 40000 --threads 2 --cpus 0,1 --json " +
        json.path() + "; rc=$?; kill $hog; exit $rc";
    const ProcessResult run = run_process({"sh", "-c", script, rateperf_binary()}, 120s);
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(report_figure(run.out, "Total:", "connections") == 40000);
    CHECK(report_figure(run.out, "Errors: total", "connrefused") == 40000);
    CHECK(report_figure(run.out, "Errors: total", "total") == 40000);
    const nlohmann::json doc = read_json(json.path());
    const auto moved = doc.at("lag").at("moved_arrivals").get<double>();
    CHECK(moved > 0);
    CHECK(moved < 40000);
    CHECK(report_figure(run.out, "Threads:", "Threads:") == moved);
    // 40,000 arrivals 2.5 us apart: the first to the last intended start, whoever started them.
    CHECK(doc.at("schedule").at("intended_window_s").get<double>() ==
          doctest::Approx(39999 / 400000.0).epsilon(1e-9));
    CHECK(doc.at("schedule").at("intended_rate_per_s").get<double>() ==
          doctest::Approx(400000).epsilon(1e-6));
  }

  TEST_CASE("--shard I/3: three processes make the run's connections between them, a third each") {
    // The shards' parts of 300 arrivals at 300/s: 100 each (arrivals I, I + 3, ...), at 100/s,
    // every one of them at the server; with --threads 2 inside a shard, the same part.
    TestServer server(ServerMode::reply);
    for (const std::string shard : {"0/3", "1/3", "2/3"}) {
      CAPTURE(shard);
      const TempFile json("");
      const ProcessResult run = run_rateperf(
          server.port(), {"--rate", "300", "--num-conns", "300", "--shard", shard, "--threads",
                          shard == "1/3" ? "2" : "1", "--json", json.path()});
      INFO(run.out << run.err);
      REQUIRE(run.exit_code == 0);
      CHECK(report_figure(run.out, "Total:", "connections") == 100);
      CHECK(report_figure(run.out, "Total:", "replies") == 100);
      CHECK(report_figure(run.out, "Offered rate:", "Offered rate:") == doctest::Approx(100));
      CHECK(run.out.find("--shard=" + shard) != std::string::npos);
      const nlohmann::json doc = read_json(json.path());
      CHECK(doc.at("config").at("shard").at("index") == shard[0] - '0');
      CHECK(doc.at("config").at("shard").at("count") == 3);
      // 100 arrivals 10 ms apart: the first to the last intended start is 0.99 s.
      CHECK(doc.at("schedule").at("intended_window_s").get<double>() == doctest::Approx(0.99));
    }
    CHECK(server.requests() == 300);
  }

  TEST_CASE("--cpus: each worker's thread may run only on the CPUs named") {
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 2) {
      std::printf("skipped: --cpus pinning needs two CPUs to tell pinned from unpinned (this machine has %ld)\n", cpus);
      return;
    }
    // Two workers pinned to the last CPU: while the run goes on, /proc shows two of its threads
    // allowed only that CPU (the coordinator and the watcher stay unpinned).
    const std::string last = std::to_string(cpus - 1);
    TestServer server(ServerMode::reply);
    const std::string script =
        "\"$0\" --server 127.0.0.1 --port " + std::to_string(server.port()) +
        " --rate 100 --num-conns 150 --threads 2 --cpus " + last +
        " -q >/dev/null & pid=$!; sleep 0.7; grep -h Cpus_allowed_list /proc/$pid/task/*/status; wait $pid";
    const ProcessResult run = run_process({"sh", "-c", script, rateperf_binary()}, 20s);
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    std::istringstream lines(run.out);
    std::string line;
    int pinned = 0;
    int threads = 0;
    while (std::getline(lines, line)) {
      ++threads;
      if (line == "Cpus_allowed_list:\t" + last) ++pinned;
    }
    CHECK(threads >= 3);
    CHECK(pinned == 2);
    CHECK(server.requests() == 150);
  }
}
