#include "report/html.hpp"

#include <cstddef>
#include <optional>
#include <utility>

#include "core/version.hpp"
#include "report/html_text.hpp"
#include "report/rate_charts.hpp"
#include "report/run_charts.hpp"
#include "report/svg_chart.hpp"

namespace rateperf::report {

namespace {

using nlohmann::json;

// Readable on screen and on paper; only fonts the viewer already has.
constexpr const char* kStyle = R"(
body { font: 15px/1.45 system-ui, sans-serif; color: #222; max-width: 1000px;
       margin: 0 auto; padding: 1em 1.5em 3em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin: 0 0 0.5em; overflow-wrap: anywhere; }
h3 { font-size: 1.05em; margin: 1.2em 0 0.3em; }
section.input { border-top: 3px solid #d8d8d8; margin-top: 2em; padding-top: 1em; }
dl.summary { display: grid; grid-template-columns: max-content auto; gap: 0.15em 1em;
             margin: 0 0 1em; }
dl.summary dt { color: #555; }
dl.summary dd { margin: 0; overflow-wrap: anywhere; }
code { font-size: 0.92em; }
figure { margin: 0 0 1.5em; }
svg.chart { max-width: 100%; height: auto; display: block; }
svg.chart text { font: 12px sans-serif; fill: #333; }
svg.chart .title { font-weight: 600; }
svg.chart .plot { fill: none; stroke: #b8b8b8; }
svg.chart .grid { stroke: #e4e4e4; }
svg.chart .grid.minor { stroke: #f1f1f1; }
svg.chart .marker line { stroke: #333; stroke-width: 1.5; }
svg.chart .marker text { font-weight: 600; }
svg.chart .band { fill: #777; fill-opacity: 0.15; }
svg.chart circle.point:hover { stroke-width: 3; }
details summary { cursor: pointer; color: #555; }
table.figures { border-collapse: collapse; font-size: 13px; margin-top: 0.4em; }
table.figures th, table.figures td { padding: 1px 10px; border-bottom: 1px solid #eee; }
table.figures td { text-align: right; font-variant-numeric: tabular-nums; }
table.figures td.text { text-align: left; }
footer { margin-top: 3em; color: #777; font-size: 0.9em; }
)";

// A figure of a document by JSON pointer, or none when it is absent or of another type.
std::optional<double> number_at(const json& document, const char* pointer) {
  const json::json_pointer at(pointer);
  if (!document.contains(at) || !document.at(at).is_number()) return std::nullopt;
  return document.at(at).get<double>();
}

std::string text_at(const json& document, const char* pointer) {
  const json::json_pointer at(pointer);
  if (!document.contains(at) || !document.at(at).is_string()) return {};
  return document.at(at).get<std::string>();
}

// The definition list under a section's heading: names and values, both plain text.
class Summary {
 public:
  void add(std::string_view name, std::string_view value) {
    if (value.empty()) return;
    html_ += joined("<dt>", escape_html(name), "</dt><dd>", escape_html(value), "</dd>");
  }
  void add_code(std::string_view name, std::string_view value) {
    if (value.empty()) return;
    html_ +=
        joined("<dt>", escape_html(name), "</dt><dd><code>", escape_html(value), "</code></dd>");
  }
  std::string html() const { return joined("<dl class=\"summary\">", html_, "</dl>\n"); }

 private:
  std::string html_;
};

std::string with_unit(std::optional<double> value, std::string_view unit) {
  if (!value) return {};
  return joined(format_number(*value), unit);
}

// The figures of a chart as a table, one row per x value, under a fold (a run has thousands).
std::string figures_table(const Chart& chart) {
  std::string out =
      joined("<details><summary>Figures (", std::to_string(chart.x.size()),
             " rows)</summary><table class=\"figures\" data-chart=\"", escape_html(chart.name),
             "\"><thead><tr><th>", escape_html(chart.x_title), "</th>");
  for (const Series& s : chart.series) out += joined("<th>", escape_html(s.label), "</th>");
  if (!chart.verdicts.empty()) out += "<th>verdict</th>";
  out += "</tr></thead><tbody>";
  for (std::size_t i = 0; i < chart.x.size(); ++i) {
    out += joined("<tr><td>", format_number(chart.x[i]), "</td>");
    for (const Series& s : chart.series) {
      out += joined("<td>", i < s.y.size() ? format_number(s.y[i]) : "", "</td>");
    }
    if (i < chart.verdicts.size())
      out += joined("<td class=\"text\">", escape_html(chart.verdicts[i]), "</td>");
    out += "</tr>";
  }
  out += "</tbody></table></details>";
  return out;
}

std::string charts_html(const std::vector<Chart>& charts) {
  std::string out;
  for (const Chart& chart : charts) {
    out += joined("<figure><h3>", escape_html(chart.title), "</h3>\n", render_svg(chart), "\n",
                  figures_table(chart), "</figure>\n");
  }
  return out;
}

std::string run_section(const json& run) {
  const std::vector<SeriesPoint> points = series_points(run);
  const std::optional<Onset> onset = overload_onset(points);
  Summary summary;
  summary.add_code("command line", text_at(run, "/command_line"));
  summary.add("started (UTC)", text_at(run, "/start_time_utc"));
  summary.add("offered rate", with_unit(number_at(run, "/schedule/offered_rate_per_s"), "/s"));
  summary.add("duration", with_unit(number_at(run, "/totals/duration_s"), " s"));
  const auto calls = number_at(run, "/totals/calls");
  const auto errors = number_at(run, "/errors/total");
  summary.add("calls", with_unit(calls, ""));
  summary.add("replies", with_unit(number_at(run, "/totals/replies"), ""));
  if (calls && errors) {
    summary.add("errors",
                joined(format_number(*errors), " (",
                       format_number(*calls > 0 ? 100 * *errors / *calls : 0), " % of calls)"));
  }
  summary.add("latency p50 / p99 / max",
              joined(with_unit(number_at(run, "/latency_intended/p50_ms"), " / "),
                     with_unit(number_at(run, "/latency_intended/p99_ms"), " / "),
                     with_unit(number_at(run, "/latency_intended/max_ms"), " ms")));
  summary.add("time series", joined(std::to_string(points.size()), " intervals of ",
                                    with_unit(number_at(run, "/series/interval_s"), " s")));
  summary.add("overload onset",
              onset ? joined("at ", format_number(onset->start_s), " s: ", onset->cause)
                    : "none (open connections stayed near their start; no errors of the "
                      "server's making)");
  if (run.value(json::json_pointer("/lag/client_limited"), false)) {
    summary.add("note", "the client's lag passed its limit: the figures measure the client");
  }
  if (run.value("interrupted", false)) summary.add("note", "interrupted before its end");
  return summary.html() + charts_html(run_charts(points, onset));
}

std::string table_section(const json& table) {
  const std::vector<RatePoint> points = table_points(table);
  const std::optional<double> capacity = sweep_capacity_per_s(points);
  Summary summary;
  summary.add("runs", std::to_string(points.size()));
  summary.add("capacity", capacity
                              ? joined(format_number(*capacity),
                                       "/s: the highest offered rate answered at 98 % or more, "
                                       "without errors")
                              : "none of the runs was answered at 98 % of its rate without errors");
  std::optional<Marker> marker;
  if (capacity) {
    marker =
        Marker{"capacity", *capacity, joined("capacity ", format_number(*capacity), "/s"), 0, 0};
  }
  return summary.html() + charts_html(rate_charts(points, marker));
}

std::string search_section(const json& search) {
  const std::vector<RatePoint> points = search_points(search);
  Summary summary;
  summary.add_code("SLO", text_at(search, "/slo"));
  std::string target;
  for (const json& word : search.value("target", json::array())) {
    if (!target.empty()) target += ' ';
    target += word.is_string() ? word.get<std::string>() : word.dump();
  }
  summary.add_code("target", target);
  summary.add("outcome", text_at(search, "/result/outcome"));
  summary.add_code("result", text_at(search, "/result/line"));
  summary.add("steps", std::to_string(points.size()));
  summary.add("elapsed", with_unit(number_at(search, "/elapsed_s"), " s"));
  std::optional<Marker> marker;
  if (const auto capacity = number_at(search, "/result/capacity_per_s")) {
    const double uncertainty = number_at(search, "/result/uncertainty_per_s").value_or(0);
    marker = Marker{
        "capacity", *capacity,
        joined("capacity ", format_number(*capacity), " +- ", format_number(uncertainty), "/s"),
        *capacity - uncertainty, *capacity + uncertainty};
  }
  return summary.html() + charts_html(rate_charts(points, marker));
}

const char* kind_name(ReportInput::Kind kind) {
  switch (kind) {
    case ReportInput::Kind::run:
      return "run";
    case ReportInput::Kind::table:
      return "table";
    case ReportInput::Kind::search:
      return "search";
  }
  return "run";
}

const char* kind_heading(ReportInput::Kind kind) {
  switch (kind) {
    case ReportInput::Kind::run:
      return "Run";
    case ReportInput::Kind::table:
      return "Runs by offered rate";
    case ReportInput::Kind::search:
      return "Capacity search";
  }
  return "Run";
}

std::string section(const ReportInput& input, std::size_t number) {
  std::string out = joined("<section class=\"input\" data-kind=\"", kind_name(input.kind),
                           "\" id=\"input-", std::to_string(number), "\">\n<h2>",
                           kind_heading(input.kind), ": ", escape_html(input.label), "</h2>\n");
  switch (input.kind) {
    case ReportInput::Kind::run:
      out += run_section(input.document);
      break;
    case ReportInput::Kind::table:
      out += table_section(input.document);
      break;
    case ReportInput::Kind::search:
      out += search_section(input.document);
      break;
  }
  out += "</section>\n";
  return out;
}

}  // namespace

ReportInput search_input(nlohmann::json document, std::string label) {
  ReportInput input;
  input.kind = ReportInput::Kind::search;
  input.label = std::move(label);
  input.document = std::move(document);
  return input;
}

std::string render_html(const std::vector<ReportInput>& inputs) {
  std::string out = joined(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>rateperf report</title>\n<style>",
      kStyle, "</style>\n</head>\n<body>\n<header><h1>rateperf report</h1>\n<nav><ol>");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    out += joined("<li><a href=\"#input-", std::to_string(i + 1), "\">",
                  kind_heading(inputs[i].kind), ": ", escape_html(inputs[i].label), "</a></li>");
  }
  out += "</ol></nav></header>\n<main>\n";
  for (std::size_t i = 0; i < inputs.size(); ++i) out += section(inputs[i], i + 1);
  out += joined("</main>\n<footer>Written by rateperf ", escape_html(kVersion),
                ". Hover over a point for its figures; docs/report.md describes the charts."
                "</footer>\n</body>\n</html>\n");
  return out;
}

}  // namespace rateperf::report
