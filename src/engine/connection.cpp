#include "engine/connection.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "engine/socket_options.hpp"
#include "engine/worker.hpp"

namespace rateperf::engine {

namespace {

ErrorKind parse_error_kind(http::ParseError error) {
  switch (error) {
    case http::ParseError::bad_status_line: return ErrorKind::parse_status;
    case http::ParseError::bad_header: return ErrorKind::parse_header;
    case http::ParseError::bad_chunk: return ErrorKind::parse_chunk;
    // A reply cut short by the server's close is httperf's connreset.
    case http::ParseError::truncated: return ErrorKind::connreset;
    case http::ParseError::none:
    case http::ParseError::other: break;
  }
  return ErrorKind::parse_other;
}

}  // namespace

Connection::Connection(Worker& worker) : worker_(worker) {
  watchdog.owner = this;
  watchdog.kind = Worker::kWatchdog;
}

Connection::~Connection() {
  if (event_added_) event_del(&event_);
  if (fd_ >= 0) ::close(fd_);
}

void Connection::start(TimePoint intended, TimePoint now) {
  intended_ = intended;
  connect_start_ = now;
  replies_ = 0;
  sent_bytes_ = 0;
  parser_.reset(worker_.head_request_);

  const auto& config = worker_.config_;
  const auto& target = worker_.target_;
  fd_ = ::socket(target.address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    // No socket, so no connection: the arrival itself ends with this error.
    const ErrorKind kind = error_from_errno(errno);
    worker_.result_.collector.error(kind);
    state_ = State::idle;
    worker_.connection_ended(*this, now);
    return;
  }
  // A refusal was said once before the run (check_buffer_sizes); the connection goes on with
  // the kernel's size, and the failures are counted for the note after the report.
  if (!set_buffer_sizes(fd_, config)) ++worker_.result_.buffer_refusals;
  worker_.result_.collector.connecting();
  state_ = State::connecting;
  if (config.timeout > Duration::zero()) worker_.schedule_timer(watchdog, now + config.timeout);

  const int rc =
      ::connect(fd_, reinterpret_cast<const sockaddr*>(&target.address), target.length);
  if (rc != 0 && errno != EINPROGRESS) {
    fail(error_from_errno(errno), now);
    return;
  }
  // The request is tried at once: on loopback and fast links the handshake is often complete
  // by the time connect() returns EINPROGRESS, and then neither it nor the request needs a
  // wake-up of its own.
  if (!send_request(Clock::now())) return;
  // One edge-triggered registration for the rest of the connection's life: readiness to read
  // brings the reply, and readiness to write (only while the request is not all written) ends
  // the connect or resumes the request. One epoll_ctl to add it, one to remove it.
  const short events = state_ == State::receiving ? EV_READ : EV_READ | EV_WRITE;
  event_assign(&event_, worker_.base_.get(), fd_, static_cast<short>(events | EV_ET | EV_PERSIST),
               &Connection::on_event, this);
  event_add(&event_, nullptr);
  event_added_ = true;
}

void Connection::on_event(evutil_socket_t, short what, void* self) {
  auto* connection = static_cast<Connection*>(self);
  Worker& worker = connection->worker_;
  const TimePoint now = Clock::now();
  switch (connection->state_) {
    case State::connecting:
    case State::sending:
      if (what & EV_WRITE) connection->send_request(now);
      // A read edge that came with the write edge (a server that answered or closed at once)
      // is announced only this once: read now if the connection still waits for a reply, or
      // if the request could not even be written yet.
      if ((what & EV_READ) && connection->state_ != State::idle) connection->on_readable(now);
      break;
    case State::receiving:
      // A write edge while receiving carries no news.
      if (what & EV_READ) connection->on_readable(now);
      break;
    case State::idle:
      break;
  }
  // The connection may have ended and been reused above; only the worker is touched now.
  worker.catch_up(now);
}

bool Connection::send_request(TimePoint now) {
  const std::string& request = worker_.request_;
  while (sent_bytes_ < request.size()) {
    const ssize_t n = ::send(fd_, request.data() + sent_bytes_, request.size() - sent_bytes_,
                             MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        // Still connecting, or the send buffer is full: the next write edge resumes.
        touch(now);
        return true;
      }
      if (errno == EINTR) continue;
      // A failed connect makes the first send fail with the socket's pending error, which
      // saves a getsockopt(SO_ERROR) per connection.
      fail(error_from_errno(errno), now);
      return false;
    }
    if (state_ == State::connecting) {
      // The first byte written proves the connection established.
      worker_.result_.collector.connected(now - connect_start_);
      state_ = State::sending;
      send_start_ = now;
    }
    sent_bytes_ += static_cast<std::size_t>(n);
  }
  worker_.result_.collector.request_sent(sent_bytes_);
  state_ = State::receiving;
  touch(now);
  return true;
}

void Connection::on_readable(TimePoint now) {
  std::vector<char>& buffer = worker_.read_buffer_;
  for (;;) {
    const ssize_t n = ::read(fd_, buffer.data(), buffer.size());
    if (n > 0) {
      if (!parser_.started()) first_byte_ = now;
      std::size_t consumed = 0;
      if (settle(parser_.feed(buffer.data(), static_cast<std::size_t>(n), consumed), now)) return;
      touch(now);
      // Edge triggered: read until the socket is empty (EAGAIN) or closed, or a close that
      // came with the last bytes would never be announced again.
      continue;
    }
    if (n == 0) {
      // The server closed: that ends a close-delimited body; any other reply is cut short, and
      // a close before any byte of a reply is httperf's connreset too.
      if (!settle(parser_.finish(), now)) fail(ErrorKind::connreset, now);
      return;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) return;
    if (errno == EINTR) continue;
    fail(error_from_errno(errno), now);
    return;
  }
}

bool Connection::settle(http::FeedStatus status, TimePoint now) {
  switch (status) {
    case http::FeedStatus::complete:
      reply_done(now);
      return true;
    case http::FeedStatus::error:
      fail(parse_error_kind(parser_.error()), now);
      return true;
    case http::FeedStatus::need_more:
      break;
  }
  return false;
}

void Connection::touch(TimePoint now) {
  const Duration timeout = worker_.config_.timeout;
  if (timeout <= Duration::zero()) return;
  Duration wait = timeout;
  // httperf adds --think-timeout to the wait for the first byte of a reply.
  if (state_ == State::receiving && !parser_.started()) wait += worker_.config_.think_timeout;
  worker_.wheel_.rearm(watchdog, now + wait);
}

void Connection::reply_done(TimePoint now) {
  ++replies_;
  stats::ReplyRecord record;
  record.status = parser_.status();
  record.header_bytes = parser_.header_bytes();
  record.body_bytes = parser_.body_bytes();
  record.footer_bytes = parser_.footer_bytes();
  record.response = first_byte_ - send_start_;
  record.transfer = now - first_byte_;
  record.latency_intended = now - intended_;
  record.latency_actual = now - connect_start_;
  worker_.result_.collector.reply(record);
  close_and_release(now);
}

void Connection::on_watchdog(TimePoint now) { fail(ErrorKind::client_timo, now); }

void Connection::abort(ErrorKind kind, TimePoint now) { fail(kind, now); }

void Connection::fail(ErrorKind kind, TimePoint now) {
  worker_.result_.collector.error(kind);
  close_and_release(now);
}

void Connection::close_and_release(TimePoint now) {
  if (event_added_) {
    event_del(&event_);
    event_added_ = false;
  }
  worker_.wheel_.cancel(watchdog);
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
    worker_.result_.collector.connection_closed(now - connect_start_, replies_);
  }
  state_ = State::idle;
  worker_.connection_ended(*this, now);
}

}  // namespace rateperf::engine
