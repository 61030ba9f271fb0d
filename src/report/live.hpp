#pragma once

#include "options/config.hpp"
#include "run/run.hpp"

namespace rateperf::report {

// What a run shows on stderr while it lasts: each reply-rate sample as it closes with
// --verbose ("reply-rate = X"), and, when stderr is a terminal and --quiet is not given, the
// progress line rewritten in place once a second (cleared before the report).
run::Listeners live_listeners(const options::Config& config);

}  // namespace rateperf::report
