#include "fault_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <deque>
#include <stdexcept>
#include <utility>
#include <vector>

#include "fault_script.hpp"
#include "loopback.hpp"

namespace rateperf::test {

namespace {

using SteadyClock = std::chrono::steady_clock;

struct NamedMode {
  FaultMode mode;
  std::string_view name;
};

constexpr std::array<NamedMode, 24> kModes = {{
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
    {FaultMode::keep_alive, "keep-alive"},
    {FaultMode::close_after_3, "close-after-3"},
    {FaultMode::close_header_3, "close-header-3"},
    {FaultMode::drop_second, "drop-second"},
    {FaultMode::merge_replies, "merge-replies"},
    {FaultMode::split_reply, "split-reply"},
    {FaultMode::out_of_order, "out-of-order"},
    {FaultMode::status_600, "status-600"},
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

// One accepted connection.
struct Peer {
  int fd = -1;
  std::string inbox;               // bytes read since the last whole request
  std::uint64_t requests = 0;      // whole requests read
  std::uint64_t handled = 0;       // requests the script answered or skipped
  bool ignoring = false;           // no more requests are counted or answered; bytes are discarded
  std::deque<std::string> writes;  // planned by the script, oldest first
  std::size_t written = 0;         // bytes of writes.front() already sent
  AfterWrites after = AfterWrites::keep_open;  // what follows once `writes` is empty
  SteadyClock::time_point next_write_at{};     // paced modes: when the next write is due
  SteadyClock::time_point last_byte_at{};      // quiet modes: when the last byte arrived
};

// Reads what arrived and counts the whole requests in it (a request ends at its blank line;
// rateperf's requests have no body). False when the client closed or the connection failed.
bool read_requests(Peer& peer, const FaultScript& script, SteadyClock::time_point now,
                   std::uint64_t& new_requests) {
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(peer.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n <= 0) return false;
    peer.last_byte_at = now;
    if (peer.ignoring) continue;
    peer.inbox.append(buffer, static_cast<std::size_t>(n));
    std::size_t end = 0;
    while (!peer.ignoring && (end = peer.inbox.find("\r\n\r\n")) != std::string::npos) {
      peer.inbox.erase(0, end + 4);
      ++peer.requests;
      ++new_requests;
      if (script.first_request_only) peer.ignoring = true;
    }
  }
}

// Writes what is due of the planned writes: each in one send() (continued where the socket
// took less), or one paced piece per gap. False when the client left.
bool write_due(Peer& peer, const FaultScript& script, SteadyClock::time_point now,
               std::uint64_t& sends) {
  while (!peer.writes.empty()) {
    const std::string& front = peer.writes.front();
    std::size_t chunk = front.size() - peer.written;
    if (script.pace_bytes > 0) {
      if (peer.next_write_at > now) break;
      chunk = std::min(chunk, script.pace_bytes);
    }
    const ssize_t n = ::send(peer.fd, front.data() + peer.written, chunk, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK;
    }
    ++sends;
    peer.written += static_cast<std::size_t>(n);
    if (script.pace_bytes > 0)
      peer.next_write_at = now + std::chrono::milliseconds(script.pace_gap_ms);
    if (peer.written == front.size()) {
      peer.writes.pop_front();
      peer.written = 0;
    }
  }
  return true;
}

// Ends the connection as the script asked once its writes are out; false when the descriptor
// is closed.
bool after_writes(Peer& peer) {
  switch (std::exchange(peer.after, AfterWrites::keep_open)) {
    case AfterWrites::keep_open:
      // Stays open until the client closes: a client that waited for the close to end the
      // reply would time out instead.
      return true;
    case AfterWrites::close:
      ::close(peer.fd);
      return false;
    case AfterWrites::linger_close:
      // The client reads the end of file after the replies; what it still sends is read (and
      // discarded) until it closes, so that no reset can overtake the replies.
      ::shutdown(peer.fd, SHUT_WR);
      return true;
    case AfterWrites::reset:
      reset_and_close(peer.fd);
      return false;
  }
  return true;
}

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
  // Linux admits one connection more than the backlog into the accept queue, so 0 is the
  // smallest queue there is; once it is full, new SYNs are dropped and clients retry them.
  listen_fd_ = listen_on_loopback(port_, script_of(mode).accepts ? 1024 : 0, true);
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
  const FaultScript script = script_of(mode_);
  const bool paced = script.pace_bytes > 0;
  const auto quiet_time = std::chrono::milliseconds(script.quiet_ms);
  std::vector<Peer> peers;
  std::vector<pollfd> fds;
  for (;;) {
    fds.clear();
    fds.push_back({stop_pipe_[0], POLLIN, 0});
    fds.push_back({script.accepts ? listen_fd_ : -1, POLLIN, 0});  // poll() skips a negative fd
    int timeout_ms = -1;
    const auto now = SteadyClock::now();
    const auto wake_at = [&](SteadyClock::time_point at) {
      const auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(at - now);
      const int wait = static_cast<int>(std::max<std::int64_t>(0, wait_ms.count()));
      timeout_ms = timeout_ms < 0 ? wait : std::min(timeout_ms, wait);
    };
    for (const Peer& peer : peers) {
      // A server that never reads still learns that the client left (POLLRDHUP needs no read),
      // so that a long run of the fault_server program does not pile up descriptors.
      short events = script.reads ? POLLIN : POLLRDHUP;
      if (!peer.writes.empty() && !paced) events |= POLLOUT;
      fds.push_back({peer.fd, events, 0});
      if (!peer.writes.empty() && paced) wake_at(peer.next_write_at);
      if (quiet_time.count() > 0 && peer.requests > peer.handled && !peer.ignoring)
        wake_at(peer.last_byte_at + quiet_time);
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
        if (script.resets_on_accept) {
          reset_and_close(fd);
          continue;
        }
        if (script.no_delay) {
          const int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
        Peer peer;
        peer.fd = fd;
        peers.push_back(std::move(peer));
      }
    }

    const auto after_poll = SteadyClock::now();
    std::vector<Peer> kept;
    kept.reserve(peers.size());
    for (std::size_t i = 0; i < peers.size(); ++i) {
      Peer& peer = peers[i];
      const short revents = i < polled ? fds[i + 2].revents : 0;
      bool open = true;

      if (!script.reads && (revents & (POLLRDHUP | POLLHUP | POLLERR))) open = false;
      if (script.reads && (revents & (POLLIN | POLLHUP | POLLERR))) {
        std::uint64_t new_requests = 0;
        open = read_requests(peer, script, after_poll, new_requests);
        requests_ += new_requests;
        if (new_requests > 0) ++request_reads_;
      }

      // The script's answer to the requests not handled yet; a quiet mode waits until the
      // burst is in.
      const bool due = peer.requests > peer.handled && peer.after == AfterWrites::keep_open &&
                       after_poll - peer.last_byte_at >= quiet_time;
      if (open && due) {
        Answer answer = answer_requests(mode_, peer.handled, peer.requests);
        peer.handled = answer.handled;
        replies_ += answer.replies;
        if (peer.writes.empty()) peer.next_write_at = after_poll;
        for (std::string& bytes : answer.writes) peer.writes.push_back(std::move(bytes));
        if (answer.after != AfterWrites::keep_open) {
          peer.after = answer.after;
          peer.ignoring = true;
        }
      }

      if (open) {
        std::uint64_t sends = 0;
        open = write_due(peer, script, after_poll, sends);
        writes_ += sends;
        if (open && peer.writes.empty() && !after_writes(peer)) peer.fd = -1;
      }

      if (!open && peer.fd >= 0) {
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
