#pragma once

#include <cstdint>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "options/config.hpp"

namespace rateperf::workload {

// Where each call's URI comes from when the calls do not all send --uri: httperf's --wlog (a
// list of URIs read from a file, replayed in order) and --wset (a working set of N generated
// URIs, each used 1/X times in a row). Read or built before the run; one source serves every
// worker (--threads), so that the calls of the whole run take its URIs in turn.
class UriSource {
 public:
  virtual ~UriSource() = default;
  // Appends the next call's URI to `out`: false, with nothing appended, when the list has ended
  // (--wlog n,FILE). Safe from several threads at once.
  virtual bool append_next(std::string& out) = 0;
  // The list has ended and does not wrap (--wlog n,FILE): no call may start any more.
  virtual bool exhausted() const = 0;
};

// --wlog: the URIs of a file, separated by NUL bytes (httperf's format) or, in a file without
// any NUL, by line breaks (CRLF or LF); empty entries are skipped. `wrap`: start again at the
// end, otherwise the list ends there.
class UriLog final : public UriSource {
 public:
  UriLog(std::vector<std::string> uris, bool wrap);
  bool append_next(std::string& out) override;
  bool exhausted() const override { return !wrap_ && taken_.load() >= uris_.size(); }
  std::size_t size() const { return uris_.size(); }

 private:
  std::vector<std::string> uris_;
  bool wrap_;
  std::atomic<std::uint64_t> taken_{0};  // URIs handed out (past the end: calls refused)
};

// Splits the text of a --wlog file into its URIs; `path` names it in messages. Throws
// UsageError "--wlog: PATH: ..." (one line) for a URI with a space or a control character, or a
// file without any URI.
std::vector<std::string> parse_uri_log(std::string_view text, std::string_view path);

// --wset N,X: URIs PREFIX/d/d/.../d.html for files 0 .. N-1, the file's number written with as
// many digits as N - 1 has and a slash between each two (file 103 of 1024: 0/1/0/3); each file is
// used until the rate X of new files per call adds up to one more (X = 0.25: four calls in a
// row), then the next, wrapping after the last. PREFIX is --uri (without a trailing slash).
class WorkingSet final : public UriSource {
 public:
  WorkingSet(std::string prefix, std::uint64_t files, double rate);
  bool append_next(std::string& out) override;
  bool exhausted() const override { return false; }

 private:
  std::string prefix_;
  std::uint64_t files_;
  double rate_;
  int digits_;
  std::mutex mutex_;  // guards the two below
  std::uint64_t file_ = 0;
  double credit_ = 0;
};

// The URI source the options ask for (reading the --wlog file: UsageError "--wlog: cannot read
// 'PATH': reason"), or none when every call sends --uri.
std::unique_ptr<UriSource> uri_source_from_config(const options::Config& config);

}  // namespace rateperf::workload
