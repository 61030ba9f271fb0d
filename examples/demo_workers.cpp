// demo_server's virtual workers and their queue (see demo_workers.hpp).

#include "demo_workers.hpp"

#include <sys/time.h>

#include <algorithm>
#include <utility>

namespace rateperf::demo {

WorkerPool::WorkerPool(event_base* base, int workers, std::chrono::microseconds service_time,
                       std::size_t queue_limit, Served served)
    : service_time_(service_time), queue_limit_(queue_limit), served_(std::move(served)) {
  // The slots never move after this: their timers hold pointers to them.
  slots_.resize(static_cast<std::size_t>(workers));
  for (Slot& slot : slots_) {
    slot.pool = this;
    slot.timer.reset(evtimer_new(base, on_service_done, &slot));
  }
}

bool WorkerPool::admit(Connection& connection) {
  if (Slot* slot = free_slot()) {
    start_service(*slot, connection, std::chrono::steady_clock::now());
  } else if (queue_limit_ == 0 || queue_.size() < queue_limit_) {
    connection.state = State::queued;
    connection.queued_at = std::chrono::steady_clock::now();
    queue_.push_back(&connection);
  } else {
    return false;
  }
  return true;
}

void WorkerPool::withdraw(Connection& connection) {
  queue_.erase(std::find(queue_.begin(), queue_.end(), &connection));
}

Slot* WorkerPool::free_slot() {
  for (Slot& slot : slots_) {
    if (slot.connection == nullptr) return &slot;
  }
  return nullptr;
}

// A busy worker starts its next request the moment the previous one ends (`start` is that
// moment, or when the request arrived if that is later), not when the loop got round to noticing:
// otherwise every timer's wake-up latency would add to the service time and the capacity would fall
// short of what the options say.
void WorkerPool::start_service(Slot& slot, Connection& connection,
                               std::chrono::steady_clock::time_point start) {
  connection.state = State::serving;
  slot.connection = &connection;
  slot.done_at = start + service_time_;
  const auto delay = std::max(std::chrono::duration_cast<std::chrono::microseconds>(
                                  slot.done_at - std::chrono::steady_clock::now()),
                              std::chrono::microseconds(0));
  const timeval timeout{static_cast<time_t>(delay.count() / 1000000),
                        static_cast<suseconds_t>(delay.count() % 1000000)};
  evtimer_add(slot.timer.get(), &timeout);
}

void WorkerPool::finish_service(Slot& slot) {
  Connection& connection = *slot.connection;
  slot.connection = nullptr;
  served_(connection);
  if (!queue_.empty()) {
    Connection* next = queue_.front();
    queue_.pop_front();
    start_service(slot, *next, std::max(slot.done_at, next->queued_at));
  }
}

}  // namespace rateperf::demo
