// rateperf report (docs/report.md): what a reader of the page sees, read from the page's markup
// as a browser test would: the charts of a run, a sweep and a search with their series, points
// and markers; the overload onset; escaping; a self-contained page; refused inputs.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "export_fixture.hpp"
#include "report/chart_axes.hpp"
#include "report/csv.hpp"
#include "report/html.hpp"
#include "report/html_text.hpp"
#include "report/json.hpp"
#include "report/rate_charts.hpp"
#include "report/report_command.hpp"
#include "report/run_charts.hpp"
#include "report/svg_chart.hpp"
#include "temp_file.hpp"
#include "usage_error.hpp"

namespace {

using nlohmann::json;
using rateperf::ErrorKind;
using rateperf::report::ReportInput;
using rateperf::stats::SeriesFigures;
using rateperf::stats::Summary;
using rateperf::test::TempFile;
using rateperf::test::usage_error_of;

// ---- Reading the page as a browser would: elements by their documented attributes.

// The text from the first `open` at or after `from` to the end of the element's `close`.
std::string element(const std::string& html, const std::string& open, const std::string& close,
                    std::size_t from = 0) {
  const std::size_t start = html.find(open, from);
  if (start == std::string::npos) return {};
  const std::size_t end = html.find(close, start);
  return html.substr(start,
                     end == std::string::npos ? std::string::npos : end + close.size() - start);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The value of attribute `name` in the first tag of `text`.
std::string attribute(const std::string& text, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const std::size_t start = text.find(key);
  if (start == std::string::npos) return {};
  const std::size_t value = start + key.size();
  return text.substr(value, text.find('"', value) - value);
}

// The i-th <section class="input">, 0-based.
std::string section(const std::string& html, std::size_t i) {
  std::size_t at = 0;
  for (std::size_t k = 0; k <= i; ++k) {
    at = html.find("<section class=\"input\"", k == 0 ? 0 : at + 1);
    if (at == std::string::npos) return {};
  }
  return element(html, "<section class=\"input\"", "</section>", at);
}

std::string chart(const std::string& html, const std::string& name) {
  return element(html, "<svg class=\"chart\" data-chart=\"" + name + "\"", "</svg>");
}

struct SeriesSeen {
  std::string label;
  std::string data_points;  // the attribute
  std::size_t circles = 0;  // <circle class="point"> drawn in the group
};

std::vector<SeriesSeen> series_in(const std::string& svg) {
  std::vector<SeriesSeen> seen;
  const std::string open = "<g class=\"series\"";
  for (std::size_t at = svg.find(open); at != std::string::npos; at = svg.find(open, at + 1)) {
    const std::string group = element(svg, open, "</g>", at);
    seen.push_back({attribute(group, "data-series"), attribute(group, "data-points"),
                    count(group, "<circle class=\"point\"")});
  }
  return seen;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string marker(const std::string& svg, const std::string& kind) {
  return element(svg, "<g class=\"marker\" data-marker=\"" + kind + "\"", "</g>");
}

// Where the marker's line is drawn, and where the chart draws the point at x value `x_label`
// (by its tooltip), so that a test can see the marker at the point.
std::string marker_x(const std::string& svg, const std::string& kind) {
  return attribute(element(marker(svg, kind), "<line", "/>"), "x1");
}

std::string point_x(const std::string& svg, const std::string& tooltip_x) {
  const std::size_t title = svg.find(tooltip_x + "</title>");
  if (title == std::string::npos) return {};
  const std::size_t circle = svg.rfind("<circle class=\"point\"", title);
  return attribute(svg.substr(circle), "cx");
}

// ---- Inputs.

ReportInput input_of(ReportInput::Kind kind, json document, std::string label = "input") {
  ReportInput input;
  input.kind = kind;
  input.label = std::move(label);
  input.document = std::move(document);
  return input;
}

// A run of 20 half-second intervals at 100/s against a server that keeps up for 2.5 s, then
// falls behind (its open connections grow), then drains after the last arrivals; with timeouts
// (client-timo) only in the drain.
Summary overload_run() {
  Summary s = rateperf::test::export_summary();
  s.series_interval_s = 0.5;
  s.series.clear();
  for (int i = 0; i < 20; ++i) {
    SeriesFigures p;
    p.start_s = 0.5 * i;
    p.length_s = 0.5;
    p.arrivals = i < 16 ? 50 : 0;
    p.replies = 40;
    const int open = i < 5 ? 8 : (i < 16 ? 8 + 20 * (i - 4) : 230 - 60 * (i - 15));
    p.open_connections = static_cast<std::uint64_t>(std::max(open, 0));
    p.latency_p50_ms = 2 + 50 * i;
    p.latency_p90_ms = 3 + 60 * i;
    p.latency_p99_ms = 4 + 70 * i;
    p.latency_max_ms = 5 + 80 * i;
    if (i >= 18) {
      p.errors[static_cast<std::size_t>(ErrorKind::client_timo)] = 7;
      p.errors_total = 7;
    }
    s.series.push_back(p);
  }
  return s;
}

json run_document(const Summary& s) {
  return rateperf::report::to_json_document(s, rateperf::test::export_config());
}

rateperf::report::SeriesPoint steady_point(double start_s, double open) {
  rateperf::report::SeriesPoint p;
  p.start_s = start_s;
  p.length_s = 1;
  p.arrivals = 100;
  p.replies = 100;
  p.open_connections = open;
  p.errors = {{"client_timo", 0}, {"fd_unavail", 0}};
  return p;
}

// A sweep's CSV as rateperf --csv appends it: the header and one row per run.
std::string sweep_csv() {
  struct Run {
    double offered, replies, duration_s;
    std::uint64_t errors;
  };
  // 100 and 200 keep up; 300 falls behind; 250 keeps up with the rate but has errors.
  const Run runs[] = {
      {300, 7200, 30, 0}, {100, 3000, 30, 0}, {250, 7500, 30, 5}, {200, 5990, 30, 0}};
  std::string csv = rateperf::report::csv_header();
  for (const Run& run : runs) {
    Summary s = rateperf::test::export_summary();
    s.offered_rate_per_s = run.offered;
    s.replies = static_cast<std::uint64_t>(run.replies);
    s.duration_s = run.duration_s;
    s.reply_rate_samples = 0;
    s.errors = {};
    s.errors[static_cast<std::size_t>(ErrorKind::connreset)] = run.errors;
    s.errors_total = run.errors;
    s.calls = s.replies + run.errors;
    csv += rateperf::report::csv_row(s, rateperf::test::export_config());
  }
  return csv;
}

// The search fixture (docs/search.md's layout), each step's run a whole run document.
json search_document() {
  json search = json::parse(R"({
    "schema_version": 1, "kind": "rateperf-search", "rateperf_version": "0.1.0",
    "slo": "p99<=100ms,errors<=0.1%", "target": ["--server", "127.0.0.1", "--port", "8080"],
    "unit": "conn/s",
    "settings": {"start_rate_per_s": 50, "max_rate_per_s": null, "step_s": 10,
                 "resolution_percent": 5, "repeat": 3, "cool_down_s": 2,
                 "divergence_percent": 2},
    "result": {"outcome": "found", "capacity_per_s": 187.5, "uncertainty_per_s": 12.5,
               "passed_per_s": 175, "failed_per_s": 200,
               "line": "Capacity [conn/s]: 187.5 +- 12.5"},
    "elapsed_s": 80.5, "steps": []})");
  const std::pair<double, const char*> steps[] = {{50, "pass"},  {100, "pass"}, {200, "fail"},
                                                  {150, "pass"}, {175, "pass"}, {200, "fail"}};
  int index = 0;
  for (const auto& [rate, verdict] : steps) {
    Summary s = rateperf::test::export_summary();
    s.offered_rate_per_s = rate;
    s.reply_rate_samples = 2;
    s.reply_rate_avg = std::string(verdict) == "pass" ? rate : 190;
    json step = {{"index", ++index},
                 {"rate_per_s", rate},
                 {"repetition", 1},
                 {"verdict", verdict},
                 {"reasons", json::array()},
                 {"checks", json::array()},
                 {"open_connections_slope_per_s", 0.0},
                 {"diverging", false},
                 {"run", run_document(s)}};
    search["steps"].push_back(std::move(step));
  }
  search["steps"][5]["repetition"] = 2;
  return search;
}

}  // namespace

TEST_SUITE("html_report") {
  TEST_CASE("a run renders its four charts, each series with a point per interval") {
    const Summary run = overload_run();
    const std::string html = rateperf::report::render_html(
        {input_of(ReportInput::Kind::run, run_document(run), "overload.json")});
    const std::string body = section(html, 0);
    CHECK(attribute(body, "data-kind") == "run");

    const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
        {"rates", {"offered/s", "replies/s"}},
        {"latency", {"p50", "p90", "p99", "max"}},
        {"connections", {"open connections"}},
        {"errors", {"client-timo"}},  // only the kind that occurs
    };
    for (const auto& [name, labels] : expected) {
      CAPTURE(name);
      const std::vector<SeriesSeen> seen = series_in(chart(body, name));
      REQUIRE(seen.size() == labels.size());
      for (std::size_t i = 0; i < labels.size(); ++i) {
        CHECK(seen[i].label == labels[i]);
        CHECK(seen[i].data_points == "20");
        CHECK(seen[i].circles == 20);
      }
    }
    // The figures under a chart: a header row and a row per interval.
    const std::string table =
        element(body, "<table class=\"figures\" data-chart=\"rates\"", "</table>");
    CHECK(count(table, "<tr>") == 21);
    CHECK(table.find("<th>offered/s</th><th>replies/s</th>") != std::string::npos);
    // Arrivals 50 in half a second: 100 offered a second; the tooltip says so too.
    CHECK(table.find("<tr><td>1</td><td>100</td><td>80</td></tr>") != std::string::npos);
    CHECK(chart(body, "latency").find("data-chart=\"latency\"") != std::string::npos);
  }

  TEST_CASE("a run without errors has one flat errors series") {
    Summary run = overload_run();
    for (SeriesFigures& p : run.series) {
      p.errors = {};
      p.errors_total = 0;
    }
    const std::string html =
        rateperf::report::render_html({input_of(ReportInput::Kind::run, run_document(run))});
    const std::vector<SeriesSeen> seen = series_in(chart(html, "errors"));
    REQUIRE(seen.size() == 1);
    CHECK(seen[0].label == "errors total");
    CHECK(seen[0].circles == 20);
  }

  TEST_CASE("the overload onset is where the open connections leave the baseline for good") {
    const std::string html = rateperf::report::render_html(
        {input_of(ReportInput::Kind::run, run_document(overload_run()))});
    // Baseline 8 (the first two points), limit 26: interval 5 (28 open) is the first of those
    // above it until the last arrivals (interval 15), at 2.5 s; the drain after does not count.
    for (const char* name : {"rates", "latency", "connections", "errors"}) {
      CAPTURE(name);
      const std::string svg = chart(html, name);
      CHECK(marker(svg, "onset").find(">overload onset 2.5 s</text>") != std::string::npos);
      CHECK(marker_x(svg, "onset") == point_x(svg, "time since start [s]: 2.5"));
    }
    CHECK(html.find("at 2.5 s: open connections above 2 x 8 + 10 = 26") != std::string::npos);
  }

  TEST_CASE("overload onset: growth, server errors, neither") {
    using rateperf::report::overload_onset;
    std::vector<rateperf::report::SeriesPoint> steady;
    for (int i = 0; i < 30; ++i) steady.push_back(steady_point(i, 10 + i % 3));
    CHECK_FALSE(overload_onset(steady).has_value());

    // Growth that dips back under the limit is no onset; the onset is after the last dip.
    std::vector<rateperf::report::SeriesPoint> growth = steady;
    for (int i = 10; i < 30; ++i) growth[i].open_connections = 100 + 10 * i;
    growth[14].open_connections = 20;
    const auto onset = overload_onset(growth);
    REQUIRE(onset.has_value());
    CHECK(onset->index == 15);
    CHECK(onset->start_s == 15);

    // Errors of the server's making (here a timeout) begin the overload at once; the client's
    // own limits (fd_unavail) do not.
    std::vector<rateperf::report::SeriesPoint> errors = steady;
    errors[4].errors = {{"client_timo", 0}, {"fd_unavail", 3}};
    errors[4].errors_total = 3;
    CHECK_FALSE(overload_onset(errors).has_value());
    errors[7].errors = {{"client_timo", 1}, {"fd_unavail", 0}};
    errors[7].errors_total = 1;
    REQUIRE(overload_onset(errors).has_value());
    CHECK(overload_onset(errors)->index == 7);
    growth[20].errors_total = 1;
    growth[20].errors = {{"client_timo", 1}};
    CHECK(overload_onset(growth)->index == 15);  // whichever comes first
  }

  TEST_CASE("a sweep's CSV: points sorted by offered rate, the capacity marked") {
    const TempFile csv(sweep_csv());
    const ReportInput input = rateperf::report::read_report_input(csv.path());
    CHECK(input.kind == ReportInput::Kind::table);
    const std::string html = rateperf::report::render_html({input});
    CHECK(attribute(section(html, 0), "data-kind") == "table");

    const std::string replies = chart(html, "reply-rate");
    const std::vector<SeriesSeen> seen = series_in(replies);
    REQUIRE(seen.size() == 2);
    CHECK(seen[0].label == "offered");  // the y = x guide, drawn under the measured line
    CHECK(seen[1].label == "replies/s");
    for (const SeriesSeen& s : seen) CHECK(s.circles == 4);
    CHECK(series_in(chart(html, "latency")).size() == 3);
    CHECK(series_in(chart(html, "errors")).size() == 1);
    // 300/s was answered at 240/s, 250/s had errors: the capacity is 200/s (5990 replies in
    // 30 s, 99.8 %).
    for (const char* name : {"reply-rate", "latency", "errors"}) {
      CAPTURE(name);
      const std::string svg = chart(html, name);
      CHECK(marker(svg, "capacity").find(">capacity 200/s</text>") != std::string::npos);
      CHECK(marker_x(svg, "capacity") == point_x(svg, "offered rate [1/s]: 200"));
    }
    const std::string table =
        element(html, "<table class=\"figures\" data-chart=\"errors\"", "</table>");
    const std::size_t r100 = table.find("<tr><td>100</td>");
    const std::size_t r200 = table.find("<tr><td>200</td>");
    const std::size_t r250 = table.find("<tr><td>250</td>");
    const std::size_t r300 = table.find("<tr><td>300</td>");
    CHECK((r100 < r200 && r200 < r250 && r250 < r300 && r300 != std::string::npos));
  }

  TEST_CASE("sweep capacity: the highest rate kept up with, without errors") {
    using rateperf::report::RatePoint;
    using rateperf::report::sweep_capacity_per_s;
    std::vector<RatePoint> points(3);
    points[0].offered_per_s = 100;
    points[0].reply_rate_per_s = 98;
    points[1].offered_per_s = 200;
    points[1].reply_rate_per_s = 195.9;  // under 98 %
    points[2].offered_per_s = 50;
    points[2].reply_rate_per_s = 50;
    CHECK(sweep_capacity_per_s(points) == 100);
    points[0].errors_total = 1;
    CHECK(sweep_capacity_per_s(points) == 50);
    points[2].reply_rate_per_s = 10;
    CHECK_FALSE(sweep_capacity_per_s(points).has_value());
  }

  TEST_CASE("a search: its steps by verdict, repeats as separate points, its capacity") {
    const TempFile file(search_document().dump(2));
    const ReportInput input = rateperf::report::read_report_input(file.path());
    CHECK(input.kind == ReportInput::Kind::search);
    const std::string html = rateperf::report::render_html({input});
    CHECK(attribute(section(html, 0), "data-kind") == "search");
    for (const char* name : {"reply-rate", "latency", "errors"}) {
      CAPTURE(name);
      const std::string svg = chart(html, name);
      for (const SeriesSeen& s : series_in(svg)) CHECK(s.circles == 6);
      const std::string capacity = marker(svg, "capacity");
      CHECK(capacity.find(">capacity 187.5 +- 12.5/s</text>") != std::string::npos);
      CHECK(capacity.find("<rect class=\"band\"") != std::string::npos);
      // 187.5 is midway between the points at 175 and 200.
      const double at = std::stod(marker_x(svg, "capacity"));
      const double x175 = std::stod(point_x(svg, "offered rate [1/s]: 175\nverdict: pass"));
      const double x200 = std::stod(point_x(svg, "offered rate [1/s]: 200\nverdict: fail"));
      CHECK(at == doctest::Approx((x175 + x200) / 2).epsilon(0.01));
    }
    const std::string svg = chart(html, "reply-rate");
    CHECK(count(svg, "data-verdict=\"fail\"") == 2 * 2);  // two steps, in each of two series
    CHECK(count(svg, "data-verdict=\"pass\"") == 4 * 2);
    CHECK(html.find("<code>p99&lt;=100ms,errors&lt;=0.1%</code>") != std::string::npos);
    CHECK(html.find("<code>Capacity [conn/s]: 187.5 +- 12.5</code>") != std::string::npos);
    CHECK(html.find("<dd>found</dd>") != std::string::npos);
  }

  TEST_CASE("several inputs: a section each, in order") {
    const TempFile csv(sweep_csv());
    const TempFile search(search_document().dump());
    const TempFile run(run_document(overload_run()).dump());
    std::vector<ReportInput> inputs;
    for (const TempFile* file : {&csv, &run, &search})
      inputs.push_back(rateperf::report::read_report_input(file->path()));
    const std::string html = rateperf::report::render_html(inputs);
    CHECK(attribute(section(html, 0), "data-kind") == "table");
    CHECK(attribute(section(html, 1), "data-kind") == "run");
    CHECK(attribute(section(html, 2), "data-kind") == "search");
    CHECK(section(html, 3).empty());
  }

  TEST_CASE("text from files and servers is escaped") {
    json search = search_document();
    search["result"]["line"] = "<script>alert('x')</script> & \"quoted\"";
    const std::string html = rateperf::report::render_html(
        {rateperf::report::search_input(search, "<script>label</script>.json")});
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;") !=
          std::string::npos);
    CHECK(html.find("&lt;script&gt;label&lt;/script&gt;.json") != std::string::npos);
  }

  TEST_CASE("the page is self-contained HTML5") {
    const TempFile csv(sweep_csv());
    const std::string html = rateperf::report::render_html(
        {input_of(ReportInput::Kind::run, run_document(overload_run())),
         rateperf::report::read_report_input(csv.path()),
         rateperf::report::search_input(search_document(), "search.json")});
    CHECK(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0) == 0);
    CHECK(html.find("<meta charset=\"utf-8\">") != std::string::npos);
    CHECK(html.find("<style>") != std::string::npos);
    CHECK(html.find("http://") == std::string::npos);
    CHECK(html.find("https://") == std::string::npos);
    CHECK(html.find("src=") == std::string::npos);
    CHECK(html.find("<link") == std::string::npos);
    CHECK(html.find("@import") == std::string::npos);
    CHECK(html.find("url(") == std::string::npos);
    CHECK(count(html, "<svg ") == count(html, "</svg>"));
    CHECK(count(html, "<section ") == 3);
  }

  TEST_CASE("files that are not rateperf results are refused, naming the path") {
    const auto refusal = [](const std::string& text) {
      const TempFile file(text);
      const std::string message =
          usage_error_of([&] { rateperf::report::read_report_input(file.path()); });
      CHECK(message.rfind(file.path() + ": not a rateperf result (", 0) == 0);
      return message;
    };
    CHECK(refusal("hello, world\nthis is not a result\n").find("--csv header") !=
          std::string::npos);
    CHECK(refusal("{\"name\": \"something else\"}").find("without rateperf's fields") !=
          std::string::npos);
    CHECK(refusal("{\"schema_version\": 1,").find("not valid JSON") != std::string::npos);
    CHECK(refusal("start_time_utc,server,port,url\n").find("column 4 is 'url'") !=
          std::string::npos);
    CHECK(refusal(rateperf::report::csv_header()).find("without rows") != std::string::npos);
    json run = run_document(overload_run());
    run["series"]["points"][3].erase("open_connections");
    CHECK(refusal(run.dump()).find("open_connections") != std::string::npos);
    std::string csv = sweep_csv();
    const std::size_t second_line = csv.find('\n') + 1;
    csv.replace(csv.find(",300.000,", second_line), 9, ",fast,");
    CHECK(refusal(csv).find("row 1, column offered_rate_per_s: 'fast' is not a number") !=
          std::string::npos);

    const std::string missing = "/nonexistent/run.json";
    CHECK(usage_error_of([&] { rateperf::report::read_report_input(missing); }) ==
          missing + ": cannot read: No such file or directory");
  }

  TEST_CASE("report's command line: -o is required, an unwritable -o fails before inputs") {
    using rateperf::report::report_command;
    const TempFile csv(sweep_csv());
    CHECK(usage_error_of([&] { report_command({csv.path()}); }).find("-o") != std::string::npos);
    CHECK(usage_error_of([&] {
            report_command({"-o", "x.html"});
          }).find("expects the files") != std::string::npos);
    // The output is opened first: its failure is reported even though the input is bad too.
    try {
      report_command({"-o", "/nonexistent/dir/out.html", "/nonexistent/in.json"});
      FAIL("no error");
    } catch (const rateperf::RunError& e) {
      CHECK(std::string(e.what()) == "-o: /nonexistent/dir/out.html: No such file or directory");
    }
    const TempFile out("");
    CHECK(report_command({"--output", out.path(), csv.path()}) == 0);
    CHECK(read_text(out.path()).find("data-chart=\"reply-rate\"") != std::string::npos);
  }

  TEST_CASE("axis ticks: 1, 2, 5 x 10^k; log axes by decades") {
    using rateperf::report::linear_ticks;
    CHECK(linear_ticks(0, 300) == std::vector<double>{0, 100, 200, 300});
    CHECK(linear_ticks(0, 6.5) == std::vector<double>{0, 2, 4, 6, 8});
    std::vector<std::string> labels;
    for (double tick : linear_ticks(0, 0.9))
      labels.push_back(rateperf::report::format_number(tick));
    CHECK(labels == std::vector<std::string>{"0", "0.2", "0.4", "0.6", "0.8", "1"});
    CHECK(rateperf::report::format_number(199.83) == "199.8");
    CHECK(rateperf::report::format_number(0.01234) == "0.01234");
    CHECK(rateperf::report::format_number(12345.6) == "12346");
    CHECK(rateperf::report::log_decades(0.4, 2100) ==
          std::vector<double>{0.1, 1, 10, 100, 1000, 10000});
    CHECK(rateperf::report::log_decades(10, 10) == std::vector<double>{10, 100});
  }
}
