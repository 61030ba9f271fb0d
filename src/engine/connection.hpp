#pragma once

#include <event2/event_struct.h>

#include <cstdint>
#include <memory>

#include "core/errors.hpp"
#include "engine/call.hpp"
#include "engine/context.hpp"
#include "engine/timer.hpp"
#include "http/response_parser.hpp"
#include "net/tcp_transport.hpp"
#include "net/transport.hpp"

namespace rateperf::engine {

// One client connection: a transport (socket, connect, read, write) and the FIFO of its calls.
// It measures each call's timestamps, frames the replies (the bytes after one reply start the
// next), and tells the collector what happened; it never prints.
//
// Owned by its worker's pool and reused for later arrivals (no allocation per connection); used
// only on the worker's thread, through the narrow ConnectionContext it is given.
class Connection {
 public:
  // Calls in flight on one connection: one until pipelining lands.
  static constexpr std::size_t kCallsInFlight = 1;

  explicit Connection(ConnectionContext& context);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Opens a transport and starts connecting, for the arrival intended at `intended`. Every
  // outcome is counted: on failure the connection ends at once (and goes back to its owner).
  void start(TimePoint intended, TimePoint now);
  // Ends the connection now with `kind` (a stopped run's last open connections).
  void abort(ErrorKind kind, TimePoint now) { fail(kind, now); }

  bool open() const { return transport_.is_open(); }

  Connection* next_free = nullptr;  // the owner's free list

 private:
  static void on_event(evutil_socket_t fd, short what, void* self);
  void on_watchdog(Timer& timer, TimePoint now);
  // Starts the connection's next call: queues it and writes what it can.
  bool start_call(TimePoint now);
  // Writes what it can of the calls not yet sent; false when the connection ended (failed).
  bool flush(TimePoint now);
  void on_readable(TimePoint now);
  // Frames received bytes into replies; true when the connection ended.
  bool take_bytes(const char* data, std::size_t length, TimePoint at);
  // Acts on a complete reply of the front call; true when the connection ended.
  bool reply_done(TimePoint now);
  void touch(TimePoint now);  // pushes the watchdog back after I/O
  void register_events(bool want_write);
  void fail(ErrorKind kind, TimePoint now);
  void close_and_release(TimePoint now);

  ConnectionContext& context_;
  // Plain TCP, kept inside the pooled connection; the connection only uses it through the
  // Transport interface, so that another transport (TLS) can take its place.
  net::TcpTransport tcp_;
  net::Transport& transport_ = tcp_;
  Timer watchdog_;
  event event_{};
  bool event_added_ = false;
  bool write_registered_ = false;
  TimePoint intended_{};
  TimePoint connect_start_{};
  std::uint64_t calls_started_ = 0;  // calls of this connection so far
  std::uint32_t replies_ = 0;
  CallQueue<kCallsInFlight> calls_;
  std::size_t unsent_ = 0;  // index in calls_ of the first call not wholly written
  http::ResponseParser parser_;
};

}  // namespace rateperf::engine
