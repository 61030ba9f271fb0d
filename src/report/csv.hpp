#pragma once

#include <string>

#include "options/config.hpp"
#include "stats/summary.hpp"

namespace rateperf::report {

// One CSV row per run, for spreadsheets and sweeps (docs/csv.md lists the columns; their set
// and order are stable: new columns are only ever appended at the end).
//
// The header line, with its CRLF-free "\n" ending.
std::string csv_header();
// The run's row, ending in "\n". Fields that may hold commas or quotes are quoted (RFC 4180).
std::string csv_row(const stats::Summary& summary, const options::Config& config);

// The time series (--series): a header line, then one row an interval (docs/csv.md).
std::string series_csv(const stats::Summary& summary);

}  // namespace rateperf::report
