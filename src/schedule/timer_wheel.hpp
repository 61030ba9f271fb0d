#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/clock.hpp"

namespace rateperf::schedule {

// An intrusive timer: the owner embeds it (no allocation per timer) and the wheel links it into
// a slot. What a timer does when it fires is the business of the code that owns the wheel
// (engine::Timer adds a typed callback); the wheel only hands back the timer.
struct WheelTimer {
  TimePoint deadline{};
  // Links of the slot's doubly linked list; managed by the wheel.
  WheelTimer* prev = nullptr;
  WheelTimer* next = nullptr;
  // The tick whose slot holds this timer; kUnarmed when not armed, kExpired while it waits in
  // the wheel's list of due timers during advance().
  std::int64_t slot_tick = kUnarmed;

  static constexpr std::int64_t kUnarmed = -1;
  static constexpr std::int64_t kExpired = -2;

  bool armed() const { return slot_tick != kUnarmed; }
};

// A hashed timing wheel. Pure: it never reads a clock; time comes in through advance().
//
// Timers keep their exact deadlines: a timer fires in the first advance() whose `now` has
// reached its deadline, never earlier and never rounded to a tick, so the wheel can schedule
// arrivals without quantising the rate. The tick only decides which slot holds a timer.
//
// Re-arming a timer to a later deadline is cheap (rearm() only stores the deadline when the
// timer sits in an earlier slot); the wheel moves such a timer to its proper slot when it meets
// it. This is what per-connection inactivity watchdogs need: one timer each, pushed back on
// every I/O event.
//
// Owned by one engine::Loop and used only on its thread.
class TimerWheel {
 public:
  // `start`: the time of tick 0. `tick`: the span of one slot. `slots`: a power of two.
  TimerWheel(TimePoint start, Duration tick, std::size_t slots);

  // Arms `timer` to fire at `deadline` (links it; if armed already, moves it).
  void schedule(WheelTimer& timer, TimePoint deadline);
  // Changes an armed timer's deadline. A later deadline only updates the field (lazy move); an
  // earlier one relinks it. An unarmed timer is scheduled.
  void rearm(WheelTimer& timer, TimePoint deadline);
  // Disarms `timer`; no-op when it is not armed.
  void cancel(WheelTimer& timer);

  // Fires (unlinks, then calls `on_expire(timer)`) every timer whose deadline <= now, in no
  // promised order. A callback may schedule, rearm or cancel any timer, including the one it
  // was called for; timers it schedules at or before `now` fire in this call or in the next
  // (next_deadline() then returns a time <= now). Returns the number fired.
  template <class F>
  std::size_t advance(TimePoint now, F&& on_expire);

  // The earliest time at which advance() may have work, never later than the earliest deadline
  // of an armed timer: that exact deadline, or, when finding it would mean looking at too many
  // timers (see kScanBudget), the start of a later slot (the advance() then moves the wheel on,
  // and the next call looks further). nullopt when no timer is armed.
  std::optional<TimePoint> next_deadline() const;

  std::size_t size() const { return size_; }

 private:
  std::int64_t tick_of(TimePoint t) const;
  void link(WheelTimer& timer, std::int64_t tick);
  void unlink(WheelTimer& timer);
  // Moves the timers due at `now` out of the slots up to now's tick into expired_ (marked
  // kExpired), and re-files the ones whose deadlines moved later.
  void collect_due(TimePoint now);
  // Unlinks and returns the first timer of expired_, or nullptr.
  WheelTimer* pop_expired();
  // The first tick in [from, end) whose slot holds timers, or `end`; `end - from` <= slots.
  std::int64_t next_occupied(std::int64_t from, std::int64_t end) const;
  TimePoint tick_start(std::int64_t tick) const { return start_ + tick * tick_; }

  TimePoint start_;
  Duration tick_;
  std::size_t mask_;
  std::vector<WheelTimer*> slots_;  // heads of the slots' lists
  // Timers found due by advance() and not yet fired. A callback that cancels or reschedules one
  // of them takes it out of here, so a timer never fires after its owner let go of it.
  WheelTimer* expired_ = nullptr;
  WheelTimer* expired_tail_ = nullptr;  // so that due timers fire in the order they were found
  // One bit per slot, set while the slot's list is non-empty: scans skip 64 empty slots a step;
  // and one bit per word of it, set while the word is not 0: scans skip empty words in a step.
  std::vector<std::uint64_t> occupied_;
  std::vector<std::uint64_t> summary_;
  // The first word of occupied_ at or after `word` that is not 0; occupied_.size() if none.
  std::size_t next_word(std::size_t word) const;
  std::int64_t current_tick_ = 0;  // slots before this tick have been emptied
  std::size_t size_ = 0;
};

template <class F>
std::size_t TimerWheel::advance(TimePoint now, F&& on_expire) {
  std::size_t fired = 0;
  collect_due(now);
  while (WheelTimer* timer = pop_expired()) {
    ++fired;
    on_expire(*timer);
  }
  return fired;
}

}  // namespace rateperf::schedule
