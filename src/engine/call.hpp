#pragma once

#include <cassert>
#include <cstddef>
#include <vector>

#include "core/clock.hpp"

namespace rateperf::engine {

// One request and its reply on a connection, with the call's own timestamps.
struct Call {
  TimePoint send_start{};      // the first byte of the request written
  TimePoint first_byte{};      // the first byte of the reply read
  std::size_t sent_bytes = 0;  // of the request, so far
};

// The calls of a connection in flight, oldest first: a request being written or written, its
// reply not yet complete. Replies come in the order the requests went, so the front call owns
// the bytes being read. A ring of fixed capacity (the most calls a connection has in flight),
// allocated once per pooled connection.
class CallQueue {
 public:
  explicit CallQueue(std::size_t capacity) : ring_(capacity) { assert(capacity > 0); }

  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == ring_.size(); }
  std::size_t size() const { return size_; }
  Call& front() { return ring_[head_]; }
  Call& at(std::size_t i) { return ring_[(head_ + i) % ring_.size()]; }

  Call& push() {
    assert(!full());
    Call& call = ring_[(head_ + size_) % ring_.size()];
    call = Call{};
    ++size_;
    return call;
  }
  void pop() {
    assert(!empty());
    head_ = (head_ + 1) % ring_.size();
    --size_;
  }
  void clear() {
    head_ = 0;
    size_ = 0;
  }

 private:
  std::vector<Call> ring_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace rateperf::engine
