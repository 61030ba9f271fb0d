#include "report/html.hpp"

#include "core/failure.hpp"

namespace rateperf::report {

ReportInput read_report_input(const std::string& path) {
  throw UsageError(path + ": not a rateperf result (not built yet)");
}

ReportInput search_input(nlohmann::json document, std::string label) {
  ReportInput input;
  input.kind = ReportInput::Kind::search;
  input.label = std::move(label);
  input.document = std::move(document);
  return input;
}

std::string render_html(const std::vector<ReportInput>& /*inputs*/) {
  return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>rateperf</title></head>"
         "<body></body></html>\n";
}

}  // namespace rateperf::report
