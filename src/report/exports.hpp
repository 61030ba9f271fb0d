#pragma once

#include <string>

#include "options/config.hpp"
#include "stats/summary.hpp"

namespace rateperf::report {

// The destinations of --json, --csv and --series. They are opened before the run, so that a
// path that cannot be written stops rateperf before it sends anything; they are written after
// it (--series replaces its file, as --json does).
//
// A CSV row is appended with one write() under an exclusive flock(), and the header is written
// only into an empty file, so several rateperf processes appending to one file (a parallel
// sweep) never interleave partial rows or repeat the header.
// One output file of a subcommand (a search's JSON, CSV and report, `rateperf report`'s page),
// opened before any work so that a path that cannot be written stops rateperf first. "-" is
// stdout.
class OutputFile {
 public:
  OutputFile() = default;
  // Opens PATH, appended to or truncated; throws std::runtime_error "OPTION: cannot write
  // 'PATH': REASON" when it cannot.
  OutputFile(const char* option, const std::string& path, bool append);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  bool is_open() const { return fd_ >= 0 || stdout_; }
  bool is_stdout() const { return stdout_; }
  bool is_empty() const;  // nothing written to it yet (a file of size 0, or stdout untouched)

  // Writes all of TEXT at the end; false after a one-line message on stderr naming the option.
  bool write(const std::string& text);

 private:
  const char* option_ = "";
  int fd_ = -1;
  bool stdout_ = false;
  bool written_ = false;
};

class ExportFiles {
 public:
  // Opens the destinations Config names; throws std::runtime_error naming the option, the path
  // and the reason when one cannot be opened for writing.
  explicit ExportFiles(const options::Config& config);
  ~ExportFiles();
  ExportFiles(const ExportFiles&) = delete;
  ExportFiles& operator=(const ExportFiles&) = delete;

  // An export goes to stdout, so the text report must go elsewhere (stderr).
  bool uses_stdout() const { return json_stdout_ || csv_stdout_ || series_stdout_; }

  // Writes every export. Returns false, after a one-line message on stderr for each failure,
  // when a write failed.
  bool write(const stats::Summary& summary, const options::Config& config);

 private:
  int json_fd_ = -1;
  int csv_fd_ = -1;
  int series_fd_ = -1;
  bool json_stdout_ = false;
  bool csv_stdout_ = false;
  bool series_stdout_ = false;
};

}  // namespace rateperf::report
