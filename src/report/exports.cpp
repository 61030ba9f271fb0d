#include "report/exports.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "report/csv.hpp"
#include "report/json.hpp"

namespace rateperf::report {

namespace {

int open_for_writing(const char* option, const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
  if (fd < 0) {
    throw std::runtime_error(std::string(option) + ": cannot write '" + path +
                             "': " + std::strerror(errno));
  }
  return fd;
}

// Writes all of `text`; false (errno set) when the file refused some of it.
bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

bool report_failure(const char* option, bool ok) {
  if (!ok) std::fprintf(stderr, "rateperf: %s: write failed: %s\n", option, std::strerror(errno));
  return ok;
}

}  // namespace

OutputFile::OutputFile(const char* option, const std::string& path, bool append) : option_(option) {
  if (path == "-") {
    stdout_ = true;
  } else {
    fd_ = open_for_writing(option, path, append ? O_APPEND : O_TRUNC);
  }
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool OutputFile::is_empty() const {
  if (fd_ < 0) return !written_;
  struct stat file {};
  return ::fstat(fd_, &file) == 0 && file.st_size == 0;
}

bool OutputFile::write(const std::string& text) {
  if (!is_open()) return true;
  written_ = true;
  return report_failure(option_, write_all(stdout_ ? STDOUT_FILENO : fd_, text));
}

ExportFiles::ExportFiles(const options::Config& config) {
  if (config.json_path == "-") {
    json_stdout_ = true;
  } else if (!config.json_path.empty()) {
    json_fd_ = open_for_writing("--json", config.json_path, O_TRUNC);
  }
  try {
    if (config.csv_path == "-") {
      csv_stdout_ = true;
    } else if (!config.csv_path.empty()) {
      csv_fd_ = open_for_writing("--csv", config.csv_path, O_APPEND);
    }
    if (config.series_path == "-") {
      series_stdout_ = true;
    } else if (!config.series_path.empty()) {
      series_fd_ = open_for_writing("--series", config.series_path, O_TRUNC);
    }
  } catch (...) {
    if (json_fd_ >= 0) ::close(json_fd_);
    if (csv_fd_ >= 0) ::close(csv_fd_);
    throw;
  }
}

ExportFiles::~ExportFiles() {
  if (json_fd_ >= 0) ::close(json_fd_);
  if (csv_fd_ >= 0) ::close(csv_fd_);
  if (series_fd_ >= 0) ::close(series_fd_);
}

bool ExportFiles::write(const stats::Summary& summary, const options::Config& config) {
  bool ok = true;
  if (json_fd_ >= 0 || json_stdout_) {
    const std::string text = to_json_document(summary, config).dump(2) + "\n";
    const int fd = json_stdout_ ? STDOUT_FILENO : json_fd_;
    ok = report_failure("--json", write_all(fd, text)) && ok;
  }
  if (series_fd_ >= 0 || series_stdout_) {
    const int fd = series_stdout_ ? STDOUT_FILENO : series_fd_;
    ok = report_failure("--series", write_all(fd, series_csv(summary))) && ok;
  }
  if (csv_stdout_) {
    ok = report_failure("--csv",
                        write_all(STDOUT_FILENO, csv_header() + csv_row(summary, config))) &&
         ok;
  } else if (csv_fd_ >= 0) {
    // The lock makes "is the file empty? then header and row" one step among processes.
    bool written = ::flock(csv_fd_, LOCK_EX) == 0;
    if (written) {
      struct stat file {};
      const bool empty = ::fstat(csv_fd_, &file) == 0 && file.st_size == 0;
      written =
          write_all(csv_fd_, (empty ? csv_header() : std::string()) + csv_row(summary, config));
      const int saved = errno;
      ::flock(csv_fd_, LOCK_UN);
      errno = saved;
    }
    ok = report_failure("--csv", written) && ok;
  }
  return ok;
}

}  // namespace rateperf::report
