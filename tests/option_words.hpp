#pragma once

// Command lines given as words, parsed as rateperf parses its own: the "options" suite's way in.

#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "options/options.hpp"
#include "usage_error.hpp"

namespace rateperf::test {

// Parses a command line given as words, "rateperf" being prepended as argv[0].
inline options::Parsed parse_words(std::initializer_list<const char*> words) {
  std::vector<const char*> argv{"rateperf"};
  argv.insert(argv.end(), words);
  return options::parse(static_cast<int>(argv.size()), argv.data());
}

// The configuration a command line gives; fails the test when it asks for anything but a run.
inline options::Config config_of(std::initializer_list<const char*> words) {
  options::Parsed parsed = parse_words(words);
  REQUIRE(parsed.action == options::Action::run);
  return parsed.config;
}

// The message of the UsageError a command line throws; fails the test when none is thrown.
inline std::string usage_error(std::initializer_list<const char*> words) {
  return usage_error_of([&] { parse_words(words); });
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace rateperf::test
