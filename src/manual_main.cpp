// rateperf-manual: writes, at build time, the man page (from man/rateperf.1.in) and the bash
// completion script, both drawn from the option table and the subcommands' help texts, so
// that --help, `man rateperf` and the completion cannot disagree. Not installed.
//
//   rateperf-manual man TEMPLATE VERSION   the man page on stdout
//   rateperf-manual bash                   the completion script on stdout

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "options/manual.hpp"
#include "options/options.hpp"
#include "report/report_command.hpp"
#include "search/command.hpp"

namespace {

// A help text as a no-fill block of the page.
std::string block(const std::string& text) {
  return ".nf\n" + rateperf::options::roff_escaped(text) + (text.ends_with('\n') ? "" : "\n") +
         ".fi\n";
}

void replace(std::string& text, const std::string& key, const std::string& value) {
  for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
    text.replace(at, key.size(), value);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rateperf;
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "bash" && argc == 2) {
    std::fputs(options::bash_completion(search::option_words()).c_str(), stdout);
    return 0;
  }
  if (mode == "man" && argc == 4) {
    std::ifstream in(argv[2]);
    if (!in) {
      std::fprintf(stderr, "rateperf-manual: cannot read %s\n", argv[2]);
      return 1;
    }
    std::stringstream page;
    page << in.rdbuf();
    std::string text = page.str();
    replace(text, "@VERSION@", argv[3]);
    replace(text, "@OPTIONS@\n", options::man_options());
    replace(text, "@MERGE_HELP@\n", block(options::merge_help_text()));
    replace(text, "@REPORT_HELP@\n", block(report::report_help_text()));
    replace(text, "@SEARCH_HELP@\n", block(search::help_text()));
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  std::fputs("usage: rateperf-manual man TEMPLATE VERSION | rateperf-manual bash\n", stderr);
  return 2;
}
