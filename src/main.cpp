// rateperf: an open-loop, rate-controlled HTTP benchmarker. main() parses the command line,
// runs, reports, and maps failures to exit statuses (core/failure.hpp): 0 the run completed,
// 1 it could not be done, 2 usage error, 3 a --max-* threshold was crossed.

#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "core/failure.hpp"
#include "options/options.hpp"
#include "report/exports.hpp"
#include "report/live.hpp"
#include "report/notes.hpp"
#include "report/report_command.hpp"
#include "report/text_report.hpp"
#include "report/tool_report.hpp"
#include "run/dump.hpp"
#include "run/run.hpp"
#include "run/verdict.hpp"
#include "search/search.hpp"

namespace {

using namespace rateperf;

// `rateperf merge [--json FILE] [--csv FILE] DUMP...`: the report of the dumps' shards, merged.
int merge_main(const std::vector<std::string>& words) {
  const options::MergeCommand command = options::parse_merge(words);
  if (command.help) {
    std::fputs(options::merge_help_text().c_str(), stdout);
    return kExitOk;
  }
  run::Merged merged = run::merge_dumps(command.dumps);
  merged.config.json_path = command.json_path;
  merged.config.csv_path = command.csv_path;
  report::ExportFiles exports(merged.config);
  std::FILE* text_out = exports.uses_stdout() ? stderr : stdout;
  std::fputs(report::format_report(merged.summary, merged.config).c_str(), text_out);
  std::fflush(text_out);
  for (const std::string& note : merged.notes) std::fprintf(stderr, "%s\n", note.c_str());
  return exports.write(merged.summary, merged.config) ? kExitOk : kExitCannotRun;
}

}  // namespace

int main(int argc, char** argv) {
  run::prepare_process();
  try {
    // The subcommands: each a command line of its own, with its own --help.
    if (argc > 1) {
      const std::string_view name = argv[1];
      const std::vector<std::string> words(argv + 2, argv + argc);
      int (*command)(const std::vector<std::string>&) = nullptr;
      if (name == "merge") command = merge_main;
      if (name == "report") command = report::report_command;
      if (name == "search") command = search::search_command;
      if (command != nullptr) {
        try {
          return command(words);
        } catch (const UsageError& e) {
          std::fprintf(stderr, "rateperf: %s\nTry 'rateperf %s --help'.\n", e.what(),
                       std::string(name).c_str());
          return kExitUsage;
        }
      }
    }
    const options::Parsed parsed = options::parse(argc, argv);
    if (parsed.action != options::Action::run) {
      std::fputs(parsed.text.c_str(), stdout);
      return kExitOk;
    }
    const options::Config& config = parsed.config;
    // Opened first: a path that cannot be written stops the run before anything is sent.
    report::ExportFiles exports(config);
    // With an export on stdout, the text report (and --print-request's and --print-reply's
    // lines) go to stderr so the export stays parseable.
    std::FILE* text_out = exports.uses_stdout() ? stderr : stdout;
    run::Listeners listeners = report::live_listeners(config);
    listeners.call_lines = text_out;
    const run::Outcome outcome = run::execute(config, listeners);

    std::fputs(report::format_report(outcome.summary, config).c_str(), text_out);
    std::fflush(text_out);
    report::print_notes(outcome, stderr);
    if (config.verbose > 0) std::fputs(report::format_series(outcome.summary).c_str(), stderr);
    const run::Verdict verdict = run::judge(config, outcome.summary);
    for (const auto& line : verdict.crossed) std::fprintf(stderr, "%s\n", line.c_str());
    return exports.write(outcome.summary, config) ? verdict.status : kExitCannotRun;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "rateperf: %s\nTry 'rateperf --help'.\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rateperf: %s\n", e.what());
    return kExitCannotRun;
  }
}
