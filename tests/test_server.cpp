#include "test_server.hpp"

#include "loopback.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>

namespace rateperf::test {

namespace {

using SteadyClock = std::chrono::steady_clock;

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 301: return "Moved Permanently";
    case 404: return "Not Found";
    case 500: return "Internal Server Error";
    default: return "Status";
  }
}

struct Client {
  int fd = -1;
  std::string received;
  bool answered = false;
  SteadyClock::time_point answer_at{};
  int status = 200;
};

}  // namespace

TestServer::TestServer(ServerMode mode, std::vector<int> statuses, std::string body,
                       int delay_ms, Family family, std::string extra_headers)
    : mode_(mode),
      statuses_(std::move(statuses)),
      body_(std::move(body)),
      delay_ms_(delay_ms),
      extra_headers_(std::move(extra_headers)) {
  // Non-blocking, so that every connection waiting is accepted (and timed) at each wake-up.
  listen_fd_ = listen_on_loopback(port_, 1024, true, family == Family::ipv6);
  if (::pipe2(stop_pipe_, O_CLOEXEC) != 0) throw std::runtime_error("test server: pipe failed");
  thread_ = std::thread([this] { serve(); });
}

TestServer::~TestServer() {
  const char byte = 0;
  [[maybe_unused]] const ssize_t n = ::write(stop_pipe_[1], &byte, 1);
  thread_.join();
  ::close(stop_pipe_[0]);
  ::close(stop_pipe_[1]);
  ::close(listen_fd_);
}

void TestServer::serve() {
  std::vector<Client> clients;
  std::size_t next_status = 0;
  for (;;) {
    std::vector<pollfd> fds;
    fds.push_back({stop_pipe_[0], POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    int timeout_ms = 100;
    const auto now = SteadyClock::now();
    for (const Client& client : clients) {
      fds.push_back({client.fd, POLLIN, 0});
      if (client.answered) {
        const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
                              client.answer_at - now).count();
        timeout_ms = std::max<int>(0, std::min<int>(timeout_ms, static_cast<int>(wait)));
      }
    }
    ::poll(fds.data(), fds.size(), timeout_ms);
    if (fds[0].revents != 0) break;

    while (fds[1].revents & POLLIN) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) break;
      const auto accepted_at = SteadyClock::now();
      {
        const std::lock_guard lock(mutex_);
        accept_times_.push_back(accepted_at);
      }
      ++accepted_;
      if (mode_ == ServerMode::reset) {
        const linger hard{1, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
        ::close(fd);
      } else {
        Client client;
        client.fd = fd;
        client.status = statuses_[next_status++ % statuses_.size()];
        clients.push_back(std::move(client));
      }
    }

    const auto after_poll = SteadyClock::now();
    std::vector<Client> kept;
    for (std::size_t i = 0; i < clients.size(); ++i) {
      Client& client = clients[i];
      bool drop = false;
      // Clients accepted in this round have no pollfd yet (fds holds the earlier ones, in order).
      const bool polled = i + 2 < fds.size();
      if (polled && (fds[i + 2].revents & (POLLIN | POLLHUP | POLLERR))) {
        char buffer[4096];
        const ssize_t n = ::read(client.fd, buffer, sizeof buffer);
        if (n <= 0) {
          drop = true;
        } else if (!client.answered) {
          client.received.append(buffer, static_cast<std::size_t>(n));
          if (const auto end = client.received.find("\r\n\r\n"); end != std::string::npos) {
            {
              const std::lock_guard lock(mutex_);
              received_.push_back(client.received.substr(0, end + 4));
            }
            ++requests_;
            if (mode_ == ServerMode::reply && client.status == kResetStatus) {
              const linger hard{1, 0};
              ::setsockopt(client.fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
              drop = true;
            } else if (mode_ == ServerMode::reply) {
              client.answered = true;
              client.answer_at = after_poll + std::chrono::milliseconds(delay_ms_);
            }
          }
        }
      }
      if (!drop && client.answered && client.answer_at <= after_poll) {
        // A reply to HEAD has the headers of the reply to GET, and no body.
        const bool head = client.received.rfind("HEAD ", 0) == 0;
        const std::string reply = "HTTP/1.1 " + std::to_string(client.status) + " " +
                                  reason(client.status) + "\r\nContent-Length: " +
                                  std::to_string(body_.size()) + "\r\n" + extra_headers_ +
                                  "\r\n" +
                                  (head ? std::string() : body_);
        [[maybe_unused]] const ssize_t n = ::write(client.fd, reply.data(), reply.size());
        drop = true;
      }
      if (drop) {
        ::close(client.fd);
      } else {
        kept.push_back(std::move(client));
      }
    }
    clients = std::move(kept);
  }
  for (Client& client : clients) ::close(client.fd);
}

std::vector<std::string> TestServer::received() const {
  const std::lock_guard lock(mutex_);
  return received_;
}

std::vector<SteadyClock::time_point> TestServer::accept_times() const {
  const std::lock_guard lock(mutex_);
  return accept_times_;
}

std::uint16_t closed_port() {
  std::uint16_t port = 0;
  const int fd = listen_on_loopback(port, 1024, false);
  ::close(fd);
  return port;
}

}  // namespace rateperf::test
