#pragma once

// Files the end-to-end tests write for a run (a session file, a URI list) or have it write (a
// JSON document), and what they read back from them and from the test server.

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_server.hpp"

namespace rateperf::test {

// A file of `text` under /tmp, removed with the object.
class TempFile {
 public:
  explicit TempFile(const std::string& text)
      : path_("/tmp/rateperf-test-" + std::to_string(::getpid()) + "-" +
              std::to_string(counter_++) + ".txt") {
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

// The request line of each request the server read, in the order it read them.
inline std::vector<std::string> request_lines(const TestServer& server) {
  std::vector<std::string> lines;
  for (const std::string& request : server.received()) {
    lines.push_back(request.substr(0, request.find("\r\n")));
  }
  return lines;
}

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

}  // namespace rateperf::test
