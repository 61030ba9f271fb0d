// Runs the real rateperf binary against servers started inside the test, on 127.0.0.1, and
// checks the counts a user reads in the report.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "process.hpp"
#include "report_text.hpp"
#include "test_server.hpp"

namespace {

using rateperf::test::rateperf_binary;
using rateperf::test::report_figure;
using rateperf::test::report_line;
using rateperf::test::closed_port;
using rateperf::test::ProcessResult;
using rateperf::test::run_process;
using rateperf::test::ServerMode;
using rateperf::test::TestServer;

// Runs rateperf against 127.0.0.1:port with the given extra arguments.
ProcessResult run_rateperf(std::uint16_t port, std::vector<std::string> args,
                       std::chrono::milliseconds limit = std::chrono::seconds(60)) {
  std::vector<std::string> argv = {rateperf_binary(), "--server", "127.0.0.1", "--port",
                                   std::to_string(port)};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, limit);
}

}  // namespace

TEST_SUITE("integration") {
  TEST_CASE("every connection gets its reply, counted by status class") {
    TestServer server(ServerMode::reply, {200, 301, 404, 500});
    const ProcessResult run = run_rateperf(server.port(), {"--rate", "200", "--num-conns", "40",
                                                       "--timeout", "5"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(report_line(run.out, "Total:").rfind("Total: connections 40 requests 40 replies 40 test-duration", 0) == 0);
    CHECK(report_line(run.out, "Reply status:") == "Reply status: 1xx=0 2xx=10 3xx=10 4xx=10 5xx=10");
    CHECK(report_figure(run.out, "Errors: total", "total") == 0);
    CHECK(server.requests() == 40);
    // The schedule: 40 arrivals 5 ms apart take 195 ms; the rate is the one asked for.
    CHECK(report_figure(run.out, "Connection rate:", "Connection rate:") > 100);
    CHECK(report_figure(run.out, "Reply size [B]:", "content") == doctest::Approx(6.0));
  }

  TEST_CASE("a server that never answers: every connection ends as client-timo") {
    TestServer server(ServerMode::never_answer);
    const auto started = std::chrono::steady_clock::now();
    const ProcessResult run = run_rateperf(server.port(), {"--rate", "20", "--num-conns", "5",
                                                       "--timeout", "0.5"});
    const double elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(report_line(run.out, "Total:").rfind("Total: connections 5 requests 5 replies 0", 0) == 0);
    CHECK(report_line(run.out, "Errors: total").rfind("Errors: total 5 client-timo 5 socket-timo 0 "
                                              "connrefused 0 connreset 0", 0) == 0);
    // The schedule (0.2 s) plus the timeout (0.5 s), with room for a slow machine.
    CHECK(elapsed_s < 5.0);
    CHECK(report_figure(run.out, "Total:", "test-duration") >= 0.5);
  }

  TEST_CASE("a closed port: every connection is refused") {
    const ProcessResult run = run_rateperf(closed_port(), {"--rate", "50", "--num-conns", "6",
                                                       "--timeout", "2"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(report_line(run.out, "Errors: total").rfind("Errors: total 6 client-timo 0 socket-timo 0 "
                                              "connrefused 6 connreset 0", 0) == 0);
    CHECK(report_figure(run.out, "Total:", "replies") == 0);
  }

  TEST_CASE("a server that resets: every connection is connreset") {
    TestServer server(ServerMode::reset);
    const ProcessResult run = run_rateperf(server.port(), {"--rate", "50", "--num-conns", "6",
                                                       "--timeout", "2"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(report_line(run.out, "Errors: total").rfind("Errors: total 6 client-timo 0 socket-timo 0 "
                                              "connrefused 0 connreset 6", 0) == 0);
    CHECK(report_figure(run.out, "Total:", "connections") == 6);
  }

  TEST_CASE("rate 0 runs one connection after another") {
    TestServer server(ServerMode::reply);
    const ProcessResult run = run_rateperf(server.port(), {"--num-conns", "25", "--timeout", "5"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(report_figure(run.out, "Total:", "replies") == 25);
    CHECK(report_line(run.out, "Connection rate:").find("<=1 concurrent connections") !=
          std::string::npos);
  }

  TEST_CASE("open loop: arrivals keep coming while the server is slow") {
    // 200 ms per reply at 50 conn/s: a closed-loop client would hold one connection at a time;
    // rateperf keeps issuing on schedule, so about ten are open at once.
    TestServer server(ServerMode::reply, {200}, "slow\n", 200);
    const ProcessResult run = run_rateperf(server.port(), {"--rate", "50", "--num-conns", "25",
                                                       "--timeout", "5"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(report_figure(run.out, "Total:", "replies") == 25);
    CHECK(report_figure(run.out, "Connection rate:", "<=") >= 5);
    const double response_ms = report_figure(run.out, "Reply time [ms]:", "response");
    CHECK(response_ms >= 190);
    CHECK(response_ms < 1000);
  }

  TEST_CASE("SIGINT stops the schedule and still prints the report") {
    TestServer server(ServerMode::reply);
    const std::string path = rateperf_binary();
    const std::string port = std::to_string(server.port());
    int out_pipe[2];
    REQUIRE(::pipe(out_pipe) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::dup2(out_pipe[1], STDOUT_FILENO);
      ::close(out_pipe[0]);
      ::close(out_pipe[1]);
      ::execl(path.c_str(), path.c_str(), "--server", "127.0.0.1", "--port", port.c_str(),
              "--rate", "20", "--num-conns", "1000", "--timeout", "2", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(out_pipe[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    ::kill(pid, SIGINT);
    std::string out;
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(out_pipe[0], buffer, sizeof buffer)) > 0) {
      out.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(out_pipe[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    INFO(out);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    const double connections = report_figure(out, "Total:", "connections");
    CHECK(connections >= 5);
    CHECK(connections < 100);
    CHECK(report_figure(out, "Total:", "replies") + report_figure(out, "Errors: total", "total") ==
          connections);
    CHECK(out.find("interrupted") != std::string::npos);
  }

  TEST_CASE("latency percentiles of a server that answers after 20 ms") {
    TestServer server(ServerMode::reply, {200}, "late\n", 20);
    const ProcessResult run = run_rateperf(server.port(), {"--rate", "40", "--num-conns", "30",
                                                           "--timeout", "5", "--verbose"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    const std::string intended = report_line(run.out, "Reply latency [ms]:");
    CHECK(intended.find("(from intended start)") != std::string::npos);
    const double p50 = report_figure(run.out, "Reply latency [ms]:", "p50");
    CHECK(p50 >= 19.5);
    CHECK(p50 < 35);
    CHECK(report_figure(run.out, "Response time [ms]:", "p50") >= 19.5);
    CHECK(report_figure(run.out, "Reply latency [ms]:", "max") >= p50);
    // --verbose adds ab's table; its median row agrees with the p50 above.
    CHECK(run.out.find("Percentage of the requests served within a certain time (ms)") !=
          std::string::npos);
    CHECK(report_figure(run.out, "  50%", "50%") == doctest::Approx(p50).epsilon(0.05));
  }

  TEST_CASE("a client that cannot hold its schedule says so, and --max-lag fails the run") {
    // A million connections per second is more than any client here can start: 5000 arrivals
    // are due within 5 ms, and each socket() + connect() takes microseconds.
    const ProcessResult run = run_rateperf(closed_port(), {"--rate", "1000000", "--num-conns",
                                                           "5000", "--max-lag", "1"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 3);
    CHECK(run.err.find("warning") != std::string::npos);
    CHECK(run.err.find("--max-lag") != std::string::npos);
    // The whole report is printed all the same.
    CHECK(report_figure(run.out, "Total:", "connections") == 5000);
    CHECK(report_figure(run.out, "Client lag [ms]:", "p99") > 1);
    CHECK(report_figure(run.out, "Maximum connect burst length:", "length:") > 1);
  }

  TEST_CASE("--max-error-rate fails a run with too many errors, and only then") {
    const ProcessResult refused = run_rateperf(closed_port(), {"--rate", "100", "--num-conns",
                                                               "5", "--max-error-rate", "50"});
    INFO(refused.out << refused.err);
    CHECK(refused.exit_code == 3);
    CHECK(refused.err.find("--max-error-rate") != std::string::npos);
    CHECK(report_figure(refused.out, "Errors: total", "total") == 5);

    TestServer server(ServerMode::reply);
    const ProcessResult clean = run_rateperf(server.port(), {"--rate", "100", "--num-conns", "5",
                                                             "--max-error-rate", "0"});
    INFO(clean.out << clean.err);
    CHECK(clean.exit_code == 0);
  }
}
