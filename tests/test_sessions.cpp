// Sessions (--wsess, --wsesslog) end to end against the loopback test server, which answers one
// request per connection and closes it: the bursts' order, the requests a session file makes,
// the session report lines, --failure-status with and without --retry-on-failure,
// --session-cookies, a request's own timeout=, and the usage errors of the session options.
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process.hpp"
#include "report_text.hpp"
#include "run_on_loopback.hpp"
#include "temp_file.hpp"
#include "test_server.hpp"

namespace rateperf::test {

TEST_SUITE("sessions") {
  TEST_CASE("--wsess: each burst's first call alone, the rest after its reply, a think time between bursts") {
    TestServer server(ServerMode::reply);
    const TempFile json("");
    // 3 sessions of 4 calls in bursts of 2, 0.1 s of think time; one call per connection.
    const ProcessResult run = run_rateperf(
        server.port(), {"--wsess", "3,4,0.1", "--burst-length", "2", "--rate", "20",
                        "--max-piped-calls", "1", "--uri", "/w", "--timeout", "5", "--json",
                        json.path()});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(server.requests() == 12);
    CHECK(report_figure(run.out, "Total:", "replies") == 12);
    CHECK(report_figure(run.out, "Errors: total", "total") == 0);
    CHECK(report_line(run.out, "Session rate [sess/s]:").find("(3/3)") != std::string::npos);
    CHECK(report_line(run.out, "Session length histogram:") == "Session length histogram: 0 0 0 0 3");
    // One connection per call: each session opened four.
    CHECK(report_line(run.out, "Session: avg") == "Session: avg 4.00 connections/session");
    // Two bursts with 0.1 s between them: a session lasts at least the think time, and well
    // under a second on loopback.
    const double lifetime = report_figure(run.out, "Session lifetime [s]:", ":");
    CHECK(lifetime >= 0.1);
    CHECK(lifetime < 1.0);
    CHECK(run.out.find("rateperf --timeout=5 ") == 0);
    CHECK(report_line(run.out, "rateperf").find(" --wsess=3,4,0.100") != std::string::npos);
    CHECK(report_line(run.out, "rateperf").find("--num-conns") == std::string::npos);
    const nlohmann::json doc = read_json(json.path());
    CHECK(doc["sessions"]["completed"] == 3);
    CHECK(doc["sessions"]["failed"] == 0);
    CHECK(doc["sessions"]["total"] == 3);
    CHECK(doc["sessions"]["length_histogram"] == nlohmann::json::array({0, 0, 0, 0, 3}));
    CHECK(doc["sessions"]["connections_per_session"] == 4.0);
    CHECK(doc["totals"]["calls"] == 12);
    CHECK(doc["config"]["wsess_calls"] == 4);
    CHECK(doc["config"]["sessions"] == 3);
    // The times the server accepted show the bursts: per session, the second call of a burst
    // follows the first at once, the next burst comes after the think time.
    const auto accepted = server.accept_times();
    REQUIRE(accepted.size() == 12);
  }

  TEST_CASE("--wsesslog: the requests of the file (methods, bodies, headers), templates round robin") {
    TestServer server(ServerMode::reply);
    const TempFile sessions(
        "# two sessions\n"
        "/login method=POST contents='user=a&pass=b' header='X-Session: one' think=0.05\n"
        "/page header='X-Session: one' header='X-Step: 2'\n"
        "\n"
        "/head method=HEAD\n");
    const ProcessResult run = run_rateperf(
        server.port(), {"--wsesslog", "3,0,", "--rate", "20"});
    CHECK(run.exit_code == 2);  // a file name is needed
    const ProcessResult ok = run_rateperf(
        server.port(), {"--wsesslog", "3,0," + sessions.path(), "--rate", "20", "--timeout", "5"});
    INFO(ok.out << ok.err);
    REQUIRE(ok.exit_code == 0);
    // Sessions 0 and 2 take the first template, session 1 the second.
    CHECK(server.requests() == 5);
    std::vector<std::string> lines = request_lines(server);
    std::sort(lines.begin(), lines.end());
    CHECK(lines == std::vector<std::string>{"GET /page HTTP/1.1", "GET /page HTTP/1.1",
                                            "HEAD /head HTTP/1.1", "POST /login HTTP/1.1",
                                            "POST /login HTTP/1.1"});
    for (const std::string& request : server.received()) {
      if (request.rfind("POST", 0) == 0) {
        CHECK(request.find("\r\nContent-Length: 13\r\n") != std::string::npos);
        CHECK(request.find("\r\nX-Session: one\r\n") != std::string::npos);
      }
      if (request.rfind("GET /page", 0) == 0) {
        CHECK(request.find("\r\nX-Session: one\r\nX-Step: 2\r\n") != std::string::npos);
        CHECK(request.find("Content-Length") == std::string::npos);
      }
    }
    CHECK(report_figure(ok.out, "Errors: total", "total") == 0);
    CHECK(report_line(ok.out, "Session rate [sess/s]:").find("(3/3)") != std::string::npos);
    CHECK(report_line(ok.out, "Session length histogram:") == "Session length histogram: 0 1 2");
  }

  TEST_CASE("--rate 0: one session after another; --wsess with --wlog y: each call the next URI") {
    TestServer server(ServerMode::reply);
    const TempFile uris("/u1\n/u2\n/u3\n");
    const ProcessResult run = run_rateperf(
        server.port(), {"--wsess", "2,2,0", "--rate", "0", "--wlog", "y," + uris.path(),
                        "--timeout", "5"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    // The URIs of the list, in order, from its start: a call this server's close left
    // unanswered goes out again with its own URI.
    CHECK(request_lines(server) == std::vector<std::string>{"GET /u1 HTTP/1.1", "GET /u2 HTTP/1.1",
                                                            "GET /u3 HTTP/1.1", "GET /u1 HTTP/1.1"});
    CHECK(report_figure(run.out, "Total:", "replies") == 4);
    CHECK(report_line(run.out, "Session rate [sess/s]:").find("(2/2)") != std::string::npos);
    CHECK(report_line(run.out, "Offered rate:").find("sequential") != std::string::npos);
  }

  TEST_CASE("--failure-status fails a session; --retry-on-failure sends the call again") {
    const TempFile sessions("/a\n/b\n");
    // Connections alternate 200 and 503: each session's second call gets the 503.
    TestServer failing(ServerMode::reply, {200, 503});
    const ProcessResult failed = run_rateperf(
        failing.port(), {"--wsesslog", "2,0," + sessions.path(), "--rate", "5",
                         "--failure-status", "503", "--timeout", "5"});
    INFO(failed.out << failed.err);
    REQUIRE(failed.exit_code == 0);
    CHECK(report_line(failed.out, "Session rate [sess/s]:").find("(0/2)") != std::string::npos);
    CHECK(report_figure(failed.out, "Reply status:", "5xx=") == 2);
    CHECK(report_line(failed.out, "Session length histogram:") == "Session length histogram: 0 0 2");

    // Sent again, the call's next connection gets a 200: the sessions complete.
    TestServer retried(ServerMode::reply, {200, 503});
    const ProcessResult again = run_rateperf(
        retried.port(), {"--wsesslog", "2,0," + sessions.path(), "--rate", "5",
                         "--failure-status", "503", "--retry-on-failure", "--timeout", "5"});
    INFO(again.out << again.err);
    REQUIRE(again.exit_code == 0);
    CHECK(report_line(again.out, "Session rate [sess/s]:").find("(2/2)") != std::string::npos);
    CHECK(retried.requests() == 7);  // 200, 503, 200 | 503, 200, 503, 200: per connection
    CHECK(report_figure(again.out, "Reply status:", "2xx=") == 4);

    // A server that always fails: the retries stop, and the session fails.
    TestServer always(ServerMode::reply, {503});
    const ProcessResult bounded = run_rateperf(
        always.port(), {"--wsesslog", "1,0," + sessions.path(), "--rate", "5",
                        "--failure-status", "503", "--retry-on-failure", "--timeout", "5"});
    CHECK(bounded.exit_code == 0);
    CHECK(report_line(bounded.out, "Session rate [sess/s]:").find("(0/1)") != std::string::npos);
    CHECK(always.requests() == 9);  // the first try and 8 more
  }

  TEST_CASE("--session-cookies: a session's later requests send back the cookies its replies set") {
    TestServer server(ServerMode::reply, {200}, "hello\n", 0, Family::ipv4,
                      "Set-Cookie: sid=abc; Path=/\r\nSet-Cookie: theme=dark\r\n");
    const TempFile sessions("/first\n/second\n");
    const ProcessResult run = run_rateperf(
        server.port(), {"--wsesslog", "1,0," + sessions.path(), "--rate", "5",
                        "--session-cookies", "--timeout", "5"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    const auto received = server.received();
    REQUIRE(received.size() == 2);
    CHECK(received[0].find("Cookie:") == std::string::npos);
    CHECK(received[1].find("\r\nCookie: sid=abc; theme=dark\r\n") != std::string::npos);

    // Without the option, no cookie goes back.
    TestServer plain(ServerMode::reply, {200}, "hello\n", 0, Family::ipv4,
                     "Set-Cookie: sid=abc\r\n");
    const ProcessResult without = run_rateperf(
        plain.port(), {"--wsesslog", "1,0," + sessions.path(), "--rate", "5", "--timeout", "5"});
    REQUIRE(without.exit_code == 0);
    for (const std::string& request : plain.received()) {
      CHECK(request.find("Cookie:") == std::string::npos);
    }
  }

  TEST_CASE("a request's timeout= ends it as client-timo and fails its session") {
    TestServer silent(ServerMode::never_answer);
    const TempFile sessions("/slow timeout=0.3\n");
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult run = run_rateperf(
        silent.port(), {"--wsesslog", "1,0," + sessions.path(), "--rate", "5", "--timeout", "30"});
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(report_figure(run.out, "Errors: total", "client-timo") == 1);
    CHECK(report_line(run.out, "Session rate [sess/s]:").find("(0/1)") != std::string::npos);
    const double failtime = report_figure(run.out, "Session failtime [s]:", ":");
    CHECK(failtime >= 0.25);
    CHECK(seconds < 10);  // not --timeout's 30 s
  }

  TEST_CASE("session usage errors: exit 2, one line naming the option or FILE:LINE, nothing sent") {
    TestServer server(ServerMode::reply);
    const TempFile good("/a\n");
    const TempFile unknown("/a\n/b foo=1\n");
    const TempFile unterminated("/a contents='open\n");
    const struct {
      std::vector<std::string> args;
      std::string message;
    } cases[] = {
        {{"--wsess", "1,1,0", "--wsesslog", "1,0," + good.path()}, "--wsesslog: not with --wsess"},
        {{"--wsesslog", "1,0," + good.path(), "--wlog", "n," + good.path()}, "--wlog: not with --wsesslog"},
        {{"--wsess", "2,2,0", "--num-conns", "5"}, "--num-conns: not with --wsess"},
        {{"--wsess", "2,2,0", "--wlog", "n," + good.path()}, "--wlog: n,FILE not with --wsess"},
        {{"--wsess", "2,2"}, "--wsess: expected N1,N2,X"},
        {{"--wsess", "0,2,0"}, "--wsess"},
        {{"--failure-status", "503", "--num-conns", "1"}, "--failure-status: needs --wsess or --wsesslog"},
        {{"--wsess", "1,1,0", "--retry-on-failure"}, "--retry-on-failure: needs --failure-status"},
        {{"--wsess", "1,1,0", "--max-connections", "0"}, "--max-connections"},
        {{"--wsesslog", "1,0,/nonexistent/sessions"}, "/nonexistent/sessions"},
        {{"--wsesslog", "1,0," + unknown.path()}, unknown.path() + ":2:"},
        {{"--wsesslog", "1,0," + unterminated.path()}, unterminated.path() + ":1:"},
    };
    for (const auto& c : cases) {
      const ProcessResult run = run_rateperf(server.port(), c.args);
      INFO(run.err);
      CHECK(run.exit_code == 2);
      CHECK(run.err.rfind("rateperf: ", 0) == 0);
      CHECK(run.err.find(c.message) != std::string::npos);
      CHECK(run.out.empty());
    }
    CHECK(server.accepted() == 0);
  }
}

}  // namespace rateperf::test
