// Parsing the command line into Config: defaults, every option's value and unit, the refusals
// of bad values with a message naming the option, --help and --version, and the command line
// echoed as httperf's. --rate, --period and the URL are test_options_period_url.cpp's.

#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "option_words.hpp"
#include "options/options.hpp"
#include "options/values.hpp"

namespace {

using namespace std::chrono_literals;
using rateperf::Duration;
using rateperf::options::Action;
using rateperf::options::Config;
using rateperf::options::echo_command_line;
using rateperf::options::Parsed;
using rateperf::test::config_of;
using rateperf::test::contains;
using rateperf::test::parse_words;
using rateperf::test::usage_error;

}  // namespace

TEST_SUITE("options") {
  TEST_CASE("an empty command line gives httperf's defaults: one sequential connection") {
    const Config c = config_of({});
    CHECK(c.server == "localhost");
    CHECK(c.port == 80);
    CHECK(c.uri == "/");
    CHECK(c.server_name.empty());
    CHECK(c.period.sequential());
    CHECK(c.period.rate_per_s == 0);
    // Neither --rate nor --period: the echoed line shows neither.
    CHECK(echo_command_line(c).find("--rate") == std::string::npos);
    CHECK(echo_command_line(c).find("--period") == std::string::npos);
    CHECK(c.num_conns == 1);
    CHECK(c.num_calls == 1);
    CHECK(c.timeout == Duration::zero());
    CHECK(c.think_timeout == Duration::zero());
    CHECK(c.method == "GET");
    CHECK(c.add_headers.empty());
    CHECK(c.http_version == "1.1");
    CHECK_FALSE(c.no_host_header);
    CHECK_FALSE(c.close_with_reset);
    // Not given: the kernel's sizes, echoed as httperf's defaults.
    CHECK_FALSE(c.send_buffer_bytes.has_value());
    CHECK_FALSE(c.recv_buffer_bytes.has_value());
    CHECK(echo_command_line(c).find(" --send-buffer=4096 --recv-buffer=16384 ") !=
          std::string::npos);
    CHECK(c.client_id == 0);
    CHECK(c.client_count == 1);
    CHECK(c.seed == 1);
    CHECK_FALSE(c.seed_given);
    CHECK(c.verbose == 0);
    CHECK(c.max_lag == Duration::zero());
    CHECK(c.max_error_rate_percent < 0);
    CHECK(c.argv0 == "rateperf");
  }

  TEST_CASE("each option lands in Config, durations in their unit") {
    const Config c = config_of({"--server",
                                "10.0.0.1",
                                "--port",
                                "8080",
                                "--uri",
                                "/a/b?c=d",
                                "--server-name",
                                "example.org",
                                "--num-conns",
                                "40000",
                                "--num-calls",
                                "1",
                                "--timeout",
                                "2.5",
                                "--think-timeout",
                                "0.25",
                                "--method",
                                "POST",
                                "--add-header",
                                "X-A: 1",
                                "--add-header",
                                "X-B: 2\\n",
                                "--http-version",
                                "1.0",
                                "--send-buffer",
                                "1000",
                                "--recv-buffer",
                                "2000",
                                "--client",
                                "2/5",
                                "--seed",
                                "99",
                                "-v",
                                "--verbose"});
    CHECK(c.server == "10.0.0.1");
    CHECK(c.port == 8080);
    CHECK(c.uri == "/a/b?c=d");
    CHECK(c.server_name == "example.org");
    CHECK(c.num_conns == 40000);
    CHECK(c.timeout == 2500ms);
    CHECK(rateperf::to_s(c.timeout) == 2.5);
    CHECK(c.think_timeout == 250ms);
    CHECK(rateperf::to_s(c.think_timeout) == 0.25);
    CHECK(c.method == "POST");
    CHECK(c.add_headers == std::vector<std::string>{"X-A: 1", "X-B: 2\\n"});
    CHECK(c.http_version == "1.0");
    CHECK(c.send_buffer_bytes == 1000);
    CHECK(c.recv_buffer_bytes == 2000);
    CHECK(c.send_buffer_bytes.has_value());
    CHECK(c.recv_buffer_bytes.has_value());
    CHECK(c.client_id == 2);
    CHECK(c.client_count == 5);
    CHECK(c.seed == 99);
    CHECK(c.seed_given);
    CHECK(c.verbose == 2);
  }

  TEST_CASE("--max-lag is in milliseconds and --max-error-rate in percent") {
    const Config c = config_of({"--max-lag", "2.5", "--max-error-rate", "1.5"});
    CHECK(c.max_lag == 2500us);
    CHECK(c.max_error_rate_percent == 1.5);

    // Fractions of a millisecond keep their nanoseconds.
    CHECK(config_of({"--max-lag=0.2"}).max_lag == 200us);
    CHECK(config_of({"--max-lag", "1e-6"}).max_lag == 1ns);
    CHECK(config_of({"--max-lag", "1000"}).max_lag == 1s);
    // Both ends of the percentage are thresholds: 0 fails a run on its first error.
    CHECK(config_of({"--max-error-rate", "0"}).max_error_rate_percent == 0);
    CHECK(config_of({"--max-error-rate", "100"}).max_error_rate_percent == 100);
  }

  TEST_CASE("bad thresholds are refused with a message naming the option") {
    CHECK(usage_error({"--max-lag", "0"}) == "--max-lag: must be greater than 0 (got 0)");
    CHECK(usage_error({"--max-lag", "-3"}) == "--max-lag: must be greater than 0 (got -3)");
    CHECK(usage_error({"--max-lag", "5ms"}) == "--max-lag: '5ms' is not a number");
    CHECK(usage_error({"--max-lag", ""}) == "--max-lag: '' is not a number");
    CHECK(usage_error({"--max-lag", "inf"}) == "--max-lag: 'inf' is not a number");
    CHECK(usage_error({"--max-lag", "1e10"}) == "--max-lag: must be at most 1e+09 ms (got 1e10)");
    // A positive lag below the clock's resolution would become zero, which means "none".
    CHECK(usage_error({"--max-lag", "1e-8"}) == "--max-lag: below the 1 ns resolution (got 1e-8)");
    CHECK(usage_error({"--max-error-rate", "150"}) ==
          "--max-error-rate: must be within 0..100 (got 150)");
    CHECK(usage_error({"--max-error-rate", "-1"}) ==
          "--max-error-rate: must be within 0..100 (got -1)");
    CHECK(usage_error({"--max-error-rate", "100.5"}) ==
          "--max-error-rate: must be within 0..100 (got 100.5)");
    CHECK(usage_error({"--max-error-rate", "5%"}) == "--max-error-rate: '5%' is not a number");
    CHECK(usage_error({"--max-error-rate", "nan"}) == "--max-error-rate: 'nan' is not a number");
    CHECK(usage_error({"--max-lag", "1", "--max-lag", "2"}) == "--max-lag: given more than once");
  }

  TEST_CASE("--json, --csv and --quiet land in Config; by default nothing is exported") {
    const Config none = config_of({});
    CHECK(none.json_path.empty());
    CHECK(none.csv_path.empty());
    CHECK_FALSE(none.quiet);

    const Config c = config_of({"--json", "run.json", "--csv", "sweep.csv", "--quiet"});
    CHECK(c.json_path == "run.json");
    CHECK(c.csv_path == "sweep.csv");
    CHECK(c.quiet);

    // "-" is stdout, whether it follows the option as a word or after '='.
    CHECK(config_of({"--json", "-"}).json_path == "-");
    CHECK(config_of({"--csv=-"}).csv_path == "-");
    // One of them on stdout and the other in a file is fine.
    const Config mixed = config_of({"--json", "-", "--csv", "out.csv"});
    CHECK(mixed.json_path == "-");
    CHECK(mixed.csv_path == "out.csv");
    // -q is --quiet, bundles with -v, and repeats harmlessly.
    const Config q = config_of({"-qv", "-q"});
    CHECK(q.quiet);
    CHECK(q.verbose == 1);
  }

  TEST_CASE("bad output options are refused with a message naming the option") {
    CHECK(usage_error({"--json", ""}) == "--json: expects a file name or -");
    // Boost refuses "--json=" itself, still naming the option.
    CHECK(contains(usage_error({"--json="}), "'--json'"));
    CHECK(usage_error({"--csv", ""}) == "--csv: expects a file name or -");
    CHECK(usage_error({"--json", "-", "--csv", "-"}) ==
          "--json and --csv cannot both write to stdout");
    CHECK(usage_error({"--csv=-", "--json=-"}) == "--json and --csv cannot both write to stdout");
    CHECK(usage_error({"--json", "a", "--json", "b"}) == "--json: given more than once");
    CHECK(usage_error({"--csv", "a", "--csv", "b"}) == "--csv: given more than once");
    CHECK(usage_error({"--json"}) == "the required argument for option '--json' is missing");
    CHECK(usage_error({"--quiet=1"}) == "option '--quiet' does not take any arguments");
  }

  TEST_CASE("the --name=value form and short option bundles work") {
    const Config c = config_of({"--rate=10", "--num-conns=3", "-vvv"});
    CHECK(c.period.rate_per_s == 10);
    CHECK(c.num_conns == 3);
    CHECK(c.verbose == 3);
  }

  TEST_CASE("without --seed, the seed follows --client so that clients differ and runs repeat") {
    CHECK(config_of({"--client", "0/4"}).seed == 1);
    CHECK(config_of({"--client", "3/4"}).seed == 4);
    CHECK(config_of({"--client", "3/4", "--seed", "0"}).seed == 0);
  }

  TEST_CASE("--help and --version return their text instead of a run") {
    for (const char* word : {"--help", "-h"}) {
      const Parsed parsed = parse_words({word});
      CHECK(parsed.action == Action::help);
      for (const char* option :
           {"--server",      "--port",      "--uri",           "--server-name",  "--rate",
            "--period",      "--num-conns", "--num-calls",     "--timeout",      "--think-timeout",
            "--seed",        "--method",    "--add-header",    "--http-version", "--send-buffer",
            "--recv-buffer", "--verbose",   "--client",        "--help",         "--version",
            "http://",       "--max-lag",   "--max-error-rate"}) {
        CAPTURE(option);
        CHECK(contains(parsed.text, option));
      }
    }
    for (const char* word : {"--version", "-V"}) {
      const Parsed parsed = parse_words({word});
      CHECK(parsed.action == Action::version);
      CHECK(parsed.text.rfind("rateperf ", 0) == 0);
    }
    // Help wins over a bad value elsewhere: a user asking for help gets it.
    CHECK(parse_words({"--rate", "abc", "--help"}).action == Action::help);
  }

  TEST_CASE("bad numbers are refused with a message naming the option") {
    CHECK(usage_error({"--rate", "abc"}) == "--rate: 'abc' is not a number");
    CHECK(usage_error({"--rate", "12abc"}) == "--rate: '12abc' is not a number");
    CHECK(usage_error({"--rate", ""}) == "--rate: '' is not a number");
    CHECK(usage_error({"--rate", "nan"}) == "--rate: 'nan' is not a number");
    CHECK(usage_error({"--rate", "inf"}) == "--rate: 'inf' is not a number");
    CHECK(usage_error({"--rate", "-5"}) == "--rate: must not be negative (got -5)");
    CHECK(usage_error({"--rate=-5"}) == "--rate: must not be negative (got -5)");
    CHECK(usage_error({"--num-conns", "0"}) == "--num-conns: must be at least 1 (got 0)");
    CHECK(usage_error({"--num-conns", "1.5"}) == "--num-conns: '1.5' is not a whole number");
    CHECK(usage_error({"--num-conns", "99999999999999999999999"}) ==
          "--num-conns: too large (got 99999999999999999999999)");
    CHECK(usage_error({"--port", "70000"}) == "--port: must be within 1..65535 (got 70000)");
    CHECK(usage_error({"--port", "0"}) == "--port: must be within 1..65535 (got 0)");
    CHECK(usage_error({"--port", "http"}) == "--port: 'http' is not a number");
    CHECK(usage_error({"--timeout", "-1"}) == "--timeout: must not be negative (got -1)");
    CHECK(usage_error({"--timeout", "1s"}) == "--timeout: '1s' is not a number");
    CHECK(usage_error({"--think-timeout", "x"}) == "--think-timeout: 'x' is not a number");
    CHECK(usage_error({"--send-buffer", "0"}) ==
          "--send-buffer: must be within 1..4294967295 (got 0)");
    CHECK(usage_error({"--recv-buffer", "-1"}) ==
          "--recv-buffer: must be within 1..4294967295 (got -1)");
    CHECK(usage_error({"--seed", "-1"}) == "--seed: must not be negative (got -1)");
    CHECK(usage_error({"--num-calls", "0"}) == "--num-calls: must be at least 1 (got 0)");
    CHECK(usage_error({"--burst-length", "0"}) == "--burst-length: must be within 1..1000000 (got 0)");
    CHECK(usage_error({"--max-piped-calls", "0"}) ==
          "--max-piped-calls: must be within 1..1024 (got 0)");
    CHECK(usage_error({"--connections", "0"}) == "--connections: must be within 1..1000000 (got 0)");
    CHECK(usage_error({"--request-rate", "0", "--requests", "5"}) ==
          "--request-rate: must be greater than 0 (got 0)");
    CHECK(usage_error({"--requests", "0"}) == "--requests: must be at least 1 (got 0)");
    CHECK(usage_error({"--duration", "0"}) == "--duration: must be greater than 0 (got 0)");
    CHECK(usage_error({"--rate", "1e10"}) == "--rate: must be at most 1e+09 (got 1e10)");
  }

  TEST_CASE("the two workloads' options do not mix") {
    // Request mode: --request-rate (or --connections with --period) schedules requests.
    CHECK(usage_error({"--request-rate", "10", "--rate", "5", "--requests", "5"}) ==
          "--rate: not with --request-rate (--rate schedules connections, --request-rate requests)");
    CHECK(usage_error({"--request-rate", "10", "--num-conns", "5", "--requests", "5"}) ==
          "--num-conns: not with --request-rate (give --requests or --duration)");
    CHECK(usage_error({"--request-rate", "10", "--num-calls", "5", "--duration", "1"}) ==
          "--num-calls: not with --request-rate (its connections stay open for every request)");
    CHECK(usage_error({"--request-rate", "10"}) ==
          "--request-rate: needs --requests N or --duration S");
    CHECK(usage_error({"--connections", "5", "--period", "e0.01"}) ==
          "--connections: needs --requests N or --duration S");
    CHECK(usage_error({"--connections", "5", "--requests", "9"}) ==
          "--connections: needs --request-rate or --period");
    CHECK(usage_error({"--request-rate", "10", "--period", "e0.1", "--requests", "9"}) ==
          "--period: not with --request-rate (give one of them)");
    CHECK(usage_error({"--request-rate", "10", "--requests", "9", "--duration", "1"}) ==
          "--duration: not with --requests (give one of them)");
    CHECK(usage_error({"--requests", "9"}) == "--requests: needs --request-rate or --concurrency");
    CHECK(usage_error({"--duration", "1"}) == "--duration: needs --request-rate or --concurrency");
    // The closed loop: no rate, a length, at least as many arrivals as slots.
    CHECK(usage_error({"--concurrency", "0", "--num-conns", "5"}) ==
          "--concurrency: must be within 1..1000000 (got 0)");
    CHECK(usage_error({"--concurrency", "5", "--rate", "10", "--num-conns", "50"}) ==
          "--rate: not with --concurrency (a closed loop has no rate: each slot starts its next "
          "arrival when its last one ended)");
    CHECK(usage_error({"--concurrency", "5", "--period", "e0.1", "--num-conns", "50"})
              .starts_with("--period: not with --concurrency"));
    CHECK(usage_error({"--concurrency", "5", "--request-rate", "10", "--requests", "50"})
              .starts_with("--request-rate: not with --concurrency"));
    CHECK(usage_error({"--concurrency", "10", "--requests", "5"}) ==
          "--requests: 5 is fewer than --concurrency 10 (a slot would never start)");
    CHECK(usage_error({"--concurrency", "10", "--num-conns", "5"}) ==
          "--num-conns: 5 is fewer than --concurrency 10 (a slot would never start)");
    CHECK(usage_error({"--concurrency", "5"}) ==
          "--concurrency: needs --num-conns N, --requests N or --duration S (the closed loop's "
          "length)");
    CHECK(usage_error({"--concurrency", "5", "--num-conns", "9", "--duration", "1"}) ==
          "--duration: not with --num-conns (give one of them)");
    CHECK(usage_error({"--concurrency", "5", "--requests", "9", "--num-conns", "9"})
              .starts_with("--num-conns: not with --requests"));
    CHECK(usage_error({"--concurrency", "2", "--wsess", "1,1,0", "--num-conns", "9"})
              .starts_with("--wsess: not with --concurrency"));
    CHECK(usage_error({"--think", "1"}) ==
          "--think: needs --concurrency (a closed loop's pause between a slot's arrivals)");
    CHECK(usage_error({"--format", "xml"}) ==
          "--format: expected httperf, ab or siege (got 'xml')");
    const Config closed = config_of({"--concurrency", "8", "--requests", "100", "--think", "0.5"});
    CHECK(closed.closed_loop());
    CHECK(closed.request_mode);
    CHECK(closed.connections == 8);  // one persistent connection a slot
    CHECK(closed.think == std::chrono::milliseconds(500));
    const Config by_time =
        config_of({"--concurrency", "8", "--duration", "2", "--format", "siege"});
    CHECK_FALSE(by_time.request_mode);
    CHECK(by_time.duration == std::chrono::seconds(2));
    CHECK(by_time.format == rateperf::options::ReportFormat::siege);
    CHECK(config_of({"--concurrency", "3", "--connections", "2", "--duration", "1"}).connections ==
          2);
    // What each mode keeps.
    const Config calls = config_of({"--num-calls", "10", "--burst-length", "4", "--max-piped-calls", "3"});
    CHECK_FALSE(calls.request_mode);
    CHECK(calls.num_calls == 10);
    CHECK(calls.burst_length == 4);
    CHECK(calls.max_piped_calls == 3);
    const Config requests = config_of({"--request-rate", "2000", "--connections", "50", "--duration", "10"});
    CHECK(requests.request_mode);
    CHECK(requests.connections == 50);
    CHECK(requests.duration == std::chrono::seconds(10));
    CHECK(requests.period.rate_per_s == 2000);
    CHECK(config_of({"--request-rate", "5", "--requests", "7"}).connections == 10);
    const Config poisson = config_of({"--connections", "4", "--period", "e0.001", "--requests", "7"});
    CHECK(poisson.request_mode);
    CHECK(poisson.period.kind == rateperf::options::PeriodKind::exponential);
  }

  TEST_CASE("--threads, --cpus and --shard: the values and what is refused") {
    const Config two = config_of({"--threads", "2", "--cpus", "1,0"});
    CHECK(two.threads == 2);
    CHECK(two.cpus == std::vector<std::uint32_t>{1, 0});
    CHECK(config_of({}).threads == 1);
    CHECK(config_of({}).cpus.empty());
    CHECK(usage_error({"--threads", "0"}) == "--threads: must be within 1..256 (got 0)");
    CHECK(usage_error({"--threads", "257"}) == "--threads: must be within 1..256 (got 257)");
    const long cpus = ::sysconf(_SC_NPROCESSORS_CONF);
    const std::string missing = std::to_string(cpus);
    CHECK(usage_error({"--cpus", missing.c_str()}) ==
          "--cpus: CPU " + std::to_string(cpus) + " does not exist (this machine has CPUs 0-" +
              std::to_string(cpus - 1) + ")");
    CHECK(usage_error({"--cpus", "1-0"}) == "--cpus: the range '1-0' runs backwards");
    CHECK(usage_error({"--cpus", "0,,1"}) ==
          "--cpus: expected CPU numbers or ranges A-B separated by commas (got '0,,1')");
    CHECK(usage_error({"--cpus", "x"}) == "--cpus: 'x' is not a number");
    const Config shard = config_of({"--shard", "2/3", "--rate", "30", "--num-conns", "10"});
    CHECK(shard.shard_index == 2);
    CHECK(shard.shard_count == 3);
    CHECK(shard.shard_arrivals() == 3);  // arrivals 2, 5 and 8 of 0..9
    CHECK(config_of({"--shard", "0/3", "--rate", "30", "--num-conns", "10"}).shard_arrivals() == 4);
    for (const char* text : {"3/3", "0/0", "1", "a/b"}) {
      CAPTURE(text);
      CHECK(usage_error({"--shard", text, "--rate", "10"}) ==
            "--shard: expected I/N with 0 <= I < N (got '" + std::string(text) + "')");
    }
    CHECK(usage_error({"--shard", "0/2"}) ==
          "--shard: needs --rate or --period above 0 (--rate 0 runs one connection after another, in one process)");
  }

  TEST_CASE("--shard env: the part from a job engine's variables, and what is refused") {
    // Each engine's variables, alone in the environment.
    struct Engine {
      const char* index;
      const char* count;
    };
    const Engine engines[] = {{"JOB_COMPLETION_INDEX", "RATEPERF_SHARDS"},
                              {"SLURM_PROCID", "SLURM_NTASKS"},
                              {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                              {"PMI_RANK", "PMI_SIZE"}};
    const auto clear = [&] {
      for (const Engine& e : engines) {
        ::unsetenv(e.index);
        ::unsetenv(e.count);
      }
    };
    clear();
    CHECK(usage_error({"--shard", "env", "--rate", "10"}) ==
          "--shard: env: no shard index in the environment (JOB_COMPLETION_INDEX, SLURM_PROCID, "
          "OMPI_COMM_WORLD_RANK or PMI_RANK)");
    for (const Engine& e : engines) {
      CAPTURE(e.index);
      clear();
      ::setenv(e.index, "2", 1);
      ::setenv(e.count, "3", 1);
      const Config c = config_of({"--shard", "env", "--rate", "30", "--num-conns", "10"});
      CHECK(c.shard_index == 2);
      CHECK(c.shard_count == 3);
      CHECK(config_of({"--shard", "env/3", "--rate", "30"}).shard_index == 2);
      CHECK(usage_error({"--shard", "env/4", "--rate", "30"}) ==
            std::string("--shard: env/4 but ") + e.count + "=3 (give env alone, or the same count)");
      ::setenv(e.index, "3", 1);
      CHECK(usage_error({"--shard", "env", "--rate", "30"}) ==
            std::string("--shard: env: ") + e.index + "=3 is not below the count 3");
      ::setenv(e.index, "x", 1);
      CHECK(usage_error({"--shard", "env", "--rate", "30"}) ==
            std::string("--shard env: ") + e.index + ": 'x' is not a number");
    }
    // Kubernetes gives the index alone: the count comes from env/N.
    clear();
    ::setenv("JOB_COMPLETION_INDEX", "1", 1);
    const Config k8s = config_of({"--shard", "env/3", "--rate", "30"});
    CHECK(k8s.shard_index == 1);
    CHECK(k8s.shard_count == 3);
    CHECK(usage_error({"--shard", "env", "--rate", "30"}) ==
          "--shard: env: JOB_COMPLETION_INDEX=1 gives the index but not the count (give --shard "
          "env/N or set RATEPERF_SHARDS)");
    CHECK(usage_error({"--shard", "env/0", "--rate", "30"}) ==
          "--shard env/N: must be within 1..4294967295 (got 0)");
    clear();
  }

  TEST_CASE("--start-at: RFC 3339 or seconds since the epoch, and what is refused") {
    const auto at = [](const char* text) {
      return config_of({"--start-at", text}).start_at_unix_ns.value_or(-1);
    };
    constexpr std::int64_t noon = 1'796'385'600'000'000'000;  // 2026-12-04T12:00:00Z
    CHECK(at("2026-12-04T12:00:00Z") == noon);
    CHECK(at("2026-12-04t12:00:00z") == noon);
    CHECK(at("2026-12-04 12:00:00Z") == noon);
    CHECK(at("2026-12-04T13:00:00+01:00") == noon);
    CHECK(at("2026-12-04T07:30:00-04:30") == noon);
    CHECK(at("2026-12-04T12:00:00.25Z") == noon + 250'000'000);
    CHECK(at("1796385600") == noon);
    CHECK(at("1796385600.000000001") == noon + 1);
    CHECK(rateperf::options::format_wall_time(noon + 250'000'000) == "2026-12-04T12:00:00.250Z");
    // The echoed command line and a merge read it back in UTC.
    CHECK(contains(echo_command_line(config_of({"--start-at", "2026-12-04T13:00:00+01:00"})),
                   "--start-at=2026-12-04T12:00:00.000Z"));
    for (const char* text : {"", "abc", "2026-12-04", "2026-12-04T12:00:00", "2026-13-04T12:00:00Z",
                             "2026-02-30T12:00:00Z", "2026-12-04T24:00:00Z", "2026-12-04T12:00:00+1:00",
                             "2026-12-04T12:00:00.Z", "1796385600.", "99999999999999"}) {
      CAPTURE(text);
      CHECK(usage_error({"--start-at", text}) ==
            "--start-at: expected an RFC 3339 time like 2026-12-04T18:00:00Z or seconds since the "
            "epoch (got '" + std::string(text) + "')");
    }
    CHECK(usage_error({"--dump", ""}) == "--dump: expects a file name");
  }

  TEST_CASE("--interval and --series: the values and what is refused") {
    CHECK(config_of({}).interval == std::chrono::seconds(1));
    CHECK(config_of({"--interval", "0.25"}).interval == std::chrono::milliseconds(250));
    CHECK(contains(echo_command_line(config_of({"--interval", "0.25"})), "--interval=0.25"));
    CHECK(!contains(echo_command_line(config_of({})), "--interval"));
    CHECK(usage_error({"--interval", "0"}) == "--interval: must be at least 0.001 s (got 0)");
    CHECK(usage_error({"--interval", "x"}) == "--interval: 'x' is not a number");
    CHECK(usage_error({"--series", ""}) == "--series: expects a file name or -");
    CHECK(usage_error({"--series", "-", "--json", "-"}) ==
          "--series and --json cannot both write to stdout");
    CHECK(usage_error({"--series", "-", "--csv", "-"}) ==
          "--series and --csv cannot both write to stdout");
    CHECK(config_of({"--series", "s.csv"}).series_path == "s.csv");
  }

  TEST_CASE("bad --client, --uri, --method, --http-version and hosts are refused") {
    for (const char* text : {"3/2", "1/1", "0/0", "1", "a/b", "-1/2", "1/2x", ""}) {
      CAPTURE(text);
      CHECK(usage_error({"--client", text}) ==
            "--client: expected I/N with 0 <= I < N (got '" + std::string(text) + "')");
    }
    CHECK(usage_error({"--uri", "index.html"}) == "--uri: must start with '/' (got 'index.html')");
    CHECK(usage_error({"--uri", ""}) == "--uri: must start with '/' (got '')");
    CHECK(usage_error({"--uri", "/a b"}) ==
          "--uri: must not contain spaces or control characters (got '/a b')");
    CHECK(usage_error({"--method", ""}) == "--method: '' is not a valid method name");
    CHECK(usage_error({"--method", "GE T"}) == "--method: 'GE T' is not a valid method name");
    CHECK(usage_error({"--http-version", "2"}) == "--http-version: expected 1.0 or 1.1 (got '2')");
    CHECK(usage_error({"--server", ""}) == "--server: must not be empty");
  }

  TEST_CASE("Boost's own errors become one-line usage errors naming the option") {
    CHECK(usage_error({"--bogus"}) == "unrecognised option '--bogus'");
    CHECK(usage_error({"--rate"}) == "the required argument for option '--rate' is missing");
    CHECK(usage_error({"--verbose=2"}) == "option '--verbose' does not take any arguments");
    CHECK(contains(usage_error({"--num", "3"}), "'--num' is ambiguous"));
    CHECK(usage_error({"--rate", "1", "--rate", "2"}) == "--rate: given more than once");
    CHECK(usage_error({"--rate", "1", "--period", "e1"}) == "--rate and --period are exclusive");
  }

  TEST_CASE("echo_command_line prints httperf's normalised line under rateperf's name") {
    Config c = config_of({"--server", "127.0.0.1", "--port", "8080", "--uri", "/", "--rate", "300",
                          "--num-conns", "40000", "--timeout", "5"});
    c.argv0 = "/usr/local/bin/rateperf";
    CHECK(echo_command_line(c) ==
          "rateperf --timeout=5 --client=0/1 --server=127.0.0.1 --port=8080 --uri=/ --rate=300 "
          "--send-buffer=4096 --recv-buffer=16384 --num-conns=40000 --num-calls=1");

    // Sequential and without a timeout, neither --rate nor --timeout appears, as in httperf.
    CHECK(echo_command_line(config_of({})) ==
          "rateperf --client=0/1 --server=localhost --port=80 --uri=/ --send-buffer=4096 "
          "--recv-buffer=16384 --num-conns=1 --num-calls=1");
  }

  TEST_CASE("--no-host-hdr and --close-with-reset: set, echoed where httperf echoes them") {
    const Config c = config_of({"--close-with-reset", "--no-host-hdr", "-v", "--timeout", "2"});
    CHECK(c.no_host_header);
    CHECK(c.close_with_reset);
    // httperf echoes --close-with-reset after --verbose and before --timeout; it does not echo
    // --no-host-hdr, which comes with rateperf's own options at the end.
    CHECK(echo_command_line(c) ==
          "rateperf --verbose --close-with-reset --timeout=2 --client=0/1 --server=localhost "
          "--port=80 --uri=/ --send-buffer=4096 --recv-buffer=16384 --num-conns=1 --num-calls=1 "
          "--no-host-hdr");
    // Flags: a value is an error naming the option.
    CHECK(usage_error({"--no-host-hdr=yes"}) == "option '--no-host-hdr' does not take any arguments");
    CHECK(usage_error({"--close-with-reset=1"}) ==
          "option '--close-with-reset' does not take any arguments");
  }

  TEST_CASE("--wlog B,FILE and --wset N,X: parsed, echoed, and refused where they cannot go") {
    const Config log = config_of({"--wlog", "y,/tmp/urls.txt"});
    CHECK(log.wlog_path == "/tmp/urls.txt");
    CHECK(log.wlog_wrap);
    CHECK_FALSE(config_of({"--wlog=n,u,v"}).wlog_wrap);
    CHECK(config_of({"--wlog=n,u,v"}).wlog_path == "u,v");
    const Config set = config_of({"--wset", "1024,0.25", "--uri", "/wset1024"});
    CHECK(set.wset_files == 1024);
    CHECK(set.wset_rate == 0.25);
    // httperf echoes --wset after --burst-length; --wlog, which it does not echo, comes last.
    CHECK(contains(echo_command_line(set), " --num-calls=1 --wset=1024,0.25"));
    CHECK(contains(echo_command_line(log), " --wlog=y,/tmp/urls.txt"));
    CHECK(usage_error({"--wlog", "x"}) == "--wlog: expected y,FILE or n,FILE (got 'x')");
    CHECK(usage_error({"--wlog", "yes,f"}) == "--wlog: expected y,FILE or n,FILE (got 'yes,f')");
    CHECK(usage_error({"--wset", "5"}) == "--wset: expected N,X (got '5')");
    CHECK(usage_error({"--wset", "0,1"}) == "--wset: must be at least 1 (got 0)");
    CHECK(usage_error({"--wset", "5,0"}) ==
          "--wset: X, the new files per call, must be above 0 and at most 1 (got '0')");
    CHECK(usage_error({"--wset", "5,1.5"}) ==
          "--wset: X, the new files per call, must be above 0 and at most 1 (got '1.5')");
    CHECK(usage_error({"--wset", "5,1", "--wlog", "n,f"}) ==
          "--wset: not with --wlog (each call takes its URI from one of them)");
    CHECK(usage_error({"--wlog", "n,f", "--request-rate", "10", "--requests", "5"}) ==
          "--wlog: not in request mode yet (give --rate or --period with --num-conns)");
  }

  TEST_CASE("--print-request and --print-reply: header, body, or both without a value") {
    const Config both = config_of({"--print-request", "--print-reply"});
    CHECK(both.print_request.header);
    CHECK(both.print_request.body);
    CHECK(both.print_reply.header);
    CHECK(both.print_reply.body);
    const Config header = config_of({"--print-reply=header"});
    CHECK(header.print_reply.header);
    CHECK_FALSE(header.print_reply.body);
    CHECK_FALSE(header.print_request.any());
    const Config body = config_of({"--print-request=body"});
    CHECK_FALSE(body.print_request.header);
    CHECK(body.print_request.body);
    CHECK_FALSE(config_of({}).print_request.any());
    CHECK_FALSE(config_of({}).print_reply.any());
    CHECK(usage_error({"--print-reply=headers"}) ==
          "--print-reply: expected header or body, or no value for both (got 'headers')");
    // Echoed where httperf echoes them: after --verbose, the reply's before the request's, then
    // --close-with-reset.
    CHECK(echo_command_line(config_of({"--print-request=header", "--close-with-reset", "-v",
                                       "--print-reply"}))
              .rfind("rateperf --verbose --print-reply --print-request=header --close-with-reset "
                     "--client=0/1 ",
                     0) == 0);
  }

  TEST_CASE("echo_command_line puts the other options where httperf does, --seed last") {
    const Config c =
        config_of({"-v",   "--think-timeout", "2",   "--timeout",      "1.5",       "--client",
                   "1/3",  "--server",        "::1", "--server-name",  "h.example", "--port",
                   "9",    "--uri",           "/x",  "--http-version", "1.0",       "--period",
                   "e0.2", "--send-buffer",   "100", "--add-header",   "X-A: b\\n", "--method",
                   "HEAD", "--num-conns",     "7",   "--seed",         "42"});
    CHECK(echo_command_line(c) ==
          "rateperf --verbose --think-timeout=2 --timeout=1.5 --client=1/3 --server=::1 "
          "--server-name=h.example --port=9 --uri=/x --http-version=1.0 --period=e0.2 "
          "--send-buffer=100 --recv-buffer=16384 --add-header='X-A: b\\n' --method=HEAD "
          "--num-conns=7 --num-calls=1 --seed=42");

    // httperf echoes a fixed --period as the rate it amounts to; u and v keep their form.
    CHECK(contains(echo_command_line(config_of({"--period", "d0.5"})), " --rate=2 "));
    CHECK(contains(echo_command_line(config_of({"--period", "u1,3"})), " --period=u1,3 "));
    CHECK(contains(echo_command_line(config_of({"--period", "v0.1,2,0.01,3"})),
                   " --period=v0.1,2,0.01,3 "));
    CHECK(contains(echo_command_line(config_of({"--rate", "333.5"})), " --rate=333.5 "));
  }

  TEST_CASE("echo_command_line appends the thresholds after --seed, only when given") {
    CHECK(echo_command_line(config_of({"--max-error-rate", "2.5", "--seed", "7", "--max-lag",
                                       "0.25", "--num-conns", "10"})) ==
          "rateperf --client=0/1 --server=localhost --port=80 --uri=/ --send-buffer=4096 "
          "--recv-buffer=16384 --num-conns=10 --num-calls=1 --seed=7 --max-lag=0.25 "
          "--max-error-rate=2.5");
    // A zero error rate is a threshold (any error fails the run), so it is echoed too.
    const std::string zero = echo_command_line(config_of({"--max-error-rate", "0"}));
    CHECK(zero.ends_with(" --num-calls=1 --max-error-rate=0"));
    CHECK_FALSE(contains(zero, "--max-lag"));
    CHECK_FALSE(contains(echo_command_line(config_of({"--max-lag", "3"})), "--max-error-rate"));
    CHECK_FALSE(contains(echo_command_line(config_of({})), "--max-"));
  }

  TEST_CASE("--clock picks what times the replies, the kernel by default; --batch-reads needs it") {
    using rateperf::options::ReplyClock;
    CHECK(config_of({}).clock == ReplyClock::kernel);
    CHECK(config_of({"--clock", "user"}).clock == ReplyClock::user);
    CHECK(config_of({"--clock", "kernel"}).clock == ReplyClock::kernel);
    CHECK(contains(echo_command_line(config_of({"--clock", "user"})), " --clock=user"));
    CHECK_FALSE(contains(echo_command_line(config_of({"--clock", "kernel"})), "--clock"));
    CHECK(usage_error({"--clock", "wire"}) == "--clock: expected kernel or user (got 'wire')");
    // A closed loop takes the client's clock unless --clock kernel is given (then echoed).
    CHECK(config_of({}).reply_clock() == ReplyClock::kernel);
    CHECK(config_of({"--concurrency", "4", "--num-conns", "8"}).reply_clock() == ReplyClock::user);
    CHECK(
        config_of({"--concurrency", "4", "--num-conns", "8", "--clock", "kernel"}).reply_clock() ==
        ReplyClock::kernel);
    CHECK(contains(echo_command_line(
                       config_of({"--concurrency", "4", "--num-conns", "8", "--clock", "kernel"})),
                   " --clock=kernel"));
    CHECK_FALSE(contains(echo_command_line(config_of({"--concurrency", "4", "--num-conns", "8"})),
                         "--clock"));
    CHECK_FALSE(contains(
        echo_command_line(config_of({"--concurrency", "4", "--num-conns", "8", "--clock", "user"})),
        "--clock"));
    CHECK(usage_error({"--concurrency", "4", "--num-conns", "8", "--batch-reads", "0.002"})
              .starts_with("--batch-reads: needs --clock kernel"));
    CHECK(config_of({}).batch_reads == Duration::zero());
    CHECK(config_of({"--batch-reads", "0.002"}).batch_reads == 2ms);
    CHECK(
        contains(echo_command_line(config_of({"--batch-reads", "0.002"})), " --batch-reads=0.002"));
    CHECK(usage_error({"--batch-reads", "2"}) == "--batch-reads: must be at most 1 second (got 2)");
    CHECK(usage_error({"--batch-reads", "0.002", "--clock", "user"}) ==
          "--batch-reads: needs --clock kernel (a reply read late keeps its time only by the "
          "kernel's timestamps)");
    CHECK(config_of({"--call-log", "calls.csv"}).call_log_path == "calls.csv");
    CHECK(usage_error({"--call-log", ""}) == "--call-log: expects a file name");
  }

  TEST_CASE("--timing picks the loop's mode, auto by default, echoed last when not auto") {
    using rateperf::options::Timing;
    CHECK(config_of({}).timing == Timing::automatic);
    CHECK(config_of({"--timing", "auto"}).timing == Timing::automatic);
    CHECK(config_of({"--timing", "sleep"}).timing == Timing::sleep);
    CHECK(config_of({"--timing", "hybrid"}).timing == Timing::hybrid);
    CHECK(config_of({"--timing", "spin"}).timing == Timing::spin);
    CHECK(config_of({"--timing", "batch"}).timing == Timing::batch);
    // batch's turn: --batch-reads, or 0.2 ms; no turn in the other modes.
    CHECK(config_of({"--timing", "batch"}).turn(true) == std::chrono::microseconds(200));
    CHECK(config_of({"--timing", "batch", "--batch-reads", "0.001"}).turn(true) ==
          std::chrono::milliseconds(1));
    CHECK(config_of({"--timing", "sleep"}).turn(true) == rateperf::Duration::zero());
    // auto: batch's turns from 20,000 calls a second a worker with the kernel clock; sleep in a
    // closed loop; its own pacing otherwise.
    CHECK(config_of({"--rate", "19999"}).loop_timing(true) == Timing::automatic);
    CHECK(config_of({"--rate", "20000"}).loop_timing(true) == Timing::batch);
    CHECK(config_of({"--rate", "20000"}).loop_timing(false) == Timing::automatic);
    CHECK(config_of({"--rate", "20000", "--timing", "hybrid"}).loop_timing(true) == Timing::hybrid);
    CHECK(config_of({"--rate", "30000", "--threads", "2"}).loop_timing(true) == Timing::automatic);
    CHECK(config_of({"--rate", "80000", "--threads", "2", "--shard", "0/2"}).loop_timing(true) ==
          Timing::batch);
    CHECK(config_of({"--rate", "300", "--num-calls", "100"}).loop_timing(true) == Timing::batch);
    CHECK(config_of({"--rate", "300", "--wsess", "10,100,0"}).loop_timing(true) == Timing::batch);
    CHECK(config_of({"--request-rate", "44000", "--requests", "10"}).loop_timing(true) ==
          Timing::batch);
    CHECK(config_of({"--concurrency", "10", "--num-conns", "10"}).loop_timing(true) ==
          Timing::sleep);
    CHECK(config_of({"--request-rate", "44000", "--requests", "10"}).turn(true) ==
          std::chrono::microseconds(200));
    CHECK(config_of({"--request-rate", "44000", "--requests", "10"}).turn(false) ==
          rateperf::Duration::zero());
    CHECK(usage_error({"--timing", "batch", "--clock", "user"})
              .starts_with("--timing: batch needs --clock kernel"));
    CHECK(echo_command_line(config_of({"--timing", "hybrid", "--max-lag", "1"}))
              .ends_with(" --max-lag=1 --timing=hybrid"));
    CHECK_FALSE(contains(echo_command_line(config_of({"--timing", "auto"})), "--timing"));
    CHECK(usage_error({"--timing", "Auto"}) ==
          "--timing: expected auto, sleep, hybrid, spin or batch (got 'Auto')");
  }

  TEST_CASE("echo_command_line leaves out the output options, which httperf's line lacks") {
    const std::string plain = echo_command_line(config_of({"--rate", "10"}));
    CHECK(echo_command_line(
              config_of({"--rate", "10", "--json", "r.json", "--csv", "r.csv", "-q"})) == plain);
    CHECK(echo_command_line(config_of({"--json", "-", "--quiet", "--rate", "10"})) == plain);
  }
}
