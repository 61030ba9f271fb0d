// rateperf: an open-loop, rate-controlled HTTP benchmarker. main() only wires the pieces
// together: parse -> resolve -> run -> summarise -> report, and maps failures to exit codes
// (0 the run completed, 1 it could not be done, 2 usage error, 3 a --max-* threshold was
// crossed).

#include <netdb.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <chrono>
#include <ctime>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>

#include "engine/socket_options.hpp"
#include "engine/worker.hpp"
#include "http/request.hpp"
#include "options/options.hpp"
#include "report/exports.hpp"
#include "report/progress.hpp"
#include "report/text.hpp"
#include "stats/summary.hpp"

namespace {

using namespace rateperf;

// A failure that stops the run before it starts (exit status 1).
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

engine::Target resolve(const options::Config& config) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(config.port);
  const int rc = ::getaddrinfo(config.server.c_str(), port.c_str(), &hints, &found);
  if (rc != 0 || found == nullptr) {
    throw RunError("--server: cannot resolve '" + config.server + "': " + ::gai_strerror(rc));
  }
  engine::Target target;
  std::memcpy(&target.address, found->ai_addr, found->ai_addrlen);
  target.length = found->ai_addrlen;
  ::freeaddrinfo(found);
  return target;
}

// rateperf holds one descriptor per open connection: take all the descriptors the hard limit
// allows, since httperf's silent stall at the soft limit is one of the flaws not to copy.
// Returns the limit in force (0 if unknown).
std::uint64_t raise_descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) ::getrlimit(RLIMIT_NOFILE, &limit);
  }
  return limit.rlim_cur == RLIM_INFINITY ? 0 : static_cast<std::uint64_t>(limit.rlim_cur);
}

// Descriptors the process holds besides its connections: stdio, the event loop's epoll and
// signal pipe, the wake-up timer, export files.
constexpr std::uint64_t kReservedDescriptors = 16;

// Warns before the run when the schedule may need more descriptors than the limit: a server
// that stops answering keeps each connection open until --timeout, so up to rate x timeout
// connections can be open at once; arrivals that then find no descriptor count as fd-unavail.
void warn_if_descriptors_short(const options::Config& config, std::uint64_t limit) {
  if (limit == 0 || config.period.sequential() || config.timeout <= Duration::zero()) return;
  const double worst = config.rate_per_s * to_s(config.timeout);
  const double needed = std::min(worst, static_cast<double>(config.num_conns));
  if (needed + kReservedDescriptors <= static_cast<double>(limit)) return;
  std::fprintf(stderr,
               "rateperf: warning: --rate %g with --timeout %g s may keep %.0f connections open "
               "at once, more than the %" PRIu64
               " descriptors allowed (ulimit -n); arrivals that find none count as fd-unavail\n",
               config.rate_per_s, to_s(config.timeout), needed, limit);
}

// Says on stderr when arrivals failed for want of a client resource, so that nobody reads them
// as the server's errors.
void report_client_shortages(const stats::Summary& summary, std::uint64_t limit) {
  const auto count = [&](ErrorKind kind) { return summary.errors[static_cast<std::size_t>(kind)]; };
  if (const std::uint64_t n = count(ErrorKind::fd_unavail); n > 0) {
    std::fprintf(stderr,
                 "rateperf: %" PRIu64 " arrivals found no free descriptor (fd-unavail; the limit "
                 "is %" PRIu64 ", ulimit -n): the client, not the server, failed them\n",
                 n, limit);
  }
  if (const std::uint64_t n = count(ErrorKind::addrunavail); n > 0) {
    std::fprintf(stderr,
                 "rateperf: %" PRIu64 " arrivals found no free local port (addrunavail; see "
                 "net.ipv4.ip_local_port_range): the client, not the server, failed them\n",
                 n);
  }
  if (const std::uint64_t n = count(ErrorKind::ftab_full); n > 0) {
    std::fprintf(stderr,
                 "rateperf: %" PRIu64 " arrivals found the system's file table full (ftab-full)\n",
                 n);
  }
}

// Exit status of a run that crossed a user-set threshold (--max-lag, --max-error-rate): distinct
// from success (0), failure to run (1) and usage errors (2), so a CI pipeline can gate on it.
constexpr int kThresholdCrossed = 3;

// Says on stderr what the figures are worth and which thresholds the run crossed; returns the
// exit status.
int judge(const options::Config& config, const stats::Summary& summary) {
  if (summary.client_limited) {
    std::fprintf(stderr,
                 "rateperf: warning: the client fell behind its schedule (lag p99 %.3f ms, above "
                 "%.3f ms): the figures measure the client, not the server\n",
                 summary.lag_p99_ms, summary.lag_limit_ms);
  }
  int status = 0;
  const double max_lag_ms = to_ms(config.max_lag);
  if (config.max_lag > Duration::zero() && summary.lag_p99_ms > max_lag_ms) {
    std::fprintf(stderr, "rateperf: threshold crossed: lag p99 %.3f ms > --max-lag %g ms\n",
                 summary.lag_p99_ms, max_lag_ms);
    status = kThresholdCrossed;
  }
  if (config.max_error_rate_percent >= 0 && summary.arrivals > 0) {
    const double error_percent = 100.0 * static_cast<double>(summary.errors_total) /
                                 static_cast<double>(summary.arrivals);
    if (error_percent > config.max_error_rate_percent) {
      std::fprintf(stderr,
                   "rateperf: threshold crossed: %.2f %% of the arrivals failed > "
                   "--max-error-rate %g %%\n",
                   error_percent, config.max_error_rate_percent);
      status = kThresholdCrossed;
    }
  }
  return status;
}

double seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

// The wall-clock time, ISO 8601 in UTC with milliseconds, for the exports.
std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &utc);
  char text[48];
  std::snprintf(text, sizeof text, "%s.%03dZ", date, static_cast<int>(ms.count()));
  return text;
}

// The callbacks that show a run as it goes, on stderr: reply-rate samples with --verbose, and a
// progress line refreshed every second when stderr is a terminal (unless --quiet).
engine::Worker::Listeners make_listeners(const options::Config& config, bool& progress_shown) {
  engine::Worker::Listeners listeners;
  if (config.verbose > 0) {
    listeners.on_sample = [](const stats::IntervalSample& sample) {
      std::fprintf(stderr, "reply-rate = %.1f\n", sample.reply_rate_per_s());
    };
  }
  if (!config.quiet && ::isatty(STDERR_FILENO)) {
    listeners.on_progress = [&progress_shown, last = stats::Progress{}](
                                const stats::Progress& progress) mutable {
      const double seconds = to_s(progress.elapsed - last.elapsed);
      const double rate =
          seconds > 0 ? static_cast<double>(progress.replies - last.replies) / seconds : 0;
      last = progress;
      // Carriage return and erase-to-end-of-line: the line is rewritten in place.
      std::fprintf(stderr, "\r%s\033[K", report::format_progress(progress, rate).c_str());
      progress_shown = true;
    };
  }
  return listeners;
}

int run(const options::Config& config) {
  // Opened first: a path that cannot be written stops the run before anything is sent.
  report::ExportFiles exports(config);
  const engine::Target target = resolve(config);
  const std::uint64_t descriptor_limit = raise_descriptor_limit();
  warn_if_descriptors_short(config, descriptor_limit);
  for (const std::string& warning : engine::check_buffer_sizes(target.address.ss_family, config)) {
    std::fprintf(stderr, "%s\n", warning.c_str());
  }

  bool progress_shown = false;
  engine::Worker worker(config, target, http::render_request(config),
                        make_listeners(config, progress_shown));

  rusage before{};
  ::getrusage(RUSAGE_SELF, &before);
  const std::string start_time_utc = utc_now();
  const TimePoint start = Clock::now();
  engine::WorkerResult result = worker.run(start);
  rusage after{};
  ::getrusage(RUSAGE_SELF, &after);
  if (progress_shown) std::fputs("\r\033[K", stderr);

  stats::RunInfo info;
  info.command_line = options::echo_command_line(config);
  info.start = start;
  info.end = result.end;
  info.first_arrival = result.first_arrival;
  info.last_arrival = result.last_arrival;
  info.cpu_user_s = seconds(after.ru_utime) - seconds(before.ru_utime);
  info.cpu_system_s = seconds(after.ru_stime) - seconds(before.ru_stime);
  info.offered_rate_per_s = config.period.sequential() ? 0 : config.rate_per_s;
  info.interrupted = result.interrupted;
  info.verbose = config.verbose > 0;
  info.start_time_utc = start_time_utc;

  const stats::Summary summary = stats::summarize(result.collector, info);
  // With an export on stdout, the text report goes to stderr so the export stays parseable.
  std::FILE* text_out = exports.uses_stdout() ? stderr : stdout;
  std::fputs(report::format_text(summary).c_str(), text_out);
  std::fflush(text_out);

  report_client_shortages(summary, descriptor_limit);
  if (result.buffer_refusals > 0) {
    std::fprintf(stderr, "rateperf: the kernel refused a buffer size on %" PRIu64 " sockets\n",
                 result.buffer_refusals);
  }
  const int status = judge(config, summary);
  if (!exports.write(summary, config)) return 1;
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  // A server that resets mid-write must be a counted error, never the end of the process.
  std::signal(SIGPIPE, SIG_IGN);
  // SIGINT and SIGTERM wait (pending) until the worker's handlers are in place, and again once
  // its run is over: a Ctrl-C in the first milliseconds or while the report is written still
  // gets the report and the exports of what was done.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &stop_signals, nullptr);
  try {
    const options::Parsed parsed = options::parse(argc, argv);
    if (parsed.action != options::Action::run) {
      std::fputs(parsed.text.c_str(), stdout);
      return 0;
    }
    return run(parsed.config);
  } catch (const options::UsageError& e) {
    std::fprintf(stderr, "rateperf: %s\nTry 'rateperf --help'.\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rateperf: %s\n", e.what());
    return 1;
  }
}
