#include "options/options.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "build_version.hpp"
#include "options/help.hpp"
#include "options/table.hpp"
#include "options/url.hpp"
#include "options/values.hpp"

namespace rateperf::options {

namespace {

namespace po = boost::program_options;

// Each option given, with its value, in the order of the command line.
struct Given {
  const OptionSpec* spec;
  std::string value;
};

// The closed loop (--concurrency C): C slots, each starting its next arrival when its last one
// ended (--think later). Its arrivals are connections (--num-conns), or with --requests or
// --connections requests over persistent connections (ab -k); --duration instead of a count.
// It has no rate: the server's pace sets it.
void check_closed_loop(Config& config, const std::set<std::string_view>& seen) {
  const auto given = [&](std::string_view name) { return seen.count(name) != 0; };
  if (!config.closed_loop()) {
    if (given("think")) fail("--think", "needs --concurrency (a closed loop's pause between a slot's arrivals)");
    return;
  }
  for (const std::string_view name : {"rate", "period", "request-rate"}) {
    if (given(name)) {
      fail("--" + std::string(name), "not with --concurrency (a closed loop has no rate: each slot starts its next arrival when its last one ended)");
    }
  }
  for (const std::string_view name : {"wsess", "wsesslog"}) {
    if (given(name)) fail("--" + std::string(name), "not with --concurrency (sessions start at --rate or --period)");
  }
  config.request_mode = given("requests") || given("connections");
  if (config.request_mode) {
    const std::string mode = given("requests") ? "--requests" : "--connections";
    if (given("num-conns")) fail("--num-conns", "not with " + mode + " (its requests go over persistent connections; give --requests)");
    if (given("num-calls")) fail("--num-calls", "not with " + mode + " (its connections stay open for every request)");
    if (!given("connections")) config.connections = config.concurrency;
  }
  if (!given("num-conns") && !given("requests") && !given("duration")) {
    fail("--concurrency", "needs --num-conns N, --requests N or --duration S (the closed loop's length)");
  }
  if (given("duration") && (given("num-conns") || given("requests"))) {
    fail("--duration", std::string("not with ") + (given("requests") ? "--requests" : "--num-conns") + " (give one of them)");
  }
  if (given("duration")) return;
  const std::uint64_t total = config.request_mode ? config.requests : config.num_conns;
  if (total < config.concurrency) {
    fail(config.request_mode ? "--requests" : "--num-conns",
         std::to_string(total) + " is fewer than --concurrency " + std::to_string(config.concurrency) + " (a slot would never start)");
  }
}

// The options of the two workloads do not mix: connections at a rate, each with its calls
// (--rate or --period, --num-conns, --num-calls), or requests at a rate over a pool of
// connections (--request-rate or --period, --connections, --requests or --duration).
void check_request_mode(const Config& config, const std::set<std::string_view>& seen) {
  const auto given = [&](std::string_view name) { return seen.count(name) != 0; };
  if (config.closed_loop()) return;  // check_closed_loop
  if (!config.request_mode) {
    for (const std::string_view name : {"requests", "duration"}) {
      if (given(name)) fail("--" + std::string(name), "needs --request-rate or --concurrency");
    }
    return;
  }
  const std::string mode = given("request-rate") ? "--request-rate" : "--connections";
  if (given("rate")) fail("--rate", "not with " + mode + " (--rate schedules connections, --request-rate requests)");
  if (given("num-conns")) fail("--num-conns", "not with " + mode + " (give --requests or --duration)");
  if (given("num-calls")) fail("--num-calls", "not with " + mode + " (its connections stay open for every request)");
  if (given("request-rate") && given("period")) fail("--period", "not with --request-rate (give one of them)");
  if (!given("request-rate") && !given("period")) fail("--connections", "needs --request-rate or --period");
  if (config.period.sequential()) fail("--period", "request mode needs gaps above 0");
  if (given("requests") && given("duration")) fail("--duration", "not with --requests (give one of them)");
  if (!given("requests") && !given("duration")) fail(mode, "needs --requests N or --duration S");
}

// Sessions (--wsess, --wsesslog) are a workload of their own: the schedule starts sessions, which
// make their own calls; the options of the other workloads, and httperf's forbidden pairs, are
// refused. The session options mean nothing without sessions.
void check_sessions(const Config& config, const std::set<std::string_view>& seen) {
  const auto given = [&](std::string_view name) { return seen.count(name) != 0; };
  if (config.sessions == 0) {
    for (const std::string_view name :
         {"max-connections", "failure-status", "retry-on-failure", "session-cookies"}) {
      if (given(name)) fail("--" + std::string(name), "needs --wsess or --wsesslog (a session option)");
    }
    return;
  }
  const std::string mode = given("wsess") ? "--wsess" : "--wsesslog";
  if (given("wsess") && given("wsesslog")) fail("--wsesslog", "not with --wsess (give one of them)");
  if (config.request_mode) fail(mode, "not in request mode (sessions start at --rate or --period)");
  for (const std::string_view name : {"num-conns", "num-calls"}) {
    if (given(name)) fail("--" + std::string(name), "not with " + mode + " (its sessions make their own calls)");
  }
  if (given("wsesslog")) {
    for (const std::string_view name : {"wlog", "wset"}) {
      if (given(name)) fail("--" + std::string(name), "not with --wsesslog (its file gives each call's URI)");
    }
    if (given("burst-length")) fail("--burst-length", "not with --wsesslog (its file gives the bursts)");
  }
  // A session's calls cannot stop halfway because a URI list ended.
  if (given("wlog") && !config.wlog_wrap) fail("--wlog", "n,FILE not with --wsess (give y,FILE: the list wraps)");
  if (config.retry_on_failure && config.failure_status == 0) {
    fail("--retry-on-failure", "needs --failure-status (the status that makes a call be sent again)");
  }
}

// The TLS options need TLS (--ssl or an https:// URL); their values are checked by OpenSSL before
// the run (net::check_tls_settings).
void check_tls(const Config& config, const std::set<std::string_view>& seen) {
  if (config.tls) return;
  for (const std::string_view name : {"tls-server-name", "ssl-protocol", "ssl-ciphers",
                                      "tls-ciphersuites", "ssl-no-reuse", "ssl-verify",
                                      "ssl-ca-file"}) {
    if (seen.count(name) != 0) fail("--" + std::string(name), "needs --ssl or an https:// URL");
  }
}

// Batched reads keep their times only by the kernel's clock.
void check_clock(const Config& config) {
  if (config.batch_reads > Duration::zero() && config.reply_clock() == ReplyClock::user) {
    fail("--batch-reads", "needs --clock kernel (a reply read late keeps its time only by the kernel's timestamps)");
  }
  if (config.timing == Timing::batch && config.reply_clock() == ReplyClock::user) {
    fail("--timing",
         "batch needs --clock kernel (a reply read at the next turn keeps its time only by the "
         "kernel's timestamps)");
  }
}

}  // namespace

Parsed parse(int argc, const char* const* argv, bool recorded) {
  // The raw parse keeps every occurrence in order; no variables_map, so that repeated --verbose
  // counts and the messages for bad values are ours. Boost's own errors (unknown option, missing
  // value) are already one line naming the option.
  std::vector<po::option> raw;
  try {
    po::positional_options_description positional;
    positional.add("url", -1);
    raw = po::command_line_parser(argc, argv)
              .options(boost_descriptions())
              .positional(positional)
              .run()
              .options;
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }

  Parsed result;
  Config& config = result.config;
  config.recorded = recorded;
  if (argc > 0 && argv[0] != nullptr && argv[0][0] != '\0') config.argv0 = argv[0];
  for (int i = 1; i < argc; ++i) config.arguments.emplace_back(argv[i]);

  std::vector<Given> given;
  std::vector<std::string> urls;
  std::set<std::string_view> seen;
  for (const po::option& option : raw) {
    const std::string value = option.value.empty() ? std::string() : option.value.front();
    if (option.string_key == "url") {
      urls.push_back(value);
      continue;
    }
    const OptionSpec* spec = find_option(option.string_key);
    if (spec == nullptr) throw UsageError("unknown option '" + option.string_key + "'");
    if (spec->name == "help") result.action = Action::help;
    if (spec->name == "version" && result.action == Action::run) result.action = Action::version;
    if (!spec->repeatable && !seen.insert(spec->name).second) {
      fail("--" + option.string_key, "given more than once");
    }
    // The raw parse leaves an option given without its optional value empty.
    given.push_back({spec, value.empty() && !spec->implicit_value.empty()
                               ? std::string(spec->implicit_value)
                               : value});
  }
  // Help and version answer whatever else the command line holds, as GNU tools do.
  if (result.action == Action::help) {
    result.text = help_text();
    return result;
  }
  if (result.action == Action::version) {
    result.text = std::string("rateperf ") + kBuildVersion + "\n";
    return result;
  }

  // A URL fills server, port and uri; explicit --server, --port and --uri then override its
  // parts, whatever their order on the line, so a URL can be reused with one part changed.
  if (urls.size() > 1) {
    throw UsageError("only one URL may be given (got " + quoted(urls[0]) + " and " +
                     quoted(urls[1]) + ")");
  }
  if (urls.size() == 1) {
    const Url url = parse_url(urls[0]);
    config.server = url.host;
    config.port = url.port;
    config.uri = url.target;
    config.tls = url.tls;
  }
  const bool port_named = seen.count("port") != 0 || (urls.size() == 1 && parse_url(urls[0]).has_port);
  if (seen.count("rate") != 0 && seen.count("period") != 0) {
    throw UsageError("--rate and --period are exclusive");
  }
  // In the table's order, so that the first of several bad options is always the same one;
  // the occurrences of a repeatable option in the command line's order.
  for (const OptionSpec& spec : option_table()) {
    if (spec.apply == nullptr) continue;
    for (const Given& g : given) {
      if (g.spec == &spec) spec.apply(config, g.value);
    }
  }

  check_closed_loop(config, seen);
  check_request_mode(config, seen);
  check_tls(config, seen);
  check_clock(config);
  // TLS's port, unless one is named.
  if (config.tls && !port_named) config.port = 443;
  check_sessions(config, seen);
  if (config.shard_count > 1 && config.period.sequential() && !config.closed_loop()) {
    fail("--shard", "needs --rate or --period above 0 (--rate 0 runs one connection after another, in one process)");
  }
  // Each call's URI comes from one place.
  if (seen.count("wlog") != 0 && seen.count("wset") != 0) fail("--wset", "not with --wlog (each call takes its URI from one of them)");
  if (config.request_mode) {
    for (const std::string_view name : {"wlog", "wset"}) {
      if (seen.count(name) != 0) fail("--" + std::string(name), "not in request mode yet (give --rate or --period with --num-conns)");
    }
  }

  // Without --seed, clients of one run draw different gaps while a repeated run draws the same.
  if (!config.seed_given) config.seed = 1 + std::uint64_t{config.client_id};
  // Two documents one after the other on stdout could not be told apart by whatever reads it.
  if (config.json_path == "-" && config.csv_path == "-") {
    throw UsageError("--json and --csv cannot both write to stdout");
  }
  if (config.series_path == "-" && (config.json_path == "-" || config.csv_path == "-")) {
    throw UsageError(std::string("--series and ") + (config.json_path == "-" ? "--json" : "--csv") +
                     " cannot both write to stdout");
  }
  return result;
}

MergeCommand parse_merge(const std::vector<std::string>& words) {
  MergeCommand command;
  bool options_end = false;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (options_end || word == "-" || !word.starts_with("-")) {
      command.dumps.push_back(word);
      continue;
    }
    if (word == "--") {
      options_end = true;
      continue;
    }
    if (word == "-h" || word == "--help") {
      command.help = true;
      continue;
    }
    // --json FILE, --json=FILE; the same for --csv.
    const std::size_t equals = word.find('=');
    const std::string name = word.substr(0, equals);
    if (name != "--json" && name != "--csv") {
      fail("merge",
           "unknown option " + quoted(name) + " (merge takes --json, --csv and dump files)");
    }
    std::string value;
    if (equals != std::string::npos) {
      value = word.substr(equals + 1);
    } else if (i + 1 < words.size()) {
      value = words[++i];
    }
    if (value.empty()) fail("merge " + name, "expects a file name or -");
    (name == "--json" ? command.json_path : command.csv_path) = value;
  }
  if (command.help) return command;
  if (command.dumps.empty()) {
    fail("merge",
         "expects the dump files to merge (rateperf merge [--json FILE] [--csv FILE] DUMP...)");
  }
  if (command.json_path == "-" && command.csv_path == "-") {
    throw UsageError("merge: --json and --csv cannot both write to stdout");
  }
  return command;
}

std::string merge_help_text() {
  return "Usage: rateperf merge [--json FILE] [--csv FILE] DUMP...\n"
         "Merges the --dump files of the shards of one schedule (--shard I/N) into the report\n"
         "one process running all of it would have printed.\n"
         "  --json FILE   write the results as one JSON document to FILE (- for stdout)\n"
         "  --csv FILE    append a row of results to FILE (header if new; - for stdout)\n"
         "  -h, --help    print this help and exit\n";
}

std::string echo_command_line(const Config& config) {
  // The program's own name, as httperf prints "httperf" whatever path started it.
  std::string line = config.argv0.substr(config.argv0.rfind('/') + 1);
  if (line.empty()) line = "rateperf";
  // httperf's order; the options it does not have (--seed, the thresholds) come last.
  std::vector<const OptionSpec*> echoed;
  for (const OptionSpec& spec : option_table()) {
    if (spec.echo != nullptr) echoed.push_back(&spec);
  }
  std::sort(echoed.begin(), echoed.end(),
            [](const OptionSpec* a, const OptionSpec* b) { return a->echo_rank < b->echo_rank; });
  for (const OptionSpec* spec : echoed) spec->echo(config, line);
  return line;
}

}  // namespace rateperf::options
