#pragma once

// rateperf's version, as meson.build gives it (RATEPERF_VERSION); "dev" in a build without it.
#ifndef RATEPERF_VERSION
#define RATEPERF_VERSION "dev"
#endif

namespace rateperf {

inline constexpr const char* kVersion = RATEPERF_VERSION;

}  // namespace rateperf
