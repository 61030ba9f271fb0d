#include "run/run.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/call_log.hpp"
#include "engine/worker.hpp"
#include "net/addresses.hpp"
#include "net/endpoint.hpp"
#include "net/socket_options.hpp"
#include "net/tls_memory.hpp"
#include "options/options.hpp"
#include "options/table.hpp"
#include "options/values.hpp"
#include "run/dump.hpp"
#include "run/limits.hpp"
#include "run/watcher.hpp"
#include "schedule/work_source.hpp"
#include "workload/workload.hpp"

namespace rateperf::run {

namespace {

double seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

// The wall-clock time now, in nanoseconds since the Unix epoch.
std::int64_t unix_ns_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// --start-at: how far ahead of now (negative: behind) the schedule's start is. One more than a
// second behind is refused: the shards given it could no longer start together.
std::int64_t start_ahead_ns(const options::Config& config) {
  const std::int64_t ahead = *config.start_at_unix_ns - unix_ns_now();
  if (ahead < -1'000'000'000) {
    char late[64];
    std::snprintf(late, sizeof late, "%.3f", static_cast<double>(-ahead) / 1e9);
    throw UsageError("--start-at: " + options::format_wall_time(*config.start_at_unix_ns) +
                     " is " + late + " s in the past (at most 1 s late may still start)");
  }
  return ahead;
}

// Joins the workers' reply-rate samples of one interval: the run's sample is whole once every
// worker has closed that interval.
class SampleBoard final : public engine::SampleSink {
 public:
  SampleBoard(std::size_t workers, std::function<void(const stats::IntervalSample&)> on_sample)
      : workers_(workers), on_sample_(std::move(on_sample)) {}

  void sample_taken(std::size_t, const stats::IntervalSample& sample) override {
    const std::lock_guard lock(mutex_);
    auto& [count, sum] = pending_[sample.start];
    if (count == 0) sum = stats::IntervalSample{sample.start, sample.end, 0, 0};
    sum.replies += sample.replies;
    sum.errors += sample.errors;
    if (++count < workers_) return;
    on_sample_(sum);
    pending_.erase(sample.start);
  }

 private:
  std::size_t workers_;
  std::function<void(const stats::IntervalSample&)> on_sample_;
  std::mutex mutex_;
  std::map<TimePoint, std::pair<std::size_t, stats::IntervalSample>> pending_;
};

double ms(Duration d) { return to_ms(d); }

// The workers' loop figures as one (TimingFigures::add).
stats::TimingFigures timing_of(const options::Config& config, bool kernel_clock,
                               const std::vector<engine::WorkerResult>& results) {
  stats::TimingFigures t;
  t.mode = options::timing_name(config.timing);
  t.turn_ms = ms(config.turn(kernel_clock));
  for (const engine::WorkerResult& result : results) {
    const engine::LoopFigures& f = result.loop;
    stats::TimingFigures part;
    part.sleeps = f.sleeps;
    part.polls = f.polls;
    part.timer_arms = f.timer_arms;
    part.timer_wakeups = f.timer_wakeups;
    part.lateness_p50_ms = ms(f.lateness_p50);
    part.lateness_p99_ms = ms(f.lateness_p99);
    part.margin_ms = ms(f.margin);
    part.poll_below_ms = ms(f.poll_below);
    t.add(part);
  }
  return t;
}

// Pins the calling thread to `cpu`; a refusal (a CPU outside this process's set) is said on
// stderr, and the thread runs unpinned.
void pin_to(std::uint32_t cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (const int error = ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set); error != 0) {
    std::fprintf(stderr, "rateperf: --cpus: cannot pin a worker to CPU %u: %s\n", cpu,
                 std::strerror(error));
  }
}

// Gives the calling thread a descriptor table of its own, a copy of the process's: a worker's
// socket() and close() then take no lock the other workers take too (two workers against a
// closed port: 6 to 10 % more attempts a second). What the worker had before (its loop's
// descriptors, its stop eventfd) it keeps, as copies of the same files; what it opens is its
// own, and goes with its thread (Worker::run returns only when no connection is open). Where
// unshare() is refused (a sandbox's seccomp filter) the table stays shared: slower, as right.
void own_descriptor_table() {
  ::unshare(CLONE_FILES);
}

// Runs the workers from `start`: one on this thread, several each on a thread of its own (worker
// k pinned to cpus[k % size], when given, and with a descriptor table of its own); their results
// in worker order once all have ended.
std::vector<engine::WorkerResult> run_workers(
    const std::vector<std::unique_ptr<engine::Worker>>& workers,
    const std::vector<std::uint32_t>& cpus, TimePoint start) {
  std::vector<engine::WorkerResult> results(workers.size());
  if (workers.size() == 1) {
    if (!cpus.empty()) pin_to(cpus.front());
    results.front() = workers.front()->run(start);
    return results;
  }
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> failures(workers.size());
  threads.reserve(workers.size());
  for (std::size_t k = 0; k < workers.size(); ++k) {
    threads.emplace_back([&, k] {
      try {
        if (!cpus.empty()) pin_to(cpus[k % cpus.size()]);
        own_descriptor_table();
        results[k] = workers[k]->run(start);
      } catch (...) {
        failures[k] = std::current_exception();
        workers[k]->close_after_failure();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
  return results;
}

}  // namespace

void prepare_process() {
  // Before anything of OpenSSL runs: it lets its allocator be chosen only then.
  net::install_tls_memory();
  std::signal(SIGPIPE, SIG_IGN);
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &stop_signals, nullptr);
}

Outcome execute(const options::Config& config, const Listeners& listeners) {
  Outcome outcome;
  const std::vector<net::Endpoint> endpoints = net::resolve(config.server, config.port);
  // --myaddr: every source address of this host and of the server's family, before anything
  // is sent (a usage error, or RunError for an address this host does not have).
  const std::vector<net::Endpoint> sources = net::parse_sources(config.myaddr);
  net::check_sources(sources, endpoints.front().family());
  outcome.descriptor_limit = raise_descriptor_limit();
  warn_if_descriptors_short(config, outcome.descriptor_limit);
  for (const std::string& warning : net::check_buffer_sizes(
           endpoints.front().family(), {config.send_buffer_bytes, config.recv_buffer_bytes})) {
    std::fprintf(stderr, "%s\n", warning.c_str());
  }

  if (config.start_at_unix_ns) start_ahead_ns(config);
  // Created now, so that a --dump path that cannot be written stops the run before it starts.
  std::optional<DumpFile> dump;
  if (!config.dump_path.empty()) dump.emplace(config.dump_path);

  const workload::Workload work = workload::from_config(config);
  if (config.tls) {
    // What OpenSSL refuses (an unknown cipher, a CA file without a certificate) stops the run
    // before anything is sent, as a usage error.
    if (const std::string problem = net::check_tls_settings(engine::tls_settings_of(config));
        !problem.empty()) {
      throw UsageError(problem);
    }
  }
  // --clock kernel: the kernel's timestamps time the replies, unless this kernel or transport
  // gives none; then the client's clock does, and the report says why.
  RealtimeOffset wall_clock;
  std::string clock_fallback;
  std::optional<net::TimestampKeeper> stamping;
  if (config.reply_clock() == options::ReplyClock::kernel) {
    if (config.tls) {
      clock_fallback =
          "TLS reads go through OpenSSL, which does not hand back the kernel's timestamps";
    } else {
      stamping.emplace(endpoints.front().family());
      clock_fallback = stamping->refused();
    }
  }
  const bool kernel_clock =
      config.reply_clock() == options::ReplyClock::kernel && clock_fallback.empty();
  // Batch's turns (--timing batch, or auto at a high rate) read the replies at each turn.
  const Duration reads_wait = std::max(config.batch_reads, config.turn(kernel_clock));
  const Duration batch_reads = kernel_clock ? reads_wait : Duration::zero();
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> call_log_file(nullptr, &std::fclose);
  std::unique_ptr<engine::CallLog> call_log;
  if (!config.call_log_path.empty()) {
    call_log_file.reset(std::fopen(config.call_log_path.c_str(), "w"));
    if (!call_log_file) {
      throw RunError("--call-log " + config.call_log_path + ": " + std::strerror(errno));
    }
    call_log = std::make_unique<engine::CallLog>(call_log_file.get(), wall_clock);
  }
  const auto gauge = std::make_shared<stats::OpenGauge>();
  std::unique_ptr<engine::CallPrinter> printer;
  if (config.print_request.any() || config.print_reply.any()) {
    printer = std::make_unique<engine::CallPrinter>(config.print_request, config.print_reply,
                                                    listeners.call_lines);
  }
  std::unique_ptr<SampleBoard> board;
  // Worker k of shard I of N takes share I + N k of N x threads: the shards' workers together
  // take every share once, so that N processes offer the one schedule.
  const std::size_t shares = std::size_t{config.threads} * config.shard_count;
  if (listeners.on_sample) board = std::make_unique<SampleBoard>(config.threads, listeners.on_sample);
  std::vector<std::unique_ptr<engine::Worker>> workers;
  std::vector<engine::Worker*> watched;
  for (std::size_t k = 0; k < config.threads; ++k) {
    const std::size_t share = config.shard_index + std::size_t{config.shard_count} * k;
    workers.push_back(std::make_unique<engine::Worker>(
        engine::WorkerSetup{.config = config,
                            .share = share,
                            .shares = shares,
                            .endpoints = endpoints,
                            .sources = &sources,
                            .workload = work,
                            .gauge = gauge,
                            .samples = board.get(),
                            .publish_progress = static_cast<bool>(listeners.on_progress),
                            .printer = printer.get(),
                            .kernel_clock = kernel_clock ? &wall_clock : nullptr,
                            .batch_reads = batch_reads,
                            .call_log = call_log.get()}));
    watched.push_back(workers.back().get());
  }
  // The open loop's workers take the due arrivals of one behind its share (a core slower or
  // busier than the others): the run offers the schedule as fast as all of them can, not at
  // the slowest one's pace. A closed loop's slots and sessions stay with their worker.
  if (watched.size() > 1 && !config.closed_loop() && !config.period.sequential() &&
      !work.sessions) {
    for (engine::Worker* worker : watched) worker->share_with(watched);
  }
  Watcher watcher(watched, listeners.on_progress, config.shard_arrivals(),
                  kernel_clock ? &wall_clock : nullptr);

  rusage before{};
  ::getrusage(RUSAGE_SELF, &before);
  // The schedule's start: now, or the --start-at instant by this machine's clock (a start a
  // little in the past runs at once, and its lateness shows as lag).
  TimePoint start = Clock::now();
  std::int64_t start_unix_ns = unix_ns_now();
  if (config.start_at_unix_ns) {
    const std::int64_t ahead = start_ahead_ns(config);
    if (ahead > 1'000'000'000 && !config.quiet) {
      std::fprintf(stderr, "rateperf: waiting %.1f s for --start-at %s\n",
                   static_cast<double>(ahead) / 1e9,
                   options::format_wall_time(*config.start_at_unix_ns).c_str());
    }
    start = Clock::now() + Duration(ahead);
    start_unix_ns = *config.start_at_unix_ns;
  }
  const std::string start_time_utc = options::format_wall_time(start_unix_ns);
  watcher.start(start);
  std::vector<engine::WorkerResult> results = run_workers(workers, config.cpus, start);
  watcher.finish();
  if (kernel_clock) wall_clock.measure();
  call_log.reset();
  rusage after{};
  ::getrusage(RUSAGE_SELF, &after);
  if (listeners.on_end) listeners.on_end();

  // The exact merge: counts and histograms add, samples meet by time, and the peak of open
  // connections is the shared gauge's.
  stats::Collector merged(gauge);
  stats::RunInfo info;
  info.end = start;
  for (const engine::WorkerResult& result : results) {
    merged.merge(result.collector);
    info.end = std::max(info.end, result.end);
    outcome.buffer_refusals += result.buffer_refusals;
    if (result.any_arrival) {
      info.include_arrivals(result.first_arrival, result.last_arrival, result.first_intended,
                            result.last_intended);
    }
  }
  info.command_line = options::echo_command_line(config);
  info.start = start;
  info.cpu_user_s = seconds(after.ru_utime) - seconds(before.ru_utime);
  info.cpu_system_s = seconds(after.ru_stime) - seconds(before.ru_stime);
  // A shard offers its part of the rate.
  info.offered_rate_per_s =
      config.period.sequential() ? 0 : config.period.rate_per_s / config.shard_count;
  info.request_mode = config.request_mode;
  for (std::size_t k = 0; k < config.threads; ++k) {
    info.concurrency += schedule::share_of(
        config.concurrency, config.shard_index + std::size_t{config.shard_count} * k, shares);
  }
  info.think_s = to_s(config.think);
  info.sessions = config.sessions > 0;
  info.tls = config.tls;
  info.interrupted = watcher.interrupted();
  info.verbose = config.verbose > 0;
  info.start_time_utc = start_time_utc;
  info.timing = timing_of(config, kernel_clock, results);
  outcome.batch_reads_dropped = reads_wait > Duration::zero() && !kernel_clock;
  info.clock_kernel = kernel_clock;
  info.clock_fallback = clock_fallback;
  info.batch_reads_s = to_s(batch_reads);
  info.wall_clock_steps = wall_clock.steps();
  info.largest_step_ms = static_cast<double>(wall_clock.largest_step_ns()) / 1e6;
  outcome.summary = stats::summarize(merged, info);
  outcome.start_at = config.start_at_unix_ns.has_value();
  if (dump) dump->write(config, merged, info, start_unix_ns);
  return outcome;
}

}  // namespace rateperf::run
