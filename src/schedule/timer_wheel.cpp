#include "schedule/timer_wheel.hpp"

#include <algorithm>
#include <bit>
#include <cassert>

namespace rateperf::schedule {

namespace {

// next_deadline() runs once per event-loop iteration. Past this many timers looked at, it stops
// at the next slot boundary and returns that slot's start, a safe lower bound: the loop then
// wakes a little early, and the advance() at that time moves the wheel past the slots already
// looked at, so the next search starts further on. This bounds the cost when thousands of
// watchdogs sit in slots of later revolutions or have been pushed back lazily.
constexpr std::size_t kScanBudget = 256;

}  // namespace

// Invariants, which next_deadline() relies on:
// - every timer in a slot has slot_tick >= current_tick_ and sits in slot (slot_tick & mask_);
// - slot_tick <= tick_of(deadline), except for timers filed at current_tick_ because their
//   deadline had already passed (those are due at the next advance());
// so a timer found in the slot of tick k (k > current_tick_) has a deadline >= tick_start(k).

TimerWheel::TimerWheel(TimePoint start, Duration tick, std::size_t slots)
    : start_(start),
      tick_(tick),
      mask_(slots - 1),
      slots_(slots, nullptr),
      occupied_((slots + 63) / 64, 0),
      summary_((occupied_.size() + 63) / 64, 0) {
  assert(tick > Duration::zero());
  assert(slots > 0 && std::has_single_bit(slots));
}

std::int64_t TimerWheel::tick_of(TimePoint t) const {
  if (t <= start_) return 0;
  return (t - start_) / tick_;
}

void TimerWheel::link(WheelTimer& timer, std::int64_t tick) {
  // A deadline in a slot already passed goes into the current one, which advance() looks at
  // first; its exact deadline still decides when it fires.
  tick = std::max(tick, current_tick_);
  const std::size_t slot = static_cast<std::size_t>(tick) & mask_;
  timer.slot_tick = tick;
  timer.prev = nullptr;
  timer.next = slots_[slot];
  if (timer.next != nullptr) timer.next->prev = &timer;
  slots_[slot] = &timer;
  occupied_[slot >> 6] |= std::uint64_t{1} << (slot & 63);
  summary_[slot >> 12] |= std::uint64_t{1} << ((slot >> 6) & 63);
}

void TimerWheel::unlink(WheelTimer& timer) {
  if (timer.slot_tick == WheelTimer::kExpired) {
    if (timer.prev != nullptr) {
      timer.prev->next = timer.next;
    } else {
      expired_ = timer.next;
    }
    if (timer.next != nullptr) {
      timer.next->prev = timer.prev;
    } else {
      expired_tail_ = timer.prev;
    }
  } else {
    const std::size_t slot = static_cast<std::size_t>(timer.slot_tick) & mask_;
    if (timer.prev != nullptr) {
      timer.prev->next = timer.next;
    } else {
      slots_[slot] = timer.next;
      if (timer.next == nullptr) {
        std::uint64_t& word = occupied_[slot >> 6];
        word &= ~(std::uint64_t{1} << (slot & 63));
        if (word == 0) summary_[slot >> 12] &= ~(std::uint64_t{1} << ((slot >> 6) & 63));
      }
    }
    if (timer.next != nullptr) timer.next->prev = timer.prev;
  }
  timer.prev = nullptr;
  timer.next = nullptr;
}

void TimerWheel::schedule(WheelTimer& timer, TimePoint deadline) {
  if (timer.armed()) {
    unlink(timer);
  } else {
    ++size_;
  }
  timer.deadline = deadline;
  link(timer, tick_of(deadline));
}

void TimerWheel::rearm(WheelTimer& timer, TimePoint deadline) {
  // A timer in a slot at or before its new deadline's tick can stay where it is: the wheel meets
  // that slot first and re-files it then. A timer waiting in expired_ must leave that list, or it
  // would fire at its old deadline.
  if (timer.armed() && timer.slot_tick != WheelTimer::kExpired &&
      tick_of(deadline) >= timer.slot_tick) {
    timer.deadline = deadline;
    return;
  }
  schedule(timer, deadline);
}

void TimerWheel::cancel(WheelTimer& timer) {
  if (!timer.armed()) return;
  unlink(timer);
  timer.slot_tick = WheelTimer::kUnarmed;
  --size_;
}

std::size_t TimerWheel::next_word(std::size_t word) const {
  for (std::size_t s = word >> 6; s < summary_.size(); ++s) {
    std::uint64_t bits = summary_[s];
    if (s == word >> 6) bits &= ~std::uint64_t{0} << (word & 63);
    if (bits != 0) return s * 64 + static_cast<std::size_t>(std::countr_zero(bits));
  }
  return occupied_.size();
}

std::int64_t TimerWheel::next_occupied(std::int64_t from, std::int64_t end) const {
  const std::size_t slot_count = mask_ + 1;
  std::int64_t tick = from;
  while (tick < end) {
    const std::size_t slot = static_cast<std::size_t>(tick) & mask_;
    const std::uint64_t bits = occupied_[slot >> 6] >> (slot & 63);
    if (bits != 0) return std::min(end, tick + std::countr_zero(bits));
    // Skip to the next word, or to slot 0 when the wheel has fewer than 64 slots.
    const std::size_t step = std::min<std::size_t>(64 - (slot & 63), slot_count - slot);
    tick += static_cast<std::int64_t>(step);
    if (slot_count <= 64) continue;
    // Then past the empty words, to the next one with a slot in use or to the wheel's end
    // (slot 0 of its next revolution).
    const std::size_t word = (slot >> 6) + 1;
    tick += static_cast<std::int64_t>((next_word(word) - word) * 64);
  }
  return end;
}

void TimerWheel::collect_due(TimePoint now) {
  const std::int64_t now_tick = std::max(tick_of(now), current_tick_);
  // Past one revolution every slot has been looked at; the slot_tick test below tells the timers
  // that are due from those of later revolutions.
  const std::int64_t span =
      std::min<std::int64_t>(now_tick - current_tick_ + 1, static_cast<std::int64_t>(mask_ + 1));
  const std::int64_t end = current_tick_ + span;
  for (std::int64_t tick = next_occupied(current_tick_, end); tick < end;
       tick = next_occupied(tick + 1, end)) {
    WheelTimer* timer = slots_[static_cast<std::size_t>(tick) & mask_];
    while (timer != nullptr) {
      WheelTimer* const next = timer->next;
      if (timer->slot_tick <= now_tick) {
        if (timer->deadline <= now) {
          unlink(*timer);
          timer->slot_tick = WheelTimer::kExpired;
          timer->prev = expired_tail_;
          if (expired_tail_ != nullptr) {
            expired_tail_->next = timer;
          } else {
            expired_ = timer;
          }
          expired_tail_ = timer;
        } else {
          // Not due: either its deadline lies later in now's tick, or it was re-armed lazily
          // and belongs in a later slot. A timer re-filed into the slot being walked goes to its
          // head, behind the walk, so it is not met twice.
          const std::int64_t wanted = std::max(tick_of(timer->deadline), now_tick);
          if (wanted != timer->slot_tick) {
            unlink(*timer);
            link(*timer, wanted);
          }
        }
      }
      timer = next;
    }
  }
  current_tick_ = now_tick;
}

WheelTimer* TimerWheel::pop_expired() {
  WheelTimer* const timer = expired_;
  if (timer == nullptr) return nullptr;
  unlink(*timer);
  timer->slot_tick = WheelTimer::kUnarmed;
  --size_;
  return timer;
}

std::optional<TimePoint> TimerWheel::next_deadline() const {
  if (size_ == 0) return std::nullopt;
  std::optional<TimePoint> best;
  auto consider = [&best](const WheelTimer* timer) {
    if (!best || timer->deadline < *best) best = timer->deadline;
  };
  // Only non-empty while advance() runs its callbacks.
  for (const WheelTimer* timer = expired_; timer != nullptr; timer = timer->next) consider(timer);

  const std::int64_t end = current_tick_ + static_cast<std::int64_t>(mask_ + 1);
  std::size_t looked_at = 0;
  for (std::int64_t tick = next_occupied(current_tick_, end); tick < end;
       tick = next_occupied(tick + 1, end)) {
    // The current slot may hold overdue timers and is always read in full. In a later slot every
    // deadline is at or after the slot's start, so once that start is not before the best
    // deadline found, nothing further on can be earlier.
    if (tick > current_tick_) {
      if (best && tick_start(tick) >= *best) return best;
      if (looked_at >= kScanBudget) return tick_start(tick);
    }
    // Every timer counts, including those of later revolutions and those re-armed lazily: their
    // deadline fields are exact, only their slots lag.
    for (const WheelTimer* timer = slots_[static_cast<std::size_t>(tick) & mask_]; timer != nullptr;
         timer = timer->next) {
      consider(timer);
      ++looked_at;
    }
  }
  return best;
}

}  // namespace rateperf::schedule
