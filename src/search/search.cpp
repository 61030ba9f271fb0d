#include "search/search.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/failure.hpp"
#include "core/version.hpp"
#include "options/options.hpp"
#include "report/csv.hpp"
#include "report/exports.hpp"
#include "report/html.hpp"
#include "report/json.hpp"
#include "run/run.hpp"
#include "search/command.hpp"

namespace rateperf::search {

namespace {

using nlohmann::json;

// A step's command line: TARGET and what the search sets. Parsed as the user's own would be,
// so that a TARGET option the search sets too ("--rate: given more than once") is refused
// before anything is sent.
// TARGET's words and the options the search SETS, parsed as the user's own command line would
// be, so that a TARGET option the search sets too ("--rate: given more than once") is refused by
// name before anything is sent.
options::Config parse_target(const Command& command, const std::vector<std::string>& set) {
  std::vector<const char*> argv{"rateperf"};
  for (const std::string& word : command.target) argv.push_back(word.c_str());
  for (const std::string& word : set) argv.push_back(word.c_str());
  try {
    options::Parsed parsed = options::parse(static_cast<int>(argv.size()), argv.data());
    if (parsed.action != options::Action::run) {
      throw UsageError(
          "TARGET asks for " +
          std::string(parsed.action == options::Action::help ? "--help" : "--version") +
          ": use 'rateperf search --help'");
    }
    return parsed.config;
  } catch (const UsageError& e) {
    const std::string what = e.what();
    if (what.ends_with("given more than once")) {
      throw UsageError("TARGET: " + what.substr(0, what.find(':')) +
                       " is set by the search (see 'rateperf search --help')");
    }
    throw UsageError("TARGET: " + what);
  }
}

// A step's command line: TARGET and what the search sets.
struct StepPlan {
  const Command& command;
  std::string timeout;  // the --timeout the search adds; empty: TARGET has one

  options::Config config(double rate) const {
    std::vector<std::string> set;
    char value[64];
    std::snprintf(value, sizeof value, "%.6g", rate);
    if (command.request_mode) {
      set.push_back(std::string("--request-rate=") + value);
      std::snprintf(value, sizeof value, "%.6g", command.step_s);
      set.push_back(std::string("--duration=") + value);
    } else {
      set.push_back(std::string("--rate=") + value);
      std::snprintf(value, sizeof value, "%.0f", std::max(1.0, std::round(rate * command.step_s)));
      set.push_back(std::string("--num-conns=") + value);
    }
    std::snprintf(value, sizeof value, "%.6g", std::max(0.1, command.step_s / 10));
    set.push_back(std::string("--interval=") + value);
    if (!timeout.empty()) set.push_back("--timeout=" + timeout);
    return parse_target(command, set);
  }
};

// TARGET alone, read once: whether the search adds a timeout.
StepPlan plan_steps(const Command& command) {
  StepPlan plan{command, {}};
  const options::Config alone = parse_target(command, {});
  if (alone.sessions > 0) {
    throw UsageError(
        "TARGET: sessions (--wsess, --wsesslog) are not searched: search the connection rate, "
        "or the request rate with --request-mode");
  }
  if (alone.timeout == Duration::zero()) {
    // A step past capacity ends when its last connections time out: without a timeout of
    // TARGET's, the search gives one, long enough for any latency the SLO allows.
    const double seconds = std::max(2.0, 2 * largest_latency_bound_ms(command.slo) / 1000);
    char value[32];
    std::snprintf(value, sizeof value, "%.6g", seconds);
    plan.timeout = value;
  }
  plan.config(command.settings.start_rate);  // refuses a TARGET the steps cannot take
  return plan;
}

// Waits out the cool-down; false when SIGINT or SIGTERM came meanwhile (they are blocked in
// every thread, run::prepare_process, and wait for whoever reads them).
bool cool_down(double seconds) {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  timespec wait{};
  wait.tv_sec = static_cast<time_t>(seconds);
  wait.tv_nsec = static_cast<long>((seconds - static_cast<double>(wait.tv_sec)) * 1e9);
  while (true) {
    const int signal = ::sigtimedwait(&stop_signals, nullptr, &wait);
    if (signal > 0) return false;
    if (errno != EINTR) return true;  // EAGAIN: the time is up
  }
}

json checks_json(const Judgement& judgement) {
  json checks = json::array();
  for (const Check& check : judgement.checks) {
    checks.push_back({{"term", check.term->text},
                      {"value", std::isfinite(check.value) ? json(check.value) : json(nullptr)},
                      {"passed", check.passed}});
  }
  return checks;
}

// An output of the search, or none when its path is empty.
std::unique_ptr<report::OutputFile> open_output(const char* option, const std::string& path,
                                                bool append) {
  if (path.empty()) return nullptr;
  return std::make_unique<report::OutputFile>(option, path, append);
}

class Search {
 public:
  // Checks TARGET and opens the outputs: a path that cannot be written stops the search before
  // its first step.
  explicit Search(const Command& command)
      : command_(command),
        plan_(plan_steps(command)),
        controller_(command.settings),
        unit_(command.request_mode ? "req/s" : "conn/s"),
        json_file_(open_output("--json", command.json_path, false)),
        csv_file_(open_output("--csv", command.csv_path, true)),
        html_file_(open_output("--report", command.report_path, false)) {
    const bool on_stdout = (json_file_ && json_file_->is_stdout()) ||
                           (csv_file_ && csv_file_->is_stdout()) ||
                           (html_file_ && html_file_->is_stdout());
    lines_ = on_stdout ? stderr : stdout;
  }

  int run() {
    const auto started = std::chrono::steady_clock::now();
    int index = 0;
    while (!controller_.done()) {
      if (index > 0 && !cool_down(command_.cool_down_s)) {
        controller_.interrupt();
        break;
      }
      const double rate = controller_.next_rate();
      const int repetition = controller_.repetition();
      const options::Config config = plan_.config(rate);
      const run::Outcome outcome = run::execute(config, run::Listeners{});
      if (outcome.summary.interrupted) {
        controller_.interrupt();
        break;
      }
      ++index;
      const Judgement judgement = judge_step(command_.slo, outcome.summary, command_.divergence);
      controller_.record(judgement.verdict);
      print_step(index, rate, repetition, judgement);
      add_step(index, rate, repetition, judgement, outcome.summary, config);
      if (index == 1) first_step_ = outcome.summary;
    }
    elapsed_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return finish();
  }

 private:
  void print_step(int index, double rate, int repetition, const Judgement& judgement) {
    std::string details;
    if (judgement.verdict == Verdict::pass) {
      for (const Check& check : judgement.checks) {
        if (!details.empty()) details += "; ";
        details += check.describe();
      }
    } else {
      for (const std::string& reason : judgement.reasons) {
        if (!details.empty()) details += "; ";
        details += reason;
      }
    }
    std::fprintf(lines_, "step %d: %.6g %s, run %d: %s: %s\n", index, rate, unit_.c_str(),
                 repetition, verdict_name(judgement.verdict), details.c_str());
    std::fflush(lines_);
  }

  void add_step(int index, double rate, int repetition, const Judgement& judgement,
                const stats::Summary& summary, const options::Config& config) {
    steps_.push_back({{"index", index},
                      {"rate_per_s", rate},
                      {"repetition", repetition},
                      {"verdict", verdict_name(judgement.verdict)},
                      {"reasons", judgement.reasons},
                      {"checks", checks_json(judgement)},
                      {"open_connections_slope_per_s", judgement.in_flight_slope_per_s},
                      {"diverging", judgement.diverging},
                      {"run", report::to_json_document(summary, config)}});
    if (csv_file_) {
      // Row by row, so that an interrupted search keeps the steps it ran.
      const std::string header = csv_file_->is_empty() ? report::csv_header() : std::string();
      csv_ok_ = csv_file_->write(header + report::csv_row(summary, config)) && csv_ok_;
    }
  }

  static json or_null(double rate) { return rate > 0 ? json(rate) : json(nullptr); }

  json document(const std::string& line) const {
    const bool found = controller_.outcome() == Outcome::found;
    const Settings& settings = command_.settings;
    return {{"schema_version", 1},
            {"kind", "rateperf-search"},
            {"rateperf_version", kVersion},
            {"slo", command_.slo.text()},
            {"target", command_.target},
            {"unit", unit_},
            {"settings",
             {{"start_rate_per_s", settings.start_rate},
              {"max_rate_per_s", or_null(settings.max_rate)},
              {"step_s", command_.step_s},
              {"resolution_percent", settings.resolution * 100},
              {"repeat", settings.repeat},
              {"cool_down_s", command_.cool_down_s},
              {"divergence_percent", command_.divergence * 100}}},
            {"result",
             {{"outcome", outcome_name(controller_.outcome())},
              {"capacity_per_s", found ? json(controller_.capacity()) : json(nullptr)},
              {"uncertainty_per_s", found ? json(controller_.uncertainty()) : json(nullptr)},
              {"passed_per_s", or_null(controller_.passed_rate())},
              {"failed_per_s", or_null(controller_.failed_rate())},
              {"line", line}}},
            {"elapsed_s", elapsed_s_},
            {"steps", steps_}};
  }

  // Why there is no capacity, on stderr, before the last line.
  void explain() const {
    switch (controller_.outcome()) {
      case Outcome::below_start:
        std::fprintf(stderr,
                     "rateperf search: the first step, at %.6g %s, already failed the SLO: the "
                     "capacity is below the start rate (give a lower --start-rate)%s\n",
                     command_.settings.start_rate, unit_.c_str(),
                     first_step_.replies == 0 ? "; it got no reply at all: is the server up?" : "");
        break;
      case Outcome::client_limited:
        std::fprintf(stderr,
                     "rateperf search: the client could not offer %.6g %s: the search stops "
                     "there (more --threads, more local ports, or more client machines)\n",
                     controller_.limited_rate(), unit_.c_str());
        break;
      case Outcome::max_rate:
        std::fprintf(stderr, "rateperf search: the server kept up with --max-rate %.6g %s\n",
                     command_.settings.max_rate, unit_.c_str());
        break;
      case Outcome::interrupted:
        std::fprintf(stderr, "rateperf search: interrupted\n");
        break;
      default:
        break;
    }
  }

  int finish() {
    const std::string line = capacity_line(controller_, unit_);
    const json doc = document(line);
    bool written = csv_ok_;
    if (json_file_) written = json_file_->write(doc.dump(2) + "\n") && written;
    if (html_file_) {
      written =
          html_file_->write(report::render_html({report::search_input(doc, "search")})) && written;
    }
    explain();
    std::fprintf(lines_, "%s\n", line.c_str());
    std::fflush(lines_);
    if (!written) return kExitCannotRun;
    switch (controller_.outcome()) {
      case Outcome::found:
        return kExitOk;
      case Outcome::interrupted:
        return kExitInterrupted;
      default:
        return kExitCannotRun;
    }
  }

  const Command& command_;
  StepPlan plan_;
  Controller controller_;
  std::string unit_;
  std::unique_ptr<report::OutputFile> json_file_;
  std::unique_ptr<report::OutputFile> csv_file_;
  std::unique_ptr<report::OutputFile> html_file_;
  std::FILE* lines_ = stdout;
  bool csv_ok_ = true;
  stats::Summary first_step_;
  double elapsed_s_ = 0;
  json steps_ = json::array();
};

}  // namespace

int search_command(const std::vector<std::string>& words) {
  const Command command = parse_command(words);
  if (command.help) {
    std::fputs(help_text().c_str(), stdout);
    return kExitOk;
  }
  Search search(command);
  return search.run();
}

}  // namespace rateperf::search
