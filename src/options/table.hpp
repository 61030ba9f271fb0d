#pragma once

#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>

#include "options/config.hpp"

// The option table: every option rateperf takes is one entry here, with all that is written
// about it once: its name, its value's kind and allowed values, its --help line, how it parses
// into Config, how the report's first line echoes it and what it puts into the JSON document.
// --help, the parser, the echoed command line and the JSON "config" object are all drawn from
// it; a man page and shell completion can be too.
namespace rateperf::options {

// What an option's value is, for --help, a man page and shell completion.
enum class ValueKind {
  none,      // a flag without a value
  text,      // free text
  host,      // a host name or address
  whole,     // a whole number
  real,      // a real number
  seconds,   // a duration in seconds (decimals allowed)
  choice,    // one of `choices`
  period,    // [d|u|e|v]T1[,T2...]
  fraction,  // I/N
  file,      // a file name, or - for stdout
};

// The name --timing gives `timing` ("auto", "sleep", "hybrid", "spin").
std::string_view timing_name(Timing timing);

// The --help sections, in the order --help shows them.
enum class Group { target, load, request, session, socket, tls, output, thresholds, misc };

// How the echoed command line is built: each option appends its words, or nothing.
using EchoFn = void (*)(const Config& config, std::string& line);
// Parses `value`, checks it and stores it in `config`; throws UsageError naming the option.
using ApplyFn = void (*)(Config& config, std::string_view value);
// Sets the option's fields of the JSON document's "config" object.
using JsonFn = void (*)(const Config& config, nlohmann::json& object);

struct OptionSpec {
  std::string_view name;      // long name, without "--"
  char short_name = 0;        // one letter, or 0
  Group group = Group::misc;  // its --help section
  ValueKind kind = ValueKind::none;
  std::string_view value_name;  // the value's name in --help ("N", "FILE"); empty for a flag
  // The value an option given without one takes (--print-reply alone); empty: a value is
  // needed. Such a value must follow an '=' (--print-reply=header).
  std::string_view implicit_value;
  std::string_view help;        // its --help line
  std::span<const std::string_view> choices;  // the allowed values, where there is such a set
  bool repeatable = false;  // may be given more than once; each occurrence is applied
  ApplyFn apply = nullptr;  // nullptr: an action (--help, --version), not a setting
  // Its place in the echoed command line (httperf's order; numbered in tens, so that an option
  // can go between two others); 0: not echoed.
  int echo_rank = 0;
  EchoFn echo = nullptr;
  JsonFn json = nullptr;  // nullptr: not in the document (where output goes is not the run)
};

// Every option, in --help order.
std::span<const OptionSpec> option_table();

// The entry named `name` (long name), or nullptr.
const OptionSpec* find_option(std::string_view name);

// The heading of a --help section.
std::string_view group_caption(Group group);

}  // namespace rateperf::options
