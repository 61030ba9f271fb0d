#include "run/watcher.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <csignal>
#include <stdexcept>

namespace rateperf::run {

namespace {

constexpr Duration kProgressInterval = std::chrono::seconds(1);
// The workers publish their counts at each whole second of the run; the line is drawn a little
// after, so that it shows this second's counts.
constexpr Duration kProgressDelay = std::chrono::milliseconds(20);

}  // namespace

Watcher::Watcher(std::vector<engine::Worker*> workers, ProgressFn on_progress, std::uint64_t total,
                 RealtimeOffset* wall_clock)
    : workers_(std::move(workers)),
      on_progress_(std::move(on_progress)),
      total_(total),
      wall_clock_(wall_clock) {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  signal_fd_ = ::signalfd(-1, &stop_signals, SFD_NONBLOCK | SFD_CLOEXEC);
  done_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (signal_fd_ < 0 || done_fd_ < 0) throw std::runtime_error("signalfd or eventfd failed");
}

Watcher::~Watcher() {
  if (thread_.joinable()) finish();
  ::close(signal_fd_);
  ::close(done_fd_);
}

void Watcher::start(TimePoint start) {
  start_ = start;
  thread_ = std::thread([this] { watch(); });
}

void Watcher::finish() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(done_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
}

void Watcher::watch() {
  TimePoint next_tick = start_ + kProgressInterval + kProgressDelay;
  for (;;) {
    int timeout_ms = -1;
    if (on_progress_ || wall_clock_ != nullptr) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(next_tick - Clock::now());
      timeout_ms = static_cast<int>(std::max<std::int64_t>(0, left.count()));
    }
    pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {done_fd_, POLLIN, 0}};
    if (::poll(fds, 2, timeout_ms) < 0) continue;  // EINTR
    if (fds[1].revents & POLLIN) return;
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo info{};
      while (::read(signal_fd_, &info, sizeof info) == sizeof info) {
        ++signals_;
        for (engine::Worker* worker : workers_) worker->request_stop();
      }
    }
    const TimePoint now = Clock::now();
    if (now >= next_tick) {
      if (on_progress_) show_progress();
      if (wall_clock_ != nullptr) wall_clock_->measure();
      next_tick += kProgressInterval;
    }
  }
}

void Watcher::show_progress() {
  stats::Progress sum;
  sum.total = total_;
  for (const engine::Worker* worker : workers_) {
    const stats::Progress p = worker->progress();
    sum.elapsed = std::max(sum.elapsed, p.elapsed);
    sum.issued += p.issued;
    sum.replies += p.replies;
    sum.errors += p.errors;
    sum.open += p.open;
  }
  if (sum.elapsed <= last_.elapsed) return;  // nothing new published
  const double seconds = to_s(sum.elapsed - last_.elapsed);
  const double rate = seconds > 0 ? static_cast<double>(sum.replies - last_.replies) / seconds : 0;
  last_ = sum;
  on_progress_(sum, rate);
}

}  // namespace rateperf::run
