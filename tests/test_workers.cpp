// A run split over 1, 2 and 3 workers in-process, each worker a share of the schedule on a
// thread of its own, against the same server: merged, the shares give the one run's counts,
// histogram counts, samples and schedule, and the peak of open connections is the run's.

#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "engine/worker.hpp"
#include "net/endpoint.hpp"
#include "options/options.hpp"
#include "stats/collector.hpp"
#include "stats/summary.hpp"
#include "test_server.hpp"
#include "workload/workload.hpp"

namespace {

using namespace rateperf;
using rateperf::test::ServerMode;
using rateperf::test::TestServer;

struct SplitRun {
  stats::Summary summary;
  std::vector<std::uint64_t> arrivals_per_worker;
};

// Runs the schedule of `args` over `workers` workers (worker k takes share k) against a fresh
// server whose replies cycle through four statuses, merges the workers' collectors as the run
// coordinator does and summarises.
SplitRun run_split(std::size_t workers, const std::vector<const char*>& args) {
  TestServer server(ServerMode::reply, {200, 301, 404, 500});
  const std::string port = std::to_string(server.port());
  std::vector<const char*> argv = {"rateperf", "--server", "127.0.0.1", "--port", port.c_str()};
  argv.insert(argv.end(), args.begin(), args.end());
  const options::Config config =
      options::parse(static_cast<int>(argv.size()), argv.data()).config;
  const auto endpoints = net::resolve(config.server, config.port);
  const workload::Workload work = workload::from_config(config);
  const auto gauge = std::make_shared<stats::OpenGauge>();
  std::vector<std::unique_ptr<engine::Worker>> pool;
  for (std::size_t share = 0; share < workers; ++share) {
    pool.push_back(std::make_unique<engine::Worker>(engine::WorkerSetup{
        .config = config,
        .share = share,
        .shares = workers,
        .endpoints = endpoints,
        .workload = work,
        .gauge = gauge}));
  }
  const TimePoint start = Clock::now();
  std::vector<engine::WorkerResult> results(workers);
  std::vector<std::thread> threads;
  for (std::size_t k = 1; k < workers; ++k) {
    threads.emplace_back([&, k] { results[k] = pool[k]->run(start); });
  }
  results[0] = pool[0]->run(start);
  for (auto& thread : threads) thread.join();

  SplitRun split;
  stats::Collector merged(gauge);
  stats::RunInfo info;
  info.start = start;
  info.end = start;
  for (const auto& result : results) {
    merged.merge(result.collector);
    info.end = std::max(info.end, result.end);
    split.arrivals_per_worker.push_back(result.collector.connections());
  }
  info.offered_rate_per_s = config.period.rate_per_s;
  split.summary = stats::summarize(merged, info);
  return split;
}

}  // namespace

TEST_SUITE("workers") {
  TEST_CASE("a run over 1, 2 and 3 workers in-process merges to the same figures") {
    // 251 arrivals at 200/s (1.25 s); client 0 of 5 samples the reply rate at 1 s.
    const std::vector<const char*> args = {"--rate",    "200", "--num-conns", "251",
                                           "--timeout", "5",   "--client",    "0/5"};
    const SplitRun one = run_split(1, args);
    REQUIRE(one.summary.replies == 251);
    for (const std::size_t workers : {2u, 3u}) {
      CAPTURE(workers);
      const SplitRun split = run_split(workers, args);
      const stats::Summary& s = split.summary;
      // Each worker took its share: arrivals k, k + n, ... of the 251.
      REQUIRE(split.arrivals_per_worker.size() == workers);
      for (std::size_t k = 0; k < workers; ++k) {
        CHECK(split.arrivals_per_worker[k] == (251 - k + workers - 1) / workers);
      }
      CHECK(s.arrivals == one.summary.arrivals);
      CHECK(s.connections == one.summary.connections);
      CHECK(s.requests == one.summary.requests);
      CHECK(s.replies == one.summary.replies);
      CHECK(s.status_classes == one.summary.status_classes);
      CHECK(s.errors_total == 0);
      CHECK(s.request_size_avg_bytes == one.summary.request_size_avg_bytes);
      CHECK(s.reply_total_avg_bytes == one.summary.reply_total_avg_bytes);
      // Every histogram holds every reply once.
      CHECK(s.latency_intended.count == 251);
      CHECK(s.latency_actual.count == 251);
      CHECK(s.response_time.count == 251);
      CHECK(s.connect_time.count == one.summary.connect_time.count);
      CHECK(s.connection_time.count == 251);
      // The schedule is the one run's: the same offered rate and the same sample boundaries,
      // each sample the whole run's (all workers' replies of the interval, about 200).
      REQUIRE(s.samples.size() == one.summary.samples.size());
      REQUIRE(s.samples.size() == 1);
      CHECK(s.samples[0].start_s == 0.0);
      CHECK(s.samples[0].length_s == 1.0);
      CHECK(s.samples[0].replies >= 195);
      CHECK(s.samples[0].replies <= 201);
      // The peak of open connections is the run's, measured on the shared gauge, not a sum.
      CHECK_FALSE(s.max_concurrent_is_bound);
      CHECK(s.max_concurrent >= 1);
      CHECK(s.max_concurrent <= 251);
    }
  }
}
