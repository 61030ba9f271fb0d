#include "workload/workload.hpp"

#include <algorithm>

#include "http/request.hpp"

namespace rateperf::workload {

Workload from_config(const options::Config& config) {
  Workload work;
  work.request = http::render_request(config);
  work.replies_have_no_body = http::reply_has_no_body(config);
  work.calls_per_connection = config.num_calls;
  work.burst_length = config.burst_length;
  work.pooled = config.request_mode || config.sessions > 0;
  // httperf's workload never has more than a burst (nor more than a connection's calls) in
  // flight; request mode pipelines up to --burst-length requests on a connection. Either way
  // --max-piped-calls caps it.
  std::uint64_t in_flight = std::min(config.burst_length, config.max_piped_calls);
  if (!config.request_mode) in_flight = std::min(in_flight, config.num_calls);
  if (config.sessions > 0) {
    // A session pipelines up to --max-piped-calls calls on each of its connections; HTTP/1.0
    // cannot pipeline (httperf's rule too).
    in_flight = config.http_version == "1.0" ? 1 : config.max_piped_calls;
    work.sessions = std::make_shared<const SessionPlan>(session_plan_from_config(config));
  }
  work.max_in_flight = static_cast<std::size_t>(in_flight);
  work.requests_in_flight.reserve(work.request.size() * work.max_in_flight);
  for (std::size_t i = 0; i < work.max_in_flight; ++i) work.requests_in_flight += work.request;
  work.uris = uri_source_from_config(config);
  if (work.uris) {
    // The request line is METHOD SP URI SP HTTP/x.y: the URI sits right after the method.
    work.request_head = config.method + " ";
    work.request_tail = work.request.substr(work.request_head.size() + config.uri.size());
  }
  work.own_requests = work.uris != nullptr || work.sessions != nullptr;
  return work;
}

}  // namespace rateperf::workload
