#pragma once

#include <cstdint>

#include <event2/event_struct.h>

#include "engine/errors.hpp"
#include "http/response_parser.hpp"
#include "schedule/clock.hpp"
#include "schedule/timer_wheel.hpp"

namespace rateperf::engine {

class Worker;

// One client connection: a non-blocking socket driven through connect, send, receive and close
// by libevent readiness callbacks. It measures its call's timestamps and tells its Worker's
// collector what happened; it never prints.
//
// Owned by its Worker's pool and reused for later arrivals (no allocation per connection); used
// only on the worker's thread.
class Connection {
 public:
  explicit Connection(Worker& worker);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Opens a socket and starts connecting, for the arrival intended at `intended`. Every outcome
  // is counted: on failure the connection ends at once (and is handed back to the worker).
  void start(TimePoint intended, TimePoint now);
  // The inactivity watchdog fired: client-timo.
  void on_watchdog(TimePoint now);
  // Ends the connection now with `kind` (a stopped run's last open connections).
  void abort(ErrorKind kind, TimePoint now);

  bool open() const { return fd_ >= 0; }

  schedule::WheelTimer watchdog;  // owner = this; armed while open with a timeout
  Connection* next_free = nullptr;  // the worker's free list

 private:
  enum class State : std::uint8_t { idle, connecting, sending, receiving };

  static void on_event(evutil_socket_t fd, short what, void* self);
  void on_readable(TimePoint now);
  // Writes what it can of the request; false when the connection ended (it failed).
  bool send_request(TimePoint now);
  // Acts on what the parser found: ends the connection on a whole reply or a malformed one.
  // Returns true when the connection ended.
  bool settle(http::FeedStatus status, TimePoint now);
  void touch(TimePoint now);  // pushes the watchdog back after I/O
  void reply_done(TimePoint now);
  void fail(ErrorKind kind, TimePoint now);
  void close_and_release(TimePoint now);

  Worker& worker_;
  event event_{};
  int fd_ = -1;
  State state_ = State::idle;
  bool event_added_ = false;
  std::uint32_t replies_ = 0;
  std::size_t sent_bytes_ = 0;
  TimePoint intended_{};
  TimePoint connect_start_{};
  TimePoint send_start_{};
  TimePoint first_byte_{};
  http::ResponseParser parser_;
};

}  // namespace rateperf::engine
