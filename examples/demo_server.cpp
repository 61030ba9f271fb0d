// demo_server: a small HTTP target with a fixed capacity, standing in for the 2007 Pylons/Paste
// development server of seed 002 (a small template page served by a pool of worker threads).
//
// The process is single-threaded. A "worker" is a virtual slot: a parsed request occupies a slot
// for --service-ms (a libevent timer), then its reply is written and the connection closed. So
// the capacity is workers * 1000 / service_ms replies/s, whatever the machine, and overload looks
// the way it did for Paste: requests wait in a FIFO queue (reply time climbs towards
// queue / capacity), and once the queue is full new requests are reset (the client sees
// ECONNRESET), which is how an overloaded server sheds load. After shedding, the server accepts
// nothing for a while, so new connections wait in a small listen backlog or have their SYNs
// dropped: connect times climb and some clients give up (client-timo), as in the seed's tables.
//
// Prints exactly one line "listening on HOST:PORT" on stdout once listening; counters go to
// stderr on exit (SIGTERM or SIGINT).

#include <arpa/inet.h>
#include <event2/event.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "demo_connection.hpp"
#include "demo_options.hpp"
#include "demo_replies.hpp"
#include "demo_workers.hpp"

namespace rateperf::demo {

// A request is read up to its blank line; a larger header block gets 400 and is closed.
constexpr std::size_t max_request_bytes = 8192;

struct Counters {
  std::uint64_t accepted = 0, served = 0, shed = 0, dropped = 0, bad = 0, failed = 0;
};

class Server {
 public:
  explicit Server(const Options& options);
  ~Server() {
    listen_event_.reset();
    if (listen_fd_ >= 0) ::close(listen_fd_);
  }
  // Events hold pointers to the server and its connections, and the workers call back into it:
  // it never moves.
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void run() { event_base_dispatch(base_.get()); }
  const Counters& counters() const { return counters_; }
  std::string address() const { return address_; }

 private:
  static void on_accept(evutil_socket_t, short, void* self) {
    static_cast<Server*>(self)->accept_all();
  }
  static void on_resume(evutil_socket_t, short, void* self) {
    static_cast<Server*>(self)->resume_accepting();
  }
  static void on_signal(evutil_socket_t, short, void* base) {
    event_base_loopbreak(static_cast<event_base*>(base));
  }
  static void on_readable(evutil_socket_t, short, void* c) {
    auto* connection = static_cast<Connection*>(c);
    connection->server->read_from(*connection);
  }
  static void on_writable(evutil_socket_t, short, void* c) {
    auto* connection = static_cast<Connection*>(c);
    connection->server->write_to(*connection);
  }

  void listen_on(const Options& options);
  void accept_all();
  void resume_accepting();
  void pause_accepting();
  void read_from(Connection& connection);
  void request_complete(Connection& connection);
  void answer(Connection& connection);
  void start_reply(Connection& connection, const std::string& reply);
  void write_to(Connection& connection);
  void close(Connection& connection);
  void reset(Connection& connection);

  EventBasePtr base_;
  int listen_fd_ = -1;
  std::string address_;
  EventPtr listen_event_;
  EventPtr resume_event_;
  std::vector<EventPtr> signal_events_;
  int shed_pause_ms_;
  bool accept_paused_ = false;
  std::string reply_ok_, reply_ok_head_, reply_bad_;
  WorkerPool workers_;
  std::unordered_map<int, std::unique_ptr<Connection>> connections_;
  Counters counters_;
};

// epoll's timeout is in whole milliseconds, rounded up, so a 10 ms service time would take about
// 11-12 ms and the capacity would fall short of workers * 1000 / service_ms by 10-20 %; a
// precise timer (timerfd) keeps the capacity what the options say.
EventBasePtr make_precise_base() {
  std::unique_ptr<event_config, decltype(&event_config_free)> config(event_config_new(),
                                                                     event_config_free);
  EventBasePtr base;
  if (config) {
    event_config_set_flag(config.get(), EVENT_BASE_FLAG_PRECISE_TIMER);
    base.reset(event_base_new_with_config(config.get()));
  }
  if (!base) throw std::runtime_error("event_base_new failed");
  return base;
}

Server::Server(const Options& options)
    : base_(make_precise_base()),
      shed_pause_ms_(options.shed_pause_ms),
      workers_(base_.get(), options.workers, std::chrono::milliseconds(options.service_ms),
               options.queue, [this](Connection& connection) { answer(connection); }) {
  const std::string body = make_body(options.body_bytes);
  reply_ok_ = make_reply(200, "OK", body, true);
  reply_ok_head_ = make_reply(200, "OK", body, false);
  reply_bad_ = make_reply(400, "Bad Request", "<h1>400 Bad Request</h1>\n", true);

  for (int signal_number : {SIGINT, SIGTERM}) {
    signal_events_.emplace_back(evsignal_new(base_.get(), signal_number, on_signal, base_.get()));
    event_add(signal_events_.back().get(), nullptr);
  }
  listen_on(options);
}

void Server::listen_on(const Options& options) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(options.port);
  if (const int rc = ::getaddrinfo(options.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    throw std::runtime_error("cannot resolve " + options.host + ": " + ::gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, ::freeaddrinfo);
  listen_fd_ = ::socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const int one = 1;
  if (listen_fd_ < 0 || ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
      ::bind(listen_fd_, found->ai_addr, found->ai_addrlen) != 0 ||
      ::listen(listen_fd_, options.backlog) != 0) {
    throw std::runtime_error("cannot listen on " + options.host + ":" + port + ": " +
                             std::strerror(errno));
  }

  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &length);
  const bool v6 = bound.ss_family == AF_INET6;
  const auto& v4_address = reinterpret_cast<const sockaddr_in&>(bound);
  const auto& v6_address = reinterpret_cast<const sockaddr_in6&>(bound);
  char text[INET6_ADDRSTRLEN] = {};
  ::inet_ntop(bound.ss_family,
              v6 ? static_cast<const void*>(&v6_address.sin6_addr) : &v4_address.sin_addr, text,
              sizeof text);
  char line[INET6_ADDRSTRLEN + 16] = {};
  std::snprintf(line, sizeof line, v6 ? "[%s]:%u" : "%s:%u", text,
                unsigned{ntohs(v6 ? v6_address.sin6_port : v4_address.sin_port)});
  address_ = line;

  listen_event_.reset(event_new(base_.get(), listen_fd_, EV_READ | EV_PERSIST, on_accept, this));
  resume_event_.reset(evtimer_new(base_.get(), on_resume, this));
  event_add(listen_event_.get(), nullptr);
}

void Server::accept_all() {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // The pending connection stays in the backlog, so a level-triggered listen event would
        // spin; pause accepting briefly instead and let the kernel queue (or refuse) meanwhile.
        std::fprintf(stderr, "demo_server: accept: %s; pausing 100 ms\n", std::strerror(errno));
        event_del(listen_event_.get());
        const timeval pause{0, 100 * 1000};
        event_add(resume_event_.get(), &pause);
      }
      return;  // EAGAIN: the backlog is empty
    }
    ++counters_.accepted;
    auto connection = std::make_unique<Connection>();
    connection->server = this;
    connection->fd = fd;
    connection->read_event.reset(
        event_new(base_.get(), fd, EV_READ | EV_PERSIST, on_readable, connection.get()));
    connection->write_event.reset(
        event_new(base_.get(), fd, EV_WRITE | EV_PERSIST, on_writable, connection.get()));
    event_add(connection->read_event.get(), nullptr);
    connections_.emplace(fd, std::move(connection));
  }
}

// A server that has just shed a request is too busy to accept more for a while (as a thread-pool
// server whose acceptor waits for room): new connections wait in the kernel's listen backlog
// meanwhile, and once that is full the kernel drops their SYNs, so clients retransmit, their
// connect times climb, and some give up (client-timo), as they did against the seed's servers.
void Server::pause_accepting() {
  if (shed_pause_ms_ <= 0 || accept_paused_) return;
  accept_paused_ = true;
  event_del(listen_event_.get());
  const timeval pause{shed_pause_ms_ / 1000, (shed_pause_ms_ % 1000) * 1000};
  event_add(resume_event_.get(), &pause);
}

void Server::resume_accepting() {
  accept_paused_ = false;
  event_add(listen_event_.get(), nullptr);
  accept_all();
}

void Server::read_from(Connection& connection) {
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::recv(connection.fd, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      // The client closed or reset. A request in a slot keeps its slot (the work is done
      // anyway, as in a real worker); the reply write will then fail or go unread.
      switch (connection.state) {
        case State::reading:
          close(connection);
          break;
        case State::queued:
          ++counters_.dropped;
          workers_.withdraw(connection);
          close(connection);
          break;
        case State::serving:
        case State::writing:
          event_del(connection.read_event.get());
          break;
      }
      return;
    }
    // Bytes after the request (a body, or a second request) are read and ignored: every reply
    // closes the connection.
    if (connection.state != State::reading) continue;

    // Only the new bytes (and the 3 before them) can complete the blank line.
    const std::size_t search_from =
        connection.request.size() >= 3 ? connection.request.size() - 3 : 0;
    connection.request.append(chunk, static_cast<std::size_t>(n));
    const std::size_t end = connection.request.find("\r\n\r\n", search_from);
    if (end != std::string::npos && end + 4 <= max_request_bytes) {
      request_complete(connection);
      return;
    }
    if (end != std::string::npos || connection.request.size() > max_request_bytes) {
      ++counters_.bad;
      event_del(connection.read_event.get());
      start_reply(connection, reply_bad_);
      return;
    }
  }
}

void Server::request_complete(Connection& connection) {
  if (!workers_.admit(connection)) {
    ++counters_.shed;
    reset(connection);
    pause_accepting();
  }
}

// A worker is done with the request: its reply goes out, without the body for HEAD.
void Server::answer(Connection& connection) {
  event_del(connection.read_event.get());
  const bool head = connection.request.starts_with("HEAD ");
  start_reply(connection, head ? reply_ok_head_ : reply_ok_);
}

void Server::start_reply(Connection& connection, const std::string& reply) {
  connection.state = State::writing;
  connection.reply = &reply;
  connection.written = 0;
  write_to(connection);
}

void Server::write_to(Connection& connection) {
  const std::string& reply = *connection.reply;
  while (connection.written < reply.size()) {
    const ssize_t n = ::send(connection.fd, reply.data() + connection.written,
                             reply.size() - connection.written, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      event_add(connection.write_event.get(), nullptr);
      return;
    }
    if (n < 0) {
      ++counters_.failed;
      close(connection);
      return;
    }
    connection.written += static_cast<std::size_t>(n);
  }
  if (connection.reply != &reply_bad_) ++counters_.served;
  // Unread input at close() makes Linux send a reset instead of a FIN, which could destroy the
  // reply in flight; read what has arrived first.
  char chunk[4096];
  while (::recv(connection.fd, chunk, sizeof chunk, 0) > 0) {
  }
  close(connection);
}

void Server::close(Connection& connection) {
  connections_.erase(connection.fd);  // destroys the connection: frees its events, closes fd
}

// Sheds a request: SO_LINGER {1, 0} makes close() send a reset, so the client sees ECONNRESET
// at once instead of waiting for a reply that will not come.
void Server::reset(Connection& connection) {
  const linger abort_on_close{1, 0};
  ::setsockopt(connection.fd, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
  close(connection);
}

}  // namespace rateperf::demo

int main(int argc, char** argv) {
  using namespace rateperf::demo;
  std::signal(SIGPIPE, SIG_IGN);
  Options options;
  try {
    options = parse_options(argc, argv);
  } catch (const UsageError& error) {
    std::fprintf(stderr, "demo_server: %s\n%s", error.what(), usage_text);
    return 2;
  }
  try {
    Server server(options);
    std::printf("listening on %s\n", server.address().c_str());
    std::fflush(stdout);
    server.run();
    const Counters& c = server.counters();
    std::fprintf(stderr,
                 "demo_server: accepted %llu served %llu shed %llu dropped %llu bad %llu "
                 "failed %llu\n",
                 static_cast<unsigned long long>(c.accepted),
                 static_cast<unsigned long long>(c.served), static_cast<unsigned long long>(c.shed),
                 static_cast<unsigned long long>(c.dropped), static_cast<unsigned long long>(c.bad),
                 static_cast<unsigned long long>(c.failed));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "demo_server: %s\n", error.what());
    return 1;
  }
  return 0;
}
