#include "workload/uri_source.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/failure.hpp"

namespace rateperf::workload {

UriLog::UriLog(std::vector<std::string> uris, bool wrap) : uris_(std::move(uris)), wrap_(wrap) {}

bool UriLog::append_next(std::string& out) {
  const std::uint64_t k = taken_.fetch_add(1);
  if (!wrap_ && k >= uris_.size()) return false;
  out += uris_[k % uris_.size()];
  return true;
}

std::vector<std::string> parse_uri_log(std::string_view text, std::string_view path) {
  const char separator = text.find('\0') != std::string_view::npos ? '\0' : '\n';
  std::vector<std::string> uris;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find(separator);
    std::string_view uri = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (separator == '\n' && !uri.empty() && uri.back() == '\r') uri.remove_suffix(1);
    if (uri.empty()) continue;
    ++number;
    for (const char c : uri) {
      if (static_cast<unsigned char>(c) <= ' ' || c == '\x7f') {
        throw UsageError("--wlog: " + std::string(path) + ": URI " + std::to_string(number) +
                         " has a space or a control character (each URI goes in a request line)");
      }
    }
    uris.emplace_back(uri);
  }
  if (uris.empty()) throw UsageError("--wlog: " + std::string(path) + ": no URI in the file");
  return uris;
}

WorkingSet::WorkingSet(std::string prefix, std::uint64_t files, double rate)
    : prefix_(std::move(prefix)), files_(files), rate_(rate), digits_(1) {
  while (!prefix_.empty() && prefix_.back() == '/') prefix_.pop_back();
  for (std::uint64_t last = files_ - 1; last >= 10; last /= 10) ++digits_;
}

bool WorkingSet::append_next(std::string& out) {
  std::uint64_t file = 0;
  {
    const std::lock_guard lock(mutex_);
    file = file_;
    // X new files per call: after 1/X calls of this one, the next.
    credit_ += rate_;
    if (credit_ >= 1 - 1e-9) {
      credit_ -= 1;
      file_ = (file_ + 1) % files_;
    }
  }
  std::string number = std::to_string(file);
  number.insert(0, static_cast<std::size_t>(digits_) - number.size(), '0');
  out += prefix_;
  for (const char digit : number) {
    out += '/';
    out += digit;
  }
  out += ".html";
  return true;
}

std::unique_ptr<UriSource> uri_source_from_config(const options::Config& config) {
  if (config.wset_files > 0) {
    return std::make_unique<WorkingSet>(config.uri, config.wset_files, config.wset_rate);
  }
  if (config.wlog_path.empty()) return nullptr;
  std::ifstream file(config.wlog_path, std::ios::binary);
  if (!file) {
    throw UsageError("--wlog: cannot read '" + config.wlog_path + "': " + std::strerror(errno));
  }
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) {
    throw UsageError("--wlog: cannot read '" + config.wlog_path + "': " + std::strerror(errno));
  }
  return std::make_unique<UriLog>(parse_uri_log(text, config.wlog_path), config.wlog_wrap);
}

}  // namespace rateperf::workload
