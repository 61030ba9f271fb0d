#pragma once

// The fixed run the "export" suite exports (a summary and a configuration in which every figure
// is distinct, so that a value exported under the wrong name shows) and the fields docs/json.md
// documents.

#include <vector>

#include "options/config.hpp"
#include "stats/summary.hpp"

namespace rateperf::test {

// A summary whose every figure is distinct, so that a value exported under the wrong name shows.
stats::Summary export_summary();

// The configuration of that run: a variable period, two added headers, a send buffer given and a
// receive buffer not given.
options::Config export_config();

enum class JsonType { integer, number, string, boolean, object, array, number_or_null, string_or_null };

struct JsonField {
  const char* pointer;  // a JSON pointer; "[]" stands for "any element of the array"
  JsonType type;
};

// Every field docs/json.md documents, with its type. The JSON tests check that the document has
// exactly these: a field added without a line here (and in the docs) fails a test.
const std::vector<JsonField>& documented_fields();

}  // namespace rateperf::test
