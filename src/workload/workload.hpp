#pragma once

#include <cstdint>
#include <string>

#include "options/config.hpp"

namespace rateperf::workload {

// What one arrival starts: a connection that makes `calls_per_connection` calls, each sending
// the same request bytes (rendered once, before the run). Sessions and URI lists will be
// further kinds of work here.
struct Workload {
  std::string request;                // the request's bytes, sent by every call
  bool replies_have_no_body = false;  // HEAD: a reply ends with its headers
  std::uint64_t calls_per_connection = 1;
};

// The workload the options describe.
Workload from_config(const options::Config& config);

}  // namespace rateperf::workload
