// read_report_input (report/html.hpp): what kind of rateperf result a file is, read and checked
// before anything is drawn, so that a file that is none is refused with its path and the reason.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/failure.hpp"
#include "report/csv.hpp"
#include "report/html.hpp"
#include "report/html_text.hpp"
#include "report/json.hpp"
#include "report/rate_charts.hpp"
#include "report/run_charts.hpp"
#include "stats/record.hpp"

namespace rateperf::report {

namespace {

using nlohmann::json;
using Record = std::vector<std::string>;

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  std::string message = path;
  message += ": not a rateperf result (";
  message += why;
  message += ')';
  throw UsageError(message);
}

[[noreturn]] void cannot_read(const std::string& path, int error) {
  throw UsageError(joined(path, ": cannot read: ", std::strerror(error)));
}

std::string read_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) cannot_read(path, errno);
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;  // a directory opens, and fails here with EISDIR
      ::close(fd);
      cannot_read(path, error);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

// RFC 4180, as rateperf writes it (docs/csv.md): fields separated by ',', quoted when they hold
// a comma, a quote or a line break, a quote inside doubled; lines end in "\n" (or "\r\n").
std::vector<Record> parse_csv(std::string_view text) {
  std::vector<Record> records;
  Record record;
  std::string field;
  bool quoted = false;
  bool in_record = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    in_record = true;
    if (quoted) {
      if (ch != '"') {
        field += ch;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      record.push_back(std::move(field));
      field.clear();
    } else if (ch == '\n' || ch == '\r') {
      if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      record.push_back(std::move(field));
      field.clear();
      records.push_back(std::move(record));
      record.clear();
      in_record = false;
    } else {
      field += ch;
    }
  }
  if (quoted) throw std::runtime_error("a quoted field that never ends");
  if (in_record) {
    record.push_back(std::move(field));
    records.push_back(std::move(record));
  }
  return records;
}

// The header must be rateperf's --csv header: the columns this rateperf writes, in its order,
// at least up to errors_total (the figures the charts need); a later rateperf may have
// appended columns, and an earlier one may have fewer of the last ones.
void check_header(const std::string& path, const Record& header) {
  const Record ours = parse_csv(csv_header()).front();
  std::size_t needed = 0;
  while (needed < ours.size() && ours[needed] != "errors_total") ++needed;
  ++needed;
  if (header.empty() || header.front() != ours.front()) {
    refuse(path, "neither a JSON document nor a CSV with rateperf's --csv header");
  }
  for (std::size_t i = 0; i < header.size() && i < ours.size(); ++i) {
    if (header[i] != ours[i]) {
      std::string why = "a CSV header, but not rateperf's --csv header: column ";
      why += std::to_string(i + 1);
      why += " is '";
      why += header[i];
      why += "' where rateperf writes '";
      why += ours[i];
      why += '\'';
      refuse(path, why);
    }
  }
  if (header.size() < needed) {
    refuse(path, joined("a CSV header of ", std::to_string(header.size()),
                        " columns, short of rateperf's --csv columns up to errors_total"));
  }
}

ReportInput csv_input(const std::string& path, std::string_view text) {
  std::vector<Record> records;
  try {
    records = parse_csv(text);
  } catch (const std::runtime_error& e) {
    refuse(path, e.what());
  }
  if (records.empty()) refuse(path, "an empty file");
  const Record& header = records.front();
  check_header(path, header);
  json rows = json::array();
  for (std::size_t i = 1; i < records.size(); ++i) {
    const Record& record = records[i];
    // Blank lines, and the header again where files of several sweeps were joined.
    if ((record.size() == 1 && record.front().empty()) || record == header) continue;
    if (record.size() != header.size()) {
      refuse(path, joined("line ", std::to_string(i + 1), " has ", std::to_string(record.size()),
                          " fields, the header ", std::to_string(header.size())));
    }
    rows.push_back(record);
  }
  if (rows.empty()) refuse(path, "a --csv header without rows");
  ReportInput input;
  input.kind = ReportInput::Kind::table;
  input.label = path;
  input.document = {{"columns", header}, {"rows", std::move(rows)}};
  try {
    table_points(input.document);
  } catch (const std::runtime_error& e) {
    refuse(path, e.what());
  }
  return input;
}

void check_schema(const std::string& path, const json& document, const char* what) {
  const json& version = document.at("schema_version");
  if (!version.is_number_integer() || version.get<int>() != kJsonSchemaVersion) {
    std::string why = what;
    why += " of schema_version ";
    why += version.dump();
    why += "; this rateperf reads ";
    why += std::to_string(kJsonSchemaVersion);
    refuse(path, why);
  }
}

ReportInput json_input(const std::string& path, std::string_view text) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& e) {
    refuse(path, joined("not valid JSON: ", stats::json_problem(e)));
  }
  if (!document.is_object()) refuse(path, "a JSON document, but not an object");
  ReportInput input;
  input.label = path;
  if (document.value("format", "") == "rateperf-dump") {
    refuse(path, "a --dump file: merge it first, with rateperf merge --json FILE DUMP...");
  }
  const bool search = document.value("kind", "") == "rateperf-search";
  const bool run = document.contains("series") && document.contains("totals");
  if (!document.contains("schema_version") || (!search && !run)) {
    refuse(path,
           "a JSON document without rateperf's fields: no /schema_version with /series "
           "(a run) or /kind \"rateperf-search\" (a search)");
  }
  try {
    check_schema(path, document, search ? "a search" : "a run");
    if (search) {
      search_points(document);
    } else {
      series_points(document);
    }
  } catch (const json::exception& e) {
    std::string why = search ? "a search document" : "a run document";
    why += " with a bad field: ";
    why += stats::json_problem(e);
    refuse(path, why);
  }
  input.kind = search ? ReportInput::Kind::search : ReportInput::Kind::run;
  input.document = std::move(document);
  return input;
}

}  // namespace

ReportInput read_report_input(const std::string& path) {
  const std::string text = read_file(path);
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start != std::string::npos && text[start] == '{') return json_input(path, text);
  return csv_input(path, text);
}

}  // namespace rateperf::report
