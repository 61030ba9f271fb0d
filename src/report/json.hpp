#pragma once

#include <nlohmann/json.hpp>

#include "options/config.hpp"
#include "stats/summary.hpp"

namespace rateperf::report {

// The version of the JSON document's layout (docs/json.md). Bump it when a field changes
// meaning or goes away; adding fields keeps it.
inline constexpr int kJsonSchemaVersion = 1;

// The whole run as one JSON document: schema and program versions, the configuration (every
// option and the seed), every figure of the text report named with its unit, the percentiles,
// the lag, each error kind, and the reply-rate samples. Pure: it only arranges values.
nlohmann::json to_json_document(const stats::Summary& summary, const options::Config& config);

}  // namespace rateperf::report
