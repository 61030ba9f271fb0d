#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/errors.hpp"

namespace rateperf::stats {

// Mean, spread and extremes of one measure, in milliseconds. count 0: every figure is 0.
struct MsFigures {
  std::uint64_t count = 0;
  double min_ms = 0;
  double avg_ms = 0;
  double max_ms = 0;
  double median_ms = 0;
  double stddev_ms = 0;
};

// Percentiles of one measure, in milliseconds, read from its log-linear histogram (within 1 %;
// max is exact). count 0: every figure is 0.
struct Percentiles {
  std::uint64_t count = 0;
  double p50_ms = 0;
  double p90_ms = 0;
  double p99_ms = 0;
  double p999_ms = 0;  // p99.9
  double max_ms = 0;
  double avg_ms = 0;  // the mean (exact, not from the buckets)
};

// One reply-rate sampling interval (httperf's 5-s samples).
struct SampleFigures {
  double start_s = 0;   // the interval's start, in seconds since the start of the run
  double length_s = 0;  // its length (the first one may be shorter: --client I/N offsets it)
  std::uint64_t replies = 0;
  double reply_rate_per_s = 0;  // replies / length_s
  std::uint64_t errors = 0;
};

// One interval of the run's time series (--interval).
struct SeriesFigures {
  double start_s = 0;   // its start, in seconds since the start of the run
  double length_s = 0;  // its length (the last one may be shorter)
  std::uint64_t arrivals = 0;  // arrivals issued in it
  std::uint64_t replies = 0;   // replies completed in it
  std::uint64_t errors_total = 0;
  ErrorCounts errors{};              // calls that ended with an error in it, by kind
  std::uint64_t open_connections = 0;  // connections open at its end
  double latency_p50_ms = 0;  // its replies' latency from the intended start (0: no reply)
  double latency_p90_ms = 0;
  double latency_p99_ms = 0;
  double latency_max_ms = 0;
  double lag_p99_ms = 0;  // its arrivals' lag (0: no arrival)
};

// The percentages of ab's table "Percentage of the requests served within a certain time".
inline constexpr std::array<int, 9> kServedWithinPercents = {50, 66, 75, 80, 90, 95, 98, 99, 100};

// How the client's loops waited for their deadlines (--timing) and what that cost.
struct TimingFigures {
  std::string mode = "auto";  // auto, sleep, hybrid, spin or batch
  double cpu_percent = 0;     // the client's CPU over the run, % of one core
  std::uint64_t sleeps = 0;   // loop turns that slept in epoll_wait
  std::uint64_t polls = 0;    // loop turns that polled without sleeping
  std::uint64_t timer_arms = 0;     // times the wake-up timer was set
  std::uint64_t timer_wakeups = 0;  // sleeps the wake-up timer ended
  double lateness_p50_ms = 0;  // how late those wake-ups came after the timer's time
  double lateness_p99_ms = 0;
  double margin_ms = 0;      // sleeps were set to end this long before a deadline
  double poll_below_ms = 0;  // deadlines nearer than this were polled for
  double turn_ms = 0;        // batch's turns (--timing batch, or auto at a high rate): their length

  // Adds another loop's figures (a worker's, a shard's): counts add; the lateness and margins
  // are the largest. The mode, the turn and the CPU stay.
  void add(const TimingFigures& other);
};

// Which clock timed the replies (--clock), and the client's own figures beside the kernel's.
struct ClockFigures {
  bool kernel = false;   // --clock kernel ran: the kernel's timestamps timed what they could
  std::string fallback;  // --clock kernel was asked but the client's clock timed all: why
  std::string replies = "user";        // what timed the reply figures: kernel, user, or mixed
  std::uint64_t kernel_replies = 0;    // replies whose first and last bytes the kernel stamped
  std::uint64_t user_replies = 0;      // the rest: timed by the client's reads
  std::uint64_t kernel_sends = 0;      // kernel replies whose request start is its transmit stamp
  double batch_reads_s = 0;            // --batch-reads in effect (0: each reply read at once)
  std::uint64_t wall_clock_steps = 0;  // steps of the wall clock seen during the run
  double largest_step_ms = 0;
  // The client's own clock, for every reply: the reply-time averages and the percentiles of
  // the latency from the intended start and of the response time (with --clock user, or where
  // the kernel stamped nothing, the same as the main figures).
  double user_response_avg_ms = 0;
  double user_transfer_avg_ms = 0;
  Percentiles user_latency;
  Percentiles user_response_time;
};

// httperf's session figures (--wsess, --wsesslog).
struct SessionFigures {
  std::uint64_t total = 0;  // sessions ended: completed + failed
  std::uint64_t completed = 0;
  std::uint64_t failed = 0;
  // Completed sessions per second: min, max and stddev of the 5-s samples; avg over the run
  // (completed / duration_s), as httperf's line has them.
  double rate_min = 0;
  double rate_avg = 0;
  double rate_max = 0;
  double rate_stddev = 0;
  std::uint64_t rate_samples = 0;
  double connections_per_session = 0;  // connections of the completed sessions, per session
  double lifetime_avg_s = 0;           // start to last reply, completed sessions
  double failtime_avg_s = 0;           // start to failure, failed sessions
  std::vector<std::uint64_t> length_histogram;  // sessions by their replies: [0], [1], ...
};

// TLS (--ssl, https://): the handshakes and what they negotiated.
struct TlsFigures {
  std::uint64_t full = 0;     // full handshakes
  std::uint64_t resumed = 0;  // resumed sessions (abbreviated handshakes)
  Percentiles handshake;      // ClientHello to the handshake's end
  std::string protocol;       // negotiated ("TLSv1.3"); empty: no handshake completed
  std::string cipher;
};

// Everything a report prints about a finished run, as plain values: collectors and the run's
// bookkeeping fill it (stats::summarize), reporters only format it. Units are in the names.
struct Summary {
  std::string command_line;  // the normalised command line (options::echo_command_line)

  std::uint64_t max_burst = 0;  // most arrivals issued in one wake-up of the client

  std::uint64_t arrivals = 0;     // arrivals taken from the schedule
  std::uint64_t connections = 0;  // sockets for which connect() was started
  std::uint64_t requests = 0;     // requests fully written
  std::uint64_t replies = 0;      // replies received (the sum of the status classes)
  // Every call ends as a reply or a counted error: calls = replies + errors_total.
  std::uint64_t calls = 0;
  bool request_mode = false;  // requests scheduled over a pool of connections (--request-rate)
  double duration_s = 0;          // start of the run to the end of the last connection

  double connection_rate_per_s = 0;  // connections / duration_s
  double ms_per_connection = 0;      // 1000 / connection_rate_per_s (0 when no connection)
  std::uint64_t max_concurrent = 0;  // most connections open at once
  // max_concurrent is the sum of the peaks of separately measured parts (machines): an upper
  // bound, not the run's own peak.
  bool max_concurrent_is_bound = false;

  MsFigures connection_time;  // connecting -> closed, connections with at least one reply
  double connect_avg_ms = 0;  // mean time to establish a connection
  std::uint64_t connect_count = 0;
  double replies_per_connection = 0;  // replies per connection that got at least one reply

  double request_rate_per_s = 0;  // requests / duration_s
  double ms_per_request = 0;
  double request_size_avg_bytes = 0;

  // Reply rate samples (httperf: every 5 s): min, mean of the samples, max, stddev, count.
  double reply_rate_min = 0;
  double reply_rate_avg = 0;
  double reply_rate_max = 0;
  double reply_rate_stddev = 0;
  std::uint64_t reply_rate_samples = 0;

  double response_avg_ms = 0;  // first reply byte - start of sending the request
  double transfer_avg_ms = 0;  // reply complete - first reply byte

  double reply_header_avg_bytes = 0;
  double reply_content_avg_bytes = 0;
  double reply_footer_avg_bytes = 0;
  double reply_total_avg_bytes = 0;
  std::array<std::uint64_t, 5> status_classes{};  // 1xx .. 5xx

  double cpu_user_s = 0;
  double cpu_system_s = 0;
  double cpu_user_percent = 0;  // of duration_s
  double cpu_system_percent = 0;
  double cpu_total_percent = 0;

  double net_io_kb_per_s = 0;    // (request + reply bytes) / duration_s / 1024
  double net_io_mbit_per_s = 0;  // the same in 10^6 bit/s

  ErrorCounts errors{};            // per kind
  std::uint64_t errors_total = 0;  // the sum over all kinds
  // "other" as httperf's line prints it: other errnos, malformed replies (which httperf lumps
  // together) and unanswered calls, so that httperf's two Errors lines add up to the total.
  std::uint64_t errors_other_httperf = 0;

  // rateperf's own figures, which httperf lacks.
  double offered_rate_per_s = 0;  // the schedule's mean rate (0: sequential)
  double issue_window_s = 0;      // first to last arrival
  // The schedule's own window, first to last intended start, and the rate it makes: what the
  // seeded gaps of an e, u or v period realise, which a short run's draw can miss the mean by.
  double intended_window_s = 0;
  double intended_rate_per_s = 0;
  double issued_rate_per_s = 0;   // arrivals / issue window (0 with one arrival)
  bool interrupted = false;       // stopped by SIGINT/SIGTERM before the schedule's end

  // Percentiles, which httperf lacks.
  Percentiles latency_intended;  // the arrival's intended start -> reply complete
  Percentiles latency_actual;    // the arrival's actual start -> reply complete
  Percentiles connect_time;      // connect() -> connected
  Percentiles response_time;     // start of sending the request -> first reply byte
  Percentiles request_wait;      // request mode: intended start -> first byte sent
  // ab's table, from the intended start: the time within which each of kServedWithinPercents
  // of the replies completed.
  std::array<double, kServedWithinPercents.size()> served_within_ms{};
  bool show_served_within = false;  // print ab's table (--verbose)

  // The closed loop (--concurrency): its slots, in this run or part of it (0: the open loop),
  // and a slot's pause between arrivals. Its rate is whatever the server allowed: lag and the
  // client_limited warning do not apply.
  std::uint64_t concurrency = 0;
  double think_s = 0;
  // ab's figures (--format ab), per reply: "Connect" (the connect time of a call that waited for
  // its connection, 0 for one sent on an open connection), "Processing" (the rest of Total),
  // "Waiting" (sending the request -> first reply byte) and "Total" (the arrival's actual start
  // -> reply complete), with ab's n - 1 spread; and ab's percentage table over Total.
  MsFigures ab_connect;
  MsFigures ab_processing;
  MsFigures ab_waiting;
  MsFigures ab_total;
  std::array<double, kServedWithinPercents.size()> ab_within_ms{};
  bool has_document = false;            // a reply came: document_bytes is a body's length
  std::uint64_t document_bytes = 0;     // the body length most replies had (ab's Document Length)
  std::uint64_t length_mismatches = 0;  // replies with another body length (ab's "Length")
  std::uint64_t reply_bytes = 0;        // every reply's bytes: headers, body and footers
  std::uint64_t reply_body_bytes = 0;   // their bodies' bytes

  // The client's own lag: each arrival's actual start - its intended start.
  double lag_p50_ms = 0;
  double lag_p99_ms = 0;
  double lag_max_ms = 0;
  std::uint64_t lag_late_arrivals = 0;  // arrivals that started more than 1 ms late
  // --threads: arrivals another worker started, their own being Worker::kBehind or more behind.
  std::uint64_t moved_arrivals = 0;
  // The client could not hold its schedule: lag p99 above lag_limit_ms (see summarize()), so
  // the figures measure the client, not the server.
  bool client_limited = false;
  double lag_limit_ms = 0;

  TimingFigures timing;
  ClockFigures clock;

  bool tls_run = false;  // the run spoke TLS: `tls` holds its figures
  TlsFigures tls;

  bool sessions_run = false;  // the run made sessions: `sessions` holds their figures
  SessionFigures sessions;

  std::vector<SampleFigures> samples;  // every reply-rate sample, in order
  double series_interval_s = 0;        // the series' interval (doubled for long runs)
  std::vector<SeriesFigures> series;   // the time series, in order
  std::string start_time_utc;          // wall-clock start, ISO 8601 UTC (for exports)
};

}  // namespace rateperf::stats

#include "core/clock.hpp"

namespace rateperf::stats {

class Collector;

// What the run itself knows, beside the collectors' counts.
struct RunInfo {
  std::string command_line;
  TimePoint start{};          // the run's start: the first arrival's intended time
  TimePoint end{};            // the end of the last connection (or the last arrival)
  TimePoint first_arrival{};  // actual start of the first and of the last arrival
  TimePoint last_arrival{};
  TimePoint first_intended{};  // intended start of the first and of the last arrival
  TimePoint last_intended{};
  double cpu_user_s = 0;  // the client's own CPU time over the run
  double cpu_system_s = 0;
  double offered_rate_per_s = 0;  // the schedule's mean rate; 0: sequential
  bool request_mode = false;      // the schedule's arrivals are requests, not connections
  bool sessions = false;          // ... or sessions (--wsess, --wsesslog)
  std::uint64_t concurrency = 0;  // the closed loop's slots (--concurrency); 0: open loop
  double think_s = 0;             // a slot's pause between its arrivals (--think)
  bool tls = false;               // the connections spoke TLS
  bool interrupted = false;
  bool verbose = false;        // the report shows ab's table of served-within times
  std::string start_time_utc;  // wall-clock time of the start, ISO 8601 UTC
  TimingFigures timing;         // the loops' waiting (cpu_percent is filled in by summarize)
  // --clock kernel ran (the kernel's timestamps timed the replies where it gave them), or why
  // it fell back; --batch-reads in effect; the wall clock's steps during the run.
  bool clock_kernel = false;
  std::string clock_fallback;
  double batch_reads_s = 0;
  std::uint64_t wall_clock_steps = 0;
  double largest_step_ms = 0;
  bool any_arrival = false;     // the four arrival times above hold a part's arrivals

  // Widens the arrival times to take in a part's (a worker's, a shard's), which had arrivals:
  // the earliest first, the latest last.
  void include_arrivals(TimePoint first, TimePoint last, TimePoint first_due, TimePoint last_due);
};

// Turns the merged counts of a run into the figures the reports print.
Summary summarize(const Collector& collector, const RunInfo& run);

}  // namespace rateperf::stats
