#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <string_view>

#include "options/table.hpp"

// Boost's view of the option table, and the --help text; both drawn from table.cpp, so that what
// is parsed and what is shown cannot disagree. Private to the options folder.
namespace rateperf::options {

// Every option of the table for Boost's parser, plus the hidden "url" the positional URL
// argument is parsed into.
boost::program_options::options_description boost_descriptions();

// How --help and the man page show an option: its names and its value, "-v, --verbose",
// "--rate R", "--hog[=N]". `name` wraps each name ("-v", "--verbose") and `value` the value's
// name: as they are for --help, in roff's bold and italic for the man page.
using Markup = std::string (*)(std::string_view);
std::string option_label(const OptionSpec& spec, Markup name, Markup value);

// The whole --help text: usage line, one line per option by section, then the --period and URL
// notes.
std::string help_text();

}  // namespace rateperf::options
