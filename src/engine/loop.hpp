#pragma once

#include "core/clock.hpp"
#include "engine/event.hpp"
#include "engine/timer.hpp"
#include "schedule/timer_wheel.hpp"

namespace rateperf::engine {

// A worker's event loop: a libevent base for the sockets, and a hashed timing wheel for every
// timer (arrivals, watchdogs, samples), woken by one timerfd set to the wheel's next deadline as
// an absolute CLOCK_MONOTONIC time (steady_clock's clock): exact to the microsecond, and set
// again only when that deadline moves, not at every turn of the loop as libevent's own timers
// would be.
//
// Owned by one Worker and used only on the thread that runs it.
class Loop {
 public:
  Loop();
  ~Loop();
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  event_base* base() const { return base_.get(); }

  // Starts the wheel's time at `start`; no timer may be armed yet.
  void reset(TimePoint start);

  // Arms `timer` at `deadline` (or moves it there), waking the loop earlier if need be.
  void schedule(Timer& timer, TimePoint deadline);
  // Moves an armed timer's deadline: cheap when later (a watchdog pushed back on every I/O).
  void rearm(Timer& timer, TimePoint deadline);
  void cancel(Timer& timer);

  // Called after each socket event with the time it read: a deadline that passed while the
  // loop was busy with other sockets is served now, not after the rest of the batch and the
  // next epoll_wait. One comparison when nothing is due.
  void catch_up(TimePoint now);
  // The timer firing now left work due that must wait for the loop's next turn, after the
  // other ready events (a client far behind its schedule must still read replies): until then
  // catch_up() does not serve it.
  void defer_to_next_turn() { deferred_ = true; }

  // Runs until stop().
  void run();
  // Ends run() after the current callback.
  void stop();

 private:
  static void on_wakeup(evutil_socket_t, short, void* self);
  // Fires every due timer, then sets the wake-up for the next deadline.
  void wake(TimePoint now);
  void arm_wakeup();

  EventBasePtr base_;
  schedule::TimerWheel wheel_;
  int timer_fd_ = -1;  // the wake-up timerfd, read by wakeup_
  EventPtr wakeup_;
  bool wakeup_armed_ = false;
  TimePoint wakeup_at_{};
  bool waking_ = false;    // inside wake(), which re-arms the wake-up when it ends
  bool deferred_ = false;  // see defer_to_next_turn()
  bool stopped_ = false;
};

}  // namespace rateperf::engine
