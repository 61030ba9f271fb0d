// Issue 15's faults on persistent connections. First the bytes of each keep-alive mode of the
// FaultServer, checked without I/O; then the real rateperf binary with --num-calls,
// --burst-length or --request-rate against those modes, read from its --json output: every
// call ends as a reply or as exactly one counted error (calls = replies + errors), and each
// fault ends its calls with the kind issue 15's counting rules name for it (a call that got no
// reply because its connection ended before it is "unanswered").

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fault_script.hpp"
#include "fault_server.hpp"
#include "process.hpp"
#include "report_text.hpp"

namespace {

using rateperf::test::AfterWrites;
using rateperf::test::Answer;
using rateperf::test::answer_requests;
using rateperf::test::FaultMode;
using rateperf::test::FaultServer;
using rateperf::test::kHelloReply;
using rateperf::test::ProcessResult;

// One run of rateperf, its JSON document (stdout; the report goes to stderr) and its wall time.
struct Run {
  ProcessResult process;
  nlohmann::json json;
  double elapsed_s = 0;
};

Run run_rateperf(const FaultServer& server, std::vector<std::string> args) {
  args.insert(args.end(), {"--json", "-"});
  Run run;
  const auto started = std::chrono::steady_clock::now();
  // The runs take a few seconds at most; the limit only stops a hung client.
  run.process =
      rateperf::test::run_rateperf_on("127.0.0.1", server.port(), args, std::chrono::seconds(30));
  run.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  run.json = nlohmann::json::parse(run.process.out, nullptr, false);
  return run;
}

// 10 connections at 50/s (a schedule of 0.18 s), each making `num_calls` calls in bursts of
// `burst` pipelined calls.
constexpr int kConns = 10;
constexpr double kScheduleS = (kConns - 1) / 50.0;

Run run_calls(const FaultServer& server, int num_calls, int burst, double timeout_s) {
  return run_rateperf(server, {"--rate", "50", "--num-conns", std::to_string(kConns), "--num-calls",
                               std::to_string(num_calls), "--burst-length", std::to_string(burst),
                               "--timeout", std::to_string(timeout_s)});
}

// A figure of the JSON document at `pointer`, or -1 where it is missing (an engine without
// issue 15's fields fails the checks instead of throwing).
std::int64_t figure(const nlohmann::json& json, const char* pointer) {
  const nlohmann::json::json_pointer at(pointer);
  if (!json.contains(at) || !json.at(at).is_number_integer()) return -1;
  return json.at(at).get<std::int64_t>();
}

// What a run must count, exactly; the kinds not named here must be 0.
struct Counts {
  std::int64_t calls = 0;
  std::int64_t replies = 0;
  std::int64_t unanswered = 0;
  std::int64_t client_timo = 0;
  std::int64_t parse_status = 0;
  std::int64_t connreset = 0;
};

// Checks that the run ended well, within `bound_s` of wall time, and counted `expected`.
void check_counts(const Run& run, const Counts& expected, double bound_s) {
  INFO("stdout:\n" << run.process.out << "\nstderr:\n" << run.process.err);
  REQUIRE_FALSE(run.process.timed_out);
  REQUIRE(run.process.exit_code == 0);
  REQUIRE_FALSE(run.json.is_discarded());
  CHECK(run.elapsed_s < bound_s);

  const std::int64_t errors =
      expected.unanswered + expected.client_timo + expected.parse_status + expected.connreset;
  // The expectation itself keeps the rule: every call a reply or one error.
  REQUIRE(expected.calls == expected.replies + errors);

  const nlohmann::json& json = run.json;
  CHECK(figure(json, "/totals/calls") == expected.calls);
  CHECK(figure(json, "/totals/replies") == expected.replies);
  CHECK(figure(json, "/errors/unanswered") == expected.unanswered);
  CHECK(figure(json, "/errors/client_timo") == expected.client_timo);
  CHECK(figure(json, "/errors/parse_status") == expected.parse_status);
  CHECK(figure(json, "/errors/connreset") == expected.connreset);
  // The total is the sum over all kinds, so this also says that no other kind was counted.
  CHECK(figure(json, "/errors/total") == errors);
  CHECK(figure(json, "/totals/calls") ==
        figure(json, "/totals/replies") + figure(json, "/errors/total"));
  // Only replies have a status; a parse-status error (600) is in no class.
  std::int64_t classes = 0;
  for (const char* cls : {"1xx", "2xx", "3xx", "4xx", "5xx"}) {
    classes += json.at("reply_status").at(cls).get<std::int64_t>();
  }
  CHECK(classes == expected.replies);
}

}  // namespace

TEST_SUITE("faults_keepalive") {
  TEST_CASE("the keep-alive modes' bytes") {
    const std::string hello(kHelloReply);

    SUBCASE("close-after-3 answers three requests, then closes without saying so") {
      const Answer answer = answer_requests(FaultMode::close_after_3, 0, 5);
      CHECK(answer.writes == std::vector<std::string>{hello, hello, hello});
      CHECK(answer.handled == 3);
      CHECK(answer.after == AfterWrites::linger_close);
      // The requests read past the third get nothing; before the third, the connection stays.
      CHECK(answer_requests(FaultMode::close_after_3, 0, 2).after == AfterWrites::keep_open);
    }
    SUBCASE("close-header-3 says Connection: close in its third reply only") {
      const Answer answer = answer_requests(FaultMode::close_header_3, 0, 3);
      REQUIRE(answer.writes.size() == 3);
      CHECK(answer.writes[1] == hello);
      CHECK(answer.writes[2] ==
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello");
      CHECK(answer.after == AfterWrites::linger_close);
    }
    SUBCASE("drop-second skips the second request and answers the others") {
      const Answer answer = answer_requests(FaultMode::drop_second, 0, 4);
      CHECK(answer.writes == std::vector<std::string>{hello, hello, hello});
      CHECK(answer.handled == 4);
      CHECK(answer.replies == 3);
      CHECK(answer.after == AfterWrites::keep_open);
    }
    SUBCASE("merge-replies answers a burst in one write") {
      const Answer answer = answer_requests(FaultMode::merge_replies, 4, 8);
      CHECK(answer.writes == std::vector<std::string>{hello + hello + hello + hello});
      CHECK(answer.replies == 4);
    }
    SUBCASE("out-of-order sends reply 2 between reply 1's header block and its body") {
      CHECK(answer_requests(FaultMode::out_of_order, 0, 1).writes.empty());
      const Answer answer = answer_requests(FaultMode::out_of_order, 0, 3);
      CHECK(answer.writes == std::vector<std::string>{
                                 "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", hello, "hello"});
      CHECK(answer.handled == 2);  // the third request waits for a fourth
    }
    SUBCASE("status-600 frames a status above 599 with Content-Length") {
      const Answer answer = answer_requests(FaultMode::status_600, 1, 2);
      CHECK(answer.writes ==
            std::vector<std::string>{"HTTP/1.1 600 Beyond\r\nContent-Length: 5\r\n\r\nhello"});
    }
    SUBCASE("the single-reply modes still answer the first request only") {
      CHECK(answer_requests(FaultMode::no_content_204, 0, 2).writes ==
            std::vector<std::string>{"HTTP/1.1 204 No Content\r\n\r\n"});
      CHECK(answer_requests(FaultMode::no_content_204, 1, 2).writes.empty());
    }
  }

  TEST_CASE("close-after-3 with 5 calls a connection: calls 4 and 5 are unanswered") {
    FaultServer server(FaultMode::close_after_3);
    const Run run = run_calls(server, 5, 1, 2);
    check_counts(run, {.calls = 50, .replies = 30, .unanswered = 20}, kScheduleS + 2 + 3);
    CHECK(figure(run.json, "/totals/connections") == kConns);
    CHECK(server.replies() == 30);
    // The text report (on stderr beside --json -) ends its parse-status line with the new kind.
    const std::string errors = rateperf::test::report_line(run.process.err, "Errors: parse-status");
    CHECK(errors.ends_with(" unanswered 20"));
  }

  TEST_CASE("close-header-3 with 5 calls a connection: the client sends no fourth request") {
    FaultServer server(FaultMode::close_header_3);
    const Run run = run_calls(server, 5, 1, 2);
    check_counts(run, {.calls = 50, .replies = 30, .unanswered = 20}, kScheduleS + 2 + 3);
    // Connection: close is heard: the calls after it are never written.
    CHECK(figure(run.json, "/totals/requests") == 30);
    CHECK(server.requests() == 30);
  }

  TEST_CASE("close-after-3 with 5 calls pipelined: the 2 in flight at the close are unanswered") {
    FaultServer server(FaultMode::close_after_3);
    const Run run = run_calls(server, 5, 5, 2);
    check_counts(run, {.calls = 50, .replies = 30, .unanswered = 20}, kScheduleS + 2 + 3);
    CHECK(figure(run.json, "/totals/requests") == 50);
  }

  TEST_CASE("a close before any reply byte: the first call is connreset, the others unanswered") {
    // A single-reply mode: it closes after reading the first request.
    FaultServer server(FaultMode::close_before_status);
    const Run run = run_calls(server, 3, 1, 2);
    check_counts(run, {.calls = 30, .unanswered = 20, .connreset = 10}, kScheduleS + 2 + 3);
  }

  TEST_CASE("close-after-3 with 3 calls a connection: the close after the last reply is no error") {
    FaultServer server(FaultMode::close_after_3);
    const Run run = run_calls(server, 3, 1, 2);
    check_counts(run, {.calls = 30, .replies = 30}, kScheduleS + 2 + 3);
    CHECK(run.json.at("connection_length").at("replies_per_connection") == doctest::Approx(3));
  }

  TEST_CASE("drop-second with a burst of 4: 3 replies, then the 4th call times out") {
    // The server answers requests 1, 3 and 4 of each burst; the client takes them as the
    // replies of calls 1, 2 and 3, and call 4 waits until the 1 s timeout.
    FaultServer server(FaultMode::drop_second);
    const Run run = run_calls(server, 4, 4, 1);
    check_counts(run, {.calls = 40, .replies = 30, .client_timo = 10}, kScheduleS + 1 + 3);
    CHECK(server.requests() == 40);
    CHECK(server.replies() == 30);
    CHECK(figure(run.json, "/totals/requests") == 40);
    CHECK(run.elapsed_s >= 1.0);
  }

  TEST_CASE("drop-second one call at a time: call 2 times out, calls 3 and 4 are never sent") {
    FaultServer server(FaultMode::drop_second);
    const Run run = run_calls(server, 4, 1, 1);
    check_counts(run, {.calls = 40, .replies = 10, .unanswered = 20, .client_timo = 10},
                 kScheduleS + 1 + 3);
    CHECK(figure(run.json, "/totals/requests") == 20);
  }

  TEST_CASE(
      "merge-replies: each burst of 4 reaches the server whole and its replies come back "
      "in one write") {
    FaultServer server(FaultMode::merge_replies);
    const Run run = run_calls(server, 8, 4, 2);
    check_counts(run, {.calls = 80, .replies = 80}, kScheduleS + 2 + 3);
    CHECK(server.replies() == 80);
    // 20 bursts: 20 writes when every burst is in within the server's 5 ms of quiet, a few more
    // where the client stalled mid-burst. A client that writes a burst's requests one by one
    // with Nagle's algorithm on makes 30: from the second burst on, requests 2 to 4 wait in its
    // kernel until the reply to request 1 acknowledges it.
    MESSAGE("server writes: " << server.writes() << " for 20 bursts");
    CHECK(server.writes() <= 25);
  }

  TEST_CASE(
      "request rate, pipelined: the requests due at one wake-up reach the server as one burst") {
    // Turns of 20 ms (--timing batch) at 400 requests/s: 8 requests due at each (a few more or
    // fewer where a wake-up came late), which go out on one connection (room for 32) in one
    // write, so that the server answers each turn with one write of its replies (after its 5 ms
    // of quiet). Spread round robin over the two connections, each turn would take two writes
    // of the server's. The room is four turns' worth: with room for 16 (two turns), a turn
    // whose connection still had the last turn's replies in flight (a slow sanitizer build on
    // a loaded machine) went partly on the other connection (19 writes in CI of 31ea077).
    FaultServer server(FaultMode::merge_replies);
    const Run run = run_rateperf(server, {"--request-rate", "400", "--connections", "2",
                                          "--burst-length", "32", "--requests", "80", "--timing",
                                          "batch", "--batch-reads", "0.02", "--timeout", "2"});
    check_counts(run, {.calls = 80, .replies = 80}, 0.2 + 2 + 3);
    CHECK(server.replies() == 80);
    MESSAGE("server writes: " << server.writes() << " for 80 requests in 10 turns");
    // 10 when every turn's requests came in one write (11 to 13 measured, on a loaded machine
    // too): a late wake-up can split a turn's requests between the server's reads. One write a
    // request each, as before the requests were packed, made 21 and 22.
#if defined(__SANITIZE_ADDRESS__)
    // Instrumented (ASan with use-after-return detection, this in-process server at -O0), the
    // server's 5 ms of quiet no longer tells the turns apart: 16 to 20 writes, for the build
    // before this packing's last change (25bb726) as for this one. The plain build checks it.
    std::printf("skipped: server writes a turn under the sanitizers (%d for 10 turns): the test "
                "server's 5-ms quiet cannot separate turns when instrumented\n",
                static_cast<int>(server.writes()));
#else
    CHECK(server.writes() <= 16);
#endif
  }

  TEST_CASE(
      "request rate, pipelined, behind a slow server: waiting requests go out in bursts, not "
      "one a reply") {
    // split-reply takes 15 ms a reply (3-byte writes 1 ms apart) where a request is due every
    // 5 ms: from the tenth or so on, requests wait for room. The connection takes them once
    // half its room (4 of 8) is free, as many as it has room for: writes of 4 or more, after
    // the first requests, one a wake-up while there was room. 18 reads of the server's in
    // three runs; refilled at each reply, as before, it wrote one request a reply: 40.
    FaultServer server(FaultMode::split_reply);
    const Run run =
        run_rateperf(server, {"--request-rate", "200", "--connections", "1", "--burst-length", "8",
                              "--requests", "40", "--timeout", "3"});
    check_counts(run, {.calls = 40, .replies = 40}, 0.2 + 0.6 + 3 + 3);
    CHECK(server.requests() == 40);
    MESSAGE("server reads of requests: " << server.request_reads() << " for 40 requests");
    CHECK(server.request_reads() <= 20);
    // They waited for room: the report says so.
    CHECK(run.json.at("request_wait").at("p99_ms").get<double>() > 50);
  }

  TEST_CASE("split-reply: replies in 3-byte writes 1 ms apart are framed whole") {
    FaultServer server(FaultMode::split_reply);
    const Run run = run_calls(server, 3, 1, 2);
    check_counts(run, {.calls = 30, .replies = 30}, kScheduleS + 2 + 3);
    // 43 bytes a reply: 14 writes of 3 and one of 1.
    CHECK(server.writes() == 30 * 15);
    CHECK(run.json.at("reply_size").at("content_bytes") == doctest::Approx(5));
  }

  TEST_CASE(
      "out-of-order: the first reply takes the second's first bytes, the second is parse-status") {
    // Reply 1's header block announces 5 bytes of body; the next 5 bytes on the wire are
    // "HTTP/" of reply 2, so call 1 gets a (wrong) reply and call 2 reads "1.1 200 OK" as its
    // status line.
    FaultServer server(FaultMode::out_of_order);
    const Run run = run_calls(server, 2, 2, 2);
    check_counts(run, {.calls = 20, .replies = 10, .parse_status = 10}, kScheduleS + 2 + 3);
    CHECK(server.requests() == 20);
  }

  TEST_CASE("status-600 is parse-status and ends the connection: the next call is unanswered") {
    FaultServer server(FaultMode::status_600);
    const Run run = run_calls(server, 2, 1, 2);
    check_counts(run, {.calls = 20, .unanswered = 10, .parse_status = 10}, kScheduleS + 2 + 3);
    CHECK(server.requests() == 10);
  }

  TEST_CASE("10 calls in bursts of 3 (the last burst of 1) all get their replies") {
    // httperf waits forever for a fourth reply of the last, shorter burst here.
    FaultServer server(FaultMode::keep_alive);
    const Run run = run_calls(server, 10, 3, 2);
    check_counts(run, {.calls = 100, .replies = 100}, kScheduleS + 2 + 3);
    CHECK(server.requests() == 100);
    CHECK(figure(run.json, "/totals/connections") == kConns);
  }

  TEST_CASE("request rate over a pool the server keeps closing: every request is accounted for") {
    FaultServer server(FaultMode::close_after_3);
    const Run run = run_rateperf(server, {"--request-rate", "200", "--connections", "2",
                                          "--requests", "40", "--timeout", "2"});
    INFO("stdout:\n" << run.process.out << "\nstderr:\n" << run.process.err);
    REQUIRE_FALSE(run.process.timed_out);
    REQUIRE(run.process.exit_code == 0);
    REQUIRE_FALSE(run.json.is_discarded());
    // 40 requests at 200/s are a 0.2 s schedule.
    CHECK(run.elapsed_s < 0.2 + 2 + 3);
    const std::int64_t replies = figure(run.json, "/totals/replies");
    const std::int64_t errors = figure(run.json, "/errors/total");
    CHECK(figure(run.json, "/totals/calls") == 40);
    CHECK(replies + errors == 40);
    // The server answers the first 3 requests of a connection before it closes, so the only
    // error it can cause is a request sent while the close was on its way: unanswered. None
    // waits for the timeout.
    CHECK(figure(run.json, "/errors/unanswered") == errors);
    // 3 replies a connection at most: the pool was reopened, once for every 3 replies.
    const std::int64_t connections = figure(run.json, "/totals/connections");
    CHECK(connections > 2);
    CHECK(connections * 3 >= replies);
    MESSAGE("replies " << replies << ", errors " << errors << ", connections " << connections);
  }
}
