#pragma once

#include <boost/program_options.hpp>
#include <string>

// Boost's view of the option table, and the --help text; both drawn from table.cpp, so that what
// is parsed and what is shown cannot disagree. Private to the options folder.
namespace rateperf::options {

// Every option of the table for Boost's parser, plus the hidden "url" the positional URL
// argument is parsed into.
boost::program_options::options_description boost_descriptions();

// The whole --help text: usage line, one line per option by section, then the --period and URL
// notes.
std::string help_text();

}  // namespace rateperf::options
