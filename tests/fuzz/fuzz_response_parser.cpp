// libFuzzer target for ResponseParser: feeds arbitrary server bytes, cut into reads as the input's
// option bytes say (see fuzz_input.hpp), and traps when a promise of response_parser.hpp breaks.
// scripts/fuzz builds and runs it; tests/test_response_parser.cpp replays its corpus and every
// input that once crashed it.

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const rateperf::fuzz::FuzzInput input = rateperf::fuzz::decode_input(data, size);
  if (const char* violation = rateperf::fuzz::check_input(input)) {
    // The message tells which promise broke; the trap makes libFuzzer save the input.
    std::fprintf(stderr, "fuzz_response_parser: %s\n", violation);
    __builtin_trap();
  }
  return 0;
}
