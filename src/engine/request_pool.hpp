#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>

#include "core/errors.hpp"
#include "engine/connection.hpp"
#include "engine/context.hpp"
#include "engine/timer.hpp"

namespace rateperf::engine {

// Request mode's connections: a pool of persistent connections, opened at the start, that the
// schedule's requests go out on (wrk2's model). A request goes to a connection with room (round
// robin among them); when none has room it waits, first come first served, for the first
// connection to have room, and its latency and wait count from its intended time: a slow
// server shows as latency and wait, never as a lower offered rate. With pipelining, the
// requests due at one wake-up of the client fill one connection's room before the next one's,
// and each connection's go out in one write: the server reads them as one pipelined burst, as
// it does the waiting requests a connection takes once replies free half its room. The
// pool never grows beyond its size: a connection the server closes is opened again when a
// request needs it. With --timeout, a request that waits that long for room fails as
// client-timo (no progress for the timeout), so a dead server cannot hold the run for the whole
// backlog.
//
// Owned by a Worker, on its thread; the worker forwards its connections' events here.
class RequestPool {
 public:
  // `size` connections at most; `context` is the worker's, whose owner forwards
  // connection_idle() and connection_ended() of the pool's connections to idle() and ended().
  // `expired` is called after waiting requests expired (the run may be over).
  RequestPool(ConnectionContext& context, std::size_t size,
              std::function<void(TimePoint)> expired);
  RequestPool(const RequestPool&) = delete;
  RequestPool& operator=(const RequestPool&) = delete;
  ~RequestPool();

  // Opens the pool's connections.
  void open_all(TimePoint now);
  // A request of the schedule, taken at `request.actual`; written by send_arrived().
  void arrive(const Request& request, TimePoint now);
  // Writes the requests arrive() queued: after each wake-up's arrivals.
  void send_arrived(TimePoint now);
  // A connection of the pool has room for another request.
  void idle(Connection& connection, TimePoint now);
  // A connection of the pool closed.
  void ended(Connection& connection, TimePoint now);

  // No request waits and none is in flight.
  bool quiet() const;
  // Closes the connections with nothing in flight (the end of the run).
  void close_idle(TimePoint now);
  // Ends every connection with `kind` for its calls, and every waiting request with `kind`.
  void abort_all(ErrorKind kind, TimePoint now);

 private:
  void on_refill(Timer& timer, TimePoint now);
  void on_expire(Timer& timer, TimePoint now);
  // Arms the expiry of the oldest waiting request.
  void arm_expiry();
  // Opens a connection, with `first` as its first request if any.
  void open_one(TimePoint now, const Request* first);
  // Puts a connection with room at the back of the round robin.
  void offer(Connection& connection);

  ConnectionContext& context_;
  std::size_t size_;
  std::size_t open_ = 0;               // connections open or connecting
  ConnectionStore members_;            // grows to `size_`
  std::deque<Connection*> ready_;      // members with room, maybe stale (checked when taken)
  Connection* filling_ = nullptr;      // takes arrivals while it has room, until send_arrived()
  std::deque<Request> waiting_;        // requests that found no room, oldest first
  Timer refill_;                       // opens connections for waiting requests, next turn
  Timer expire_;                       // fails waiting requests older than --timeout
  std::function<void(TimePoint)> expired_;
};

}  // namespace rateperf::engine
