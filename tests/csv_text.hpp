#pragma once

// Reading rateperf's CSV in the tests, as a spreadsheet does: fields split per RFC 4180, rows
// read by column name.

#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace rateperf::test {

// The fields of one CSV record (quoted fields unquoted, doubled quotes undoubled).
inline std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        fields.back() += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      fields.emplace_back();
    } else if (ch != '\n') {
      fields.back() += ch;
    }
  }
  return fields;
}

// The data rows of a CSV text whose first line is the header, each as column name -> field.
// (The tests' values hold no line breaks, so a line is a record.)
inline std::vector<std::map<std::string, std::string>> csv_rows(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::map<std::string, std::string>> rows;
  if (!std::getline(in, line)) return rows;
  const std::vector<std::string> names = split_csv(line);
  while (std::getline(in, line)) {
    const std::vector<std::string> fields = split_csv(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < names.size() && i < fields.size(); ++i) row[names[i]] = fields[i];
    row["#fields"] = std::to_string(fields.size());
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace rateperf::test
