// Runs the real rateperf binary against a FaultServer, one fault per test case, and checks what a
// user reads: the text report's totals and error lines, and the JSON "errors" object. Every
// arrival must be accounted for (connections = replies + errors), each fault must end with its
// own error kind, and no fault may make the run outlast its schedule plus the timeout.

#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "fault_server.hpp"
#include "process.hpp"
#include "report_text.hpp"

namespace {

using rateperf::test::report_figure;
using rateperf::test::report_line;
using rateperf::test::FaultMode;
using rateperf::test::FaultServer;
using rateperf::test::ProcessResult;
using rateperf::test::run_process;

// One run of rateperf against a fault, with the report (on stderr, as --json - moves it there)
// and the JSON document (on stdout).
struct FaultRun {
  ProcessResult process;
  std::string report;
  nlohmann::json json;
  double elapsed_s = 0;   // wall time of the whole run
  double schedule_s = 0;  // first to last intended arrival
  double timeout_s = 0;
};

FaultRun run_against(const FaultServer& server, int rate, int conns, double timeout_s) {
  const std::vector<std::string> args = {"--rate",    std::to_string(rate),
                                         "--num-conns", std::to_string(conns),
                                         "--timeout", std::to_string(timeout_s),
                                         "--json",    "-"};
  FaultRun run;
  const auto started = std::chrono::steady_clock::now();
  run.process = rateperf::test::run_rateperf_on("127.0.0.1", server.port(), args);
  run.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  run.schedule_s = static_cast<double>(conns - 1) / rate;
  run.timeout_s = timeout_s;
  run.report = run.process.err;
  run.json = nlohmann::json::parse(run.process.out, nullptr, false);
  return run;
}

// The counts a fault must produce. `requests` is empty where the kernel decides it.
struct Counts {
  std::uint64_t connections = 0;
  std::optional<std::uint64_t> requests;
  std::uint64_t replies = 0;
  std::uint64_t client_timo = 0;
  std::uint64_t connreset = 0;
  std::uint64_t parse_status = 0;
  std::uint64_t parse_header = 0;
  std::uint64_t parse_chunk = 0;
  std::uint64_t parse_other = 0;
};

// Checks the run ended well and in time, and that the report and the JSON give exactly
// `expected`.
void check_run(const FaultRun& run, const Counts& expected) {
  INFO("stdout:\n" << run.process.out << "\nstderr:\n" << run.process.err);
  REQUIRE_FALSE(run.process.timed_out);
  REQUIRE(run.process.exit_code == 0);
  REQUIRE_FALSE(run.json.is_discarded());
  // No fault may hold the run past its last arrival's timeout: the report's test-duration
  // stays within the schedule plus 1.25 timeouts (a watchdog that fires at twice its timeout
  // fails here), and the whole process, start-up and report included, within 3 s more.
  CHECK(run.json.at("totals").at("duration_s").get<double>() <
        run.schedule_s + 1.25 * run.timeout_s);
  CHECK(run.elapsed_s < run.schedule_s + run.timeout_s + 3.0);

  const std::uint64_t parse_errors =
      expected.parse_status + expected.parse_header + expected.parse_chunk + expected.parse_other;
  const std::uint64_t errors = expected.client_timo + expected.connreset + parse_errors;
  // Every arrival ends as a reply or an error, never both and never neither.
  REQUIRE(expected.connections == expected.replies + errors);

  const std::string total = report_line(run.report, "Total:");
  CHECK(total.rfind("Total: connections " + std::to_string(expected.connections) + " requests ",
                    0) == 0);
  CHECK(report_figure(run.report, "Total:", "replies") == expected.replies);
  if (expected.requests) {
    CHECK(report_figure(run.report, "Total:", "requests") == *expected.requests);
  } else {
    CHECK(report_figure(run.report, "Total:", "requests") <= expected.connections);
  }
  CHECK(report_line(run.report, "Errors: total") ==
        "Errors: total " + std::to_string(errors) + " client-timo " +
            std::to_string(expected.client_timo) + " socket-timo 0 connrefused 0 connreset " +
            std::to_string(expected.connreset));
  // httperf's line lumps malformed replies into "other", as httperf itself does.
  CHECK(report_line(run.report, "Errors: fd-unavail") ==
        "Errors: fd-unavail 0 addrunavail 0 ftab-full 0 other " + std::to_string(parse_errors));
  CHECK(report_line(run.report, "Errors: parse-status") ==
        "Errors: parse-status " + std::to_string(expected.parse_status) + " parse-header " +
            std::to_string(expected.parse_header) + " parse-chunk " +
            std::to_string(expected.parse_chunk) + " parse-other " +
            std::to_string(expected.parse_other) + " unanswered 0");

  const nlohmann::json& totals = run.json.at("totals");
  CHECK(totals.at("arrivals") == expected.connections);
  CHECK(totals.at("connections") == expected.connections);
  CHECK(totals.at("replies") == expected.replies);
  const nlohmann::json& kinds = run.json.at("errors");
  CHECK(kinds.at("total") == errors);
  CHECK(totals.at("connections").get<std::uint64_t>() ==
        totals.at("replies").get<std::uint64_t>() + kinds.at("total").get<std::uint64_t>());
  CHECK(kinds.at("client_timo") == expected.client_timo);
  CHECK(kinds.at("connreset") == expected.connreset);
  CHECK(kinds.at("parse_status") == expected.parse_status);
  CHECK(kinds.at("parse_header") == expected.parse_header);
  CHECK(kinds.at("parse_chunk") == expected.parse_chunk);
  CHECK(kinds.at("parse_other") == expected.parse_other);
  // Unlike the text's httperf line, JSON's "other" is only "any other errno".
  CHECK(kinds.at("other") == 0);
  for (const char* kind :
       {"socket_timo", "connrefused", "fd_unavail", "addrunavail", "ftab_full"}) {
    CHECK_MESSAGE(kinds.at(kind) == 0, kind);
  }
}

// Checks the status line and the mean reply sizes of runs whose every connection got a reply.
void check_replies(const FaultRun& run, const std::string& status_line, double header_bytes,
                   double content_bytes) {
  INFO("stderr:\n" << run.process.err);
  CHECK(report_line(run.report, "Reply status:") == status_line);
  CHECK(report_figure(run.report, "Reply size [B]:", "header") == doctest::Approx(header_bytes));
  CHECK(report_figure(run.report, "Reply size [B]:", "content") == doctest::Approx(content_bytes));
  CHECK(report_figure(run.report, "Reply size [B]:", "footer") == 0);
  CHECK(run.json.at("reply_size").at("content_bytes") == doctest::Approx(content_bytes));
  // One reply per connection: bytes past a reply's end are not a second reply.
  CHECK(report_figure(run.report, "Connection length [replies/conn]:", "conn\\]:") == 1);
}

// The fault_server program, which meson names in FAULT_SERVER_BIN.
std::string fault_server_binary() {
  const std::string path = rateperf::test::built_program("FAULT_SERVER_BIN");
  REQUIRE_MESSAGE(::access(path.c_str(), X_OK) == 0, "no fault_server program at " << path);
  return path;
}

}  // namespace

TEST_SUITE("faults") {
  TEST_CASE("a server that accepts and never reads: every connection is client-timo") {
    FaultServer server(FaultMode::accept_never_read);
    const FaultRun run = run_against(server, 50, 10, 1);
    // The request fits in the socket buffers, so it counts as sent though nobody reads it.
    check_run(run, {.connections = 10, .requests = 10, .client_timo = 10});
    CHECK(report_figure(run.report, "Total:", "test-duration") >= 1.0);
    CHECK(server.requests() == 0);
  }

  TEST_CASE("a server that reads and never answers: every connection is client-timo") {
    FaultServer server(FaultMode::read_never_answer);
    const FaultRun run = run_against(server, 50, 10, 1);
    check_run(run, {.connections = 10, .requests = 10, .client_timo = 10});
    CHECK(report_figure(run.report, "Total:", "test-duration") >= 1.0);
    CHECK(server.requests() == 10);
  }

  TEST_CASE("a reply sent one byte every 2 ms arrives whole within the inactivity timeout") {
    FaultServer server(FaultMode::slow_bytes);
    const FaultRun run = run_against(server, 50, 10, 1);
    check_run(run, {.connections = 10, .requests = 10, .replies = 10});
    check_replies(run, "Reply status: 1xx=0 2xx=10 3xx=0 4xx=0 5xx=0", 38, 5);
    // 43 bytes 2 ms apart take at least 84 ms from the first to the last (less any delay of
    // the client in reading the first byte, hence the margin); the timeout is on inactivity,
    // so the 1 s limit is never reached.
    CHECK(report_figure(run.report, "Reply time [ms]:", "transfer") >= 40);
  }

  TEST_CASE("a reset right after accept: every connection is connreset") {
    FaultServer server(FaultMode::reset_on_accept);
    const FaultRun run = run_against(server, 50, 10, 1);
    // Whether the request was written before the reset arrived is a race between the client's
    // send() and the server thread's accept(): requests are at most the connections.
    check_run(run, {.connections = 10, .requests = std::nullopt, .connreset = 10});
    CHECK(server.accepted() == 10);
  }

  TEST_CASE("a reset in the middle of a reply: every connection is connreset") {
    FaultServer server(FaultMode::reset_mid_reply);
    const FaultRun run = run_against(server, 50, 10, 1);
    check_run(run, {.connections = 10, .requests = 10, .connreset = 10});
  }

  TEST_CASE("a close before the status line: every connection is connreset") {
    FaultServer server(FaultMode::close_before_status);
    const FaultRun run = run_against(server, 50, 10, 1);
    check_run(run, {.connections = 10, .requests = 10, .connreset = 10});
    CHECK(server.requests() == 10);
  }

  TEST_CASE("a close before Content-Length is met: a cut reply is connreset") {
    FaultServer server(FaultMode::short_body);
    const FaultRun run = run_against(server, 50, 10, 1);
    check_run(run, {.connections = 10, .requests = 10, .connreset = 10});
  }

  TEST_CASE("a garbage status line is parse-status, at once, not a timeout") {
    // The server keeps the connection open after the garbage: only the parser can end it.
    FaultServer server(FaultMode::garbage_status);
    const FaultRun run = run_against(server, 50, 10, 1);
    check_run(run, {.connections = 10, .requests = 10, .parse_status = 10});
  }

  TEST_CASE("a 1 MB header block is parse-header, without reading the whole megabyte") {
    FaultServer server(FaultMode::huge_header);
    const FaultRun run = run_against(server, 50, 10, 1);
    check_run(run, {.connections = 10, .requests = 10, .parse_header = 10});
    // The client does not buffer a header block: it gives up at the parser's limit (80 KB),
    // so its peak memory is that of the same run against small replies, within 512 KB (a
    // client that buffered the megabyte would exceed it).
    FaultServer small(FaultMode::http10_close);
    const FaultRun baseline = run_against(small, 50, 10, 1);
    REQUIRE(baseline.process.exit_code == 0);
    MESSAGE("peak RSS: " << run.process.max_rss_kb << " kB against the 1 MB header, "
                         << baseline.process.max_rss_kb << " kB against small replies");
    CHECK(run.process.max_rss_kb < baseline.process.max_rss_kb + 512);
  }

  TEST_CASE("invalid chunked encoding is parse-chunk") {
    FaultServer server(FaultMode::bad_chunked);
    const FaultRun run = run_against(server, 50, 10, 1);
    check_run(run, {.connections = 10, .requests = 10, .parse_chunk = 10});
  }

  TEST_CASE("100 Continue before the reply: one reply, counted by the final status") {
    FaultServer server(FaultMode::continue_100);
    const FaultRun run = run_against(server, 50, 10, 1);
    check_run(run, {.connections = 10, .requests = 10, .replies = 10});
    // The interim reply is no reply of its own; its 25 bytes count in the header size
    // (25 + the final reply's 38).
    check_replies(run, "Reply status: 1xx=0 2xx=10 3xx=0 4xx=0 5xx=0", 63, 5);
  }

  TEST_CASE("204 No Content ends with its headers, on a connection left open") {
    FaultServer server(FaultMode::no_content_204);
    const FaultRun run = run_against(server, 50, 10, 1);
    check_run(run, {.connections = 10, .requests = 10, .replies = 10});
    check_replies(run, "Reply status: 1xx=0 2xx=10 3xx=0 4xx=0 5xx=0", 27, 0);
  }

  TEST_CASE("304 Not Modified has no body, whatever its Content-Length says") {
    FaultServer server(FaultMode::not_modified_304);
    const FaultRun run = run_against(server, 50, 10, 1);
    check_run(run, {.connections = 10, .requests = 10, .replies = 10});
    check_replies(run, "Reply status: 1xx=0 2xx=0 3xx=10 4xx=0 5xx=0", 48, 0);
  }

  TEST_CASE("more body than announced: the reply ends at Content-Length, the rest is ignored") {
    // Content-Length 5, then 10 bytes and a close. The reply is complete (and counted, 5 bytes
    // of content) at its fifth body byte; rateperf closes the connection then, so the 5 extra
    // bytes are neither a second reply nor an error. httperf does the same.
    FaultServer server(FaultMode::extra_body);
    const FaultRun run = run_against(server, 50, 10, 1);
    check_run(run, {.connections = 10, .requests = 10, .replies = 10});
    check_replies(run, "Reply status: 1xx=0 2xx=10 3xx=0 4xx=0 5xx=0", 38,
                  rateperf::test::kExtraBodyAnnounced);
  }

  TEST_CASE("an HTTP/1.0 body delimited by the close is a whole reply") {
    FaultServer server(FaultMode::http10_close);
    const FaultRun run = run_against(server, 50, 10, 1);
    check_run(run, {.connections = 10, .requests = 10, .replies = 10});
    check_replies(run, "Reply status: 1xx=0 2xx=10 3xx=0 4xx=0 5xx=0", 45,
                  rateperf::test::kHttp10BodyBytes);
  }

  TEST_CASE(
      "a server that accepts nothing: its backlog fills and every connection is client-timo") {
    // How many connections the kernel completes into the full backlog (and so how many requests
    // are written) depends on the kernel; the SYNs of the others are dropped and retried until
    // the watchdog fires. Either way each connection is client-timo, not socket-timo (connect's
    // own ETIMEDOUT comes only after minutes of retries).
    FaultServer server(FaultMode::accept_nothing);
    const FaultRun run = run_against(server, 50, 20, 1);
    check_run(run, {.connections = 20, .requests = std::nullopt, .client_timo = 20});
    CHECK(server.accepted() == 0);
  }

  TEST_CASE("fault_server rejects an unknown mode with one line that names it") {
    const ProcessResult run =
        run_process({fault_server_binary(), "--mode", "no-such-fault"}, std::chrono::seconds(10));
    INFO(run.out << run.err);
    CHECK(run.exit_code == 2);
    CHECK(run.out.empty());
    CHECK(run.err.find("no-such-fault") != std::string::npos);
    CHECK(run.err.find('\n') == run.err.size() - 1);
  }

  TEST_CASE("fault_server prints its port and stops on SIGTERM") {
    const ProcessResult run =
        run_process({fault_server_binary(), "--mode", "slow-bytes"}, std::chrono::seconds(10),
                    {{std::chrono::milliseconds(1000), SIGTERM}});
    INFO(run.out << run.err);
    CHECK_FALSE(run.timed_out);
    CHECK(run.exit_code == 0);
    CHECK(std::regex_match(run.out, std::regex("port [1-9][0-9]*\n")));
  }
}
