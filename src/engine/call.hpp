#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/clock.hpp"

namespace rateperf::engine {

// One request and its reply on a connection, with the call's own timestamps.
struct Call {
  TimePoint intended{};        // when the schedule meant the call to start
  TimePoint actual{};          // when the client took it up (the arrival, or the burst's start)
  TimePoint send_start{};      // the first byte of the request written
  TimePoint first_byte{};      // the first byte of the reply read
  // The kernel's times (--clock kernel), on the steady clock; the epoch where it gave none: the
  // request's transmit timestamp, and the arrival of the reply's first segment.
  TimePoint send_kernel{};
  TimePoint first_byte_kernel{};
  std::size_t sent_bytes = 0;  // of the request, so far
  std::size_t request_bytes = 0;  // the size of its request
  std::uint64_t number = 0;    // its number for --print-request/--print-reply (CallPrinter)
  bool no_body = false;        // its reply has no body (HEAD)
  Duration timeout{};          // its own watchdog (a session file's timeout=); zero: the run's
};

// The calls of a connection in flight, oldest first: a request being written or written, its
// reply not yet complete. Replies come in the order the requests went, so the front call owns
// the bytes being read. A ring of a fixed capacity (the most calls the run puts in flight on one
// connection), allocated once with the pooled connection that keeps it and reused by every
// later arrival: no allocation per connection.
class CallQueue {
 public:
  explicit CallQueue(std::size_t capacity)
      : ring_(std::make_unique<Call[]>(capacity)), capacity_(capacity) {
    assert(capacity > 0);
  }

  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == capacity_; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  Call& front() { return ring_[head_]; }
  const Call& front() const { return ring_[head_]; }
  Call& at(std::size_t i) { return ring_[(head_ + i) % capacity_]; }

  // Queues a call intended at `intended` and taken up at `actual`.
  Call& push(TimePoint intended, TimePoint actual) {
    assert(!full());
    Call& call = ring_[(head_ + size_) % capacity_];
    call = Call{};
    call.intended = intended;
    call.actual = actual;
    ++size_;
    return call;
  }
  void pop() {
    assert(!empty());
    head_ = (head_ + 1) % capacity_;
    --size_;
  }
  void clear() {
    head_ = 0;
    size_ = 0;
  }

 private:
  std::unique_ptr<Call[]> ring_;
  std::size_t capacity_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace rateperf::engine
