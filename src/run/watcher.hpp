#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "core/clock.hpp"
#include "engine/worker.hpp"

namespace rateperf::run {

// Watches a run from a thread of its own: SIGINT and SIGTERM (read from a signalfd, as
// prepare_process() keeps them blocked in every thread) become stop requests to every worker,
// through the eventfd each worker's loop watches; and, when asked, the live progress line on
// stderr is rewritten once a second from the workers' published counts. No worker handles a
// signal or prints progress.
class Watcher {
 public:
  // Called once a second with the run's progress (summed over the workers) and the reply rate
  // since the last call; on the watcher's thread.
  using ProgressFn = std::function<void(const stats::Progress&, double reply_rate_per_s)>;

  // `total`: the arrivals of the whole schedule. `on_progress` may be empty: no progress.
  // `wall_clock`: the run's conversion of the kernel's timestamps, measured again once a
  // second (a step of the wall clock shows at once); none: nothing to watch.
  Watcher(std::vector<engine::Worker*> workers, ProgressFn on_progress, std::uint64_t total,
          RealtimeOffset* wall_clock = nullptr);
  ~Watcher();
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  // Starts watching; the run starts at `start`.
  void start(TimePoint start);
  // The workers are done: stops watching.
  void finish();

  // A signal stopped (or tried to stop) the run.
  bool interrupted() const { return signals_.load() > 0; }

 private:
  void watch();
  void show_progress();

  std::vector<engine::Worker*> workers_;
  ProgressFn on_progress_;
  std::uint64_t total_;
  RealtimeOffset* wall_clock_;
  int signal_fd_ = -1;
  int done_fd_ = -1;  // an eventfd: finish() wakes the thread through it
  TimePoint start_{};
  std::thread thread_;
  std::atomic<int> signals_{0};
  stats::Progress last_{};
};

}  // namespace rateperf::run
