#include "report/report_command.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <utility>

#include "core/failure.hpp"
#include "report/html.hpp"
#include "report/html_text.hpp"

namespace rateperf::report {

namespace {

struct ReportArguments {
  std::string output_path;  // -o; "-" for stdout
  std::vector<std::string> inputs;
  bool help = false;
};

ReportArguments parse_arguments(const std::vector<std::string>& words) {
  ReportArguments arguments;
  bool options_end = false;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (options_end || word == "-" || !word.starts_with("-")) {
      arguments.inputs.push_back(word);
    } else if (word == "--") {
      options_end = true;
    } else if (word == "-h" || word == "--help") {
      arguments.help = true;
    } else if (word == "-o" || word == "--output") {
      if (i + 1 == words.size()) throw UsageError(joined("report: ", word, " expects a file name"));
      arguments.output_path = words[++i];
    } else if (word.starts_with("--output=")) {
      arguments.output_path = word.substr(std::string_view("--output=").size());
    } else if (word.starts_with("-o") && word.size() > 2) {
      arguments.output_path = word.substr(2);
    } else {
      throw UsageError(joined("report: unknown option '", word, "' (report takes -o and files)"));
    }
  }
  if (arguments.help) return arguments;
  if (arguments.output_path.empty()) {
    throw UsageError("report: -o OUT.html is required (-o - writes the page to stdout)");
  }
  if (arguments.inputs.empty()) {
    throw UsageError("report: expects the files to report (a run's --json, a sweep's --csv...)");
  }
  return arguments;
}

// Writing the page over one of its inputs would destroy the input before it is read.
void refuse_input_as_output(const ReportArguments& arguments) {
  struct stat output {};
  if (arguments.output_path == "-" || ::stat(arguments.output_path.c_str(), &output) != 0) return;
  for (const std::string& input : arguments.inputs) {
    struct stat in {};
    if (::stat(input.c_str(), &in) == 0 && in.st_dev == output.st_dev &&
        in.st_ino == output.st_ino) {
      throw UsageError(joined("report: -o ", arguments.output_path, " is also an input"));
    }
  }
}

[[noreturn]] void output_failed(const std::string& path, int error) {
  throw RunError(joined("-o: ", path, ": ", std::strerror(error)));
}

// The page's destination, opened before any input is read, so that a path that cannot be
// written stops the command at once. A page never written (an input was refused) is removed
// again: an empty file would pass for a report.
class OutputFile {
 public:
  explicit OutputFile(std::string path) : path_(std::move(path)) {
    if (path_ == "-") {
      fd_ = STDOUT_FILENO;
      return;
    }
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) output_failed(path_, errno);
  }
  ~OutputFile() {
    if (fd_ == STDOUT_FILENO || written_) return;
    if (fd_ >= 0) ::close(fd_);
    ::unlink(path_.c_str());
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) output_failed(path_, errno);
      done += static_cast<std::size_t>(n);
    }
    if (fd_ != STDOUT_FILENO && ::close(std::exchange(fd_, -1)) != 0) output_failed(path_, errno);
    written_ = true;
  }

 private:
  std::string path_;
  int fd_ = -1;
  bool written_ = false;
};

}  // namespace

int report_command(const std::vector<std::string>& words) {
  const ReportArguments arguments = parse_arguments(words);
  if (arguments.help) {
    std::fputs(report_help_text().c_str(), stdout);
    return kExitOk;
  }
  refuse_input_as_output(arguments);
  OutputFile output(arguments.output_path);
  std::vector<ReportInput> inputs;
  for (const std::string& path : arguments.inputs) inputs.push_back(read_report_input(path));
  output.write(render_html(inputs));
  return kExitOk;
}

std::string report_help_text() {
  return "Usage: rateperf report -o OUT.html FILE...\n"
         "Writes one self-contained HTML page (inline SVG charts, nothing fetched) of the\n"
         "results in FILE..., one section each, in order. A FILE is a run's JSON (--json), a\n"
         "sweep's CSV (rows of --csv, e.g. from scripts/sweep), or a search's JSON or CSV\n"
         "(rateperf search --json, --csv). docs/report.md describes the charts.\n"
         "  -o, --output FILE   write the page to FILE (- for stdout); required\n"
         "  -h, --help          print this help and exit\n";
}

}  // namespace rateperf::report
