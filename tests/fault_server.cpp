#include "fault_server.hpp"

#include "loopback.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <utility>
#include <vector>

namespace rateperf::test {

namespace {

using SteadyClock = std::chrono::steady_clock;

struct NamedMode {
  FaultMode mode;
  std::string_view name;
};

constexpr std::array<NamedMode, 16> kModes = {{
    {FaultMode::accept_never_read, "accept-never-read"},
    {FaultMode::read_never_answer, "read-never-answer"},
    {FaultMode::slow_bytes, "slow-bytes"},
    {FaultMode::reset_on_accept, "reset-on-accept"},
    {FaultMode::reset_mid_reply, "reset-mid-reply"},
    {FaultMode::close_before_status, "close-before-status"},
    {FaultMode::short_body, "short-body"},
    {FaultMode::garbage_status, "garbage-status"},
    {FaultMode::huge_header, "huge-header"},
    {FaultMode::bad_chunked, "bad-chunked"},
    {FaultMode::continue_100, "continue-100"},
    {FaultMode::no_content_204, "no-content-204"},
    {FaultMode::not_modified_304, "not-modified-304"},
    {FaultMode::extra_body, "extra-body"},
    {FaultMode::http10_close, "http10-close"},
    {FaultMode::accept_nothing, "accept-nothing"},
}};

constexpr std::array<FaultMode, kModes.size()> kAllModes = [] {
  std::array<FaultMode, kModes.size()> modes{};
  for (std::size_t i = 0; i < kModes.size(); ++i) modes[i] = kModes[i].mode;
  return modes;
}();

// A reset instead of an orderly close: with a zero linger time, close() sends RST.
void reset_and_close(int fd) {
  const linger hard{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
  ::close(fd);
}

// 200 with a header block of about 1 MB: many ordinary lines rather than one, so that a client
// that bounds only the length of one line is caught too.
std::string huge_header_reply() {
  constexpr std::size_t kLines = 1024;
  constexpr std::size_t kLineBytes = 1024;  // with its CRLF
  std::string reply = "HTTP/1.1 200 OK\r\n";
  reply.reserve(kLines * kLineBytes + 64);
  for (std::size_t i = 0; i < kLines; ++i) {
    char name[32];
    const int length = std::snprintf(name, sizeof name, "X-Fill-%04zu: ", i);
    reply.append(name, static_cast<std::size_t>(length));
    reply.append(kLineBytes - static_cast<std::size_t>(length) - 2, 'a');
    reply += "\r\n";
  }
  reply += "Content-Length: 0\r\n\r\n";
  return reply;
}

// One accepted connection.
struct Peer {
  int fd = -1;
  std::string request;                     // what arrived up to the request's blank line
  bool request_done = false;               // the blank line arrived (later bytes are discarded)
  bool answering = false;                  // reply bytes are due
  std::size_t sent = 0;                    // bytes of the reply written
  SteadyClock::time_point next_byte_at{};  // paced replies: when the next byte is due
};

}  // namespace

std::string_view fault_name(FaultMode mode) {
  for (const NamedMode& named : kModes) {
    if (named.mode == mode) return named.name;
  }
  return "unknown";
}

std::optional<FaultMode> fault_from_name(std::string_view name) {
  for (const NamedMode& named : kModes) {
    if (named.name == name) return named.mode;
  }
  return std::nullopt;
}

std::span<const FaultMode> all_faults() {
  return kAllModes;
}

FaultServer::FaultServer(FaultMode mode, std::uint16_t port) : mode_(mode), port_(port) {
  answers_ = true;
  switch (mode) {
    case FaultMode::accept_never_read:
      reads_ = false;
      answers_ = false;
      break;
    case FaultMode::read_never_answer:
    case FaultMode::reset_on_accept:
    case FaultMode::accept_nothing:
      answers_ = false;
      break;
    case FaultMode::slow_bytes:
      reply_ = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
      byte_gap_ms_ = 2;
      break;
    case FaultMode::reset_mid_reply:
      reply_ = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + std::string(100, 'x');
      send_bytes_ = reply_.size() / 2;
      after_ = After::reset;
      break;
    case FaultMode::close_before_status:
      after_ = After::close;
      break;
    case FaultMode::short_body:
      reply_ = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789";
      after_ = After::close;
      break;
    case FaultMode::garbage_status:
      // The status code and the reason phrase swapped.
      reply_ = "HTTP/1.1 OK 200\r\nContent-Length: 0\r\n\r\n";
      break;
    case FaultMode::huge_header:
      reply_ = huge_header_reply();
      break;
    case FaultMode::bad_chunked:
      reply_ = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n";
      break;
    case FaultMode::continue_100:
      reply_ = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
      break;
    case FaultMode::no_content_204:
      reply_ = "HTTP/1.1 204 No Content\r\n\r\n";
      break;
    case FaultMode::not_modified_304:
      // A 304 announces the length of the entity it stands for; it has no body all the same.
      reply_ = "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n";
      break;
    case FaultMode::extra_body:
      reply_ = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n0123456789";
      after_ = After::close;
      break;
    case FaultMode::http10_close:
      reply_ = "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nhello world\n";
      after_ = After::close;
      break;
  }
  if (send_bytes_ == 0) send_bytes_ = reply_.size();

  // Linux admits one connection more than the backlog into the accept queue, so 0 is the
  // smallest queue there is; once it is full, new SYNs are dropped and clients retry them.
  listen_fd_ = listen_on_loopback(port_, mode == FaultMode::accept_nothing ? 0 : 1024, true);
  if (::pipe2(stop_pipe_, O_CLOEXEC) != 0) {
    ::close(listen_fd_);
    throw std::runtime_error("fault server: pipe failed");
  }
  thread_ = std::thread([this] { serve(); });
}

FaultServer::~FaultServer() {
  const char byte = 0;
  [[maybe_unused]] const ssize_t n = ::write(stop_pipe_[1], &byte, 1);
  thread_.join();
  ::close(stop_pipe_[0]);
  ::close(stop_pipe_[1]);
  ::close(listen_fd_);
}

void FaultServer::serve() {
  std::vector<Peer> peers;
  std::vector<pollfd> fds;
  const bool accepts = mode_ != FaultMode::accept_nothing;
  for (;;) {
    fds.clear();
    fds.push_back({stop_pipe_[0], POLLIN, 0});
    fds.push_back({accepts ? listen_fd_ : -1, POLLIN, 0});  // poll() skips a negative fd
    int timeout_ms = -1;
    const auto now = SteadyClock::now();
    for (const Peer& peer : peers) {
      // A server that never reads still learns that the client left (POLLRDHUP needs no read),
      // so that a long run of the fault_server program does not pile up descriptors.
      short events = reads_ ? POLLIN : POLLRDHUP;
      if (peer.answering && byte_gap_ms_ == 0) events |= POLLOUT;
      fds.push_back({peer.fd, events, 0});
      if (peer.answering && byte_gap_ms_ > 0) {
        const auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(peer.next_byte_at - now);
        const int wait = static_cast<int>(std::max<std::int64_t>(0, wait_ms.count()));
        timeout_ms = timeout_ms < 0 ? wait : std::min(timeout_ms, wait);
      }
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) break;
    if (fds[0].revents != 0) break;

    // Peers accepted now are served from the next round on (they have no pollfd yet).
    const std::size_t polled = peers.size();
    if (fds[1].revents & POLLIN) {
      for (;;) {
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        ++accepted_;
        if (mode_ == FaultMode::reset_on_accept) {
          reset_and_close(fd);
        } else {
          Peer peer;
          peer.fd = fd;
          peers.push_back(std::move(peer));
        }
      }
    }

    const auto after_poll = SteadyClock::now();
    std::vector<Peer> kept;
    kept.reserve(peers.size());
    for (std::size_t i = 0; i < peers.size(); ++i) {
      Peer& peer = peers[i];
      const short revents = i < polled ? fds[i + 2].revents : 0;
      bool drop = false;

      if (!reads_ && (revents & (POLLRDHUP | POLLHUP | POLLERR))) drop = true;
      if (reads_ && (revents & (POLLIN | POLLHUP | POLLERR))) {
        char buffer[4096];
        for (;;) {
          const ssize_t n = ::read(peer.fd, buffer, sizeof buffer);
          if (n < 0 && errno == EINTR) continue;
          if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
          if (n <= 0) {
            drop = true;
            break;
          }
          if (peer.request_done) continue;  // anything after the request is discarded
          peer.request.append(buffer, static_cast<std::size_t>(n));
          if (peer.request.find("\r\n\r\n") != std::string::npos) {
            peer.request_done = true;
            ++requests_;
            peer.answering = answers_;
            peer.next_byte_at = after_poll;
          }
        }
      }

      // Writes what is due of the reply: everything that fits, or one byte per gap.
      while (!drop && peer.answering && peer.sent < send_bytes_) {
        std::size_t chunk = send_bytes_ - peer.sent;
        if (byte_gap_ms_ > 0) {
          if (peer.next_byte_at > after_poll) break;
          chunk = 1;
        }
        const ssize_t n = ::send(peer.fd, reply_.data() + peer.sent, chunk, MSG_NOSIGNAL);
        if (n < 0) {
          if (errno == EINTR) continue;
          if (errno != EAGAIN && errno != EWOULDBLOCK) drop = true;  // the client left
          break;
        }
        peer.sent += static_cast<std::size_t>(n);
        if (byte_gap_ms_ > 0)
          peer.next_byte_at = after_poll + std::chrono::milliseconds(byte_gap_ms_);
      }

      if (!drop && peer.answering && peer.sent == send_bytes_) {
        peer.answering = false;
        switch (after_) {
          case After::keep_open:
            // Stays open until the client closes: a client that waited for the close to end
            // the reply would time out instead.
            break;
          case After::close:
            ::close(peer.fd);
            peer.fd = -1;
            break;
          case After::reset:
            reset_and_close(peer.fd);
            peer.fd = -1;
            break;
        }
      }

      if (drop && peer.fd >= 0) {
        ::close(peer.fd);
        peer.fd = -1;
      }
      if (peer.fd >= 0) kept.push_back(std::move(peer));
    }
    peers = std::move(kept);
  }
  for (Peer& peer : peers) ::close(peer.fd);
}

}  // namespace rateperf::test
