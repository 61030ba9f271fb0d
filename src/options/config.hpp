#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"

namespace rateperf::options {

// The most calls --max-piped-calls may put in flight on one connection.
inline constexpr std::uint64_t kMaxPipedCalls = 1024;
// The most connections --max-connections may give one session.
inline constexpr std::uint64_t kMaxSessionConnections = 64;
// The most workers --threads may start: far past the cores of any machine it runs on.
inline constexpr std::uint64_t kMaxThreads = 256;
// How many times --retry-on-failure sends one call again before its session fails: a server
// that always answers with the failure status must not hold a session forever.
inline constexpr int kMaxRetries = 8;

// How the gaps between arrivals are drawn (httperf's --period letter).
enum class PeriodKind {
  deterministic,  // d: every gap is `mean`
  uniform,        // u: gaps uniform over [low, high)
  exponential,    // e: Poisson arrivals, exponential gaps with mean `mean`
  variable,       // v: gap steps[i].gap for steps[i].length of schedule time, cycling
};

// One step of a variable (v) period: arrivals `gap` apart for `length` of schedule time.
struct PeriodStep {
  Duration gap{};
  Duration length{};
};

// The arrival process. A deterministic period with mean 0 means "sequential": one connection
// after another, the next starting when the previous one ends (httperf's --rate 0).
struct Period {
  PeriodKind kind = PeriodKind::deterministic;
  Duration mean{};                // d and e: the (mean) gap
  Duration low{};                 // u: smallest gap
  Duration high{};                // u: gaps are below this
  std::vector<PeriodStep> steps;  // v: the steps, in order, repeated
  // The mean rate in arrivals/s, the one source of it: --rate as given, or derived from the
  // --period numbers as typed (1/T for d and e, 2/(T1+T2) for u, the arrivals of one cycle
  // over its length for v); 0 when sequential.
  double rate_per_s = 0;

  bool sequential() const { return kind == PeriodKind::deterministic && mean == Duration::zero(); }
};

// What --print-request and --print-reply print of each call: its header lines, its body lines,
// or both (the option without a value), each line prefixed as httperf does.
struct PrintParts {
  bool header = false;
  bool body = false;
  bool any() const { return header || body; }
};

// How a worker's loop waits for its next deadline (--timing); engine/pacing.hpp says what each
// does.
enum class Timing {
  automatic,  // "auto": sleeps for far deadlines, polls for near ones
  sleep,      // sleeps until each deadline
  hybrid,     // sleeps until a learned margin before each deadline, then polls: punctual
  spin,       // never sleeps
  batch,      // takes a turn every batch_turn(): the arrivals due since the last, and the replies
};

// Which clock times the replies (--clock): the kernel's receive (and transmit) timestamps of
// the packets (SO_TIMESTAMPING), falling back to the client's own reads where the kernel gives
// none, or the client's reads only.
enum class ReplyClock { kernel, user };

// The shape of the text report (--format): httperf's (and rateperf's own lines), ab's or
// siege's, each with the other tool's labels verbatim.
enum class ReportFormat { httperf, ab, siege };

// The whole configuration of a run: built and validated once by options::parse(), then passed
// around as `const Config&`. Every option is one entry of the table in table.cpp, which says
// how it parses into these fields, how it is echoed and how it goes into the JSON document.
// Durations are typed; raw numbers carry their unit in their name.
struct Config {
  std::string server = "localhost";  // host name or address to connect to
  std::uint16_t port = 80;           // TCP port of the server
  std::string uri = "/";             // request target
  std::string server_name;           // Host header value; empty: `server` (with :port if not 80)

  Period period;                // the arrival process, from --rate or --period
  std::uint64_t num_conns = 1;  // connections to issue in all
  std::uint64_t num_calls = 1;  // calls per connection (httperf's --num-calls)
  // Calls go out in pipelined bursts of this many (the next burst after all their replies); in
  // request mode, the most requests in flight on one connection.
  std::uint64_t burst_length = 1;
  std::uint64_t max_piped_calls = 32;  // the most calls in flight on one connection

  // Request mode (--request-rate, or --connections with --period): the period schedules
  // requests, not connections, over a pool of `connections` persistent connections opened at
  // the start; `requests` in all, or as many as the schedule has in `duration`.
  bool request_mode = false;
  std::uint64_t connections = 10;
  std::uint64_t requests = 0;  // 0: bounded by `duration`
  Duration duration{};

  // The closed loop (--concurrency C): C slots, each starting its next arrival (a connection;
  // with --requests or --connections, a request over the persistent connections) when its last
  // one ended, `think` later; the length is num_conns, requests or duration. 0: the open loop
  // of --rate or --period (whose --rate 0 is a closed loop of one slot).
  std::uint64_t concurrency = 0;
  Duration think{};
  bool closed_loop() const { return concurrency > 0; }

  Duration timeout{};        // inactivity watchdog (client-timo); zero: none
  Duration think_timeout{};  // added to the wait for the first reply byte

  std::string method = "GET";            // request method
  std::vector<std::string> add_headers;  // extra header lines, without CRLF
  std::string http_version = "1.1";      // "1.0" or "1.1"
  bool no_host_header = false;           // --no-host-hdr: send no Host header

  // --wlog B,FILE: each call takes the next URI of FILE; B (y) wraps at its end, otherwise the
  // schedule ends there. Empty: not given.
  std::string wlog_path;
  bool wlog_wrap = false;
  // --wset N,X: each call takes its URI from a working set of N files under --uri, X new files
  // per call. 0 files: not given.
  std::uint64_t wset_files = 0;
  double wset_rate = 0;

  // Sessions (--wsess N1,N2,X or --wsesslog N,X,FILE): the schedule starts `sessions` user
  // sessions instead of connections; 0: no sessions. Each session makes its calls in bursts
  // (a burst's first call, then the rest once it is answered) on at most `max_connections`
  // connections of its own, pausing `session_think` after each burst's replies.
  std::uint64_t sessions = 0;
  std::uint64_t wsess_calls = 0;  // --wsess: N2 calls per session; 0: not given
  std::string wsesslog_path;      // --wsesslog: the session file; empty: not given
  Duration session_think{};       // X: the think time (a file's think= overrides it)
  std::uint64_t max_connections = 4;  // --max-connections: per session
  int failure_status = 0;             // --failure-status: a reply with it fails the session; 0: none
  bool retry_on_failure = false;      // --retry-on-failure: send such a call again instead
  bool session_cookies = false;       // --session-cookies: replay a session's Set-Cookie

  // Where connections come from and go to: --myaddr specs (an address, or a range A1-A2) whose
  // addresses the sockets bind to in turn; --hog: each socket binds a port of its own from 1024
  // up; --server-addresses all: connections go to each address the server's name resolves to,
  // in turn (otherwise to the first).
  std::vector<std::string> myaddr;
  bool hog = false;
  bool all_server_addresses = false;

  // TLS (--ssl, or an https:// URL; port 443 unless one is named).
  bool tls = false;
  std::string tls_server_name;  // --tls-server-name: SNI (and the name verified); empty: --server
  std::string ssl_protocol = "auto";  // --ssl-protocol: auto, TLSv1.0 .. TLSv1.3 (only that one)
  std::string ssl_ciphers;            // --ssl-ciphers: TLS 1.2 cipher list; empty: OpenSSL's
  std::string tls_ciphersuites;       // --tls-ciphersuites: TLS 1.3 suites; empty: the browsers' order
  bool ssl_reuse = true;              // resume sessions (--ssl-no-reuse: off)
  bool ssl_verify = false;            // --ssl-verify: check the certificate
  std::string ssl_ca_file;            // --ssl-ca-file: CA certificates for --ssl-verify

  // --close-with-reset: the client's close sends a reset (SO_LINGER with a zero timeout) instead
  // of a FIN, as httperf's option does: the connection leaves no TIME_WAIT socket behind.
  bool close_with_reset = false;

  // SO_SNDBUF and SO_RCVBUF of each socket, when given: the kernel's autotuned defaults are
  // better than httperf's small fixed ones (4096 and 16384, which the echoed command line shows
  // when none is given), and leaving them saves two syscalls a connection.
  std::optional<std::uint32_t> send_buffer_bytes;
  std::optional<std::uint32_t> recv_buffer_bytes;

  Timing timing = Timing::automatic;  // --timing
  ReplyClock clock = ReplyClock::kernel;  // --clock
  bool clock_given = false;               // --clock was on the command line
  // The clock in effect: --clock, whose default is the kernel's in the open loop and the
  // client's in a closed loop, whose figures are ab's and siege's (both time replies from user
  // space, to the millisecond), and where the kernel's transmit stamps cost some 15 % more CPU
  // a request on keep-alive connections (scripts/bench (n)).
  ReplyClock reply_clock() const { return clock_given ? clock : default_clock(); }
  ReplyClock default_clock() const { return closed_loop() ? ReplyClock::user : ReplyClock::kernel; }
  // --batch-reads: replies are read at the loop's next wake-up, at most this long after they
  // came, instead of waking the client for each (kernel clock only); zero: at once.
  Duration batch_reads{};
  // The loop's timing in effect (engine/pacing.hpp): --timing, except that auto sleeps in a
  // closed loop (no schedule to keep: polling while the sockets are busy would only spin a core
  // and outpace what ab and siege measure of the same server), and takes batch's turns when a
  // worker is offered kAutoTurnsAbove calls a second or more and `kernel_clock` (the kernel's
  // timestamps time the replies): one call every 50 us or less, where polling for each would take
  // the whole core, and a reply read at the next turn keeps the times the kernel gave it.
  static constexpr double kAutoTurnsAbove = 20000;
  Timing loop_timing(bool kernel_clock) const {
    if (timing != Timing::automatic) return timing;
    if (closed_loop()) return Timing::sleep;
    if (kernel_clock && worker_call_rate() >= kAutoTurnsAbove) return Timing::batch;
    return timing;
  }
  // The length of batch's turns where loop_timing() is batch: --batch-reads or 0.2 ms; zero
  // otherwise.
  Duration turn(bool kernel_clock) const {
    if (loop_timing(kernel_clock) != Timing::batch) return Duration::zero();
    return batch_reads > Duration::zero() ? batch_reads : std::chrono::microseconds(200);
  }
  // The calls a second one worker is offered: the schedule's rate over the workers of every
  // shard, times the calls each arrival makes (--num-calls, --wsess's N2) outside request mode.
  double worker_call_rate() const {
    double calls = 1;
    if (!request_mode)
      calls =
          static_cast<double>(sessions > 0 ? std::max<std::uint64_t>(wsess_calls, 1) : num_calls);
    return period.rate_per_s * calls / (static_cast<double>(threads) * shard_count);
  }

  // --threads: share-nothing workers, each on a thread of its own with its own loop, taking
  // arrivals k, k + N, ... of the one schedule; --cpus: the CPUs they are pinned to in turn
  // (none: the kernel places them).
  std::uint32_t threads = 1;
  std::vector<std::uint32_t> cpus;
  // --shard I/N: this process runs part I of N of the schedule the options describe, by the
  // rule of --threads (arrivals I, I + N, ...), so that N processes offer the whole of it.
  std::uint32_t shard_index = 0;
  std::uint32_t shard_count = 1;
  // --start-at: the schedule's start as a wall-clock instant, nanoseconds since the Unix epoch,
  // the same on every machine of a sharded run; none: the start is when the run is ready.
  std::optional<std::int64_t> start_at_unix_ns;
  // --dump: where the lossless result file goes (for `rateperf merge`); empty: none.
  std::string dump_path;
  // The command line was read back from a dump (`rateperf merge`): nothing of this machine or
  // its environment is checked or read (CPUs, --shard env), as it describes another's run.
  bool recorded = false;

  std::uint32_t client_id = 0;     // --client I/N: this client's index I
  std::uint32_t client_count = 1;  // --client I/N: the number of clients N

  std::uint64_t seed = 1;   // seed of the u and e arrival processes
  bool seed_given = false;  // --seed appeared (otherwise the seed derives from --client)
  int verbose = 0;          // --verbose count: 1 prints reply-rate samples as they come

  // --interval: the length of the time series' intervals; --series: its CSV file ("-": stdout).
  Duration interval = std::chrono::seconds(1);
  std::string series_path;
  std::string call_log_path;  // --call-log: one CSV row per reply, with both clocks' times
  std::string json_path;  // --json: where to write the JSON document ("-": stdout); empty: none
  std::string csv_path;   // --csv: the CSV file to append a row to ("-": stdout); empty: none
  bool quiet = false;     // --quiet: no live progress line on stderr
  ReportFormat format = ReportFormat::httperf;  // --format: the text report's shape
  PrintParts print_request;  // --print-request: each request's lines on stdout (SH, SB, SS)
  PrintParts print_reply;    // --print-reply: each reply's lines on stdout (RH, RB, RS)

  // Thresholds for automation (CI gating): the run exits with a distinct status when it crosses
  // one. They judge the run but never change how it is done.
  Duration max_lag{};                  // --max-lag: threshold on the p99 lag; zero: none
  double max_error_rate_percent = -1;  // --max-error-rate; negative: none

  std::string argv0 = "rateperf";  // program name for the echoed command line
  std::vector<std::string> arguments;  // the command line as given, after the program's name

  // What the connection schedule (not request mode) starts in all: sessions, or connections.
  std::uint64_t arrivals() const { return sessions > 0 ? sessions : num_conns; }
  // The arrivals of this process's shard: those of arrivals() whose index is I modulo N.
  std::uint64_t shard_arrivals() const {
    const std::uint64_t all = arrivals();
    return all > shard_index ? (all - shard_index + shard_count - 1) / shard_count : 0;
  }
};

}  // namespace rateperf::options
