#pragma once

// demo_server's capacity: a fixed number of virtual workers, each busy for the service time with
// one request, and the FIFO queue of requests waiting for one.

#include <event2/event.h>

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <vector>

#include "demo_connection.hpp"

namespace rateperf::demo {

class WorkerPool;

// A virtual worker: busy for service_ms with one connection.
struct Slot {
  WorkerPool* pool = nullptr;
  Connection* connection = nullptr;
  std::chrono::steady_clock::time_point done_at;  // when the current request's service ends
  EventPtr timer;
};

// The virtual workers and their queue. A request holds a worker for the service time (a libevent
// timer) and is then handed to the `served` callback, which answers it; the worker then takes the
// queue's first request. Owned by the Server; lives on the loop thread.
class WorkerPool {
 public:
  // Answers a request whose service has ended (and may close its connection).
  using Served = std::function<void(Connection&)>;

  // `queue_limit` 0: the queue is unbounded.
  WorkerPool(event_base* base, int workers, std::chrono::microseconds service_time,
             std::size_t queue_limit, Served served);
  // The workers' timers hold pointers to the pool's slots: it never moves.
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Takes a complete request into a free worker, or else into the queue. False when the queue is
  // full: the caller sheds the request.
  bool admit(Connection& connection);
  // Forgets a queued request whose client has gone.
  void withdraw(Connection& connection);

 private:
  static void on_service_done(evutil_socket_t, short, void* s) {
    auto* slot = static_cast<Slot*>(s);
    slot->pool->finish_service(*slot);
  }

  Slot* free_slot();
  void start_service(Slot& slot, Connection& connection,
                     std::chrono::steady_clock::time_point start);
  void finish_service(Slot& slot);

  std::chrono::microseconds service_time_;
  std::size_t queue_limit_;
  Served served_;
  std::vector<Slot> slots_;
  std::deque<Connection*> queue_;
};

}  // namespace rateperf::demo
