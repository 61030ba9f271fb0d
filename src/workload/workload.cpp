#include "workload/workload.hpp"

#include "http/request.hpp"

namespace rateperf::workload {

Workload from_config(const options::Config& config) {
  Workload work;
  work.request = http::render_request(config);
  work.replies_have_no_body = http::reply_has_no_body(config);
  work.calls_per_connection = config.num_calls;
  return work;
}

}  // namespace rateperf::workload
