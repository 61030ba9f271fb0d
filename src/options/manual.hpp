#pragma once

#include <string>
#include <string_view>
#include <vector>

// The man page's OPTIONS section and the bash completion script, drawn from the option table
// as --help is, so that the three cannot disagree (tests/manual_test.sh compares them).
// Private to the build: src/manual_main.cpp writes them at build time.
namespace rateperf::options {

// Text escaped for roff: backslashes, hyphens (as \-), and a leading period or quote.
std::string roff_escaped(std::string_view text);

// Every option as a roff .TP entry, by --help section (.SS per section).
std::string man_options();

// A bash completion script for rateperf: its options (with the values of those that take a
// choice, the --period kinds and file names where an option takes a file), the subcommands
// merge, report and search, and their own options (`search_options`: search's, from its table).
std::string bash_completion(const std::vector<std::string>& search_options);

}  // namespace rateperf::options
