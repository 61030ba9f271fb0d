// The CSV export: the documented columns in order, each row's fields the right figures, quoting
// as RFC 4180 says; and docs/json.md and docs/csv.md naming every JSON field and CSV column.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "csv_text.hpp"
#include "export_fixture.hpp"
#include "options/config.hpp"
#include "report/csv.hpp"
#include "stats/summary.hpp"

using rateperf::options::Config;
using rateperf::report::csv_header;
using rateperf::report::csv_row;
using rateperf::stats::Summary;
using rateperf::test::documented_fields;
using rateperf::test::export_config;
using rateperf::test::export_summary;
using rateperf::test::split_csv;

namespace {

// The row's field under a column name of the header.
std::string field(const std::string& column, const Summary& s, const Config& c) {
  const auto names = split_csv(csv_header());
  const auto values = split_csv(csv_row(s, c));
  REQUIRE(names.size() == values.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == column) return values[i];
  }
  FAIL("no column " << column);
  return {};
}

constexpr const char* kCsvHeader =
    "start_time_utc,server,port,uri,offered_rate_per_s,num_conns,timeout_s,seed,"
    "duration_s,issue_window_s,issued_rate_per_s,"
    "connections,requests,replies,"
    "connection_rate_per_s,max_concurrent,request_rate_per_s,"
    "reply_rate_min_per_s,reply_rate_avg_per_s,reply_rate_max_per_s,reply_rate_stddev_per_s,"
    "reply_rate_samples,"
    "reply_time_response_ms,reply_time_transfer_ms,"
    "connection_time_avg_ms,connection_time_median_ms,connect_time_avg_ms,"
    "latency_p50_ms,latency_p90_ms,latency_p99_ms,latency_p999_ms,latency_max_ms,"
    "lag_p99_ms,max_burst,"
    "cpu_total_percent,net_io_kb_per_s,"
    "errors_total,client_timo,socket_timo,connrefused,connreset,fd_unavail,addrunavail,"
    "ftab_full,other,parse_errors,"
    "status_1xx,status_2xx,status_3xx,status_4xx,status_5xx,"
    "interrupted,unanswered,calls,num_calls,burst_length,request_mode,request_wait_p50_ms,request_"
    "wait_p99_ms,"
    "sessions_completed,sessions_failed,session_rate_avg,connections_per_session,"
    "session_lifetime_avg_s,session_failtime_avg_s,"
    "tls_handshakes_full,tls_handshakes_resumed,tls_handshake_p50_ms,tls_handshake_p99_ms,"
    "tls_errors,concurrency,think_s,total_avg_ms\n";

// The text of a file of the source tree (meson names the tree in RATEPERF_SOURCE_DIR).
std::optional<std::string> source_file(const std::string& relative) {
  const char* dir = std::getenv("RATEPERF_SOURCE_DIR");
  REQUIRE_MESSAGE((dir != nullptr && *dir != '\0'),
                  "RATEPERF_SOURCE_DIR must name the source tree");
  std::ifstream in(std::string(dir) + "/" + relative);
  REQUIRE_MESSAGE(in, "cannot read " << relative << " under RATEPERF_SOURCE_DIR");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_SUITE("export") {
  TEST_CASE("csv: the header is the documented columns, in order") {
    CHECK(csv_header() == kCsvHeader);
  }

  TEST_CASE("csv: the row has a field per column, each the right figure") {
    const Summary s = export_summary();
    const Config c = export_config();
    const std::string row = csv_row(s, c);
    REQUIRE(!row.empty());
    CHECK(row.back() == '\n');
    CHECK(row.find('\n') == row.size() - 1);
    CHECK(split_csv(row).size() == split_csv(csv_header()).size());

    CHECK(field("start_time_utc", s, c) == "2024-05-06T07:08:09Z");
    CHECK(field("server", s, c) == "10.0.0.7");
    CHECK(field("port", s, c) == "8080");
    CHECK(field("uri", s, c) == "/a?b=c");
    CHECK(field("offered_rate_per_s", s, c) == "300.000");
    CHECK(field("num_conns", s, c) == "40000");
    CHECK(field("timeout_s", s, c) == "5.000");
    CHECK(field("seed", s, c) == "424242");
    CHECK(field("duration_s", s, c) == "133.457");
    CHECK(field("issue_window_s", s, c) == "133.330");
    CHECK(field("issued_rate_per_s", s, c) == "299.930");
    CHECK(field("connections", s, c) == "39999");
    CHECK(field("requests", s, c) == "39990");
    CHECK(field("replies", s, c) == "39980");
    CHECK(field("connection_rate_per_s", s, c) == "299.720");
    CHECK(field("max_concurrent", s, c) == "19");
    CHECK(field("request_rate_per_s", s, c) == "299.640");
    CHECK(field("reply_rate_min_per_s", s, c) == "280.400");
    CHECK(field("reply_rate_avg_per_s", s, c) == "299.610");
    CHECK(field("reply_rate_max_per_s", s, c) == "310.200");
    CHECK(field("reply_rate_stddev_per_s", s, c) == "6.270");
    CHECK(field("reply_rate_samples", s, c) == "26");
    CHECK(field("reply_time_response_ms", s, c) == "0.940");
    CHECK(field("reply_time_transfer_ms", s, c) == "0.020");
    CHECK(field("connection_time_avg_ms", s, c) == "1.234");
    CHECK(field("connection_time_median_ms", s, c) == "1.500");
    CHECK(field("connect_time_avg_ms", s, c) == "0.130");
    // Latency from the intended start, not from the actual one.
    CHECK(field("latency_p50_ms", s, c) == "1.260");
    CHECK(field("latency_p90_ms", s, c) == "2.340");
    CHECK(field("latency_p99_ms", s, c) == "17.810");
    CHECK(field("latency_p999_ms", s, c) == "250.470");
    CHECK(field("latency_max_ms", s, c) == "5012.960");
    CHECK(field("lag_p99_ms", s, c) == "0.188");
    CHECK(field("max_burst", s, c) == "7");
    CHECK(field("cpu_total_percent", s, c) == "2.790");
    CHECK(field("net_io_kb_per_s", s, c) == "247.120");
    CHECK(field("errors_total", s, c) == "91");
    CHECK(field("client_timo", s, c) == "3");
    CHECK(field("socket_timo", s, c) == "11");
    CHECK(field("connrefused", s, c) == "4");
    CHECK(field("connreset", s, c) == "5");
    CHECK(field("fd_unavail", s, c) == "12");
    CHECK(field("addrunavail", s, c) == "1");
    CHECK(field("ftab_full", s, c) == "13");
    CHECK(field("other", s, c) == "2");          // only ErrorKind::other
    CHECK(field("parse_errors", s, c) == "30");  // 6 + 7 + 8 + 9
    CHECK(field("status_1xx", s, c) == "1");
    CHECK(field("status_2xx", s, c) == "39900");
    CHECK(field("status_3xx", s, c) == "30");
    CHECK(field("status_4xx", s, c) == "40");
    CHECK(field("status_5xx", s, c) == "9");
    CHECK(field("interrupted", s, c) == "1");

    Summary whole_run = s;
    whole_run.interrupted = false;
    CHECK(field("interrupted", whole_run, c) == "0");
  }

  TEST_CASE("csv: the error columns add up to errors_total") {
    const Summary s = export_summary();
    const Config c = export_config();
    std::uint64_t sum = 0;
    for (const char* column : {"client_timo", "socket_timo", "connrefused", "connreset",
                               "fd_unavail", "addrunavail", "ftab_full", "other", "parse_errors",
                               "unanswered"}) {
      sum += std::stoull(field(column, s, c));
    }
    CHECK(sum == std::stoull(field("errors_total", s, c)));
  }

  TEST_CASE("csv: text with a comma, a quote or a newline is quoted, and only then") {
    const Summary s = export_summary();
    Config c = export_config();
    CHECK(csv_row(s, c).find(",10.0.0.7,8080,/a?b=c,") != std::string::npos);

    c.uri = "/search?q=a,b&t=\"x\"";
    const std::string row = csv_row(s, c);
    CHECK(row.find(R"(,"/search?q=a,b&t=""x""",)") != std::string::npos);
    CHECK(split_csv(row).size() == split_csv(csv_header()).size());
    CHECK(field("uri", s, c) == c.uri);
    CHECK(field("port", s, c) == "8080");  // the columns after it have not shifted
    CHECK(field("offered_rate_per_s", s, c) == "300.000");

    c.uri = "/multi\nline";
    CHECK(csv_row(s, c).find("\"/multi\nline\"") != std::string::npos);
  }

  TEST_CASE("docs: docs/json.md and docs/csv.md name every field and column") {
    const auto json_doc = source_file("docs/json.md");
    const auto csv_doc = source_file("docs/csv.md");
    for (const auto& f : documented_fields()) {
      CAPTURE(f.pointer);
      CHECK(json_doc->find(std::string("`") + f.pointer + "`") != std::string::npos);
    }
    for (const auto& column : split_csv(csv_header())) {
      CAPTURE(column);
      CHECK(csv_doc->find("`" + column + "`") != std::string::npos);
    }
  }
}
