#include "engine/worker.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>


namespace rateperf::engine {

namespace {

constexpr std::size_t kReadBufferBytes = 64 * 1024;
// httperf samples the reply rate every 5 s.
constexpr Duration kSampleInterval = std::chrono::seconds(5);
constexpr Duration kProgressInterval = std::chrono::seconds(1);

}  // namespace

net::TlsSettings tls_settings_of(const options::Config& config) {
  net::TlsSettings settings;
  settings.server_name = config.tls_server_name.empty() ? config.server : config.tls_server_name;
  static constexpr struct {
    const char* name;
    int version;
  } kVersions[] = {{"TLSv1.0", TLS1_VERSION},
                   {"TLSv1.1", TLS1_1_VERSION},
                   {"TLSv1.2", TLS1_2_VERSION},
                   {"TLSv1.3", TLS1_3_VERSION}};
  for (const auto& known : kVersions) {
    if (config.ssl_protocol == known.name) settings.min_version = settings.max_version = known.version;
  }
  settings.ciphers = config.ssl_ciphers;
  // OpenSSL 3 allows TLS 1.0 and 1.1 only at security level 0.
  if (settings.ciphers.empty() && settings.max_version != 0 && settings.max_version < TLS1_2_VERSION) {
    settings.ciphers = "DEFAULT:@SECLEVEL=0";
  }
  settings.ciphersuites = config.tls_ciphersuites;
  settings.reuse_sessions = config.ssl_reuse;
  settings.verify = config.ssl_verify;
  settings.ca_file = config.ssl_ca_file;
  return settings;
}

Worker::Worker(const WorkerSetup& setup)
    : config_(setup.config),
      share_(setup.share),
      shares_(setup.shares),
      samples_(setup.samples),
      publish_progress_(setup.publish_progress),
      loop_(setup.config.loop_timing(setup.kernel_clock != nullptr), setup.batch_reads,
            setup.config.turn(setup.kernel_clock != nullptr)),
      addresses_(setup.endpoints, setup.config.all_server_addresses,
                 setup.sources != nullptr ? *setup.sources : std::vector<net::Endpoint>{},
                 setup.config.hog, setup.share, setup.shares),
      socket_options_{setup.config.send_buffer_bytes,
                      setup.config.recv_buffer_bytes,
                      setup.workload.max_in_flight > 1,
                      setup.config.close_with_reset,
                      addresses_.binds() ? &addresses_ : nullptr,
                      setup.kernel_clock},
      tls_(setup.config.tls ? std::make_unique<net::TlsContext>(tls_settings_of(setup.config))
                            : nullptr),
      read_buffer_(kReadBufferBytes),
      result_(stats::Collector(setup.gauge)),
      context_{.loop = loop_,
               .collector = result_.collector,
               .addresses = addresses_,
               .workload = setup.workload,
               .read_buffer = read_buffer_,
               .timeout = setup.config.timeout,
               .think_timeout = setup.config.think_timeout,
               .socket_options = socket_options_,
               .buffer_refusals = result_.buffer_refusals,
               .owner = *this,
               .printer = setup.printer,
               .tls = tls_.get(),
               .call_log = setup.call_log},
      connections_(context_) {
  stop_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (stop_fd_ < 0) throw std::runtime_error("eventfd failed");
  stop_event_.reset(
      event_new(loop_.base(), stop_fd_, EV_READ | EV_PERSIST, &Worker::on_stop_request, this));
  if (!stop_event_) throw std::runtime_error("libevent: cannot create events");
  arrival_timer_.bind<&Worker::on_arrival>(*this);
  sample_timer_.bind<&Worker::on_sample>(*this);
  series_timer_.bind<&Worker::on_series>(*this);
  result_.collector.set_series_interval(config_.interval);
  grace_timer_.bind<&Worker::on_grace>(*this);
  progress_timer_.bind<&Worker::on_progress>(*this);
  if (config_.request_mode) {
    // This worker's share of the connections, at least one.
    const std::uint64_t size = std::max<std::uint64_t>(
        1, config_.connections / shares_ + (share_ < config_.connections % shares_ ? 1 : 0));
    requests_ = std::make_unique<RequestPool>(context_, static_cast<std::size_t>(size),
                                              [this](TimePoint now) {
                                                requests_ended(now);
                                                maybe_finish(now);
                                              });
  }
  if (setup.workload.sessions) {
    sessions_ = std::make_unique<SessionStore>(context_, connections_,
                                               static_cast<SessionOwner&>(*this));
  }
}

Worker::~Worker() {
  // Connections hold events of the loop: free them first; sessions, timers of it.
  sessions_.reset();
  requests_.reset();
  connections_.clear();
  stop_event_.reset();
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

WorkerResult Worker::run(TimePoint start) {
  start_ = start;
  loop_.reset(start);
  {
    const std::lock_guard lock(source_mutex_);
    source_ = schedule::make_work_source(config_, start, share_, shares_);
    publish_due();
  }
  result_.end = start;

  // Reply-rate samples: client I of N takes its first one (I + 1) * 5 / N s after the start,
  // so that cooperating clients sample out of phase (httperf's rule); then every 5 s.
  const Duration first_sample =
      kSampleInterval * (config_.client_id + 1) / std::max<std::uint32_t>(1, config_.client_count);
  last_sample_at_ = start;
  loop_.schedule(sample_timer_, start + first_sample);
  last_series_at_ = start;
  loop_.schedule(series_timer_, start + result_.collector.series_interval());
  if (const auto due =
          with_source([](schedule::WorkSource& source) { return source.next_due(); })) {
    loop_.schedule(arrival_timer_, *due);
  }
  if (publish_progress_) loop_.schedule(progress_timer_, start + kProgressInterval);

  event_add(stop_event_.get(), nullptr);
  if (requests_) requests_->open_all(Clock::now());
  // A stop requested before the run began ends the schedule at its start.
  on_stop_request(stop_fd_, EV_READ, this);
  if (source_done()) maybe_finish(start);
  if (!finished_) loop_.run();
  event_del(stop_event_.get());
  result_.loop = loop_.figures();
  return std::move(result_);
}

void Worker::request_stop() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(stop_fd_, &one, sizeof one);
}

stats::Progress Worker::progress() const {
  stats::Progress p;
  p.elapsed = Duration(published_.elapsed_ns.load(std::memory_order_relaxed));
  p.issued = published_.issued.load(std::memory_order_relaxed);
  p.replies = published_.replies.load(std::memory_order_relaxed);
  p.errors = published_.errors.load(std::memory_order_relaxed);
  p.open = published_.open.load(std::memory_order_relaxed);
  return p;
}

void Worker::on_stop_request(evutil_socket_t fd, short, void* self) {
  auto* worker = static_cast<Worker*>(self);
  std::uint64_t count = 0;
  if (::read(fd, &count, sizeof count) != sizeof count || count == 0) return;
  const TimePoint now = Clock::now();
  worker->result_.interrupted = true;
  for (std::uint64_t i = 0; i < count; ++i) {
    ++worker->stops_;
    if (worker->stops_ == 1) {
      worker->stop_schedule(now);
    } else {
      worker->end_all(ErrorKind::client_timo, now);
    }
  }
  worker->maybe_finish(now);
}

void Worker::on_arrival(Timer&, TimePoint now) {
  issue_due(now);
}

void Worker::on_sample(Timer& timer, TimePoint) {
  // The interval ends at the timer's intended time, not at the (later) wake-up.
  const TimePoint at = timer.deadline;
  result_.collector.sample(last_sample_at_, at);
  last_sample_at_ = at;
  if (samples_ != nullptr) samples_->sample_taken(share_, result_.collector.samples().back());
  loop_.schedule(sample_timer_, at + kSampleInterval);
}

void Worker::on_series(Timer& timer, TimePoint) {
  // As the samples: the interval ends at the boundary, not at the wake-up.
  const TimePoint at = timer.deadline;
  result_.collector.close_interval(last_series_at_, at);
  last_series_at_ = at;
  loop_.schedule(series_timer_, at + result_.collector.series_interval());
}

void Worker::on_grace(Timer&, TimePoint now) {
  end_all(ErrorKind::client_timo, now);
  maybe_finish(now);
}

void Worker::on_progress(Timer& timer, TimePoint now) {
  publish(now);
  loop_.schedule(progress_timer_, timer.deadline + kProgressInterval);
}

void Worker::publish(TimePoint now) {
  const stats::Collector& c = result_.collector;
  published_.elapsed_ns.store((now - start_).count(), std::memory_order_relaxed);
  published_.issued.store(
      with_source([](const schedule::WorkSource& source) { return source.issued(); }),
      std::memory_order_relaxed);
  published_.replies.store(c.replies(), std::memory_order_relaxed);
  published_.errors.store(c.errors_total(), std::memory_order_relaxed);
  published_.open.store(c.open_connections(), std::memory_order_relaxed);
}

// Issues the arrivals that are due: open loop, whatever the state of earlier connections. Each
// keeps its intended time, so a late wake-up shows as lag, never as a shifted schedule. At most
// the source's burst limit at a time: a client far behind its schedule (connect() slowed by a
// kernel searching a nearly exhausted port range, say) would otherwise issue its whole backlog
// in one burst, for seconds, while replies go unread, timeouts unserved and stop requests
// unheeded. The rest stays due, and the arrival timer, already expired, brings it in the loop's
// next turn, after the other events that are ready.
void Worker::issue_due(TimePoint now) {
  const std::uint64_t limit = source_->burst_limit();
  // Taken under the lock, started after it: a peer's lend() waits for the taking only.
  due_.clear();
  with_source([&](schedule::WorkSource& source) {
    return schedule::take_due(
        source, now, [&](TimePoint intended) { due_.push_back(intended); }, limit);
  });
  // The first connection of a wake-up starts at the wake-up's time. The URI list ended: so did
  // the schedule (stopped below).
  const std::uint64_t burst = start_due(now);
  const bool caught_up = due_.size() < limit;
  // Time to spare: the due arrivals of peers behind their shares.
  std::uint64_t borrowed = 0;
  if (caught_up && !peers_.empty() && stops_ == 0) borrowed = borrow(now, limit - due_.size());
  // The wake-up's requests go out together, pipelined where connections have room for more.
  if (requests_) requests_->send_arrived(Clock::now());
  result_.collector.burst(burst + borrowed);
  if (context_.workload.uris_ended() && !source_done()) {
    // No arrival can have a URI any more: the schedule ends here, and the connections open
    // make the calls they have.
    with_source([](schedule::WorkSource& source) { source.stop(); });
    loop_.cancel(arrival_timer_);
    maybe_finish(now);
    return;
  }
  std::optional<TimePoint> due =
      with_source([](schedule::WorkSource& source) { return source.next_due(); });
  if (!caught_up && due && *due <= now) loop_.defer_to_next_turn();
  if (borrowed > 0) {
    // A peer may still be behind: back at the loop's next turn, after the ready events.
    loop_.defer_to_next_turn();
    due = due ? std::min(*due, now) : now;
  } else if (!peers_.empty() && !due && !peers_done()) {
    // This share is done and a peer's is not: look again in a while.
    due = now + kBehind / 2;
  }
  if (due) loop_.schedule(arrival_timer_, *due);
  maybe_finish(now);
}

std::uint64_t Worker::start_due(TimePoint first) {
  std::uint64_t started = 0;
  for (const TimePoint intended : due_) {
    if (context_.workload.uris_ended()) break;
    // Later ones read the clock again, since each one's socket and connect calls take time.
    start_arrival(intended, started == 0 ? first : Clock::now());
    ++started;
  }
  return started;
}

void Worker::start_arrival(TimePoint intended, TimePoint actual) {
  // A peer's arrivals (borrow()) come out of this share's order: the first and last intended
  // times are the least and the greatest.
  if (!result_.any_arrival) {
    result_.any_arrival = true;
    result_.first_arrival = actual;
    result_.first_intended = intended;
    result_.last_intended = intended;
  }
  result_.last_arrival = actual;
  result_.first_intended = std::min(result_.first_intended, intended);
  result_.last_intended = std::max(result_.last_intended, intended);
  result_.collector.arrival(intended, actual);
  if (requests_) {
    requests_->arrive(
        Request{.intended = intended, .actual = actual, .planned = nullptr, .cookie = {}}, actual);
    return;
  }
  if (sessions_) {
    // Session k of the run (this worker's shares interleave with the others') takes
    // template k, round robin.
    const auto& templates = context_.workload.sessions->templates;
    const std::uint64_t k = share_ + shares_ * sessions_started_++;
    ++active_sessions_;
    sessions_->acquire().start(templates[k % templates.size()], intended, actual);
    return;
  }
  connections_.acquire().start(intended, actual);
}

void Worker::share_with(std::vector<Worker*> peers) {
  peers_ = std::move(peers);
  std::erase(peers_, this);
}

std::size_t Worker::lend(TimePoint now, std::size_t most, std::vector<TimePoint>& out) {
  if (!behind(now)) return 0;
  const std::lock_guard lock(source_mutex_);
  if (!source_) return 0;
  const std::size_t taken = schedule::take_due(
      *source_, now - kBehind, [&](TimePoint intended) { out.push_back(intended); }, most);
  publish_due();
  return taken;
}

std::uint64_t Worker::borrow(TimePoint now, std::uint64_t most) {
  due_.clear();
  for (std::size_t i = 0; i < peers_.size() && due_.size() < most; ++i) {
    Worker& peer = *peers_[(next_peer_ + i) % peers_.size()];
    peer.lend(now, most - due_.size(), due_);
  }
  next_peer_ = (next_peer_ + 1) % peers_.size();
  const std::uint64_t started = start_due(Clock::now());
  result_.collector.moved_in(started);
  return started;
}

bool Worker::peers_done() const {
  return std::all_of(peers_.begin(), peers_.end(), [](const Worker* p) { return p->share_done(); });
}

bool Worker::source_done() {
  return with_source([](schedule::WorkSource& source) { return source.done(); });
}

void Worker::publish_due() {
  const auto due = source_->next_due();
  published_due_.store(due ? due->time_since_epoch().count() : kNoneDue, std::memory_order_relaxed);
}

void Worker::stop_schedule(TimePoint now) {
  with_source([](schedule::WorkSource& source) { source.stop(); });
  loop_.cancel(arrival_timer_);
  // Open connections get at most --timeout more; without a timeout they end now.
  if (config_.timeout > Duration::zero()) {
    loop_.schedule(grace_timer_, now + config_.timeout);
  } else {
    end_all(ErrorKind::client_timo, now);
  }
}

void Worker::close_after_failure() noexcept {
  // Its peers wait for no more of its share.
  published_due_.store(kNoneDue, std::memory_order_relaxed);
  try {
    end_all(ErrorKind::other, Clock::now());
  } catch (...) {
    // A connection that cannot even be closed cleanly is left to the process's exit.
  }
}

void Worker::end_all(ErrorKind kind, TimePoint now) {
  if (requests_) requests_->abort_all(kind, now);
  if (sessions_) {
    for (Session& session : sessions_->all()) {
      if (session.active()) session.abort(kind, now);
    }
  }
  for (Connection& connection : connections_.all()) {
    if (connection.open()) connection.abort(kind, now);
  }
}

void Worker::maybe_finish(TimePoint now) {
  if (finished_ || closing_idle_ || !source_done()) return;
  // A peer's share is not done: this worker may still take arrivals of it (issue_due() looks
  // again every kBehind / 2).
  if (!peers_.empty() && !peers_done()) {
    if (!arrival_timer_.armed()) loop_.schedule(arrival_timer_, now + kBehind / 2);
    return;
  }
  if (requests_) {
    // Request mode: the pool's connections stay open between requests; once the schedule is
    // done and nothing waits or is in flight, they close.
    if (!requests_->quiet()) return;
    closing_idle_ = true;
    requests_->close_idle(now);
    closing_idle_ = false;
  }
  if (result_.collector.open_connections() > 0 || active_sessions_ > 0) return;
  finished_ = true;
  if (result_.end < now && result_.collector.connections() == 0) result_.end = now;
  // The series' last interval, cut short at the end.
  if (now > last_series_at_) result_.collector.close_interval(last_series_at_, now);
  loop_.cancel(series_timer_);
  loop_.cancel(sample_timer_);
  loop_.cancel(grace_timer_);
  loop_.cancel(progress_timer_);
  loop_.cancel(arrival_timer_);
  loop_.stop();
}

void Worker::connection_idle(Connection& connection, TimePoint now) {
  if (connection.session != nullptr) {
    connection.session->idle(connection, now);
    return;
  }
  requests_->idle(connection, now);
  requests_ended(now);
  // The schedule's last reply may have come.
  if (source_done()) maybe_finish(now);
}

void Worker::reply_received(Connection& connection, const http::ResponseParser& reply,
                            TimePoint now) {
  connection.session->reply_received(connection, reply, now);
}

void Worker::session_ended(Session& session, TimePoint now) {
  result_.end = std::max(result_.end, now);
  --active_sessions_;
  sessions_->release(session);
  arrival_ended(now);
  maybe_finish(now);
}

void Worker::arrival_ended(TimePoint now) {
  // A closed loop's slot is free again: its next arrival is due now.
  const auto due = with_source([&](schedule::WorkSource& source) -> std::optional<TimePoint> {
    if (!source.finished(now)) return std::nullopt;
    return source.next_due();
  });
  if (due && !arrival_timer_.armed()) loop_.schedule(arrival_timer_, *due);
}

void Worker::requests_ended(TimePoint now) {
  if (!config_.closed_loop()) return;
  const stats::Collector& c = result_.collector;
  const std::uint64_t ended = c.replies() + c.errors_total();
  for (; requests_ended_ < ended; ++requests_ended_) arrival_ended(now);
}

void Worker::connection_ended(Connection& connection, TimePoint now) {
  result_.end = std::max(result_.end, now);
  if (Session* session = connection.session) {
    connection.session = nullptr;
    connections_.release(connection);
    session->ended(connection, now);
    maybe_finish(now);
    return;
  }
  if (requests_) {
    requests_->ended(connection, now);
    requests_ended(now);
    maybe_finish(now);
    return;
  }
  connections_.release(connection);
  arrival_ended(now);
  maybe_finish(now);
}

}  // namespace rateperf::engine
