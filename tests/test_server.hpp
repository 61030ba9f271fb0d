#pragma once

#include <atomic>
#include <cstdint>
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

// A small HTTP server on 127.0.0.1 (port 0, so tests never collide), run on its own thread with
// poll(). Replies cycle through `statuses`, one per connection, after `delay_ms`.
class TestServer {
 public:
  explicit TestServer(ServerMode mode, std::vector<int> statuses = {200},
                      std::string body = "hello\n", int delay_ms = 0);
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  std::uint16_t port() const { return port_; }
  std::uint64_t accepted() const { return accepted_.load(); }
  std::uint64_t requests() const { return requests_.load(); }

 private:
  void serve();

  ServerMode mode_;
  std::vector<int> statuses_;
  std::string body_;
  int delay_ms_;
  int listen_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  std::uint16_t port_ = 0;
  std::atomic<std::uint64_t> accepted_{0};
  std::atomic<std::uint64_t> requests_{0};
  std::thread thread_;
};

// A TCP port on 127.0.0.1 on which nothing listens (bound, then closed).
std::uint16_t closed_port();

}  // namespace rateperf::test
