// --clock kernel against a server that answers after 20 ms: the kernel's receive and transmit
// timestamps time every reply, the client's own figures sit beside them, --batch-reads reads
// the replies at the loop's next wake-up without moving the kernel's times, and a kernel
// without SO_TIMESTAMPING (a preloaded shim) falls back to the client's clock with a note.

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run_on_loopback.hpp"
#include "temp_file.hpp"
#include "test_server.hpp"

namespace {

using rateperf::test::ProcessResult;
using rateperf::test::read_json;
using rateperf::test::run_rateperf;
using rateperf::test::ServerMode;
using rateperf::test::TempFile;
using rateperf::test::TestServer;

// One row of --call-log: the times in seconds on the wall clock, NaN where empty.
struct Row {
  int status = 0;
  double intended = 0, send = 0, send_kernel = 0, first = 0, first_kernel = 0, last = 0,
         last_kernel = 0;
};

double field(const std::string& text) {
  return text.empty() ? -1 : std::stod(text);
}

std::vector<Row> read_call_log(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  REQUIRE(line ==
          "port,status,bytes,intended,send,send_kernel,first_byte,first_byte_kernel,last_byte,"
          "last_byte_kernel");
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream split(line);
    for (std::string cell; std::getline(split, cell, ',');) cells.push_back(cell);
    if (line.back() == ',') cells.emplace_back();
    REQUIRE(cells.size() == 10);
    Row row;
    row.status = std::stoi(cells[1]);
    row.intended = field(cells[3]);
    row.send = field(cells[4]);
    row.send_kernel = field(cells[5]);
    row.first = field(cells[6]);
    row.first_kernel = field(cells[7]);
    row.last = field(cells[8]);
    row.last_kernel = field(cells[9]);
    rows.push_back(row);
  }
  return rows;
}

// The preloaded library that refuses SO_TIMESTAMPING (meson builds it beside the tests).
std::string shim_path() {
  const char* path = std::getenv("NO_TIMESTAMPS_SHIM");
  REQUIRE_MESSAGE(path != nullptr, "NO_TIMESTAMPS_SHIM must name the built shim (meson sets it)");
  return path;
}

}  // namespace

TEST_SUITE("kernel_clock") {
  TEST_CASE("the kernel's timestamps time every reply; the client's clock is kept beside") {
    TestServer server(ServerMode::reply, {200}, "late\n", 20);
    TempFile json("");
    TempFile log("");
    const ProcessResult run =
        run_rateperf(server.port(), {"--rate", "50", "--num-conns", "40", "--timeout", "5",
                                     "--json", json.path(), "--call-log", log.path()});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(run.out.find("Reply clock: kernel timestamps for 40 of 40 replies (40 from the "
                       "request's transmit stamp)") != std::string::npos);
    CHECK(run.out.find("Client's clock [ms]: latency p50 ") != std::string::npos);
    const auto doc = read_json(json.path());
    CHECK(doc["clock"]["kernel"] == true);
    CHECK(doc["clock"]["replies"] == "kernel");
    CHECK(doc["clock"]["kernel_replies"] == 40);
    CHECK(doc["clock"]["kernel_sends"] == 40);
    CHECK(doc["clock"]["fallback"].is_null());
    CHECK(doc["clock"]["connect"] == "user");
    // The server answers 20 ms after reading the request, by either clock.
    const double kernel_p50 = doc["response_time"]["p50_ms"];
    const double user_p50 = doc["clock"]["user"]["response_time"]["p50_ms"];
    CHECK(kernel_p50 >= 19.9);
    CHECK(kernel_p50 < 26);
    CHECK(user_p50 >= 19.9);
    // Per reply: the packet came in before the client read it, and the request left after
    // the client started writing it (a conversion error of a few microseconds allowed).
    const std::vector<Row> rows = read_call_log(log.path());
    REQUIRE(rows.size() == 40);
    const double slack = 50e-6;
    for (const Row& row : rows) {
      CHECK(row.status == 200);
      REQUIRE(row.send_kernel > 0);
      REQUIRE(row.first_kernel > 0);
      REQUIRE(row.last_kernel > 0);
      CHECK(row.send_kernel >= row.send - slack);
      CHECK(row.first_kernel <= row.first + slack);
      CHECK(row.last_kernel <= row.last + slack);
      CHECK(row.first_kernel >= row.send_kernel + 0.019);
      CHECK(row.send >= row.intended - slack);
      // The kernel's and the client's times of one event on one wall clock: apart by the
      // client's wake-up, not by the clocks' offset (a sanity bound of 1 s).
      CHECK(row.last - row.last_kernel < 1.0);
    }
  }

  TEST_CASE("--batch-reads reads replies at the next wake-up and keeps the kernel's times") {
    TestServer server(ServerMode::reply, {200}, "late\n", 20);
    TempFile json("");
    TempFile log("");
    const ProcessResult run = run_rateperf(
        server.port(), {"--rate", "200", "--num-conns", "400", "--timeout", "5", "--batch-reads",
                        "0.005", "--json", json.path(), "--call-log", log.path()});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(run.out.find("replies read in batches within 5 ms") != std::string::npos);
    const auto doc = read_json(json.path());
    CHECK(doc["totals"]["replies"] == 400);
    CHECK(doc["clock"]["kernel_replies"] == 400);
    CHECK(doc["clock"]["batch_reads_s"] == doctest::Approx(0.005));
    // A wake-up per arrival, not one more per reply: at 200/s the next arrival is never more
    // than 5 ms away, so the replies wait for it (a loop with a wake-up per reply sleeps
    // about twice per connection).
    const std::uint64_t sleeps = doc["timing"]["sleeps"];
    CHECK(sleeps < 400 * 3 / 2);
    const double kernel_p50 = doc["response_time"]["p50_ms"];
    CHECK(kernel_p50 >= 19.9);
    CHECK(kernel_p50 < 26);
    // Read late, by up to the next arrival's gap (5 ms at 200/s), but stamped on arrival.
    const std::vector<Row> rows = read_call_log(log.path());
    REQUIRE(rows.size() == 400);
    double waited = 0;
    for (const Row& row : rows) {
      REQUIRE(row.last_kernel > 0);
      CHECK(row.last_kernel <= row.last + 50e-6);
      waited += row.last - row.last_kernel;
    }
    const double mean_wait_ms = waited / 400 * 1e3;
    CHECK(mean_wait_ms > 0.1);   // they did wait for the wake-up...
    CHECK(mean_wait_ms < 25.0);  // ...within a (loose) bound of the delay asked
  }

  TEST_CASE("a kernel without SO_TIMESTAMPING: the client's clock, and a note that says why") {
    TestServer server(ServerMode::reply, {200}, "late\n", 20);
    TempFile json("");
    std::string asan = "verify_asan_link_order=0";
    if (const char* options = std::getenv("ASAN_OPTIONS")) asan = std::string(options) + ":" + asan;
    const ProcessResult run = rateperf::test::run_process(
        {"env", "LD_PRELOAD=" + shim_path(), "ASAN_OPTIONS=" + asan,
         rateperf::test::rateperf_binary(), "--server", "127.0.0.1", "--port",
         std::to_string(server.port()), "--rate", "50", "--num-conns", "10", "--timeout", "5",
         "--batch-reads", "0.005", "--json", json.path()},
        std::chrono::seconds(60));
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(run.err.find("rateperf: the client's clock timed the replies, not the kernel's "
                       "timestamps (--clock kernel): the kernel refused SO_TIMESTAMPING") !=
          std::string::npos);
    CHECK(run.err.find("--batch-reads is off, each reply read at once") != std::string::npos);
    CHECK(run.out.find("Reply clock: the client's reads (the kernel refused SO_TIMESTAMPING") !=
          std::string::npos);
    const auto doc = read_json(json.path());
    CHECK(doc["clock"]["kernel"] == false);
    CHECK(doc["clock"]["replies"] == "user");
    CHECK(doc["clock"]["user_replies"] == 10);
    CHECK(doc["clock"]["batch_reads_s"] == 0);
    CHECK(doc["clock"]["fallback"].get<std::string>().find("SO_TIMESTAMPING") != std::string::npos);
    // The figures are still there, by the client's clock.
    const double p50 = doc["response_time"]["p50_ms"];
    CHECK(p50 >= 19.9);
    CHECK(p50 == doctest::Approx(doc["clock"]["user"]["response_time"]["p50_ms"].get<double>()));
  }

  TEST_CASE("--clock user: the client's reads, no kernel timestamps and no note") {
    TestServer server(ServerMode::reply, {200}, "late\n", 5);
    TempFile log("");
    const ProcessResult run = run_rateperf(
        server.port(),
        {"--rate", "50", "--num-conns", "10", "--clock", "user", "--call-log", log.path()});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(run.out.find("Reply clock: the client's reads\n") != std::string::npos);
    CHECK(run.err.find("kernel") == std::string::npos);
    for (const Row& row : read_call_log(log.path())) {
      CHECK(row.send_kernel < 0);
      CHECK(row.first_kernel < 0);
      CHECK(row.last_kernel < 0);
      CHECK(row.first >= row.send);
    }
  }
}
