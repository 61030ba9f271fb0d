#pragma once

// The message of the UsageError a piece of code throws, for the suites that check refusals
// word for word.

#include <doctest/doctest.h>

#include <string>

#include "core/failure.hpp"

namespace rateperf::test {

// The message of the UsageError `action()` throws; fails the test when none is thrown.
template <typename Action>
std::string usage_error_of(Action&& action) {
  try {
    action();
  } catch (const UsageError& e) {
    return e.what();
  }
  FAIL("no UsageError was thrown");
  return {};
}

}  // namespace rateperf::test
