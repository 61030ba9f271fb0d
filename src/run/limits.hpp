#pragma once

#include <cstdint>

#include "options/config.hpp"

namespace rateperf::run {

// rateperf holds one descriptor per open connection: it takes all the descriptors the hard
// limit allows, since httperf's silent stall at the soft limit is one of the flaws not to copy.
// Returns the limit in force (0 if unknown).
std::uint64_t raise_descriptor_limit();

// Warns on stderr before the run when the schedule may need more descriptors than `limit`: a
// server that stops answering keeps each connection open until --timeout, so up to rate x
// timeout connections can be open at once; arrivals that then find none count as fd-unavail.
void warn_if_descriptors_short(const options::Config& config, std::uint64_t limit);

}  // namespace rateperf::run
