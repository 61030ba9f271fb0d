#pragma once

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>

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
// the bytes being read. A ring of `Capacity` calls (the most a connection has in flight) kept
// inside the pooled connection: no allocation.
template <std::size_t Capacity>
class CallQueue {
 public:
  static_assert(Capacity > 0 && Capacity < 256);

  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == Capacity; }
  std::size_t size() const { return size_; }
  Call& front() { return ring_[head_]; }
  Call& at(std::size_t i) { return ring_[(head_ + i) % Capacity]; }

  Call& push() {
    assert(!full());
    Call& call = ring_[(head_ + size_) % Capacity];
    call = Call{};
    ++size_;
    return call;
  }
  void pop() {
    assert(!empty());
    head_ = static_cast<std::uint8_t>((head_ + 1) % Capacity);
    --size_;
  }
  void clear() {
    head_ = 0;
    size_ = 0;
  }

 private:
  std::array<Call, Capacity> ring_{};
  std::uint8_t head_ = 0;
  std::uint8_t size_ = 0;
};

}  // namespace rateperf::engine
