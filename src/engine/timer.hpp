#pragma once

#include "core/clock.hpp"
#include "schedule/timer_wheel.hpp"

namespace rateperf::engine {

// A timer of the loop's wheel with its own typed callback: bound once to a member function of
// its owner (MPD's BoundMethod), so that firing it needs no switch on a kind and no cast by the
// caller. Embedded in its owner; armed, re-armed and cancelled through the Loop.
class Timer : public schedule::WheelTimer {
 public:
  Timer() = default;
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Binds the timer to `Method` of `owner`, called with the time of the wake-up that fired it.
  template <auto Method, class Owner>
  void bind(Owner& owner) {
    owner_ = &owner;
    callback_ = [](void* self, Timer& timer, TimePoint now) {
      (static_cast<Owner*>(self)->*Method)(timer, now);
    };
  }

  void fire(TimePoint now) { callback_(owner_, *this, now); }

 private:
  void* owner_ = nullptr;
  void (*callback_)(void*, Timer&, TimePoint) = nullptr;
};

}  // namespace rateperf::engine
