#include "engine/worker.hpp"

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <stdexcept>

#include "http/request.hpp"

namespace rateperf::engine {

namespace {

// The wheel's geometry: 1 ms slots, 8192 of them (8.2 s per revolution), so that the usual
// watchdogs (a few seconds) sit within one revolution. The tick only sorts timers into slots;
// deadlines stay exact.
constexpr Duration kWheelTick = std::chrono::milliseconds(1);
constexpr std::size_t kWheelSlots = 8192;
constexpr std::size_t kReadBufferBytes = 64 * 1024;
// httperf samples the reply rate every 5 s.
constexpr Duration kSampleInterval = std::chrono::seconds(5);
constexpr Duration kProgressInterval = std::chrono::seconds(1);
// Arrivals issued at most per burst (see issue_due): at 50 us per connect, 6 ms, well past what
// a client on schedule needs (a 1 ms wake-up at 20,000 conn/s has 20 due).
constexpr std::uint64_t kMaxBurst = 128;

EventBasePtr make_base() {
  EventConfigPtr config(event_config_new());
  if (!config) throw std::runtime_error("libevent: cannot create an event configuration");
  // No libevent timer is used (the worker's own timerfd wakes it), so epoll_wait never needs a
  // timeout. No change list either: it would defer the removal of a connection's registration
  // until after its descriptor is closed and perhaps reused by the next connection.
  event_config_set_flag(config.get(), EVENT_BASE_FLAG_NOLOCK);
  EventBasePtr base(event_base_new_with_config(config.get()));
  if (!base) throw std::runtime_error("libevent: cannot create an event loop");
  return base;
}

}  // namespace

Worker::Worker(const options::Config& config, const Target& target, std::string request,
               Listeners listeners)
    : config_(config),
      target_(target),
      request_(std::move(request)),
      head_request_(http::reply_has_no_body(config)),
      listeners_(std::move(listeners)),
      base_(make_base()),
      timeline_(config.period, config.seed, config.num_conns, TimePoint{}),
      wheel_(TimePoint{}, kWheelTick, kWheelSlots),
      read_buffer_(kReadBufferBytes) {
  // The wake-up is a timerfd set to the wheel's next deadline as an absolute CLOCK_MONOTONIC
  // time (steady_clock's clock): exact to the microsecond, and set again only when that
  // deadline changes, not at every turn of the loop as libevent's precise timer would.
  // Edge triggered, so it needs no read(): each expiry is a new edge.
  timer_fd_ = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (timer_fd_ < 0) throw std::runtime_error("timerfd_create failed");
  wakeup_.reset(event_new(base_.get(), timer_fd_, EV_READ | EV_ET | EV_PERSIST, &Worker::on_timer,
                          this));
  sigint_.reset(evsignal_new(base_.get(), SIGINT, &Worker::on_signal, this));
  sigterm_.reset(evsignal_new(base_.get(), SIGTERM, &Worker::on_signal, this));
  if (!wakeup_ || !sigint_ || !sigterm_) throw std::runtime_error("libevent: cannot create events");
  arrival_timer_.owner = this;
  arrival_timer_.kind = kArrival;
  sample_timer_.owner = this;
  sample_timer_.kind = kSample;
  grace_timer_.owner = this;
  grace_timer_.kind = kGrace;
  progress_timer_.owner = this;
  progress_timer_.kind = kProgress;
}

Worker::~Worker() {
  // Connections hold events of base_: free them first.
  pool_.clear();
  wakeup_.reset();
  if (timer_fd_ >= 0) ::close(timer_fd_);
}

WorkerResult Worker::run(TimePoint start) {
  // Linux lets a sleeping thread's timers fire up to its "timer slack" late (50 us by default)
  // to batch wake-ups; every microsecond of it would show as lag, so ask for the least.
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  start_ = start;
  timeline_ = schedule::Timeline(config_.period, config_.seed, config_.num_conns, start);
  wheel_ = schedule::TimerWheel(start, kWheelTick, kWheelSlots);
  result_ = WorkerResult{};
  result_.end = start;

  // Reply-rate samples: client I of N takes its first one (I + 1) * 5 / N s after the start,
  // so that cooperating clients sample out of phase (httperf's rule); then every 5 s.
  const Duration first_sample =
      kSampleInterval * (config_.client_id + 1) / std::max<std::uint32_t>(1, config_.client_count);
  last_sample_at_ = start;
  wheel_.schedule(sample_timer_, start + first_sample);
  wheel_.schedule(arrival_timer_, timeline_.next_due());
  if (listeners_.on_progress) wheel_.schedule(progress_timer_, start + kProgressInterval);

  event_add(sigint_.get(), nullptr);
  event_add(sigterm_.get(), nullptr);
  event_add(wakeup_.get(), nullptr);
  // main() blocks these until the handlers are in place; one that came early is delivered now
  // and stops the schedule at its start.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  ::pthread_sigmask(SIG_UNBLOCK, &stop_signals, nullptr);
  if (timeline_.done()) {
    finished_ = true;
  } else {
    arm_wakeup();
    event_base_dispatch(base_.get());
  }
  // Blocked again before libevent restores the default action, so that a late signal waits
  // while the report is written instead of killing the process.
  ::pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  event_del(sigint_.get());
  event_del(sigterm_.get());
  event_del(wakeup_.get());
  return std::move(result_);
}

void Worker::on_timer(evutil_socket_t, short, void* self) {
  auto* worker = static_cast<Worker*>(self);
  worker->wakeup_armed_ = false;
  worker->waking_ = true;
  worker->wake(Clock::now());
  worker->waking_ = false;
}

// Called after each connection's event with the time it read: a deadline that passed while
// the loop was busy with other connections is served now, not after the rest of the batch and
// the next epoll_wait. One comparison when nothing is due.
void Worker::catch_up(TimePoint now) {
  // A backlog is worked off one burst per turn of the loop (by on_timer), not one burst after
  // every connection event, which would starve the connections of their turns.
  if (!wakeup_armed_ || now < wakeup_at_ || waking_ || backlogged_) return;
  waking_ = true;
  wake(now);
  waking_ = false;
}

void Worker::on_signal(evutil_socket_t, short, void* self) {
  auto* worker = static_cast<Worker*>(self);
  const TimePoint now = Clock::now();
  ++worker->signals_;
  worker->result_.interrupted = true;
  if (worker->signals_ == 1) {
    worker->stop_schedule(now);
  } else {
    worker->end_all(ErrorKind::client_timo, now);
  }
  worker->maybe_finish(now);
  if (!worker->finished_) worker->arm_wakeup();
}

void Worker::wake(TimePoint now) {
  wheel_.advance(now, [this, now](schedule::WheelTimer& timer) { fire(timer, now); });
  if (!finished_) arm_wakeup();
}

void Worker::fire(schedule::WheelTimer& timer, TimePoint now) {
  switch (timer.kind) {
    case kArrival:
      issue_due(now);
      break;
    case kWatchdog:
      static_cast<Connection*>(timer.owner)->on_watchdog(now);
      break;
    case kSample: {
      // The interval ends at the timer's intended time, not at the (later) wake-up.
      const TimePoint at = timer.deadline;
      result_.collector.sample(last_sample_at_, at);
      last_sample_at_ = at;
      if (listeners_.on_sample) listeners_.on_sample(result_.collector.samples().back());
      wheel_.schedule(sample_timer_, at + kSampleInterval);
      break;
    }
    case kGrace:
      end_all(ErrorKind::client_timo, now);
      maybe_finish(now);
      break;
    case kProgress: {
      const stats::Collector& c = result_.collector;
      listeners_.on_progress(stats::Progress{now - start_, timeline_.issued(), config_.num_conns,
                                      c.replies(), c.errors_total(), c.open_connections()});
      wheel_.schedule(progress_timer_, timer.deadline + kProgressInterval);
      break;
    }
    default:
      break;
  }
}

// Issues the arrivals that are due: open loop, whatever the state of earlier connections. Each
// keeps its intended time, so a late wake-up shows as lag, never as a shifted schedule. At most
// kMaxBurst at a time: a client far behind its schedule (connect() slowed by a kernel searching
// a nearly exhausted port range, say) would otherwise issue its whole backlog in one burst, for
// seconds, while replies go unread, timeouts unserved and SIGINT unheeded. The rest stays due,
// and the arrival timer, already expired, brings it in the loop's next turn, after the other
// events that are ready.
void Worker::issue_due(TimePoint now) {
  // Sequential mode takes one arrival; the next is due when its connection ends.
  const bool sequential = config_.period.sequential();
  const std::uint64_t limit = sequential ? 1 : kMaxBurst;
  bool first = true;
  const std::uint64_t burst = schedule::take_due(
      timeline_, now,
      [&](TimePoint intended) {
        // The first connection of a wake-up starts at the wake-up's time; later ones read the
        // clock again, since each one's socket and connect calls take time.
        const TimePoint actual = first ? now : Clock::now();
        first = false;
        if (!any_arrival_) {
          any_arrival_ = true;
          result_.first_arrival = actual;
        }
        result_.last_arrival = actual;
        result_.collector.arrival(intended, actual);

        Connection* connection = free_;
        if (connection != nullptr) {
          free_ = connection->next_free;
        } else {
          connection = &pool_.emplace_back(*this);
        }
        connection->start(intended, actual);
      },
      limit);
  result_.collector.burst(burst);
  backlogged_ = !sequential && burst == limit && !timeline_.done() && timeline_.next_due() <= now;
  if (!timeline_.done() && !sequential) {
    wheel_.schedule(arrival_timer_, timeline_.next_due());
  }
  maybe_finish(now);
}

void Worker::stop_schedule(TimePoint now) {
  timeline_.stop();
  wheel_.cancel(arrival_timer_);
  // Open connections get at most --timeout more; without a timeout they end now.
  if (config_.timeout > Duration::zero()) {
    wheel_.schedule(grace_timer_, now + config_.timeout);
  } else {
    end_all(ErrorKind::client_timo, now);
  }
}

void Worker::end_all(ErrorKind kind, TimePoint now) {
  for (Connection& connection : pool_) {
    if (connection.open()) connection.abort(kind, now);
  }
}

void Worker::maybe_finish(TimePoint now) {
  if (finished_ || !timeline_.done() || result_.collector.open_connections() > 0) return;
  finished_ = true;
  if (result_.end < now && result_.collector.connections() == 0) result_.end = now;
  wheel_.cancel(sample_timer_);
  wheel_.cancel(grace_timer_);
  wheel_.cancel(progress_timer_);
  event_base_loopbreak(base_.get());
}

void Worker::arm_wakeup() {
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

void Worker::schedule_timer(schedule::WheelTimer& timer, TimePoint deadline) {
  wheel_.schedule(timer, deadline);
  // Outside a wake-up (which re-arms when it ends), a deadline earlier than the armed one must
  // move the wake-up forward.
  if (!waking_ && (!wakeup_armed_ || deadline < wakeup_at_)) arm_wakeup();
}

void Worker::connection_ended(Connection& connection, TimePoint now) {
  result_.end = std::max(result_.end, now);
  connection.next_free = free_;
  free_ = &connection;
  if (config_.period.sequential() && !timeline_.done()) {
    timeline_.due_at(now);
    schedule_timer(arrival_timer_, now);
  }
  maybe_finish(now);
}

}  // namespace rateperf::engine
