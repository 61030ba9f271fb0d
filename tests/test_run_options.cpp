// Each option's effect in a real run, seen where a user would see it: what the server received
// and when, what the kernel set on the sockets, what the report, the JSON and stderr say. --period
// is test_run_period.cpp's; the option parsing itself is the "options" and "cli" suites' business.

#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fault_server.hpp"
#include "process.hpp"
#include "report_text.hpp"
#include "run_on_loopback.hpp"
#include "temp_file.hpp"
#include "test_server.hpp"

namespace {

using namespace std::chrono_literals;
using rateperf::test::closed_port;
using rateperf::test::Family;
using rateperf::test::FaultMode;
using rateperf::test::FaultServer;
using rateperf::test::ProcessResult;
using rateperf::test::rateperf_binary;
using rateperf::test::report_figure;
using rateperf::test::request_lines;
using rateperf::test::run_process;
using rateperf::test::run_rateperf;
using rateperf::test::run_rateperf_on;
using rateperf::test::ServerMode;
using rateperf::test::TempFile;
using rateperf::test::TestServer;

// The client-side TCP sockets on this machine whose peer is 127.0.0.1:port, in any state (the
// IPv4 table of /proc/net/tcp: the remote address is its third column, "0100007F:PORT" in hex).
int sockets_to(std::uint16_t port) {
  std::ifstream table("/proc/net/tcp");
  std::string line;
  std::getline(table, line);  // the column names
  char peer[32];
  std::snprintf(peer, sizeof peer, "0100007F:%04X", static_cast<unsigned>(port));
  int count = 0;
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote;
    fields >> slot >> local >> remote;
    if (remote == peer) ++count;
  }
  return count;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

// Runs a check against a server the run leaves open: `probe` is called once `after` has passed
// since the start of rateperf, while its connections are still held.
template <class Probe>
ProcessResult run_while(std::uint16_t port, const std::vector<std::string>& args,
                        std::chrono::milliseconds after, Probe&& probe) {
  ProcessResult result;
  std::thread runner([&] { result = run_rateperf(port, args); });
  std::this_thread::sleep_for(after);
  probe();
  runner.join();
  return result;
}

// The socket buffer sizes (skmem's rb and tb) of every established connection to `port`, as
// `ss` reads them from the kernel.
std::vector<std::pair<long, long>> client_buffers(std::uint16_t port) {
  const ProcessResult ss = run_process(
      {"ss", "-tmnH", "state", "established", "( dport = :" + std::to_string(port) + " )"}, 10s);
  INFO(ss.out << ss.err);
  REQUIRE(ss.exit_code == 0);
  std::vector<std::pair<long, long>> sizes;
  const std::regex skmem(R"(skmem:\(r\d+,rb(\d+),t\d+,tb(\d+))");
  for (std::sregex_iterator it(ss.out.begin(), ss.out.end(), skmem), end; it != end; ++it) {
    sizes.emplace_back(std::stol((*it)[1].str()), std::stol((*it)[2].str()));
  }
  return sizes;
}

long sysctl_value(const std::string& path) {
  std::ifstream in(path);
  long value = 0;
  in >> value;
  return value;
}

}  // namespace

TEST_SUITE("run_options") {
  TEST_CASE("--think-timeout: more time for a reply to start, on top of --timeout") {
    // The server accepts at once and answers after 300 ms: a --timeout of 0.15 s alone gives up
    // on every connection; 0.4 s of think time lets every reply come.
    TestServer server(ServerMode::reply, {200}, "slow\n", 300);
    const std::vector<std::string> base = {"--rate", "20", "--num-conns", "4", "--timeout", "0.15"};
    const ProcessResult without = run_rateperf(server.port(), base);
    INFO(without.out << without.err);
    REQUIRE(without.exit_code == 0);
    CHECK(report_figure(without.out, "Errors: total", "client-timo") == 4);
    CHECK(report_figure(without.out, "Total:", "replies") == 0);

    auto args = base;
    args.insert(args.end(), {"--think-timeout", "0.4"});
    const ProcessResult with = run_rateperf(server.port(), args);
    INFO(with.out << with.err);
    REQUIRE(with.exit_code == 0);
    CHECK(report_figure(with.out, "Total:", "replies") == 4);
    CHECK(report_figure(with.out, "Errors: total", "total") == 0);
  }

  TEST_CASE("--send-buffer and --recv-buffer set each socket's buffers") {
    // Linux doubles the value given (for its own bookkeeping); ss shows the doubled sizes.
    TestServer server(ServerMode::never_answer);
    std::vector<std::pair<long, long>> sizes;
    const ProcessResult run = run_while(server.port(),
                                        {"--rate", "20", "--num-conns", "3", "--timeout", "1.5",
                                         "--send-buffer", "8192", "--recv-buffer", "32768"},
                                        800ms, [&] { sizes = client_buffers(server.port()); });
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    REQUIRE(sizes.size() == 3);
    for (const auto& [rb, tb] : sizes) {
      CHECK(rb == 2 * 32768);
      CHECK(tb == 2 * 8192);
    }
    // Within the kernel's limits, nothing to warn about.
    CHECK(run.err.find("buffer") == std::string::npos);
  }

  TEST_CASE("a buffer size the kernel clamps is said once on stderr") {
    TestServer server(ServerMode::reply);
    const long wmem_max = sysctl_value("/proc/sys/net/core/wmem_max");
    REQUIRE(wmem_max > 0);
    const std::string too_big = std::to_string(wmem_max * 4);
    const ProcessResult run = run_rateperf(
        server.port(), {"--rate", "100", "--num-conns", "5", "--send-buffer", too_big});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(report_figure(run.out, "Total:", "replies") == 5);
    CHECK(count_of(run.err, "--send-buffer") == 1);
    CHECK(run.err.find("net.core.wmem_max") != std::string::npos);
  }

  TEST_CASE("--concurrency: C connections at a time, a slot's next one when its last ended") {
    // Each reply takes 50 ms: 20 connections over 4 slots make 5 rounds.
    TestServer server(ServerMode::reply, {200}, "hello\n", 50);
    const ProcessResult run =
        run_rateperf(server.port(), {"--concurrency", "4", "--num-conns", "20"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(server.accepted() == 20);
    CHECK(report_figure(run.out, "Total:", "replies") == 20);
    CHECK(run.out.find("Offered rate: closed loop of 4 slots") != std::string::npos);
    // The fifth connection waits for the first's reply: never more than 4 open at once.
    const auto accepted = server.accept_times();
    REQUIRE(accepted.size() == 20);
    for (std::size_t i = 4; i < accepted.size(); ++i) {
      CHECK(accepted[i] - accepted[i - 4] >= 45ms);
    }
    CHECK(report_figure(run.out, "Connection rate:", "<=") <= 4);
    // No schedule to fall behind: no lag warning, whatever the wake-ups.
    CHECK(run.err.find("fell behind") == std::string::npos);
  }

  TEST_CASE("--concurrency with --requests: C persistent connections, ab -k's figures") {
    FaultServer server(FaultMode::keep_alive);
    const ProcessResult run =
        run_rateperf(server.port(), {"--concurrency", "3", "--requests", "12", "--format", "ab"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(server.accepted() == 3);
    CHECK(server.requests() == 12);
    CHECK(report_figure(run.out, "Concurrency Level:", "Concurrency Level:") == 3);
    CHECK(report_figure(run.out, "Complete requests:", "Complete requests:") == 12);
    CHECK(report_figure(run.out, "Failed requests:", "Failed requests:") == 0);
    CHECK(report_figure(run.out, "Keep-Alive requests:", "Keep-Alive requests:") == 12);
    const double document = report_figure(run.out, "Document Length:", "Document Length:");
    CHECK(document > 0);
    CHECK(report_figure(run.out, "HTML transferred:", "HTML transferred:") == 12 * document);
    // ab's rows; on open connections nothing waits to connect.
    CHECK(report_figure(run.out, "Connect:", "Connect:") == 0);
    CHECK(run.out.find("Percentage of the requests served within a certain time (ms)") !=
          std::string::npos);
  }

  TEST_CASE("--concurrency with --duration and --think: slots pause, and stop at the end") {
    TestServer server(ServerMode::reply);
    const ProcessResult run =
        run_rateperf(server.port(), {"--concurrency", "2", "--duration", "0.5", "--think", "0.1"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    // Each slot starts at 0, 0.1, ... 0.4 s (a reply takes far less than its think time): 10.
    const double connections = report_figure(run.out, "Total:", "connections");
    CHECK(connections >= 6);
    CHECK(connections <= 10);
    CHECK(report_figure(run.out, "Total:", "test-duration") < 0.5);
  }

  TEST_CASE("--http-version 1.0 and --method: the request line the server reads") {
    TestServer server(ServerMode::reply);
    const ProcessResult run = run_rateperf(
        server.port(), {"--num-conns", "2", "--http-version", "1.0", "--method", "OPTIONS"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    const auto requests = server.received();
    REQUIRE(requests.size() == 2);
    for (const auto& request : requests) CHECK(request.rfind("OPTIONS / HTTP/1.0\r\n", 0) == 0);
  }

  TEST_CASE("--method HEAD: a reply without a body is whole at its headers") {
    // The server announces the GET reply's Content-Length (6) and sends no body, as HTTP says
    // for HEAD: a client waiting for those 6 bytes would time out.
    TestServer server(ServerMode::reply);
    const ProcessResult run = run_rateperf(
        server.port(), {"--rate", "50", "--num-conns", "5", "--timeout", "2", "--method", "HEAD"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(report_figure(run.out, "Total:", "replies") == 5);
    CHECK(report_figure(run.out, "Errors: total", "total") == 0);
    CHECK(report_figure(run.out, "Reply size [B]:", "content") == 0);
    CHECK(report_figure(run.out, "Total:", "test-duration") < 1.0);
    for (const auto& request : server.received())
      CHECK(request.rfind("HEAD / HTTP/1.1\r\n", 0) == 0);
  }

  TEST_CASE("--add-header and --server-name: the headers the server reads") {
    TestServer server(ServerMode::reply);
    const ProcessResult run = run_rateperf(
        server.port(), {"--num-conns", "1", "--add-header", "X-One: 1\\nX-Two: two", "--add-header",
                        "Accept: text/plain", "--server-name", "example.test"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    const auto requests = server.received();
    REQUIRE(requests.size() == 1);
    const std::string& request = requests[0];
    INFO(request);
    CHECK(request.find("\r\nHost: example.test\r\n") != std::string::npos);
    CHECK(request.find("\r\nX-One: 1\r\nX-Two: two\r\nAccept: text/plain\r\n") !=
          std::string::npos);
    CHECK(count_of(request, "Host:") == 1);
  }

  TEST_CASE("--no-host-hdr: the request the server reads has no Host header") {
    TestServer server(ServerMode::reply);
    const ProcessResult run = run_rateperf(
        server.port(), {"--num-conns", "2", "--no-host-hdr", "--add-header", "X-A: 1"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(run.out.find(" --no-host-hdr") != std::string::npos);
    const auto requests = server.received();
    REQUIRE(requests.size() == 2);
    for (const std::string& request : requests) {
      INFO(request);
      CHECK(count_of(request, "Host:") == 0);
      CHECK(request.find("\r\nX-A: 1\r\n\r\n") != std::string::npos);
    }
  }

  TEST_CASE("--print-request and --print-reply: each call's lines on stdout, httperf's prefixes") {
    TestServer server(ServerMode::reply, {200}, "hello\nworld\n");
    const ProcessResult run =
        run_rateperf(server.port(), {"--num-conns", "2", "--print-request", "--print-reply"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(run.out.find(" --print-reply --print-request ") != std::string::npos);
    const std::string port = std::to_string(server.port());
    const auto request_bytes = report_figure(run.out, "Request size [B]:", "");
    const auto reply_header = report_figure(run.out, "Reply size [B]:", "header");
    for (const std::string call : {"0", "1"}) {
      CAPTURE(call);
      // Each line as sent or received up to its LF: a CRLF line keeps its CR.
      CHECK(run.out.find("SH" + call + ":GET / HTTP/1.1\r\n") != std::string::npos);
      CHECK(run.out.find("SH" + call + ":Host: 127.0.0.1:" + port + "\r\n") != std::string::npos);
      CHECK(run.out.find("SH" + call + ":\r\nSS" + call + ": header " +
                         std::to_string(static_cast<long>(request_bytes)) + " content 0\n") !=
            std::string::npos);
      CHECK(run.out.find("RH" + call + ":HTTP/1.1 200 OK\r\n") != std::string::npos);
      CHECK(run.out.find("RH" + call + ":\r\nRB" + call + ":hello\nRB" + call + ":world\nRS" +
                         call + ": header " + std::to_string(static_cast<long>(reply_header)) +
                         " content 12 footer 0\n") != std::string::npos);
    }
    CHECK(run.out.find("SH2:") == std::string::npos);

    // Parts: only the reply's header lines and its summary; nothing of the request.
    const ProcessResult header = run_rateperf(server.port(), {"--num-conns", "1", "--print-reply=header"});
    INFO(header.out);
    CHECK(header.out.find("RH0:HTTP/1.1 200 OK\r\n") != std::string::npos);
    CHECK(header.out.find("RS0: header ") != std::string::npos);
    CHECK(header.out.find("RB0:") == std::string::npos);
    CHECK(header.out.find("SH0:") == std::string::npos);
    CHECK(header.out.find("SS0:") == std::string::npos);
  }

  TEST_CASE("--wlog and --wset: the URIs the server reads, in order; n ends the run at the list's end") {
    const TempFile list(std::string("/a\0/b?x=1\0/c\0", 13));
    const std::string& path = list.path();

    // n: three URIs, so three connections of the ten scheduled, and no error.
    TestServer once(ServerMode::reply);
    const ProcessResult ended = run_rateperf(once.port(), {"--num-conns", "10", "--rate", "100", "--wlog", "n," + path});
    INFO(ended.out << ended.err);
    CHECK(ended.exit_code == 0);
    CHECK(request_lines(once) ==
          std::vector<std::string>{"GET /a HTTP/1.1", "GET /b?x=1 HTTP/1.1", "GET /c HTTP/1.1"});
    CHECK(report_figure(ended.out, "Total:", "connections") == 3);
    CHECK(report_figure(ended.out, "Total:", "replies") == 3);
    CHECK(report_figure(ended.out, "Errors: total", "total") == 0);
    // y: the list again from its start.
    TestServer wrapped(ServerMode::reply);
    const ProcessResult again = run_rateperf(wrapped.port(), {"--num-conns", "5", "--rate", "100", "--wlog", "y," + path});
    CHECK(again.exit_code == 0);
    CHECK(request_lines(wrapped) ==
          std::vector<std::string>{"GET /a HTTP/1.1", "GET /b?x=1 HTTP/1.1", "GET /c HTTP/1.1",
                                   "GET /a HTTP/1.1", "GET /b?x=1 HTTP/1.1"});

    // --wset 3,0.5 under --uri /w: each file twice in a row.
    TestServer set(ServerMode::reply);
    const ProcessResult walked = run_rateperf(set.port(), {"--num-conns", "7", "--rate", "100", "--uri", "/w", "--wset", "3,0.5"});
    CHECK(walked.exit_code == 0);
    CHECK(request_lines(set) ==
          std::vector<std::string>{"GET /w/0.html HTTP/1.1", "GET /w/0.html HTTP/1.1",
                                   "GET /w/1.html HTTP/1.1", "GET /w/1.html HTTP/1.1",
                                   "GET /w/2.html HTTP/1.1", "GET /w/2.html HTTP/1.1",
                                   "GET /w/0.html HTTP/1.1"});

    // A file that cannot be read: status 2 and its path, before any connection.
    TestServer none(ServerMode::reply);
    const ProcessResult missing = run_rateperf(none.port(), {"--num-conns", "1", "--wlog", "n,/nonexistent/urls"});
    CHECK(missing.exit_code == 2);
    CHECK(missing.err.rfind("rateperf: --wlog: cannot read '/nonexistent/urls': No such file or directory\n", 0) == 0);
    CHECK(none.accepted() == 0);
  }

  TEST_CASE("--close-with-reset: the client's close leaves no socket behind, a FIN close does") {
    // The server reads each request and never answers: --timeout closes the connections from
    // the client's side. A FIN leaves each client socket in FIN_WAIT2 (the server never closes
    // its end); a reset removes it at once.
    TestServer fin_server(ServerMode::never_answer);
    const ProcessResult fin =
        run_rateperf(fin_server.port(), {"--num-conns", "3", "--rate", "50", "--timeout", "0.2"});
    INFO(fin.out << fin.err);
    CHECK(report_figure(fin.out, "Errors: total", "client-timo") == 3);
    CHECK(sockets_to(fin_server.port()) == 3);

    TestServer reset_server(ServerMode::never_answer);
    const ProcessResult reset =
        run_rateperf(reset_server.port(), {"--num-conns", "3", "--rate", "50", "--timeout", "0.2",
                                           "--close-with-reset"});
    INFO(reset.out << reset.err);
    CHECK(report_figure(reset.out, "Errors: total", "client-timo") == 3);
    CHECK(reset.out.find(" --close-with-reset") != std::string::npos);
    CHECK(sockets_to(reset_server.port()) == 0);
  }

  TEST_CASE("a URL argument sets the server, the port and the request target") {
    TestServer server(ServerMode::reply);
    const std::string port = std::to_string(server.port());
    const ProcessResult run = run_process(
        {rateperf_binary(), "http://127.0.0.1:" + port + "/a/b?c=d", "--num-conns", "2"}, 30s);
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(report_figure(run.out, "Total:", "replies") == 2);
    for (const auto& request : server.received()) {
      CHECK(request.rfind("GET /a/b?c=d HTTP/1.1\r\n", 0) == 0);
      CHECK(request.find("\r\nHost: 127.0.0.1:" + port + "\r\n") != std::string::npos);
    }
  }

  TEST_CASE("IPv6: --server ::1 and http://[::1]:PORT/ reach a server on ::1") {
    TestServer server(ServerMode::reply, {200}, "hello\n", 0, Family::ipv6);
    const std::string port = std::to_string(server.port());
    const ProcessResult by_option = run_rateperf_on("::1", server.port(), {"--num-conns", "3"});
    INFO(by_option.out << by_option.err);
    REQUIRE(by_option.exit_code == 0);
    CHECK(report_figure(by_option.out, "Total:", "replies") == 3);
    const ProcessResult by_url =
        run_process({rateperf_binary(), "http://[::1]:" + port + "/six", "--num-conns", "2"}, 30s);
    INFO(by_url.out << by_url.err);
    REQUIRE(by_url.exit_code == 0);
    CHECK(report_figure(by_url.out, "Total:", "replies") == 2);
    const auto requests = server.received();
    REQUIRE(requests.size() == 5);
    // The Host header brackets the address, or its colons would read as a port.
    for (const auto& request : requests) {
      CHECK(request.find("\r\nHost: [::1]:" + port + "\r\n") != std::string::npos);
    }
    CHECK(requests.back().rfind("GET /six HTTP/1.1\r\n", 0) == 0);
  }

  TEST_CASE("--client I/N: the first reply-rate sample after (I + 1) * 5 / N s, and the seed") {
    TestServer server(ServerMode::reply);
    // 60 arrivals at 20/s last 2.95 s: client 1 of 5 samples at 2 s; a lone client (5 s) not.
    const std::vector<std::string> base = {"--rate", "20", "--num-conns", "60", "--json", "-"};
    auto args = base;
    args.insert(args.end(), {"--client", "1/5"});
    const ProcessResult second = run_rateperf(server.port(), args);
    INFO(second.out << second.err);
    REQUIRE(second.exit_code == 0);
    const auto doc = nlohmann::json::parse(second.out);
    REQUIRE(doc.at("samples").size() == 1);
    CHECK(doc.at("samples")[0].at("length_s").get<double>() == doctest::Approx(2.0));
    CHECK(doc.at("samples")[0].at("replies").get<int>() == doctest::Approx(40).epsilon(0.05));
    CHECK(doc.at("config").at("seed") == 2);

    const ProcessResult alone = run_rateperf(server.port(), base);
    INFO(alone.out << alone.err);
    REQUIRE(alone.exit_code == 0);
    CHECK(nlohmann::json::parse(alone.out).at("samples").empty());
  }

  TEST_CASE("--verbose prints each reply-rate sample on stderr as it is taken") {
    TestServer server(ServerMode::reply);
    // Client 0 of 5 takes its first sample at 1 s: 20 replies in it at 20/s.
    const ProcessResult run = run_rateperf(
        server.port(), {"--rate", "20", "--num-conns", "30", "--client", "0/5", "--verbose"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    const std::regex line(R"((^|\n)reply-rate = ([0-9.]+)\n)");
    std::smatch match;
    REQUIRE(std::regex_search(run.err, match, line));
    CHECK(std::stod(match[2].str()) == doctest::Approx(20).epsilon(0.1));
    CHECK(count_of(run.err, "reply-rate = ") == 1);
    // Without --verbose, none.
    const ProcessResult quiet =
        run_rateperf(server.port(), {"--rate", "20", "--num-conns", "30", "--client", "0/5"});
    CHECK(count_of(quiet.err, "reply-rate = ") == 0);
  }

  TEST_CASE("the progress line on a terminal, and --quiet") {
    TestServer server(ServerMode::reply);
    // `script` gives rateperf a pseudo-terminal for stdout and stderr. 30 arrivals at 20/s
    // last 1.45 s: the line is written once a second.
    const auto on_terminal = [&](const std::string& extra) {
      // Appended piece by piece: GCC 12 gives a false -Wrestrict for "'" + std::string(...).
      std::string command = "'";
      command += rateperf_binary();
      command += "' --server 127.0.0.1 --port " + std::to_string(server.port());
      command += " --rate 20 --num-conns 30 " + extra;
      const ProcessResult run = run_process({"script", "-qefc", command, "/dev/null"}, 30s);
      INFO(run.out << run.err);
      REQUIRE(run.exit_code == 0);
      return run.out;
    };
    const std::string shown = on_terminal("");
    CHECK(std::regex_search(shown, std::regex(R"(\r1\.0 s  issued 2[01]/30  replies \d+ )")));
    CHECK(shown.find("Total: connections 30") != std::string::npos);
    const std::regex progress(R"(issued \d+/30)");
    CHECK(std::regex_search(shown, progress));
    const std::string quiet = on_terminal("--quiet");
    CHECK_FALSE(std::regex_search(quiet, progress));
    CHECK(quiet.find("Total: connections 30") != std::string::npos);
    // Not a terminal (a pipe): no progress line either.
    const ProcessResult piped = run_rateperf(server.port(), {"--rate", "20", "--num-conns", "30"});
    CHECK_FALSE(std::regex_search(piped.err, progress));
  }

  TEST_CASE("--max-lag: status 3 above the threshold, 0 below it, for the same run") {
    // A million connections a second to a closed port: the client falls behind by far more
    // than 1 ms, but not by 1000 s.
    const std::uint16_t port = closed_port();
    const std::vector<std::string> base = {"--rate", "1000000", "--num-conns", "5000"};
    auto above = base;
    above.insert(above.end(), {"--max-lag", "1"});
    const ProcessResult crossed = run_rateperf(port, above);
    INFO(crossed.out << crossed.err);
    CHECK(crossed.exit_code == 3);
    CHECK(crossed.err.find("threshold crossed: lag p99") != std::string::npos);
    auto below = base;
    below.insert(below.end(), {"--max-lag", "1000000"});
    const ProcessResult held = run_rateperf(port, below);
    INFO(held.out << held.err);
    CHECK(held.exit_code == 0);
    CHECK(held.err.find("threshold crossed") == std::string::npos);
  }

  TEST_CASE("--max-error-rate: status 3 above the threshold, 0 below it, for the same run") {
    // Every fifth connection is reset: 4 errors in 20 arrivals, 20 %.
    TestServer server(ServerMode::reply, {200, 200, 200, 200, rateperf::test::kResetStatus});
    const std::vector<std::string> base = {"--rate", "100", "--num-conns", "20", "--timeout", "2"};
    auto above = base;
    above.insert(above.end(), {"--max-error-rate", "19"});
    const ProcessResult crossed = run_rateperf(server.port(), above);
    INFO(crossed.out << crossed.err);
    CHECK(report_figure(crossed.out, "Errors: total", "connreset") == 4);
    CHECK(crossed.exit_code == 3);
    CHECK(crossed.err.find("20.00 % of the calls failed > --max-error-rate 19 %") !=
          std::string::npos);
    auto below = base;
    below.insert(below.end(), {"--max-error-rate", "21"});
    const ProcessResult held = run_rateperf(server.port(), below);
    INFO(held.out << held.err);
    CHECK(report_figure(held.out, "Errors: total", "connreset") == 4);
    CHECK(held.exit_code == 0);
  }

  TEST_CASE("a server name that does not resolve: status 1 and one line naming it") {
    const ProcessResult run = run_process(
        {rateperf_binary(), "--server", "no-such-host.invalid", "--num-conns", "1"}, 30s);
    INFO(run.out << run.err);
    CHECK(run.exit_code == 1);
    CHECK(run.out.empty());
    CHECK(run.err.rfind("rateperf: --server: cannot resolve 'no-such-host.invalid'", 0) == 0);
    CHECK(count_of(run.err, "\n") == 1);
  }
}
