#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/clock.hpp"
#include "engine/event.hpp"
#include "engine/pacing.hpp"
#include "engine/timer.hpp"
#include "options/config.hpp"
#include "schedule/timer_wheel.hpp"

namespace rateperf::engine {

// What the loop's waiting cost and how it went, for the report.
struct LoopFigures {
  std::uint64_t sleeps = 0;         // turns that slept in epoll_wait
  std::uint64_t polls = 0;          // turns that polled without sleeping
  std::uint64_t timer_arms = 0;     // timerfd_settime calls
  std::uint64_t timer_wakeups = 0;  // sleeps ended by the wake-up timer
  Duration lateness_p50{};          // of those wake-ups, after the timer's time
  Duration lateness_p99{};
  Duration margin{};      // how long before a deadline the last sleep was set to end
  Duration poll_below{};  // deadlines nearer than this were polled for
};

// A worker's event loop: a libevent base for the sockets, and a hashed timing wheel for every
// timer (arrivals, watchdogs, samples). Each turn serves the due timers, then waits for the next
// deadline as the Pacer (--timing) says: sleeps in epoll_wait, woken by a timerfd set as an
// absolute CLOCK_MONOTONIC time (steady_clock's clock, exact to the microsecond), or polls the
// sockets without sleeping. The timerfd is set only when the loop is about to sleep and the
// wake-up must come earlier than the one already set: a loop that is never idle sets it never.
//
// --batch-reads D: the sockets' read readiness goes to a second epoll set of the loop's own,
// which the loop drains (one epoll_wait with no timeout) at the end of a turn whose next turn
// would come D or more after the last drain, and sleeps on too when its next wake-up is more
// than D away. A reply that comes between two wake-ups so waits for a later one, at most D,
// instead of waking the client: its times are the kernel's, which the wait does not change. A
// watchdog that fires reads its socket first (Connection::on_watchdog): a reply waiting to be
// read is not timed out.
//
// --timing batch, turns of T (--batch-reads T, 0.2 ms by default): the loop takes a turn at most
// every T: it drains the batch set, fires the timers due (the arrivals that fell due since the
// last turn go out together, each up to T late, which its lag shows), and sleeps until the next
// turn or the next deadline, whichever is later. At tens of thousands of requests a second a
// turn serves some ten arrivals and ten replies for one wake-up, where the other modes wake (or
// poll) for each; the server gets the requests in bunches too.
//
// Owned by one Worker and used only on the thread that runs it.
class Loop {
 public:
  // A socket in the batch set: its callback (libevent's signature) and argument, called with
  // EV_READ, and EV_CLOSED when the peer closed or the socket has an error.
  struct Batched {
    event_callback_fn callback = nullptr;
    void* argument = nullptr;
    evutil_socket_t fd = -1;
  };

  // `turn`: --timing batch's turn length (zero for the other modes).
  explicit Loop(options::Timing timing = options::Timing::automatic,
                Duration batch_reads = Duration::zero(), Duration turn = Duration::zero());
  ~Loop();
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  event_base* base() const { return base_.get(); }

  // Starts the wheel's time at `start`; no timer may be armed yet.
  void reset(TimePoint start);

  // Arms `timer` at `deadline` (or moves it there).
  void schedule(Timer& timer, TimePoint deadline) {
    wheel_.schedule(timer, deadline);
    lower_next(deadline);
  }
  // Moves an armed timer's deadline: cheap when later (a watchdog pushed back on every I/O).
  void rearm(Timer& timer, TimePoint deadline) {
    wheel_.rearm(timer, deadline);
    lower_next(deadline);
  }
  // A cancelled timer may leave next_ early: the loop then serves once for nothing.
  void cancel(Timer& timer) { wheel_.cancel(timer); }

  // Called after each socket event with the time it read: a deadline that passed while the
  // loop was busy with other sockets is served now, not after the rest of the batch. One
  // comparison when nothing is due.
  void catch_up(TimePoint now) {
    ++window_events_;
    if (next_ && now >= *next_ && !serving_ && !deferred_) serve(now);
  }
  // The timer firing now left work due that must wait for the loop's next turn, after the
  // other ready events (a client far behind its schedule must still read replies): until then
  // catch_up() does not serve it.
  void defer_to_next_turn() { deferred_ = true; }

  // --batch-reads is on: sockets wait for their reads in the batch set.
  bool batching() const { return batch_fd_ >= 0; }
  // Puts `socket`'s read readiness in the batch set (edge triggered); closing the socket takes
  // it out. `socket` stays where it is until then.
  void watch_reads(Batched& socket);
  // Before its socket closes: `socket` leaves the batch set. Events of it that a drain has
  // already taken from the kernel are dropped: handling one socket's reads may end others (a
  // refused connection of --request-rate's pool opens the next for the waiting requests).
  void unwatch_reads(Batched& socket);

  // Runs until stop().
  void run();
  // Ends run() after the current callback.
  void stop();

  LoopFigures figures() const;

 private:
  // --timing batch's loop: a turn every turn_.
  void run_turns();
  static void on_wakeup(evutil_socket_t, short, void* self);
  static void on_batch(evutil_socket_t, short, void* self);
  // Calls back every socket of the batch set that became ready.
  void drain_batch();
  // Sleeps on the batch set too (or not): only when the sleep may be longer than batch_.
  void watch_batch(bool on);
  // Fires every due timer, then notes the next deadline.
  void serve(TimePoint now);
  // next_ stays a lower bound of every armed deadline, so that a turn of the loop with nothing
  // due does not look at the wheel at all.
  void lower_next(TimePoint deadline) {
    if (!next_ || deadline < *next_) next_ = deadline;
  }
  // Sets the timerfd to wake the loop at `at`, unless it is set to wake it no later.
  void arm(TimePoint at);

  EventBasePtr base_;
  schedule::TimerWheel wheel_;
  Pacer pacer_;
  int timer_fd_ = -1;  // the wake-up timerfd, read by wakeup_
  EventPtr wakeup_;
  Duration batch_{};   // --batch-reads
  Duration turn_{};    // --timing batch: the turn's length; zero: the Pacer's waits
  int batch_fd_ = -1;  // the batch set's epoll descriptor; -1: no batching
  EventPtr batch_event_;
  bool batch_watched_ = false;
  bool draining_ = false;                // drain_batch() is handing out a batch of events
  std::vector<const Batched*> dropped_;  // sockets closed while it does
  TimePoint last_drain_{};  // when the batch set was last drained
  bool armed_ = false;  // the timerfd is set and has not fired yet
  TimePoint armed_at_{};
  std::optional<TimePoint> next_;  // no armed deadline is earlier than this; none: no timer
  bool serving_ = false;
  bool deferred_ = false;  // see defer_to_next_turn()
  bool stopped_ = false;
  // Socket events counted over windows of kBusyWindow: the sockets are busy when the last
  // window had at least kBusyEvents per millisecond.
  std::uint64_t window_events_ = 0;
  TimePoint window_start_{};
  bool busy_ = false;
  LoopFigures figures_;
};

}  // namespace rateperf::engine
