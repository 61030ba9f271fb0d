#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>

#include "core/clock.hpp"
#include "options/config.hpp"
#include "schedule/arrival.hpp"

namespace rateperf::schedule {

// What starts work: when the next arrival is due, and its intended time. The engine takes due
// arrivals from it and tells it when an arrival's work has ended; it never asks how the times
// are made. Pure: no clock of its own.
class WorkSource {
 public:
  virtual ~WorkSource() = default;

  virtual bool done() const = 0;
  virtual std::uint64_t issued() const = 0;
  // When the next arrival is due; nullopt while none can be (done, or every slot busy).
  virtual std::optional<TimePoint> next_due() const = 0;
  // Takes the next arrival (next_due() must have a time): returns its intended time.
  virtual TimePoint take() = 0;
  // The work of one arrival ended at `now` (its connection closed, or it failed to start).
  // Returns true when that made an arrival due (a closed loop's slot is free again).
  virtual bool finished(TimePoint now) = 0;
  // Ends the schedule early (SIGINT): done() becomes true, issued() keeps its count.
  virtual void stop() = 0;
  // The most arrivals one wake-up may start: open loop, a bounded burst (a client far behind
  // its schedule still reads replies between bursts); closed loop, one per free slot.
  virtual std::uint64_t burst_limit() const = 0;
};

// The open loop: arrivals on the ideal timeline, whatever became of the earlier ones.
class OpenLoop final : public WorkSource {
 public:
  // At 50 us per connect, a burst of 128 lasts 6 ms: well past what a client on schedule needs
  // (a 1 ms wake-up at 20,000 conn/s has 20 due).
  static constexpr std::uint64_t kMaxBurst = 128;

  explicit OpenLoop(Timeline timeline) : timeline_(std::move(timeline)) {}

  bool done() const override { return timeline_.done(); }
  std::uint64_t issued() const override { return timeline_.issued(); }
  std::optional<TimePoint> next_due() const override;
  TimePoint take() override { return timeline_.take(); }
  bool finished(TimePoint) override { return false; }
  void stop() override { timeline_.stop(); }
  std::uint64_t burst_limit() const override { return kMaxBurst; }

 private:
  Timeline timeline_;
};

// The closed loop: `slots` arrivals in flight at most; a slot's next arrival is due `think`
// after its previous one ended (httperf's --rate 0 is one slot, --concurrency C is C), and that
// is its intended time. All slots are free at the start. `total` arrivals in all, or with an
// `end`, as many as start before it: a slot that would start at or after the end retires.
class ClosedLoop final : public WorkSource {
 public:
  ClosedLoop(std::uint64_t slots, std::uint64_t total, TimePoint start, Duration think = {},
             std::optional<TimePoint> end = std::nullopt);

  bool done() const override { return issued_ >= total_ || slots_ == 0; }
  std::uint64_t issued() const override { return issued_; }
  std::optional<TimePoint> next_due() const override;
  TimePoint take() override;
  bool finished(TimePoint now) override;
  void stop() override { total_ = issued_; }
  std::uint64_t burst_limit() const override { return std::max<std::uint64_t>(slots_, 1); }

 private:
  std::uint64_t slots_;  // those not retired
  std::uint64_t total_;
  Duration think_;
  std::optional<TimePoint> end_;
  std::uint64_t issued_ = 0;
  // One entry per free slot: when its next arrival is due (ascending: each is now + think).
  std::deque<TimePoint> free_since_;
};

// The work source a run's share needs: the open loop on its share of the timeline; for
// --concurrency C, the closed loop of its share of the C slots (share k of n has C / n of them,
// one more for k < C mod n) and of the total in proportion to them; for httperf's sequential
// mode (--rate 0), the closed loop of one slot, in share 0.
std::unique_ptr<WorkSource> make_work_source(const options::Config& config, TimePoint start,
                                             std::uint64_t share, std::uint64_t shares);

// Share k of n's part of `count` things dealt out evenly: count / n, one more for k < count
// mod n (the closed loop's slots).
constexpr std::uint64_t share_of(std::uint64_t count, std::uint64_t k, std::uint64_t n) {
  return count / n + (k < count % n ? 1 : 0);
}

// Takes, at `now`, every arrival of `source` that is due (at most `limit`), calling
// `issue(intended)` for each in order: open loop, whatever became of earlier arrivals, and each
// with its own intended time, so a late wake-up shows as lag and never shifts the schedule.
// Returns how many were taken: the burst of this wake-up (httperf's "connect burst length").
template <class F>
std::uint64_t take_due(WorkSource& source, TimePoint now, F&& issue,
                       std::uint64_t limit = UINT64_MAX) {
  std::uint64_t taken = 0;
  while (taken < limit && !source.done()) {
    const auto due = source.next_due();
    if (!due || *due > now) break;
    issue(source.take());
    ++taken;
  }
  return taken;
}

}  // namespace rateperf::schedule
