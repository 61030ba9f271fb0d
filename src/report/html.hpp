#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rateperf::report {

// One input of the HTML report (docs/report.md): a run, a table of runs (a sweep's or a
// search's CSV), or a search.
struct ReportInput {
  enum class Kind { run, table, search };
  Kind kind = Kind::run;
  std::string label;        // what the page calls it: the file's path, or a title
  nlohmann::json document;  // run: the run's JSON (docs/json.md); search: the search's JSON
                            // (docs/search.md); table: {"columns": [...], "rows": [[...], ...]}
};

// Reads FILE as one of the inputs above (implemented in html_input.cpp), checking every figure
// the charts need. Throws UsageError "PATH: not a rateperf result (WHY)" when it is none of
// them, and UsageError "PATH: cannot read: REASON" when it cannot be read.
ReportInput read_report_input(const std::string& path);

// A search's JSON document (docs/search.md) as an input, without a file.
ReportInput search_input(nlohmann::json document, std::string label);

// The whole page: self-contained (no script, style or font fetched from anywhere), one section
// per input, in order, each with its charts (inline SVG) and the table of their figures.
std::string render_html(const std::vector<ReportInput>& inputs);

}  // namespace rateperf::report
