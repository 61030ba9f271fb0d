#pragma once

#include <event2/event_struct.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/errors.hpp"
#include "engine/call.hpp"
#include "engine/context.hpp"
#include "engine/loop.hpp"
#include "engine/store.hpp"
#include "engine/timer.hpp"
#include "http/response_parser.hpp"
#include "net/tcp_transport.hpp"
#include "net/transport.hpp"
#include "workload/session_plan.hpp"

namespace rateperf::engine {

// A request of the schedule, with its intended time and the time the client took it up; a
// session's request also says what it sends.
struct Request {
  TimePoint intended{};
  TimePoint actual{};
  // A session's call: its request; none (or one with no bytes): the workload's.
  const workload::PlannedRequest* planned = nullptr;
  std::string_view cookie;  // a "Cookie: ...\r\n" line to add to its headers, or nothing
};

class Session;

// One client connection: a transport (socket, connect, read, write) and the FIFO of its calls.
// It measures each call's timestamps, frames the replies (the bytes after one reply start the
// next), and tells the collector what happened; it never prints. Every call it takes ends as a
// reply or a counted error: the call whose failure ends the connection with that error, the
// other calls it still had with ErrorKind::unanswered.
//
// Two ways to use it. start(): httperf's workload, the connection makes the workload's calls
// itself, in pipelined bursts, and closes after the last. open() and submit() (or queue() and
// send()): request mode, the owner hands it requests as they come and it stays open between
// them, telling the owner when it has room for another.
//
// Owned by its worker's pool and reused for later arrivals (no allocation per connection); used
// only on the worker's thread, through the narrow ConnectionContext it is given.
class Connection {
 public:
  explicit Connection(ConnectionContext& context);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // httperf's workload: opens a transport and starts connecting, for the arrival intended at
  // `intended`, and sends the first burst of calls. Every outcome is counted: on failure the
  // connection ends at once (and goes back to its owner).
  void start(TimePoint intended, TimePoint now);
  // Request mode: opens a transport and starts connecting, with `first` as its first request if
  // there is one.
  void open(TimePoint now, const Request* first);
  // Request mode: sends `request` on this connection (has_room() must hold). False when the
  // connection ended doing it (the request is counted as an error).
  bool submit(const Request& request, TimePoint now) {
    queue(request);
    return send(now);
  }
  // Request mode: queues `request` on this connection without writing it (has_room() must
  // hold), so that requests queued together go out pipelined in one write: send() writes them,
  // or, when they were queued as a reply of this connection was read, the end of that read does.
  void queue(const Request& request);
  // Writes the queued requests; false when the connection ended doing it (they are counted).
  bool send(TimePoint now);
  // Request mode: closes a connection with no call in flight, at the end of the run.
  void close_idle(TimePoint now);
  // Ends the connection now with `kind` (a stopped run's last open connections).
  void abort(ErrorKind kind, TimePoint now) { fail(kind, now); }

  bool open() const { return transport_.is_open(); }
  std::size_t in_flight() const { return calls_.size(); }
  bool has_room() const { return !calls_.full(); }
  // Request mode: how many more requests it takes, of the `depth()` it holds at most
  // (--max-piped-calls, --burst-length: 1 without pipelining).
  std::size_t room() const { return calls_.capacity() - calls_.size(); }
  std::size_t depth() const { return calls_.capacity(); }

  Connection* next_free = nullptr;  // the ConnectionStore's list of closed connections
  bool pool_queued = false;         // the owner's list of connections with room holds it
  Session* session = nullptr;       // the session whose connection this is, if any
  // Ended with a counted error (not a clean close, nor the server's close after a reply).
  bool failed() const { return failed_; }

 private:
  static void on_event(evutil_socket_t fd, short what, void* self);
  void on_watchdog(Timer& timer, TimePoint now);
  // Resets the per-connection state and starts connecting; false when it ended at once.
  bool connect(TimePoint now);
  // Queues a call with its request (a session's, or the URI source's next URI, if any); false
  // when the URI list has ended.
  bool push_call(const Request& request);
  // The watchdog's wait for the front call: its own timeout, else the run's; zero: none.
  Duration watchdog_timeout() const;
  // Queues the calls of the current burst that fit in flight (fewer when the URI list ends).
  void queue_burst_calls();
  // Queues them, then writes what it can; false when the connection ended.
  bool start_burst_calls(TimePoint now);
  // Writes what it can of the calls not yet sent; false when the connection ended (failed).
  bool flush(TimePoint now);
  // Reads what the socket has; `peer_closed`: the event said the peer may have closed its side
  // (or reset the connection), so that reading goes on to the end of stream or the error.
  void on_readable(TimePoint now, bool peer_closed);
  // Frames received bytes into replies; true when the connection ended.
  // `kernel_at`: the kernel's time of the bytes, where it gave one; `first_kernel_at`, where
  // given, the time of the first byte, for a reply that starts with it.
  bool take_bytes(const char* data, std::size_t length, TimePoint at, TimePoint kernel_at,
                  TimePoint first_kernel_at = {});
  // Acts on a complete reply of the front call, read at `now` and (where the kernel stamped its
  // last segment) come in at `kernel_now`; true when the connection ended.
  bool reply_done(TimePoint now, TimePoint kernel_now);
  void touch(TimePoint now);  // pushes the watchdog back after I/O
  // The transport said it is connected (TLS: its handshake is over): counted once.
  void note_connected(const net::IoResult& result, TimePoint now);
  void register_events(bool want_write);
  // Calls of httperf's workload not yet queued (none in request mode).
  std::uint64_t calls_not_started() const;
  // The server closed or reset the connection, or a write found it closed (`kind`).
  void server_closed(ErrorKind kind, TimePoint now);
  // Ends the connection: the front call in flight fails with `kind`, the others are unanswered.
  void fail(ErrorKind kind, TimePoint now);
  // Ends the connection with every call it still had unanswered (none: a clean close).
  void end_unanswered(TimePoint now);
  void close_and_release(TimePoint now);

  ConnectionContext& context_;
  // Plain TCP, kept inside the pooled connection, or TLS when the run speaks it; the connection
  // only uses them through the Transport interface.
  net::TcpTransport tcp_;
  std::unique_ptr<net::TlsTransport> tls_;
  net::Transport& transport_;
  Timer watchdog_;
  event event_{};
  bool event_added_ = false;
  Loop::Batched batched_{};  // --batch-reads: this socket in the loop's batch set
  bool write_registered_ = false;
  TimePoint connect_start_{};
  Duration connect_time_{};          // connect_start_ -> connected; 0 until then
  std::uint64_t calls_started_ = 0;  // calls of this connection queued so far
  std::uint64_t burst_left_ = 0;     // calls of the current burst not yet queued
  Request burst_{};                  // the current burst's intended and actual start
  std::uint32_t replies_ = 0;
  CallQueue calls_;
  std::size_t unsent_ = 0;  // index in calls_ of the first call not wholly written
  bool send_due_ = false;   // queue() queued requests that send() has not written yet
  http::ResponseParser parser_;
  TimePoint last_kernel_at_{};  // the kernel's time of the last bytes read (a close-delimited end)
  TimePoint previous_kernel_at_{};  // ...and of the read before them
  std::string reply_bytes_;  // --print-reply: the front call's reply as received so far
  // With a URI source: the requests of the calls queued, from send_front_ on those not wholly
  // written (the bytes before it are written; emptied once all are).
  std::string send_buffer_;
  std::size_t send_front_ = 0;
  bool failed_ = false;
  bool peer_fin_ = false;  // the wake-up being served said the server closed its side
};

// The connections of one owner (a worker, a request pool), reused.
using ConnectionStore = Store<Connection, ConnectionContext>;

}  // namespace rateperf::engine
