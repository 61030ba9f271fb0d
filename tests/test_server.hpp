#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rateperf::test {

// How a TestServer treats each connection it accepts.
enum class ServerMode {
  reply,         // reads the request, writes the reply, closes
  never_answer,  // reads the request and keeps the connection open, silent
  reset,         // resets the connection right after accepting it
};

// The address family a TestServer listens on: 127.0.0.1 or ::1.
enum class Family { ipv4, ipv6 };

// A status in TestServer's list that means: read the request, then reset the connection.
inline constexpr int kResetStatus = 0;

// A small HTTP server on 127.0.0.1 or ::1 (port 0, so tests never collide), run on its own
// thread with poll(). Replies cycle through `statuses`, one per connection, after `delay_ms`
// (kResetStatus: a reset instead of a reply). A HEAD request gets the headers alone, as HTTP
// says; `extra_headers` (lines ending in CRLF) go into every reply. It keeps what the tests check: every request it read, and when it accepted each
// connection.
class TestServer {
 public:
  explicit TestServer(ServerMode mode, std::vector<int> statuses = {200},
                      std::string body = "hello\n", int delay_ms = 0,
                      Family family = Family::ipv4, std::string extra_headers = {});
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  std::uint16_t port() const { return port_; }
  std::uint64_t accepted() const { return accepted_.load(); }
  std::uint64_t requests() const { return requests_.load(); }
  // Each request read, up to and including its blank line, in the order they came.
  std::vector<std::string> received() const;
  // The time each connection was accepted, in order.
  std::vector<std::chrono::steady_clock::time_point> accept_times() const;

 private:
  void serve();

  ServerMode mode_;
  std::vector<int> statuses_;
  std::string body_;
  int delay_ms_;
  std::string extra_headers_;  // header lines, each ending in CRLF, added to every reply
  int listen_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  std::uint16_t port_ = 0;
  std::atomic<std::uint64_t> accepted_{0};
  std::atomic<std::uint64_t> requests_{0};
  mutable std::mutex mutex_;  // guards the two records below
  std::vector<std::string> received_;
  std::vector<std::chrono::steady_clock::time_point> accept_times_;
  std::thread thread_;
};

// A TCP port on 127.0.0.1 on which nothing listens (bound, then closed).
std::uint16_t closed_port();

}  // namespace rateperf::test
