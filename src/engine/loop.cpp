#include "engine/loop.hpp"

#include <sys/epoll.h>
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
// Busy sockets: 32 events a millisecond is some 16,000 connections or 30,000 keep-alive calls a
// second, where the loop hardly sleeps anyway; at 5000 conn/s (about 12 a millisecond) auto
// still sleeps between arrivals.
constexpr Duration kBusyWindow = std::chrono::milliseconds(1);
constexpr std::uint64_t kBusyEvents = 32;

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

Loop::Loop(options::Timing timing, Duration batch_reads, Duration turn)
    : base_(make_base()),
      wheel_(TimePoint{}, kWheelTick, kWheelSlots),
      pacer_(timing),
      batch_(batch_reads),
      turn_(turn) {
  if (batch_ > Duration::zero()) {
    batch_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (batch_fd_ < 0) throw std::runtime_error("epoll_create1 failed");
    batch_event_.reset(
        event_new(base_.get(), batch_fd_, EV_READ | EV_PERSIST, &Loop::on_batch, this));
    if (!batch_event_) throw std::runtime_error("libevent: cannot create events");
  }
  // Edge triggered, so it needs no read(): each expiry is a new edge.
  timer_fd_ = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (timer_fd_ < 0) throw std::runtime_error("timerfd_create failed");
  wakeup_.reset(event_new(base_.get(), timer_fd_, EV_READ | EV_ET | EV_PERSIST, &Loop::on_wakeup,
                          this));
  if (!wakeup_) throw std::runtime_error("libevent: cannot create events");
}

Loop::~Loop() {
  wakeup_.reset();
  batch_event_.reset();
  if (timer_fd_ >= 0) ::close(timer_fd_);
  if (batch_fd_ >= 0) ::close(batch_fd_);
}

void Loop::watch_reads(Batched& socket) {
  epoll_event interest{};
  interest.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
  interest.data.ptr = &socket;
  ::epoll_ctl(batch_fd_, EPOLL_CTL_ADD, socket.fd, &interest);
}

void Loop::unwatch_reads(Batched& socket) {
  if (draining_) dropped_.push_back(&socket);
  socket = Batched{};
}

void Loop::on_batch(evutil_socket_t, short, void* self) {
  static_cast<Loop*>(self)->drain_batch();
}

void Loop::drain_batch() {
  last_drain_ = Clock::now();
  constexpr int kMost = 128;
  epoll_event ready[kMost];
  struct Draining {
    Loop& loop;
    explicit Draining(Loop& l) : loop(l) { loop.draining_ = true; }
    ~Draining() {
      loop.draining_ = false;
      loop.dropped_.clear();
    }
  } draining(*this);
  for (;;) {
    const int n = ::epoll_wait(batch_fd_, ready, kMost, 0);
    dropped_.clear();
    for (int i = 0; i < n; ++i) {
      auto* socket = static_cast<Batched*>(ready[i].data.ptr);
      // Closed by an earlier one's callback (and maybe open again, on a new socket that the
      // event is not for).
      if (std::find(dropped_.begin(), dropped_.end(), socket) != dropped_.end()) continue;
      // An error or a hang-up is read to its end, as a close is; never taken for a write edge
      // (the batch set holds reads only).
      const std::uint32_t events = ready[i].events;
      short what = EV_READ;
      if (events & (EPOLLRDHUP | EPOLLERR | EPOLLHUP)) what = static_cast<short>(what | EV_CLOSED);
      socket->callback(socket->fd, what, socket->argument);
      if (stopped_) return;
    }
    if (n < kMost) return;
  }
}

void Loop::watch_batch(bool on) {
  if (on == batch_watched_) return;
  if (on) {
    event_add(batch_event_.get(), nullptr);
  } else {
    event_del(batch_event_.get());
  }
  batch_watched_ = on;
}

void Loop::reset(TimePoint start) {
  wheel_ = schedule::TimerWheel(start, kWheelTick, kWheelSlots);
  next_.reset();
}

void Loop::run() {
  // Linux lets a sleeping thread's timers fire up to its "timer slack" late (50 us by default)
  // to batch wake-ups; every microsecond of it would show as lag, so ask for the least. The
  // slack is the calling thread's own.
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  event_add(wakeup_.get(), nullptr);
  if (turn_ > Duration::zero()) {
    run_turns();
    return;
  }
  TimePoint now = Clock::now();
  while (!stopped_) {
    deferred_ = false;
    if (next_ && now >= *next_) serve(now);
    if (stopped_) break;
    if (now - window_start_ >= kBusyWindow) {
      busy_ = window_events_ * kBusyWindow >= kBusyEvents * (now - window_start_);
      window_events_ = 0;
      window_start_ = now;
    }
    Wait wait = pacer_.plan(now, next_, busy_);
    if (batch_fd_ >= 0) {
      // The replies that came since the last drain are read now if the loop's next turn would
      // come more than the bound after it; otherwise they wait for that turn.
      const bool far = wait.sleep && (!wait.wake_at || *wait.wake_at - last_drain_ >= batch_);
      if (far || (!wait.sleep && now - last_drain_ >= batch_)) {
        drain_batch();
        if (stopped_) break;
        now = Clock::now();
        // What the replies set off (a closed loop's next arrival, a session's next call) may
        // be due sooner than the wait planned.
        if (next_ && now >= *next_) continue;
        wait = pacer_.plan(now, next_, busy_);
      }
      // A sleep longer than the bound wakes for a reply too.
      watch_batch(wait.sleep && (!wait.wake_at || *wait.wake_at - now > batch_));
    }
    if (wait.sleep) {
      if (wait.wake_at) arm(*wait.wake_at);
      ++figures_.sleeps;
      event_base_loop(base_.get(), EVLOOP_ONCE);
    } else {
      ++figures_.polls;
      event_base_loop(base_.get(), EVLOOP_NONBLOCK);
    }
    now = Clock::now();
  }
  event_del(wakeup_.get());
  if (batch_fd_ >= 0) watch_batch(false);
}

void Loop::run_turns() {
  TimePoint now = Clock::now();
  TimePoint turn_at = now;
  bool behind = false;
  while (!stopped_) {
    if (behind || now >= turn_at) {
      turn_at = now + turn_;
      deferred_ = false;
      if (batch_fd_ >= 0) drain_batch();
      if (stopped_) break;
      now = Clock::now();
      if (next_ && now >= *next_) serve(now);
      if (stopped_) break;
      // Arrivals still due past the burst limit (a client far behind): the sockets' events
      // now, then the rest at once, not a turn later.
      behind = deferred_;
    }
    if (behind) {
      ++figures_.polls;
      event_base_loop(base_.get(), EVLOOP_NONBLOCK);
      now = Clock::now();
      continue;
    }
    std::optional<TimePoint> wake;
    if (next_) wake = std::max(*next_, turn_at);
    // A sleep longer than the bound wakes for a reply too.
    if (batch_fd_ >= 0) watch_batch(!wake || *wake - now > batch_);
    if (wake) arm(*wake);
    ++figures_.sleeps;
    event_base_loop(base_.get(), EVLOOP_ONCE);
    now = Clock::now();
  }
  event_del(wakeup_.get());
  if (batch_fd_ >= 0) watch_batch(false);
}

void Loop::stop() {
  stopped_ = true;
  event_base_loopbreak(base_.get());
}

void Loop::on_wakeup(evutil_socket_t, short, void* self) {
  auto* loop = static_cast<Loop*>(self);
  if (!loop->armed_) return;
  loop->armed_ = false;
  ++loop->figures_.timer_wakeups;
  // How late the wake-up came, which hybrid and auto learn their margins from.
  const TimePoint now = Clock::now();
  loop->pacer_.woke(now - loop->armed_at_, now);
}

void Loop::serve(TimePoint now) {
  serving_ = true;
  wheel_.advance(now, [now](schedule::WheelTimer& timer) { static_cast<Timer&>(timer).fire(now); });
  next_ = wheel_.next_deadline();
  serving_ = false;
}

void Loop::arm(TimePoint at) {
  if (armed_ && armed_at_ <= at) return;
  itimerspec when{};
  // A zero it_value would disarm: a time at the clock's epoch is moved by 1 ns.
  const auto ns = std::max<std::int64_t>(1, at.time_since_epoch().count());
  when.it_value.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  when.it_value.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  ::timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &when, nullptr);
  ++figures_.timer_arms;
  armed_ = true;
  armed_at_ = at;
}

LoopFigures Loop::figures() const {
  LoopFigures f = figures_;
  const LatenessTracker& lateness = pacer_.lateness();
  if (lateness.samples() > 0) {
    f.lateness_p50 = lateness.quantile(0.5);
    f.lateness_p99 = lateness.quantile(0.99);
  }
  f.margin = pacer_.margin();
  f.poll_below = pacer_.poll_below() == Duration::max() ? Duration::zero() : pacer_.poll_below();
  return f;
}

}  // namespace rateperf::engine
