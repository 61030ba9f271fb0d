#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/clock.hpp"
#include "options/config.hpp"

namespace rateperf::engine {

// The lateness of the loop's recent timed wake-ups: how long after the wake-up timer's time the
// loop ran again (this machine's timer slack, interrupt latency and scheduling). Pure: the loop
// measures, this only keeps the last kWindow samples and answers quantiles of them.
class LatenessTracker {
 public:
  static constexpr std::size_t kWindow = 256;
  // Before any sample: the median wake-up lateness measured on this project's machines.
  static constexpr Duration kAssumed = std::chrono::microseconds(100);

  void record(Duration lateness);
  std::uint64_t samples() const { return count_; }
  // The q-quantile (0 < q <= 1) of the window; kAssumed before any sample.
  Duration quantile(double q) const;

 private:
  std::array<Duration, kWindow> ring_{};
  std::uint64_t count_ = 0;
};

// What one turn of the loop does about its next deadline.
struct Wait {
  // true: sleep in epoll_wait until a socket event or the wake-up timer; false: poll the
  // sockets without sleeping and come back.
  bool sleep = false;
  std::optional<TimePoint> wake_at;  // the wake-up timer's time when sleeping; none: no deadline
};

// The pacing policy of --timing, pure so that a fake clock drives it exactly:
// - sleep: sleeps until each deadline (the wake-up comes late by the machine's lateness);
// - spin: never sleeps, polls (a whole core, httperf's way);
// - hybrid: sleeps until a margin before the deadline, the margin being the p99 of this run's
//   measured lateness plus 10 us, then polls until the deadline: punctual to the microsecond,
//   at the cost of polling that margin before every deadline;
// - auto: polls when the deadline is nearer than a typical (median) wake-up lateness, where a
//   sleep would come back too late anyway. A deadline within kNearLateness median latenesses
//   is slept for until the median lateness before it, then polled for: a wake-up lands on it
//   half the time, where the lateness is a large part of the gap (at 10,000 conn/s, 100 us
//   apart). A farther one is slept for to the deadline itself, as sleep does: the wake-up
//   comes the lateness after it and nothing is spent polling (at 300 conn/s polling the
//   median lateness before each arrival cost 15 % more CPU, for a median deviation of the
//   gaps on the wire of 3.5 us against 5 at 1000 conn/s). It also polls while the sockets
//   are busy (tens of events a millisecond): a keep-alive connection's next call waits for
//   its reply, and a sleep between them adds a wake-up's lateness to every call (near a
//   server's capacity the connections then pile up).
//   (Where a worker is offered 20,000 calls a second or more with the kernel clock, auto is
//   not a Pacer's at all: the loop takes batch's turns, options::Config::loop_timing.)
// Hybrid and auto learn only from timed wake-ups, and a loop that polls takes none: one slow
// early wake-up could make auto poll for good. So when no timed wake-up came for kRefresh, the
// next future deadline is slept for (to its margin) whatever the margins say: a fresh sample,
// at most ten a second.
class Pacer {
 public:
  static constexpr Duration kRefresh = std::chrono::milliseconds(100);
  // Auto sleeps to its margin before a deadline only when the deadline is at most this many
  // margins (median latenesses) away, and to the deadline itself when it is farther.
  static constexpr int kNearLateness = 8;

  explicit Pacer(options::Timing mode);

  options::Timing mode() const { return mode_; }
  // `busy`: the loop's sockets have been busy (see Loop): auto then polls whatever the next
  // deadline, since a sleep would add a wake-up's lateness to every reply it waits for.
  Wait plan(TimePoint now, std::optional<TimePoint> next, bool busy = false) const;
  // A wake-up by the timer came `lateness` after its time, at `now`.
  void woke(Duration lateness, TimePoint now);
  // How long before a deadline the timer is set (hybrid; auto for near deadlines: see
  // kNearLateness; zero for sleep and spin).
  Duration margin() const;
  // Deadlines nearer than this are polled for, not slept for.
  Duration poll_below() const;
  const LatenessTracker& lateness() const { return lateness_; }

 private:
  options::Timing mode_;
  LatenessTracker lateness_;
  std::optional<TimePoint> last_woke_;  // the last timed wake-up; none yet: a sample is due
  // Cached from lateness_ every few samples: quantiles are not read per loop turn.
  Duration margin_ = Duration::zero();
  // The margin a sleep for a deadline `left` away ends before it.
  Duration margin_for(Duration left) const;
  Duration poll_below_ = LatenessTracker::kAssumed;
  void update();
};

}  // namespace rateperf::engine
