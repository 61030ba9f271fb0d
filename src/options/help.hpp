#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

// The option table and the --help text drawn from it; private to options.cpp, which parses the
// command line against the same table, so that the two cannot disagree.
namespace rateperf::options {

struct Descriptions {
  std::vector<boost::program_options::options_description> groups;  // shown by --help, in order
  std::vector<std::string> captions;                                // the groups' headings
  boost::program_options::options_description all;  // the groups plus the hidden positional URL
};

// Every option rateperf takes, grouped as --help shows them. `all` also holds "url", the hidden
// option the positional URL argument is parsed into.
Descriptions make_descriptions();

// The whole --help text: usage line, one line per option, then the --period and URL notes.
std::string help_text(const Descriptions& d);

}  // namespace rateperf::options
