// The JSON export: the document has exactly the fields docs/json.md documents, each of its type,
// and each carries the figure of the summary or the configuration its name says.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "export_fixture.hpp"
#include "options/config.hpp"
#include "report/json.hpp"
#include "stats/summary.hpp"

using nlohmann::json;
using rateperf::Duration;
using rateperf::from_s;
using rateperf::options::Config;
using rateperf::options::PeriodKind;
using rateperf::report::to_json_document;
using rateperf::stats::Summary;
using rateperf::test::documented_fields;
using rateperf::test::export_config;
using rateperf::test::export_summary;
using rateperf::test::JsonType;

namespace {

// The documented notation "[]" read as the array's first element, as a real JSON pointer.
json::json_pointer pointer_of(std::string documented) {
  for (auto at = documented.find("[]"); at != std::string::npos; at = documented.find("[]")) {
    documented.replace(at, 2, "/0");
  }
  return json::json_pointer(documented);
}

bool has_type(const json& value, JsonType type) {
  switch (type) {
    case JsonType::integer:
      return value.is_number_integer();
    case JsonType::number:
      return value.is_number();
    case JsonType::string:
      return value.is_string();
    case JsonType::boolean:
      return value.is_boolean();
    case JsonType::object:
      return value.is_object();
    case JsonType::array:
      return value.is_array();
    case JsonType::number_or_null:
      return value.is_number() || value.is_null();
    case JsonType::string_or_null:
      return value.is_string() || value.is_null();
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
    std::string undocumented;
    for (const auto& field : present) {
      if (documented.count(field) == 0) undocumented += field + " ";
    }
    CAPTURE(undocumented);
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
    CHECK(errors.at("total") == 91);
    CHECK(errors.at("client_timo") == 3);
    CHECK(errors.at("socket_timo") == 11);
    CHECK(errors.at("connrefused") == 4);
    CHECK(errors.at("connreset") == 5);
    CHECK(errors.at("fd_unavail") == 12);
    CHECK(errors.at("addrunavail") == 1);
    CHECK(errors.at("ftab_full") == 13);
    CHECK(errors.at("other") == 2);  // not errors_other_httperf (42)
    CHECK(errors.at("parse_status") == 6);
    CHECK(errors.at("parse_header") == 7);
    CHECK(errors.at("parse_chunk") == 8);
    CHECK(errors.at("unanswered") == 10);
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
}
