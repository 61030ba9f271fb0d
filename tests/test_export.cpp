#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "csv_text.hpp"
#include "options/config.hpp"
#include "report/csv.hpp"
#include "report/json.hpp"
#include "stats/summary.hpp"

using nlohmann::json;
using rateperf::Duration;
using rateperf::ErrorKind;
using rateperf::from_s;
using rateperf::options::Config;
using rateperf::options::PeriodKind;
using rateperf::report::csv_header;
using rateperf::report::csv_row;
using rateperf::report::to_json_document;
using rateperf::stats::Summary;
using rateperf::test::split_csv;

namespace {

void set_error(Summary& s, ErrorKind kind, std::uint64_t n) {
  s.errors[static_cast<std::size_t>(kind)] = n;
}

// A summary whose every figure is distinct, so that a value exported under the wrong name shows.
Summary export_summary() {
  Summary s;
  s.command_line = "rateperf --timeout=5 --server=10.0.0.7 --port=8080 --uri=/a?b=c --rate=300";
  s.start_time_utc = "2024-05-06T07:08:09Z";
  s.max_burst = 7;
  s.arrivals = 40000;
  s.connections = 39999;
  s.requests = 39990;
  s.replies = 39980;
  s.duration_s = 133.45678;
  s.connection_rate_per_s = 299.72;
  s.ms_per_connection = 3.33645;
  s.max_concurrent = 19;
  s.connection_time = {39981, 0.21, 1.234, 5012.96, 1.5, 25.04};
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
  s.reply_footer_avg_bytes = 0.5;
  s.reply_total_avg_bytes = 848.8;
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
  s.errors_total = 81;
  s.errors_other_httperf = 32;  // other 2 plus the parse errors 6 + 7 + 8 + 9
  s.offered_rate_per_s = 300;
  s.issue_window_s = 133.33;
  s.issued_rate_per_s = 299.93;
  s.interrupted = true;
  s.latency_intended = {39980, 1.26, 2.34, 17.81, 250.47, 5012.96};
  s.latency_actual = {39979, 1.04, 1.92, 3.61, 48.77, 5011.02};
  s.connect_time = {39985, 0.11, 0.17, 0.42, 3.08, 1003.2};
  s.response_time = {39978, 0.87, 1.41, 2.66, 31.39, 4990.12};
  s.served_within_ms = {1.4, 2.2, 2.6, 4.2, 5.1, 6.4, 8.4, 17.6, 5012.96};
  s.lag_p50_ms = 0.0123;
  s.lag_p99_ms = 0.1876;
  s.lag_max_ms = 12.3456;
  s.lag_late_arrivals = 14;
  s.client_limited = true;
  s.lag_limit_ms = 10;
  s.samples = {{0, 5, 1490, 298, 1}, {5, 5, 1510, 302, 0}, {10, 2.5, 700, 280, 3}};
  return s;
}

Config export_config() {
  Config c;
  c.server = "10.0.0.7";
  c.port = 8080;
  c.uri = "/a?b=c";
  c.server_name = "example.test";
  c.period.kind = PeriodKind::variable;
  c.period.rate_per_s = 300;
  c.period.steps = {{from_s(0.01), from_s(2)}, {from_s(0.005), from_s(3)}};
  c.num_conns = 40000;
  c.num_calls = 1;
  c.timeout = from_s(5);
  c.think_timeout = from_s(0.25);
  c.method = "HEAD";
  c.add_headers = {"X-One: 1", "X-Two: 2"};
  c.http_version = "1.0";
  c.send_buffer_bytes = 65536;  // recv_buffer left at its default, not given
  c.client_id = 2;
  c.client_count = 3;
  c.seed = 424242;
  c.verbose = 2;
  c.max_lag = from_s(0.05);
  c.max_error_rate_percent = -1;
  return c;
}

enum class Type { integer, number, string, boolean, object, array, number_or_null };

struct Field {
  const char* pointer;  // a JSON pointer; "[]" stands for "any element of the array"
  Type type;
};

// Every field docs/json.md documents, with its type. The walk below checks that the document has
// exactly these: a field added without a line here (and in the docs) fails a test.
const std::vector<Field>& documented_fields() {
  static const std::vector<Field> fields = {
      {"/schema_version", Type::integer},
      {"/rateperf_version", Type::string},
      {"/start_time_utc", Type::string},
      {"/command_line", Type::string},
      {"/interrupted", Type::boolean},
      {"/config", Type::object},
      {"/config/server", Type::string},
      {"/config/port", Type::integer},
      {"/config/uri", Type::string},
      {"/config/server_name", Type::string},
      {"/config/rate_per_s", Type::number},
      {"/config/period", Type::object},
      {"/config/period/kind", Type::string},
      {"/config/period/mean_s", Type::number},
      {"/config/period/low_s", Type::number},
      {"/config/period/high_s", Type::number},
      {"/config/period/steps", Type::array},
      {"/config/period/steps[]/gap_s", Type::number},
      {"/config/period/steps[]/length_s", Type::number},
      {"/config/num_conns", Type::integer},
      {"/config/num_calls", Type::integer},
      {"/config/timeout_s", Type::number},
      {"/config/think_timeout_s", Type::number},
      {"/config/method", Type::string},
      {"/config/add_headers", Type::array},
      {"/config/add_headers[]", Type::string},
      {"/config/http_version", Type::string},
      {"/config/send_buffer_bytes", Type::number_or_null},
      {"/config/recv_buffer_bytes", Type::number_or_null},
      {"/config/client", Type::object},
      {"/config/client/id", Type::integer},
      {"/config/client/count", Type::integer},
      {"/config/seed", Type::integer},
      {"/config/verbose", Type::integer},
      {"/config/max_lag_ms", Type::number_or_null},
      {"/config/max_error_rate_percent", Type::number_or_null},
      {"/totals", Type::object},
      {"/totals/arrivals", Type::integer},
      {"/totals/connections", Type::integer},
      {"/totals/requests", Type::integer},
      {"/totals/replies", Type::integer},
      {"/totals/duration_s", Type::number},
      {"/schedule", Type::object},
      {"/schedule/offered_rate_per_s", Type::number},
      {"/schedule/issue_window_s", Type::number},
      {"/schedule/issued_rate_per_s", Type::number},
      {"/schedule/max_burst", Type::integer},
      {"/connection_rate", Type::object},
      {"/connection_rate/per_s", Type::number},
      {"/connection_rate/ms_per_connection", Type::number},
      {"/connection_rate/max_concurrent", Type::integer},
      {"/connection_rate/max_concurrent_is_bound", Type::boolean},
      {"/connection_time", Type::object},
      {"/connection_time/count", Type::integer},
      {"/connection_time/min_ms", Type::number},
      {"/connection_time/avg_ms", Type::number},
      {"/connection_time/max_ms", Type::number},
      {"/connection_time/median_ms", Type::number},
      {"/connection_time/stddev_ms", Type::number},
      {"/connection_time/connect_avg_ms", Type::number},
      {"/connection_time/connect_count", Type::integer},
      {"/connection_length", Type::object},
      {"/connection_length/replies_per_connection", Type::number},
      {"/request_rate", Type::object},
      {"/request_rate/per_s", Type::number},
      {"/request_rate/ms_per_request", Type::number},
      {"/request_size", Type::object},
      {"/request_size/avg_bytes", Type::number},
      {"/reply_rate", Type::object},
      {"/reply_rate/min_per_s", Type::number},
      {"/reply_rate/avg_per_s", Type::number},
      {"/reply_rate/max_per_s", Type::number},
      {"/reply_rate/stddev_per_s", Type::number},
      {"/reply_rate/samples", Type::integer},
      {"/reply_time", Type::object},
      {"/reply_time/response_ms", Type::number},
      {"/reply_time/transfer_ms", Type::number},
      {"/reply_size", Type::object},
      {"/reply_size/header_bytes", Type::number},
      {"/reply_size/content_bytes", Type::number},
      {"/reply_size/footer_bytes", Type::number},
      {"/reply_size/total_bytes", Type::number},
      {"/reply_status", Type::object},
      {"/reply_status/1xx", Type::integer},
      {"/reply_status/2xx", Type::integer},
      {"/reply_status/3xx", Type::integer},
      {"/reply_status/4xx", Type::integer},
      {"/reply_status/5xx", Type::integer},
      {"/cpu", Type::object},
      {"/cpu/user_s", Type::number},
      {"/cpu/system_s", Type::number},
      {"/cpu/user_percent", Type::number},
      {"/cpu/system_percent", Type::number},
      {"/cpu/total_percent", Type::number},
      {"/net_io", Type::object},
      {"/net_io/kb_per_s", Type::number},
      {"/net_io/mbit_per_s", Type::number},
      {"/errors", Type::object},
      {"/errors/total", Type::integer},
      {"/errors/client_timo", Type::integer},
      {"/errors/socket_timo", Type::integer},
      {"/errors/connrefused", Type::integer},
      {"/errors/connreset", Type::integer},
      {"/errors/fd_unavail", Type::integer},
      {"/errors/addrunavail", Type::integer},
      {"/errors/ftab_full", Type::integer},
      {"/errors/other", Type::integer},
      {"/errors/parse_status", Type::integer},
      {"/errors/parse_header", Type::integer},
      {"/errors/parse_chunk", Type::integer},
      {"/errors/parse_other", Type::integer},
      {"/latency_intended", Type::object},
      {"/latency_intended/count", Type::integer},
      {"/latency_intended/p50_ms", Type::number},
      {"/latency_intended/p90_ms", Type::number},
      {"/latency_intended/p99_ms", Type::number},
      {"/latency_intended/p99_9_ms", Type::number},
      {"/latency_intended/max_ms", Type::number},
      {"/latency_actual", Type::object},
      {"/latency_actual/count", Type::integer},
      {"/latency_actual/p50_ms", Type::number},
      {"/latency_actual/p90_ms", Type::number},
      {"/latency_actual/p99_ms", Type::number},
      {"/latency_actual/p99_9_ms", Type::number},
      {"/latency_actual/max_ms", Type::number},
      {"/connect_time", Type::object},
      {"/connect_time/count", Type::integer},
      {"/connect_time/p50_ms", Type::number},
      {"/connect_time/p90_ms", Type::number},
      {"/connect_time/p99_ms", Type::number},
      {"/connect_time/p99_9_ms", Type::number},
      {"/connect_time/max_ms", Type::number},
      {"/response_time", Type::object},
      {"/response_time/count", Type::integer},
      {"/response_time/p50_ms", Type::number},
      {"/response_time/p90_ms", Type::number},
      {"/response_time/p99_ms", Type::number},
      {"/response_time/p99_9_ms", Type::number},
      {"/response_time/max_ms", Type::number},
      {"/served_within_ms", Type::object},
      {"/served_within_ms/50", Type::number},
      {"/served_within_ms/66", Type::number},
      {"/served_within_ms/75", Type::number},
      {"/served_within_ms/80", Type::number},
      {"/served_within_ms/90", Type::number},
      {"/served_within_ms/95", Type::number},
      {"/served_within_ms/98", Type::number},
      {"/served_within_ms/99", Type::number},
      {"/served_within_ms/100", Type::number},
      {"/lag", Type::object},
      {"/lag/p50_ms", Type::number},
      {"/lag/p99_ms", Type::number},
      {"/lag/max_ms", Type::number},
      {"/lag/late_arrivals", Type::integer},
      {"/lag/limit_ms", Type::number},
      {"/lag/client_limited", Type::boolean},
      {"/samples", Type::array},
      {"/samples[]/start_s", Type::number},
      {"/samples[]/length_s", Type::number},
      {"/samples[]/replies", Type::integer},
      {"/samples[]/reply_rate_per_s", Type::number},
      {"/samples[]/errors", Type::integer},
  };
  return fields;
}

// The documented notation "[]" read as the array's first element, as a real JSON pointer.
json::json_pointer pointer_of(std::string documented) {
  for (auto at = documented.find("[]"); at != std::string::npos; at = documented.find("[]")) {
    documented.replace(at, 2, "/0");
  }
  return json::json_pointer(documented);
}

bool has_type(const json& value, Type type) {
  switch (type) {
    case Type::integer:
      return value.is_number_integer();
    case Type::number:
      return value.is_number();
    case Type::string:
      return value.is_string();
    case Type::boolean:
      return value.is_boolean();
    case Type::object:
      return value.is_object();
    case Type::array:
      return value.is_array();
    case Type::number_or_null:
      return value.is_number() || value.is_null();
  }
  return false;
}

// Every field of a document in the documented notation: object members by name, the elements of
// an array as "[]" (read from its first element).
void walk(const json& value, const std::string& at, std::set<std::string>& out) {
  if (value.is_object()) {
    for (const auto& [key, member] : value.items()) {
      out.insert(at + "/" + key);
      walk(member, at + "/" + key, out);
    }
  } else if (value.is_array() && !value.empty()) {
    if (!value.front().is_object()) out.insert(at + "[]");
    walk(value.front(), at + "[]", out);
  }
}

// One CSV line split into its fields, RFC 4180 quotes undone.
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
    "interrupted\n";

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
  TEST_CASE("json: the document has exactly the documented fields, each of its type") {
    const json doc = to_json_document(export_summary(), export_config());
    std::set<std::string> documented;
    for (const auto& f : documented_fields()) {
      CAPTURE(f.pointer);
      documented.insert(f.pointer);
      const auto pointer = pointer_of(f.pointer);
      REQUIRE(doc.contains(pointer));
      CHECK(has_type(doc.at(pointer), f.type));
    }
    std::set<std::string> present;
    walk(doc, "", present);
    CHECK(present == documented);
  }

  TEST_CASE("json: the figures are the summary's, under the names their units say") {
    const Summary s = export_summary();
    const json doc = to_json_document(s, export_config());
    CHECK(doc.at("schema_version") == rateperf::report::kJsonSchemaVersion);
    CHECK(doc.at("rateperf_version").get<std::string>() != "");
    CHECK(doc.at("start_time_utc") == "2024-05-06T07:08:09Z");
    CHECK(doc.at("command_line") == s.command_line);
    CHECK(doc.at("interrupted") == true);

    CHECK(doc.at("/totals/arrivals"_json_pointer) == 40000);
    CHECK(doc.at("/totals/connections"_json_pointer) == 39999);
    CHECK(doc.at("/totals/requests"_json_pointer) == 39990);
    CHECK(doc.at("/totals/replies"_json_pointer) == 39980);
    CHECK(doc.at("/totals/duration_s"_json_pointer) == 133.45678);
    CHECK(doc.at("/schedule/offered_rate_per_s"_json_pointer) == 300.0);
    CHECK(doc.at("/schedule/issue_window_s"_json_pointer) == 133.33);
    CHECK(doc.at("/schedule/issued_rate_per_s"_json_pointer) == 299.93);
    CHECK(doc.at("/schedule/max_burst"_json_pointer) == 7);
    CHECK(doc.at("/connection_rate/per_s"_json_pointer) == 299.72);
    CHECK(doc.at("/connection_rate/ms_per_connection"_json_pointer) == 3.33645);
    CHECK(doc.at("/connection_rate/max_concurrent"_json_pointer) == 19);
    CHECK(doc.at("/connection_time/count"_json_pointer) == 39981);
    CHECK(doc.at("/connection_time/min_ms"_json_pointer) == 0.21);
    CHECK(doc.at("/connection_time/avg_ms"_json_pointer) == 1.234);
    CHECK(doc.at("/connection_time/max_ms"_json_pointer) == 5012.96);
    CHECK(doc.at("/connection_time/median_ms"_json_pointer) == 1.5);
    CHECK(doc.at("/connection_time/stddev_ms"_json_pointer) == 25.04);
    CHECK(doc.at("/connection_time/connect_avg_ms"_json_pointer) == 0.13);
    CHECK(doc.at("/connection_time/connect_count"_json_pointer) == 39985);
    CHECK(doc.at("/connection_length/replies_per_connection"_json_pointer) == 0.9991);
    CHECK(doc.at("/request_rate/per_s"_json_pointer) == 299.64);
    CHECK(doc.at("/request_rate/ms_per_request"_json_pointer) == 3.3373);
    CHECK(doc.at("/request_size/avg_bytes"_json_pointer) == 72.0);
    CHECK(doc.at("/reply_rate/min_per_s"_json_pointer) == 280.4);
    CHECK(doc.at("/reply_rate/avg_per_s"_json_pointer) == 299.61);
    CHECK(doc.at("/reply_rate/max_per_s"_json_pointer) == 310.2);
    CHECK(doc.at("/reply_rate/stddev_per_s"_json_pointer) == 6.27);
    CHECK(doc.at("/reply_rate/samples"_json_pointer) == 26);
    CHECK(doc.at("/reply_time/response_ms"_json_pointer) == 0.94);
    CHECK(doc.at("/reply_time/transfer_ms"_json_pointer) == 0.02);
    CHECK(doc.at("/reply_size/header_bytes"_json_pointer) == 236.0);
    CHECK(doc.at("/reply_size/content_bytes"_json_pointer) == 612.3);
    CHECK(doc.at("/reply_size/footer_bytes"_json_pointer) == 0.5);
    CHECK(doc.at("/reply_size/total_bytes"_json_pointer) == 848.8);
    CHECK(doc.at("/reply_status/1xx"_json_pointer) == 1);
    CHECK(doc.at("/reply_status/2xx"_json_pointer) == 39900);
    CHECK(doc.at("/reply_status/3xx"_json_pointer) == 30);
    CHECK(doc.at("/reply_status/4xx"_json_pointer) == 40);
    CHECK(doc.at("/reply_status/5xx"_json_pointer) == 9);
    CHECK(doc.at("/cpu/user_s"_json_pointer) == 1.234);
    CHECK(doc.at("/cpu/system_s"_json_pointer) == 2.5);
    CHECK(doc.at("/cpu/user_percent"_json_pointer) == 0.92);
    CHECK(doc.at("/cpu/system_percent"_json_pointer) == 1.87);
    CHECK(doc.at("/cpu/total_percent"_json_pointer) == 2.79);
    CHECK(doc.at("/net_io/kb_per_s"_json_pointer) == 247.12);
    CHECK(doc.at("/net_io/mbit_per_s"_json_pointer) == 2.02);

    const auto check_percentiles = [&](const char* name, const rateperf::stats::Percentiles& p) {
      CAPTURE(name);
      const json& j = doc.at(name);
      CHECK(j.at("count") == p.count);
      CHECK(j.at("p50_ms") == p.p50_ms);
      CHECK(j.at("p90_ms") == p.p90_ms);
      CHECK(j.at("p99_ms") == p.p99_ms);
      CHECK(j.at("p99_9_ms") == p.p999_ms);
      CHECK(j.at("max_ms") == p.max_ms);
    };
    check_percentiles("latency_intended", s.latency_intended);
    check_percentiles("latency_actual", s.latency_actual);
    check_percentiles("connect_time", s.connect_time);
    check_percentiles("response_time", s.response_time);

    for (std::size_t i = 0; i < rateperf::stats::kServedWithinPercents.size(); ++i) {
      const auto key = std::to_string(rateperf::stats::kServedWithinPercents[i]);
      CAPTURE(key);
      CHECK(doc.at("served_within_ms").at(key) == s.served_within_ms[i]);
    }
    CHECK(doc.at("/served_within_ms/66"_json_pointer) == 2.2);
    CHECK(doc.at("/served_within_ms/100"_json_pointer) == 5012.96);

    CHECK(doc.at("/lag/p50_ms"_json_pointer) == 0.0123);
    CHECK(doc.at("/lag/p99_ms"_json_pointer) == 0.1876);
    CHECK(doc.at("/lag/max_ms"_json_pointer) == 12.3456);
    CHECK(doc.at("/lag/late_arrivals"_json_pointer) == 14);
    CHECK(doc.at("/lag/limit_ms"_json_pointer) == 10.0);
    CHECK(doc.at("/lag/client_limited"_json_pointer) == true);
  }

  TEST_CASE("json: every error kind has its own key, and other is not httperf's lump") {
    const json errors = to_json_document(export_summary(), export_config()).at("errors");
    CHECK(errors.size() == rateperf::kErrorKinds + 1);  // the kinds and the total
    CHECK(errors.at("total") == 81);
    CHECK(errors.at("client_timo") == 3);
    CHECK(errors.at("socket_timo") == 11);
    CHECK(errors.at("connrefused") == 4);
    CHECK(errors.at("connreset") == 5);
    CHECK(errors.at("fd_unavail") == 12);
    CHECK(errors.at("addrunavail") == 1);
    CHECK(errors.at("ftab_full") == 13);
    CHECK(errors.at("other") == 2);  // not errors_other_httperf (32)
    CHECK(errors.at("parse_status") == 6);
    CHECK(errors.at("parse_header") == 7);
    CHECK(errors.at("parse_chunk") == 8);
    CHECK(errors.at("parse_other") == 9);
    std::uint64_t sum = 0;
    for (const auto& [key, value] : errors.items()) {
      if (key != "total") sum += value.get<std::uint64_t>();
    }
    CHECK(sum == errors.at("total").get<std::uint64_t>());
  }

  TEST_CASE("json: the reply-rate samples, in order") {
    const json samples = to_json_document(export_summary(), export_config()).at("samples");
    REQUIRE(samples.size() == 3);
    CHECK(samples[0] == json{{"start_s", 0.0},
                             {"length_s", 5.0},
                             {"replies", 1490},
                             {"reply_rate_per_s", 298.0},
                             {"errors", 1}});
    CHECK(samples[1].at("start_s") == 5.0);
    CHECK(samples[1].at("replies") == 1510);
    CHECK(samples[2].at("start_s") == 10.0);
    CHECK(samples[2].at("length_s") == 2.5);
    CHECK(samples[2].at("reply_rate_per_s") == 280.0);
    CHECK(samples[2].at("errors") == 3);

    Summary none = export_summary();
    none.samples.clear();
    const json empty = to_json_document(none, export_config()).at("samples");
    CHECK(empty.is_array());
    CHECK(empty.empty());
  }

  TEST_CASE("json: the configuration, with null for what was not given") {
    const json c = to_json_document(export_summary(), export_config()).at("config");
    CHECK(c.at("server") == "10.0.0.7");
    CHECK(c.at("port") == 8080);
    CHECK(c.at("uri") == "/a?b=c");
    CHECK(c.at("server_name") == "example.test");
    CHECK(c.at("rate_per_s") == 300.0);
    CHECK(c.at("/period/kind"_json_pointer) == "variable");
    CHECK(c.at("/period/steps"_json_pointer) ==
          json::parse(R"([{"gap_s":0.01,"length_s":2.0},{"gap_s":0.005,"length_s":3.0}])"));
    CHECK(c.at("num_conns") == 40000);
    CHECK(c.at("num_calls") == 1);
    CHECK(c.at("timeout_s") == 5.0);
    CHECK(c.at("think_timeout_s") == 0.25);
    CHECK(c.at("method") == "HEAD");
    CHECK(c.at("add_headers") == json{"X-One: 1", "X-Two: 2"});
    CHECK(c.at("http_version") == "1.0");
    CHECK(c.at("send_buffer_bytes") == 65536);
    CHECK(c.at("recv_buffer_bytes").is_null());  // not given: the kernel's default applies
    CHECK(c.at("/client/id"_json_pointer) == 2);
    CHECK(c.at("/client/count"_json_pointer) == 3);
    CHECK(c.at("seed") == 424242);
    CHECK(c.at("verbose") == 2);
    CHECK(c.at("max_lag_ms") == doctest::Approx(50.0));
    CHECK(c.at("max_error_rate_percent").is_null());

    Config other = export_config();
    other.send_buffer_bytes.reset();
    other.recv_buffer_bytes = 16384;
    other.max_lag = Duration::zero();
    other.max_error_rate_percent = 0;  // zero is a threshold: no error allowed
    other.timeout = Duration::zero();
    other.server_name.clear();
    const json d = to_json_document(export_summary(), other).at("config");
    CHECK(d.at("send_buffer_bytes").is_null());
    CHECK(d.at("recv_buffer_bytes") == 16384);
    CHECK(d.at("max_lag_ms").is_null());
    CHECK(d.at("max_error_rate_percent") == 0.0);
    CHECK(d.at("timeout_s") == 0.0);
    CHECK(d.at("server_name") == "");
  }

  TEST_CASE("json: the period's kind and its parameters") {
    Config c = export_config();
    c.period = {};
    CHECK(to_json_document(Summary{}, c).at("/config/period/kind"_json_pointer) == "sequential");

    c.period.mean = from_s(0.002);
    json p = to_json_document(Summary{}, c).at("/config/period"_json_pointer);
    CHECK(p.at("kind") == "deterministic");
    CHECK(p.at("mean_s") == doctest::Approx(0.002));
    CHECK(p.at("steps").is_array());
    CHECK(p.at("steps").empty());

    c.period.kind = PeriodKind::exponential;
    CHECK(to_json_document(Summary{}, c).at("/config/period/kind"_json_pointer) == "exponential");

    c.period.kind = PeriodKind::uniform;
    c.period.low = from_s(0.001);
    c.period.high = from_s(0.003);
    p = to_json_document(Summary{}, c).at("/config/period"_json_pointer);
    CHECK(p.at("kind") == "uniform");
    CHECK(p.at("low_s") == doctest::Approx(0.001));
    CHECK(p.at("high_s") == doctest::Approx(0.003));
  }

  TEST_CASE("json: the document survives a round trip through its text") {
    const json doc = to_json_document(export_summary(), export_config());
    CHECK(json::parse(doc.dump()) == doc);
  }

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
    CHECK(field("errors_total", s, c) == "81");
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
                               "fd_unavail", "addrunavail", "ftab_full", "other", "parse_errors"}) {
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
