#include "engine/connection.hpp"

#include <algorithm>

#include "engine/call_log.hpp"
#include "engine/call_printer.hpp"
#include "engine/loop.hpp"
#include "net/errno_kind.hpp"

namespace rateperf::engine {

namespace {

ErrorKind parse_error_kind(http::ParseError error) {
  switch (error) {
    case http::ParseError::bad_status_line:
      return ErrorKind::parse_status;
    case http::ParseError::bad_header:
      return ErrorKind::parse_header;
    case http::ParseError::bad_chunk:
      return ErrorKind::parse_chunk;
    // A reply cut short by the server's close is httperf's connreset.
    case http::ParseError::truncated:
      return ErrorKind::connreset;
    case http::ParseError::none:
    case http::ParseError::other:
      break;
  }
  return ErrorKind::parse_other;
}

}  // namespace

Connection::Connection(ConnectionContext& context)
    : context_(context),
      tcp_(context.socket_options),
      tls_(context.tls != nullptr
               ? std::make_unique<net::TlsTransport>(context.socket_options, *context.tls)
               : nullptr),
      transport_(tls_ ? static_cast<net::Transport&>(*tls_) : tcp_),
      calls_(context.workload.max_in_flight) {
  watchdog_.bind<&Connection::on_watchdog>(*this);
  parser_.capture_cookies(context.workload.sessions && context.workload.sessions->cookies);
}

Connection::~Connection() {
  if (event_added_) event_del(&event_);
}

void Connection::start(TimePoint intended, TimePoint now) {
  calls_started_ = 0;
  calls_.clear();
  send_buffer_.clear();
  send_front_ = 0;
  burst_ = Request{.intended = intended, .actual = now, .planned = nullptr, .cookie = {}};
  burst_left_ = std::min(context_.workload.burst_length, context_.workload.calls_per_connection);
  // The first burst is queued before connecting, so that a connection that cannot even be made
  // counts its calls; it is written once the socket exists.
  queue_burst_calls();
  if (!connect(now)) return;
  if (!flush(Clock::now())) return;
  // One edge-triggered registration for the rest of the connection's life: readiness to read
  // brings the replies, and readiness to write (only while a request is not all written) ends
  // the connect or resumes the request. One epoll_ctl to add it, one to remove it.
  register_events(unsent_ < calls_.size());
}

void Connection::open(TimePoint now, const Request* first) {
  calls_started_ = 0;
  burst_left_ = 0;
  calls_.clear();
  send_buffer_.clear();
  send_front_ = 0;
  if (first != nullptr) push_call(*first);
  if (!connect(now)) return;
  if (!flush(Clock::now())) return;
  // With nothing to write, the first write edge tells that the connect is done.
  register_events(unsent_ < calls_.size() || !transport_.connected());
}

bool Connection::connect(TimePoint now) {
  connect_start_ = now;
  connect_time_ = Duration::zero();
  replies_ = 0;
  unsent_ = 0;
  send_due_ = false;
  failed_ = false;
  last_kernel_at_ = TimePoint{};
  previous_kernel_at_ = TimePoint{};
  peer_fin_ = false;
  parser_.reset(calls_.empty() ? context_.workload.replies_have_no_body : calls_.front().no_body);
  reply_bytes_.clear();

  const net::IoResult opened = transport_.connect(context_.addresses.next_server());
  if (!transport_.is_open()) {
    // No socket, so no connection: the calls themselves end with this error.
    fail(net::error_from_errno(opened.error), now);
    return false;
  }
  if (transport_.options_refused()) ++context_.buffer_refusals;
  context_.collector.connecting();
  if (!calls_.empty() && watchdog_timeout() > Duration::zero())
    context_.loop.schedule(watchdog_, now + watchdog_timeout());
  if (opened.status == net::IoStatus::failed) {
    fail(net::error_from_errno(opened.error), now);
    return false;
  }
  if (opened.connected) note_connected(opened, Clock::now());
  // The requests are tried at once (by the caller): on loopback and fast links the handshake is
  // often complete by the time connect() returns EINPROGRESS, and then neither it nor the
  // request needs a wake-up of its own.
  return true;
}

void Connection::queue(const Request& request) {
  push_call(request);
  send_due_ = true;
}

bool Connection::send(TimePoint now) {
  send_due_ = false;
  if (!flush(now)) return false;
  if (event_added_ && !write_registered_ && unsent_ < calls_.size()) register_events(true);
  return true;
}

void Connection::close_idle(TimePoint now) {
  if (calls_.empty()) close_and_release(now);
}

void Connection::register_events(bool want_write) {
  if (context_.loop.batching()) {
    // --batch-reads: reads wait in the loop's batch set, and only a write this connection waits
    // for (its connect, a request not all written) has a registration of its own.
    if (!batched_.callback) {
      batched_ = Loop::Batched{&Connection::on_event, this, transport_.fd()};
      context_.loop.watch_reads(batched_);
    }
    if (event_added_ && want_write == write_registered_) return;
    if (event_added_) {
      event_del(&event_);
      event_added_ = false;
    }
    write_registered_ = want_write;
    if (!want_write) return;
    event_assign(&event_, context_.loop.base(), transport_.fd(),
                 static_cast<short>(EV_WRITE | EV_ET | EV_PERSIST), &Connection::on_event, this);
    event_add(&event_, nullptr);
    event_added_ = true;
    return;
  }
  if (event_added_) event_del(&event_);
  // EV_CLOSED (EPOLLRDHUP) tells a close that came with the last bytes, so that a short read
  // can end the reading without one more read() to see EAGAIN.
  const short events = static_cast<short>((want_write ? EV_READ | EV_WRITE : EV_READ) | EV_CLOSED |
                                          EV_ET | EV_PERSIST);
  event_assign(&event_, context_.loop.base(), transport_.fd(), events, &Connection::on_event,
               this);
  event_add(&event_, nullptr);
  event_added_ = true;
  write_registered_ = want_write;
}

void Connection::on_event(evutil_socket_t, short what, void* self) {
  auto* connection = static_cast<Connection*>(self);
  Loop& loop = connection->context_.loop;
  const TimePoint now = Clock::now();
  const bool sending = connection->unsent_ < connection->calls_.size();
  bool ended = false;
  // libevent reports an error or a hang-up (a reset) as a read and a write edge, without
  // EV_CLOSED: with a write edge too, the socket is read to its end.
  const bool hangup = (what & (EV_CLOSED | EV_WRITE)) != 0;
  if (what & (EV_READ | EV_CLOSED)) connection->transport_.readable(hangup);
  // A TLS handshake that held the request back goes on with the server's answer: a read edge.
  if (sending && ((what & EV_WRITE) || connection->transport_.write_waits_for_read())) {
    ended = !connection->flush(now);
  } else if ((what & EV_WRITE) && !connection->transport_.connected()) {
    // A connection opened ahead of its requests: the handshake ended.
    const net::IoResult done = connection->transport_.finish_connect();
    if (done.status == net::IoStatus::failed) {
      connection->fail(net::error_from_errno(done.error), now);
      ended = true;
    } else if (done.connected) {
      connection->note_connected(done, now);
      connection->register_events(false);
    }
  }
  // A read edge that came with the write edge (a server that answered or closed at once) is
  // announced only this once: read now.
  if ((what & (EV_READ | EV_CLOSED)) && !ended && connection->open()) {
    connection->peer_fin_ = (what & EV_CLOSED) != 0;
    connection->on_readable(now, hangup);
  }
  // The connection may have ended and been reused above; only the loop is touched now.
  loop.catch_up(now);
}

bool Connection::push_call(const Request& request) {
  const workload::Workload& work = context_.workload;
  const bool was_empty = calls_.empty();
  const workload::PlannedRequest* planned = request.planned;
  if (!work.own_requests) {
    Call& call = calls_.push(request.intended, request.actual);
    call.request_bytes = work.request.size();
    call.no_body = work.replies_have_no_body;
    return true;
  }
  const std::size_t before = send_buffer_.size();
  if (planned != nullptr && !planned->bytes.empty()) {
    // A session file's request, with the session's cookies among its headers.
    const std::string_view bytes = planned->bytes;
    send_buffer_.append(bytes.substr(0, planned->header_end))
        .append(request.cookie)
        .append(bytes.substr(planned->header_end));
  } else if (work.uris) {
    send_buffer_.append(work.request_head);
    if (!work.uris->append_next(send_buffer_)) {
      // The list has ended (--wlog n,FILE), perhaps at another worker's call just now.
      send_buffer_.resize(before);
      return false;
    }
    send_buffer_.append(work.request_tail);
  } else {
    // --wsess: the run's request, with the session's cookies.
    const std::string_view bytes = work.request;
    send_buffer_.append(bytes.substr(0, bytes.size() - 2)).append(request.cookie).append("\r\n");
  }
  Call& call = calls_.push(request.intended, request.actual);
  call.request_bytes = send_buffer_.size() - before;
  if (planned != nullptr) {
    call.no_body = planned->no_body;
    call.timeout = planned->timeout;
  } else {
    call.no_body = work.replies_have_no_body;
  }
  // The parser frames the front call's reply: a call that becomes the front sets how.
  if (was_empty && !parser_.started()) parser_.reset(call.no_body);
  return true;
}

Duration Connection::watchdog_timeout() const {
  if (!calls_.empty()) {
    const Duration own = calls_.front().timeout;
    if (own > Duration::zero()) return own;
  }
  return context_.timeout;
}

void Connection::queue_burst_calls() {
  while (burst_left_ > 0 && !calls_.full()) {
    if (!push_call(burst_)) {
      burst_left_ = 0;  // the URI list ended: no more calls
      return;
    }
    --burst_left_;
    ++calls_started_;
  }
}

bool Connection::start_burst_calls(TimePoint now) {
  queue_burst_calls();
  return flush(now);
}

bool Connection::flush(TimePoint now) {
  // The calls not yet wholly written want one contiguous run of their requests: the rest of
  // the first one's bytes, then the whole request of each of the others. A pipelined burst so
  // goes out in one write. Every call sends the same request (a run of it repeated), or, with a
  // URI source, its own (send_buffer_ holds those of the calls not wholly written).
  const workload::Workload& work = context_.workload;
  const bool own_requests = work.own_requests;
  while (unsent_ < calls_.size()) {
    const std::size_t first_sent = calls_.at(unsent_).sent_bytes;
    const char* const bytes = own_requests ? send_buffer_.data() + send_front_ + first_sent
                                           : work.requests_in_flight.data() + first_sent;
    const std::size_t length = own_requests
                                   ? send_buffer_.size() - send_front_ - first_sent
                                   : (calls_.size() - unsent_) * work.request.size() - first_sent;
    const net::IoResult wrote = transport_.write(bytes, length, now);
    if (wrote.connected) note_connected(wrote, now);
    if (wrote.status == net::IoStatus::failed) {
      server_closed(net::error_from_errno(wrote.error), now);
      return false;
    }
    if (wrote.status != net::IoStatus::done) {
      // The next write edge resumes; registered for it if it was not.
      if (event_added_ && !write_registered_) register_events(true);
      touch(now);
      return true;
    }
    // Hands the bytes written to the calls they belong to, in order.
    std::size_t left = wrote.bytes;
    while (left > 0 && unsent_ < calls_.size()) {
      Call& call = calls_.at(unsent_);
      if (call.sent_bytes == 0) {
        call.send_start = now;
        call.send_kernel = wrote.kernel_at;
        // Request mode: how long the request waited for a connection (and for the client).
        if (context_.workload.pooled && !context_.workload.sessions) {
          context_.collector.request_wait(now - call.intended);
        }
      }
      const std::size_t size = call.request_bytes;
      const std::size_t taken = std::min(left, size - call.sent_bytes);
      call.sent_bytes += taken;
      left -= taken;
      if (call.sent_bytes < size) break;
      context_.collector.request_sent(call.sent_bytes);
      if (context_.printer != nullptr) {
        call.number = context_.printer->next_call();
        context_.printer->request(
            call.number,
            own_requests ? std::string_view(send_buffer_).substr(send_front_, size) : work.request,
            size);
      }
      if (own_requests) {
        // Written: the front moves past it, and a buffer wholly written is emptied (not each
        // call's bytes erased from the front, which would move the rest every time).
        send_front_ += size;
        if (send_front_ == send_buffer_.size()) {
          send_buffer_.clear();
          send_front_ = 0;
        }
      }
      ++unsent_;
    }
  }
  // All written: a write edge is wanted no more. Each would wake the client (with batched
  // reads), and a write edge that comes with a read edge looks like a hang-up to on_event, which
  // then reads on to EAGAIN: one read more for every reply.
  if (write_registered_ && transport_.connected()) register_events(false);
  touch(now);
  return true;
}

void Connection::on_readable(TimePoint now, bool peer_closed) {
  const std::span<char> buffer = context_.read_buffer;
  // TCP gives one receive timestamp per read, the last segment's: a reply's first read takes
  // its first byte apart, so that its time is the first segment's.
  const bool stamped = transport_.kernel_timestamps();
  for (;;) {
    const net::IoResult got = stamped && !parser_.started() && !calls_.empty()
                                  ? transport_.read_first_apart(buffer.data(), buffer.size(), now)
                                  : transport_.read(buffer.data(), buffer.size(), now);
    if (got.connected) {
      // A TLS handshake ended in the read: the requests it held back go now.
      note_connected(got, now);
      if (unsent_ < calls_.size() && !flush(now)) return;
    }
    switch (got.status) {
      case net::IoStatus::done: {
        // A first byte read apart has its own time, the reply's first; the bytes are framed
        // together, so that a plain reply whole in the read is framed in one go.
        TimePoint first_kernel_at;
        if (got.first_bytes > 0 && got.first_bytes < got.bytes) {
          last_kernel_at_ = got.first_kernel_at;
          first_kernel_at = got.first_kernel_at;
        }
        previous_kernel_at_ = last_kernel_at_;
        last_kernel_at_ = got.kernel_at;
        if (take_bytes(buffer.data(), got.bytes, got.at, got.kernel_at, first_kernel_at)) return;
        touch(got.at);
        // Edge triggered: the socket must be left empty, or the bytes left would never be
        // announced again. A read shorter than the buffer emptied it (later bytes make a new
        // edge) and, at a reply's end, that is enough: what comes next is a new edge. Within a
        // reply, or when the event said the peer closed, read on to EAGAIN, the end of stream
        // or the error: a reset that came with the bytes makes no edge of its own.
        if (got.bytes < buffer.size() && !peer_closed && !parser_.started()) {
          // The requests its owner queued as the read's replies freed room go out together.
          if (send_due_) send(now);
          return;
        }
        continue;
      }
      case net::IoStatus::closed: {
        // The server closed: that ends a close-delimited body; any other reply is cut short.
        const http::FeedStatus status = parser_.finish();
        if (status == http::FeedStatus::complete && !calls_.empty()) {
          // Its last byte came with the last bytes read.
          if (!reply_done(got.at, last_kernel_at_)) server_closed(ErrorKind::connreset, got.at);
        } else if (status == http::FeedStatus::error) {
          fail(parse_error_kind(parser_.error()), got.at);
        } else {
          server_closed(ErrorKind::connreset, got.at);
        }
        return;
      }
      case net::IoStatus::again:
        if (send_due_) send(now);
        return;
      case net::IoStatus::failed:
        server_closed(net::error_from_errno(got.error), now);
        return;
    }
  }
}

bool Connection::take_bytes(const char* data, std::size_t length, TimePoint at, TimePoint kernel_at,
                            TimePoint first_kernel_at) {
  std::size_t offset = 0;
  // Bytes with no call in flight are no reply of anyone's: ignored.
  while (offset < length && !calls_.empty()) {
    if (!parser_.started()) {
      calls_.front().first_byte = at;
      calls_.front().first_byte_kernel =
          offset == 0 && first_kernel_at != TimePoint{} ? first_kernel_at : kernel_at;
    }
    std::size_t consumed = 0;
    const http::FeedStatus status = parser_.feed(data + offset, length - offset, consumed);
    if (context_.printer != nullptr && context_.printer->replies()) {
      reply_bytes_.append(data + offset, consumed);
    }
    switch (status) {
      case http::FeedStatus::complete:
        offset += consumed;
        if (reply_done(at, kernel_at)) return true;
        break;
      case http::FeedStatus::error:
        fail(parse_error_kind(parser_.error()), at);
        return true;
      case http::FeedStatus::need_more:
        return false;
    }
  }
  return false;
}

namespace {

// A span between two times, never negative: a kernel timestamp converted to the steady clock
// carries the conversion's error (tens of nanoseconds), which may put it a hair before a time
// the client read itself.
Duration span(TimePoint from, TimePoint to) {
  return to > from ? to - from : Duration::zero();
}

}  // namespace

bool Connection::reply_done(TimePoint now, TimePoint kernel_now) {
  // A status beyond the classes HTTP defines is no reply: the status classes add up to the
  // replies.
  if (parser_.status() > 599 || parser_.status() < 100) {
    fail(ErrorKind::parse_status, now);
    return true;
  }
  ++replies_;
  const Call& call = calls_.front();
  stats::ReplyRecord record;
  record.status = parser_.status();
  record.header_bytes = parser_.header_bytes();
  record.body_bytes = parser_.body_bytes();
  record.footer_bytes = parser_.footer_bytes();
  record.user_response = span(call.send_start, call.first_byte);
  record.user_transfer = span(call.first_byte, now);
  record.user_latency_intended = span(call.intended, now);
  // The kernel's times where it gave both ends of the reply; the request's start from its
  // transmit timestamp where there is one, else from the write.
  // A receive timestamp later than the wake-up that read it is not the reply's: the kernel
  // merges a segment that comes while the reply's last one waits to be read (the server's FIN,
  // most often) into it and gives it the later segment's time. The reply's last byte then came
  // with the read before (for a reply of one segment, the first byte's: exact).
  if (kernel_now > now && previous_kernel_at_ != TimePoint{} &&
      previous_kernel_at_ >= call.first_byte_kernel && previous_kernel_at_ <= now) {
    kernel_now = previous_kernel_at_;
  }
  record.kernel = kernel_now != TimePoint{} && call.first_byte_kernel != TimePoint{};
  const TimePoint first = record.kernel ? call.first_byte_kernel : call.first_byte;
  const TimePoint last = record.kernel ? kernel_now : now;
  record.kernel_send = record.kernel && call.send_kernel != TimePoint{};
  const TimePoint sent = record.kernel_send ? call.send_kernel : call.send_start;
  record.response = span(sent, first);
  record.transfer = span(first, last);
  record.latency_intended = span(call.intended, last);
  record.latency_actual = span(call.actual, last);
  // A call that waited for this connection to open spent its connect time in it.
  if (call.actual <= connect_start_) record.connect = connect_time_;
  context_.collector.reply(record);
  if (context_.call_log != nullptr) {
    context_.call_log->reply(local_port(transport_.fd()), call, now,
                             record.kernel ? kernel_now : TimePoint{}, record.status,
                             record.header_bytes + record.body_bytes + record.footer_bytes);
  }
  if (context_.printer != nullptr && context_.printer->replies()) {
    context_.printer->reply(call.number, reply_bytes_, record.header_bytes, record.body_bytes,
                            record.footer_bytes);
    reply_bytes_.clear();
  }
  if (session != nullptr) context_.owner.reply_received(*this, parser_, now);
  const bool keep_alive = parser_.keep_alive();
  calls_.pop();
  --unsent_;
  parser_.reset(calls_.empty() ? context_.workload.replies_have_no_body : calls_.front().no_body);
  if (!keep_alive) {
    // "Connection: close", or HTTP/1.0 without keep-alive: the calls after this one go
    // unanswered.
    end_unanswered(now);
    return true;
  }
  if (context_.workload.pooled) {
    touch(now);
    // The server's FIN came with this reply (EPOLLRDHUP on the wake-up that read it): a
    // request sent now would meet the closed connection and go unanswered; the connection
    // ends cleanly instead, and its owner opens another.
    if (peer_fin_ && calls_.empty()) {
      close_and_release(now);
      return true;
    }
    context_.owner.connection_idle(*this, now);
    return !open();
  }
  // httperf's workload: the rest of this burst, then the next burst once all its replies came.
  if (burst_left_ == 0 && calls_.empty()) {
    if (calls_not_started() == 0) {
      close_and_release(now);
      return true;
    }
    burst_ = Request{.intended = now, .actual = now, .planned = nullptr, .cookie = {}};
    burst_left_ = std::min(context_.workload.burst_length, calls_not_started());
  }
  return burst_left_ > 0 && !start_burst_calls(now);
}

void Connection::note_connected(const net::IoResult& result, TimePoint now) {
  connect_time_ = now - connect_start_;
  context_.collector.connected(connect_time_);
  if (tls_) {
    context_.collector.tls_handshake(result.handshake, result.resumed, tls_->protocol(),
                                     tls_->cipher());
  }
}

void Connection::touch(TimePoint now) {
  const Duration timeout = watchdog_timeout();
  if (timeout <= Duration::zero()) return;
  // A pooled connection with nothing in flight waits for requests, not for the server.
  if (calls_.empty()) {
    context_.loop.cancel(watchdog_);
    return;
  }
  Duration wait = timeout;
  // httperf adds --think-timeout to the wait for the first byte of a reply.
  const bool waiting_for_reply = unsent_ == calls_.size() && !parser_.started();
  if (waiting_for_reply) wait += context_.think_timeout;
  context_.loop.rearm(watchdog_, now + wait);
}

void Connection::on_watchdog(Timer&, TimePoint now) {
  // Batched reads: the reply may be waiting in the socket, unread. Reading it first either
  // ends the call (and perhaps the connection) or re-arms the watchdog with its progress.
  if (context_.loop.batching() && open()) {
    const std::uint64_t replies_before = replies_;
    transport_.readable(true);
    on_readable(now, true);
    if (!open() || replies_ != replies_before || watchdog_.armed()) return;
  }
  fail(ErrorKind::client_timo, now);
}

std::uint64_t Connection::calls_not_started() const {
  if (context_.workload.pooled) return 0;
  // The URI list ended (--wlog n,FILE): the calls not started will not be.
  if (context_.workload.uris_ended()) return 0;
  return context_.workload.calls_per_connection - calls_started_;
}

void Connection::server_closed(ErrorKind kind, TimePoint now) {
  // On a connection the server has answered before, a close (or reset) before any byte of the
  // next reply is the server ending the persistent connection: the calls it still had are
  // unanswered. The first call of a connection keeps httperf's connreset.
  if (kind == ErrorKind::connreset && replies_ > 0 && !parser_.started()) {
    end_unanswered(now);
  } else {
    fail(kind, now);
  }
}

void Connection::fail(ErrorKind kind, TimePoint now) {
  failed_ = true;
  std::uint64_t lost = calls_.size() + calls_not_started();
  if (lost > 0) {
    context_.collector.error(kind);
    --lost;
  }
  if (lost > 0) context_.collector.error(ErrorKind::unanswered, lost);
  close_and_release(now);
}

void Connection::end_unanswered(TimePoint now) {
  const std::uint64_t lost = calls_.size() + calls_not_started();
  // A session's connection leaves them to its session, which sends them again on another
  // connection (httperf does too): not errors (yet).
  if (session == nullptr && lost > 0) {
    context_.collector.error(ErrorKind::unanswered, lost);
  }
  close_and_release(now);
}

void Connection::close_and_release(TimePoint now) {
  if (event_added_) {
    event_del(&event_);
    event_added_ = false;
  }
  write_registered_ = false;
  // Closing the socket takes it out of the loop's batch set.
  if (batched_.callback) context_.loop.unwatch_reads(batched_);
  context_.loop.cancel(watchdog_);
  if (transport_.is_open()) {
    transport_.close();
    context_.collector.connection_closed(now - connect_start_, replies_);
  }
  calls_.clear();
  calls_started_ = context_.workload.calls_per_connection;  // nothing left to count
  burst_left_ = 0;
  unsent_ = 0;
  context_.owner.connection_ended(*this, now);
}

}  // namespace rateperf::engine
