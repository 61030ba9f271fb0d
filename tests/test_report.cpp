#include <doctest/doctest.h>

#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/version.hpp"
#include "options/config.hpp"
#include "report/text_report.hpp"
#include "report/tool_report.hpp"
#include "stats/summary.hpp"

using rateperf::ErrorKind;
using rateperf::report::format_text;
using rateperf::stats::Summary;

namespace {

void set_error(Summary& s, ErrorKind kind, std::uint64_t n) {
  s.errors[static_cast<std::size_t>(kind)] = n;
}

// A summary whose every figure is distinct, so that a field printed in the wrong place shows.
Summary distinctive_summary() {
  Summary s;
  s.command_line =
      "rateperf --timeout=5 --client=0/1 --server=10.0.0.7 --port=8080 --uri=/a?b=c --rate=300 "
      "--send-buffer=4096 --recv-buffer=16384 --num-conns=40000 --num-calls=1";
  s.max_burst = 7;
  s.arrivals = 40000;
  s.connections = 39999;
  s.requests = 39990;
  s.replies = 39980;
  s.duration_s = 133.45678;
  s.connection_rate_per_s = 299.72;
  s.ms_per_connection = 3.33645;
  s.max_concurrent = 19;
  s.connection_time = {39980, 0.21, 1.234, 5012.96, 1.5, 25.04};
  s.connect_avg_ms = 0.13;
  s.connect_count = 39985;
  s.replies_per_connection = 0.9991;
  s.request_rate_per_s = 299.64;
  s.ms_per_request = 3.3373;
  s.request_size_avg_bytes = 72;
  s.reply_rate_min = 280.4;
  s.reply_rate_avg = 299.61;
  s.reply_rate_max = 310.2;
  s.reply_rate_stddev = 6.27;
  s.reply_rate_samples = 26;
  s.response_avg_ms = 0.94;
  s.transfer_avg_ms = 0.02;
  s.reply_header_avg_bytes = 236;
  s.reply_content_avg_bytes = 612.3;
  s.reply_footer_avg_bytes = 0;
  s.reply_total_avg_bytes = 848.3;
  s.status_classes = {1, 39900, 30, 40, 9};
  s.cpu_user_s = 1.234;
  s.cpu_system_s = 2.5;
  s.cpu_user_percent = 0.92;
  s.cpu_system_percent = 1.87;
  s.cpu_total_percent = 2.79;
  s.net_io_kb_per_s = 247.12;
  s.net_io_mbit_per_s = 2.02;
  set_error(s, ErrorKind::client_timo, 3);
  set_error(s, ErrorKind::socket_timo, 11);
  set_error(s, ErrorKind::connrefused, 4);
  set_error(s, ErrorKind::connreset, 5);
  set_error(s, ErrorKind::fd_unavail, 12);
  set_error(s, ErrorKind::addrunavail, 1);
  set_error(s, ErrorKind::ftab_full, 13);
  set_error(s, ErrorKind::other, 2);
  set_error(s, ErrorKind::parse_status, 6);
  set_error(s, ErrorKind::parse_header, 7);
  set_error(s, ErrorKind::parse_chunk, 8);
  set_error(s, ErrorKind::parse_other, 9);
  set_error(s, ErrorKind::unanswered, 10);
  s.errors_total = 91;
  s.errors_other_httperf = 42;  // other 2, the parse errors 6 + 7 + 8 + 9 and unanswered 10
  s.offered_rate_per_s = 300;
  s.issue_window_s = 133.33;
  s.issued_rate_per_s = 299.93;
  s.latency_intended = {39980, 1.26, 2.34, 17.81, 250.47, 5012.96};
  s.latency_actual = {39980, 1.04, 1.92, 3.61, 48.77, 5011.02};
  s.connect_time = {39985, 0.11, 0.17, 0.42, 3.08, 1003.2};
  s.response_time = {39980, 0.87, 1.41, 2.66, 31.39, 4990.12};
  // Set but not shown unless show_served_within: the default report must not print them.
  s.served_within_ms = {1.4, 2.2, 2.6, 4.2, 5.1, 6.4, 8.4, 17.6, 5012.96};
  s.lag_p50_ms = 0.0123;
  s.lag_p99_ms = 0.1876;
  s.lag_max_ms = 12.3456;
  s.lag_late_arrivals = 14;
  s.timing.mode = "hybrid";
  s.timing.cpu_percent = 2.8;
  s.timing.sleeps = 40010;
  s.timing.polls = 2500123;
  s.timing.timer_arms = 40003;
  s.timing.timer_wakeups = 39990;
  s.timing.lateness_p50_ms = 0.0573;
  s.timing.lateness_p99_ms = 0.1489;
  s.timing.margin_ms = 0.1591;
  s.clock.kernel = true;
  s.clock.kernel_replies = 39970;
  s.clock.user_replies = 10;
  s.clock.kernel_sends = 39960;
  s.clock.replies = "mixed";
  s.clock.batch_reads_s = 0.002;
  s.clock.user_response_avg_ms = 1.04;
  s.clock.user_transfer_avg_ms = 0.05;
  s.clock.user_latency.p50_ms = 1.66;
  s.clock.user_latency.p99_ms = 3.14;
  s.clock.user_response_time.p50_ms = 1.02;
  s.clock.user_response_time.p99_ms = 2.95;
  return s;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A line with every number replaced by "N": what is left is the labels, punctuation and
// spacing that parsers of httperf's output match on.
std::string shape_of(const std::string& line) {
  std::string shape;
  for (std::size_t i = 0; i < line.size();) {
    if (std::isdigit(static_cast<unsigned char>(line[i]))) {
      while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
      shape += 'N';
    } else {
      shape += line[i++];
    }
  }
  return shape;
}

// A real report of Debian's httperf 0.9.0 (run against a local nginx), kept as printed.
constexpr const char* kHttperfReport =
    R"(httperf --timeout=5 --client=0/1 --server=127.0.0.1 --port=18081 --uri=/index.html --rate=100 --send-buffer=4096 --recv-buffer=16384 --num-conns=300 --num-calls=1
Maximum connect burst length: 1

Total: connections 300 requests 300 replies 300 test-duration 2.990 s

Connection rate: 100.3 conn/s (10.0 ms/conn, <=1 concurrent connections)
Connection time [ms]: min 0.2 avg 0.3 max 4.7 median 0.5 stddev 0.5
Connection time [ms]: connect 0.0
Connection length [replies/conn]: 1.000

Request rate: 100.3 req/s (10.0 ms/req)
Request size [B]: 72.0

Reply rate [replies/s]: min 0.0 avg 0.0 max 0.0 stddev 0.0 (0 samples)
Reply time [ms]: response 0.3 transfer 0.0
Reply size [B]: header 236.0 content 28.0 footer 0.0 (total 264.0)
Reply status: 1xx=0 2xx=300 3xx=0 4xx=0 5xx=0

CPU time [s]: user 1.43 system 1.50 (user 47.7% system 50.2% total 97.8%)
Net I/O: 32.9 KB/s (0.3*10^6 bps)

Errors: total 0 client-timo 0 socket-timo 0 connrefused 0 connreset 0
Errors: fd-unavail 0 addrunavail 0 ftab-full 0 other 0
)";

}  // namespace

TEST_SUITE("report") {
  TEST_CASE("golden: every line of the report for a fixed summary") {
    const std::string expected =
        R"(rateperf --timeout=5 --client=0/1 --server=10.0.0.7 --port=8080 --uri=/a?b=c --rate=300 --send-buffer=4096 --recv-buffer=16384 --num-conns=40000 --num-calls=1
Maximum connect burst length: 7

Total: connections 39999 requests 39990 replies 39980 test-duration 133.457 s

Connection rate: 299.7 conn/s (3.3 ms/conn, <=19 concurrent connections)
Connection time [ms]: min 0.2 avg 1.2 max 5013.0 median 1.5 stddev 25.0
Connection time [ms]: connect 0.1
Connection length [replies/conn]: 0.999

Request rate: 299.6 req/s (3.3 ms/req)
Request size [B]: 72.0

Reply rate [replies/s]: min 280.4 avg 299.6 max 310.2 stddev 6.3 (26 samples)
Reply time [ms]: response 0.9 transfer 0.0
Reply size [B]: header 236.0 content 612.3 footer 0.0 (total 848.3)
Reply status: 1xx=1 2xx=39900 3xx=30 4xx=40 5xx=9

CPU time [s]: user 1.23 system 2.50 (user 0.9% system 1.9% total 2.8%)
Net I/O: 247.1 KB/s (2.0*10^6 bps)

Errors: total 91 client-timo 3 socket-timo 11 connrefused 4 connreset 5
Errors: fd-unavail 12 addrunavail 1 ftab-full 13 other 42
Errors: parse-status 6 parse-header 7 parse-chunk 8 parse-other 9 unanswered 10

Reply latency [ms]: p50 1.3 p90 2.3 p99 17.8 p99.9 250.5 max 5013.0 (from intended start)
Reply latency [ms]: p50 1.0 p90 1.9 p99 3.6 p99.9 48.8 max 5011.0 (from actual start)
Connect time [ms]: p50 0.1 p90 0.2 p99 0.4 p99.9 3.1 max 1003.2
Response time [ms]: p50 0.9 p90 1.4 p99 2.7 p99.9 31.4 max 4990.1
Reply clock: kernel timestamps for 39970 of 39980 replies (39960 from the request's transmit stamp), the client's reads for the rest; connect times the client's; replies read in batches within 2 ms
Client's clock [ms]: latency p50 1.7 p99 3.1, response p50 1.0 p99 3.0, reply time response 1.0 transfer 0.1 (the same replies as the client read them)
Client lag [ms]: p50 0.012 p99 0.188 max 12.346 (14 arrivals more than 1 ms late)
Offered rate: 300.0 conn/s, issue window 133.330 s (first to last arrival), issued rate 299.9 conn/s
Test duration: 133.457 s (start to end of the last connection; httperf's rates divide by it)
Timing: hybrid, CPU 2.8% of a core (sleeps 40010 polls 2500123 timer-arms 40003; wake-up lateness p50 0.057 p99 0.149 ms; margin 0.159 ms)
)";
    CHECK(format_text(distinctive_summary()) == expected);
  }

  TEST_CASE("the httperf part has httperf's labels, spacing, blank lines and order") {
    const auto httperf = lines_of(kHttperfReport);
    auto summary = distinctive_summary();
    summary.command_line = httperf.front();
    const auto ours = lines_of(format_text(summary));
    REQUIRE(ours.size() > httperf.size());
    CHECK(ours.front() == httperf.front());  // the command line is printed as given
    for (std::size_t i = 0; i < httperf.size(); ++i) {
      CAPTURE(i);
      CHECK(shape_of(ours[i]) == shape_of(httperf[i]));
    }
    // rateperf's own lines come only after httperf's last line, and none repeats one of
    // httperf's line shapes (a parser would take it for httperf's).
    for (std::size_t i = httperf.size(); i < ours.size(); ++i) {
      CAPTURE(ours[i]);
      for (const auto& line : httperf) {
        if (!line.empty()) CHECK(shape_of(ours[i]) != shape_of(line));
      }
    }
  }

  TEST_CASE("the same summary as httperf's figures prints httperf's report exactly") {
    // The figures of the real report above: the httperf part must come out byte for byte.
    Summary s;
    const auto httperf_lines = lines_of(kHttperfReport);
    s.command_line = httperf_lines.front();
    s.max_burst = 1;
    s.connections = s.requests = s.replies = 300;
    s.duration_s = 2.990;
    s.connection_rate_per_s = 100.3;
    s.ms_per_connection = 10.0;
    s.max_concurrent = 1;
    s.connection_time = {300, 0.2, 0.3, 4.7, 0.5, 0.5};
    s.connect_avg_ms = 0.0;
    s.replies_per_connection = 1;
    s.request_rate_per_s = 100.3;
    s.ms_per_request = 10.0;
    s.request_size_avg_bytes = 72;
    s.response_avg_ms = 0.3;
    s.reply_header_avg_bytes = 236;
    s.reply_content_avg_bytes = 28;
    s.reply_total_avg_bytes = 264;
    s.status_classes = {0, 300, 0, 0, 0};
    s.cpu_user_s = 1.43;
    s.cpu_system_s = 1.50;
    s.cpu_user_percent = 47.7;
    s.cpu_system_percent = 50.2;
    s.cpu_total_percent = 97.8;
    s.net_io_kb_per_s = 32.9;
    s.net_io_mbit_per_s = 0.3;
    const std::string text = format_text(s);
    CHECK(text.substr(0, std::string(kHttperfReport).size()) == kHttperfReport);
  }

  TEST_CASE("the parse-error line is printed even when every count is zero") {
    Summary s;
    s.command_line = "rateperf --num-conns=1";
    const auto lines = lines_of(format_text(s));
    REQUIRE(lines.size() == 34);
    CHECK(lines[22] == "Errors: fd-unavail 0 addrunavail 0 ftab-full 0 other 0");
    CHECK(lines[23] ==
          "Errors: parse-status 0 parse-header 0 parse-chunk 0 parse-other 0 unanswered 0");
    CHECK(lines[24] == "");
  }

  TEST_CASE("a run without replies prints its percentile and lag lines with zeros") {
    Summary s;
    s.command_line = "rateperf --num-conns=1";
    const auto lines = lines_of(format_text(s));
    REQUIRE(lines.size() == 34);
    CHECK(lines[25] ==
          "Reply latency [ms]: p50 0.0 p90 0.0 p99 0.0 p99.9 0.0 max 0.0 (from intended start)");
    CHECK(lines[26] ==
          "Reply latency [ms]: p50 0.0 p90 0.0 p99 0.0 p99.9 0.0 max 0.0 (from actual start)");
    CHECK(lines[27] == "Connect time [ms]: p50 0.0 p90 0.0 p99 0.0 p99.9 0.0 max 0.0");
    CHECK(lines[28] == "Response time [ms]: p50 0.0 p90 0.0 p99 0.0 p99.9 0.0 max 0.0");
    CHECK(lines[29] == "Reply clock: the client's reads");
    CHECK(lines[30] ==
          "Client lag [ms]: p50 0.000 p99 0.000 max 0.000 (0 arrivals more than 1 ms late)");
  }

  TEST_CASE("a sequential run says so instead of an offered rate") {
    auto s = distinctive_summary();
    s.offered_rate_per_s = 0;
    s.issue_window_s = 12.5;
    s.issued_rate_per_s = 80.1;
    const auto lines = lines_of(format_text(s));
    REQUIRE(lines.size() == 35);
    CHECK(lines[32] ==
          "Offered rate: sequential (one connection after another), issue window 12.500 s "
          "(first to last arrival), issued rate 80.1 conn/s");
    CHECK(lines[33] ==
          "Test duration: 133.457 s (start to end of the last connection; httperf's rates "
          "divide by it)");
    CHECK(lines[34].rfind("Timing: hybrid, CPU 2.8% of a core (sleeps 40010 ", 0) == 0);
  }

  TEST_CASE("an interrupted run ends with a line that says so, and only then") {
    auto s = distinctive_summary();
    const std::string complete = format_text(s);
    CHECK(complete.find("interrupted") == std::string::npos);
    s.interrupted = true;
    const std::string interrupted = format_text(s);
    CHECK(interrupted ==
          complete + "Run: interrupted (SIGINT/SIGTERM) before the end of the schedule\n");
  }

  TEST_CASE("ab's served-within table is absent by default") {
    // distinctive_summary() fills served_within_ms: only show_served_within may print them.
    const std::string text = format_text(distinctive_summary());
    CHECK(text.find("Percentage of the requests served within") == std::string::npos);
    CHECK(text.find("longest request") == std::string::npos);
  }

  TEST_CASE("with show_served_within, ab's table ends the report in ab's exact layout") {
    // The layout of ab 2.3's table (Debian's apache2-utils), which scripts written for ab
    // match on: two columns right-aligned, whole milliseconds, "(longest request)" on 100 %.
    auto s = distinctive_summary();
    s.interrupted = true;
    const std::string without = format_text(s);
    s.show_served_within = true;
    const std::string with = format_text(s);
    CHECK(with == without + R"(
Percentage of the requests served within a certain time (ms)
  50%      1
  66%      2
  75%      3
  80%      4
  90%      5
  95%      6
  98%      8
  99%     18
 100%   5013 (longest request)
)");
  }
}

TEST_SUITE("report") {
  // A closed loop's summary with round figures: ab's and siege's reports of it, line by line.
  Summary closed_loop_summary() {
    Summary s;
    s.concurrency = 10;
    s.duration_s = 2.5;
    s.replies = 998;
    s.arrivals = 1000;
    s.connections = 1000;
    s.calls = 1000;
    set_error(s, ErrorKind::connrefused, 1);
    set_error(s, ErrorKind::connreset, 1);
    s.errors_total = 2;
    s.status_classes = {0, 990, 0, 3, 5};
    s.document_bytes = 612;
    s.length_mismatches = 2;
    s.reply_bytes = 998 * 850;
    s.reply_body_bytes = 998 * 612;
    s.ab_connect = {998, 0.1, 0.4, 2.0, 0.3, 0.24};
    s.ab_processing = {998, 3.0, 24.6, 80.4, 22.4, 8.06};
    s.ab_waiting = {998, 2.9, 24.4, 80.2, 22.4, 8.04};
    s.ab_total = {998, 3.2, 25.2, 81.0, 22.8, 8.1};
    s.ab_within_ms = {22.8, 26, 29, 31, 36, 41, 52, 60, 81};
    return s;
  }

  TEST_CASE("--format ab: ab's labels, spacing and figures") {
    rateperf::options::Config config;
    config.server = "127.0.0.1";
    config.port = 8080;
    config.uri = "/index.html";
    const std::string text = rateperf::report::format_ab(closed_loop_summary(), config);
    CHECK(text == R"(This is rateperf )" + std::string(rateperf::kVersion) +
                      R"(, in ApacheBench's report format (--format ab)

Server Hostname:        127.0.0.1
Server Port:            8080

Document Path:          /index.html
Document Length:        612 bytes

Concurrency Level:      10
Time taken for tests:   2.500 seconds
Complete requests:      999
Failed requests:        4
   (Connect: 1, Receive: 1, Length: 2, Exceptions: 0)
Non-2xx responses:      8
Total transferred:      848300 bytes
HTML transferred:       610776 bytes
Requests per second:    399.60 [#/sec] (mean)
Time per request:       25.025 [ms] (mean)
Time per request:       2.503 [ms] (mean, across all concurrent requests)
Transfer rate:          331.37 [Kbytes/sec] received

Connection Times (ms)
              min  mean[+/-sd] median   max
Connect:        0    0   0.2      0       2
Processing:     3   25   8.1     22      80
Waiting:        3   24   8.0     22      80
Total:          3   25   8.1     23      81

Percentage of the requests served within a certain time (ms)
  50%     23
  66%     26
  75%     29
  80%     31
  90%     36
  95%     41
  98%     52
  99%     60
 100%     81 (longest request)
)");
  }

  TEST_CASE("--format siege: siege's labels, tabs, widths and figures") {
    const std::string text = rateperf::report::format_siege(closed_loop_summary());
    CHECK(text ==
          "Transactions:\t\t         998 hits\n"
          "Availability:\t\t       99.80 %\n"
          "Elapsed time:\t\t        2.50 secs\n"
          "Data transferred:\t        0.58 MB\n"
          "Response time:\t\t        0.03 secs\n"
          "Transaction rate:\t      399.20 trans/sec\n"
          "Throughput:\t\t        0.23 MB/sec\n"
          "Concurrency:\t\t       10.06\n"
          "Successful transactions:         990\n"
          "Failed transactions:\t          10\n"
          "Longest transaction:\t        0.08\n"
          "Shortest transaction:\t        0.00\n");
  }

  TEST_CASE("a closed loop's httperf report says so in place of a rate") {
    Summary s = closed_loop_summary();
    s.think_s = 0.5;
    const std::string text = format_text(s);
    CHECK(text.find("Offered rate: closed loop of 10 slots (each starts its next connection "
                    "0.5 s after its last one ended: the rate is whatever the server allowed, "
                    "and lag does not apply)") != std::string::npos);
  }
}
