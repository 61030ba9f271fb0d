#include "search/command.hpp"

#include <functional>
#include <string_view>

#include "core/failure.hpp"
#include "options/values.hpp"

namespace rateperf::search {

namespace {

using options::fail;
using options::quoted;

// A percentage as typed: "2" or "2%".
double parse_percent(std::string_view option, std::string_view text) {
  std::string_view number = text;
  if (number.ends_with("%")) number.remove_suffix(1);
  const double percent = options::parse_real(option, number);
  if (!(percent > 0 && percent < 100)) {
    fail(option, "must be above 0 and below 100 percent (got " + quoted(text) + ")");
  }
  return percent;
}

double parse_rate(std::string_view option, std::string_view text) {
  const double rate = options::parse_real(option, text);
  if (!(rate > 0 && rate <= 1e7)) {
    fail(option, "must be above 0 and at most 1e7 per second (got " + quoted(text) + ")");
  }
  return rate;
}

struct SearchOption {
  std::string_view name;  // without the dashes
  bool takes_value;
  std::function<void(Command&, std::string_view)> apply;
};

const std::vector<SearchOption>& search_options() {
  static const std::vector<SearchOption> table = {
      {"help", false, [](Command& c, std::string_view) { c.help = true; }},
      {"slo", true, [](Command& c, std::string_view v) { c.slo = parse_slo(v); }},
      {"start-rate", true,
       [](Command& c, std::string_view v) {
         c.settings.start_rate = parse_rate("--start-rate", v);
       }},
      {"max-rate", true,
       [](Command& c, std::string_view v) { c.settings.max_rate = parse_rate("--max-rate", v); }},
      {"step", true,
       [](Command& c, std::string_view v) {
         c.step_s = options::parse_seconds("--step", v);
         if (c.step_s < 1) fail("--step", "must be at least 1 s (got " + quoted(v) + ")");
       }},
      {"resolution", true,
       [](Command& c, std::string_view v) {
         c.settings.resolution = parse_percent("--resolution", v) / 100;
       }},
      {"repeat", true,
       [](Command& c, std::string_view v) {
         c.settings.repeat = static_cast<int>(options::parse_whole("--repeat", v, 1, 15));
       }},
      {"cool-down", true,
       [](Command& c, std::string_view v) {
         c.cool_down_s = options::parse_seconds("--cool-down", v);
       }},
      {"divergence", true,
       [](Command& c, std::string_view v) {
         c.divergence = parse_percent("--divergence", v) / 100;
       }},
      {"request-mode", false, [](Command& c, std::string_view) { c.request_mode = true; }},
      {"json", true, [](Command& c, std::string_view v) { c.json_path = v; }},
      {"csv", true, [](Command& c, std::string_view v) { c.csv_path = v; }},
      {"report", true, [](Command& c, std::string_view v) { c.report_path = v; }},
  };
  return table;
}

const SearchOption* find(std::string_view name) {
  for (const SearchOption& option : search_options()) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

}  // namespace

Command parse_command(const std::vector<std::string>& words) {
  Command command;
  command.slo = parse_slo(kDefaultSlo);
  std::vector<std::string_view> seen;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string_view word = words[i];
    if (word == "--") {
      command.target.insert(command.target.end(), words.begin() + static_cast<long>(i) + 1,
                            words.end());
      break;
    }
    if (word == "-h") word = "--help";
    if (word == "-o") word = "--report";
    std::string_view name = word.starts_with("--") ? word.substr(2) : std::string_view();
    std::string_view value;
    bool has_value = false;
    if (const std::size_t equals = name.find('='); equals != std::string_view::npos) {
      value = name.substr(equals + 1);
      name = name.substr(0, equals);
      has_value = true;
    }
    const SearchOption* option = name.empty() ? nullptr : find(name);
    if (option == nullptr) {
      command.target.emplace_back(words[i]);
      continue;
    }
    const std::string shown = "--" + std::string(name);
    for (const std::string_view earlier : seen) {
      if (earlier == option->name) fail(shown, "given more than once");
    }
    seen.push_back(option->name);
    if (option->takes_value && !has_value) {
      if (i + 1 >= words.size()) fail(shown, "needs a value");
      value = words[++i];
      has_value = true;
    } else if (!option->takes_value && has_value) {
      fail(shown, "takes no value");
    }
    option->apply(command, value);
  }
  if (!command.help && command.target.empty()) {
    throw UsageError("no TARGET: give a URL, or --server and --port, after the search's options");
  }
  return command;
}

std::vector<std::string> option_words() {
  std::vector<std::string> out;
  for (const SearchOption& option : search_options()) {
    std::string word = "--";
    word += option.name;
    out.push_back(std::move(word));
  }
  out.insert(out.end(), {"-o", "-h"});
  return out;
}

std::string help_text() {
  return R"(Usage: rateperf search [SEARCH OPTIONS] TARGET...
Finds the highest rate a server keeps up with under an SLO: steps at doubling rates until one
fails, then bisection between the last rate passed and the first failed (docs/search.md).
TARGET: a run's options without its rate and length (a URL, or --server, --port, --uri, ...).

Search options:
  --slo TERMS         what every step must meet (default 'p99<=100ms,errors<=0.1%'): terms
                      p50 p66 p75 p80 p90 p95 p98 p99 p99.9 max mean (latency from the intended
                      start: 250us, 100ms, 1.5s), errors timeouts non2xx (percent: 0.1%); OP <= or <
  --start-rate R      the first step's rate, per second (default 10)
  --max-rate R        the highest rate to try (default: none)
  --step S            each step's length of schedule, seconds (default 5)
  --resolution P      stop bisecting when the rates passed and failed are within P% (default 2)
  --repeat N          runs of a boundary rate, until a majority agrees (default 3)
  --cool-down S       seconds between steps, for the server to drain (default 2)
  --divergence P      open connections growing at P% of the offered rate fail a step (default 2)
  --request-mode      steps schedule requests over persistent connections (--request-rate)
  --json FILE         the search as JSON: settings, outcome, every step's run ('-': stdout)
  --csv FILE          one row per step, the columns of a run's --csv ('-': stdout)
  -o, --report FILE   the HTML report of the search (charts of every step)
  -h, --help          this help

The last line on stdout: "Capacity [conn/s]: C +- U", or the bounds found and why none closer.
Exit status: 0 capacity found; 1 not found (below the start rate, the client the limit,
--max-rate reached) or an error; 2 usage; 130 interrupted.
)";
}

}  // namespace rateperf::search
