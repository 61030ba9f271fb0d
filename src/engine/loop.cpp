#include "engine/loop.hpp"

#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

namespace rateperf::engine {

namespace {

// The wheel's geometry: 1 ms slots, 8192 of them (8.2 s per revolution), so that the usual
// watchdogs (a few seconds) sit within one revolution. The tick only sorts timers into slots;
// deadlines stay exact.
constexpr Duration kWheelTick = std::chrono::milliseconds(1);
constexpr std::size_t kWheelSlots = 8192;

EventBasePtr make_base() {
  EventConfigPtr config(event_config_new());
  if (!config) throw std::runtime_error("libevent: cannot create an event configuration");
  // No libevent timer is used (the timerfd wakes the loop), so epoll_wait never needs a
  // timeout. No change list either: it would defer the removal of a connection's registration
  // until after its descriptor is closed and perhaps reused by the next connection.
  event_config_set_flag(config.get(), EVENT_BASE_FLAG_NOLOCK);
  EventBasePtr base(event_base_new_with_config(config.get()));
  if (!base) throw std::runtime_error("libevent: cannot create an event loop");
  return base;
}

}  // namespace

Loop::Loop() : base_(make_base()), wheel_(TimePoint{}, kWheelTick, kWheelSlots) {
  // Edge triggered, so it needs no read(): each expiry is a new edge.
  timer_fd_ = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (timer_fd_ < 0) throw std::runtime_error("timerfd_create failed");
  wakeup_.reset(
      event_new(base_.get(), timer_fd_, EV_READ | EV_ET | EV_PERSIST, &Loop::on_wakeup, this));
  if (!wakeup_) throw std::runtime_error("libevent: cannot create events");
}

Loop::~Loop() {
  wakeup_.reset();
  if (timer_fd_ >= 0) ::close(timer_fd_);
}

void Loop::reset(TimePoint start) {
  wheel_ = schedule::TimerWheel(start, kWheelTick, kWheelSlots);
}

void Loop::run() {
  // Linux lets a sleeping thread's timers fire up to its "timer slack" late (50 us by default)
  // to batch wake-ups; every microsecond of it would show as lag, so ask for the least. The
  // slack is the calling thread's own.
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  event_add(wakeup_.get(), nullptr);
  arm_wakeup();
  if (!stopped_) event_base_dispatch(base_.get());
  event_del(wakeup_.get());
}

void Loop::stop() {
  stopped_ = true;
  event_base_loopbreak(base_.get());
}

void Loop::on_wakeup(evutil_socket_t, short, void* self) {
  auto* loop = static_cast<Loop*>(self);
  loop->wakeup_armed_ = false;
  loop->deferred_ = false;
  loop->waking_ = true;
  loop->wake(Clock::now());
  loop->waking_ = false;
}

void Loop::catch_up(TimePoint now) {
  if (!wakeup_armed_ || now < wakeup_at_ || waking_ || deferred_) return;
  waking_ = true;
  wake(now);
  waking_ = false;
}

void Loop::wake(TimePoint now) {
  wheel_.advance(now, [now](schedule::WheelTimer& timer) { static_cast<Timer&>(timer).fire(now); });
  if (!stopped_) arm_wakeup();
}

void Loop::schedule(Timer& timer, TimePoint deadline) {
  wheel_.schedule(timer, deadline);
  // Outside a wake-up (which re-arms when it ends), a deadline earlier than the armed one must
  // move the wake-up forward.
  if (!waking_ && (!wakeup_armed_ || deadline < wakeup_at_)) arm_wakeup();
}

void Loop::rearm(Timer& timer, TimePoint deadline) {
  wheel_.rearm(timer, deadline);
  if (!waking_ && (!wakeup_armed_ || deadline < wakeup_at_)) arm_wakeup();
}

void Loop::cancel(Timer& timer) {
  wheel_.cancel(timer);
}

void Loop::arm_wakeup() {
  const auto deadline = wheel_.next_deadline();
  itimerspec when{};
  if (deadline) {
    if (wakeup_armed_ && wakeup_at_ == *deadline) return;
    // A zero it_value would disarm: a deadline at the clock's epoch is moved by 1 ns.
    const auto ns = std::max<std::int64_t>(1, deadline->time_since_epoch().count());
    when.it_value.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
    when.it_value.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  } else if (!wakeup_armed_) {
    return;
  }
  ::timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &when, nullptr);
  wakeup_armed_ = deadline.has_value();
  if (deadline) wakeup_at_ = *deadline;
}

}  // namespace rateperf::engine
