#include "workload/session_plan.hpp"

#include <algorithm>
#include <chrono>

#include "http/request.hpp"
#include "workload/session_log.hpp"

namespace rateperf::workload {

namespace {

Duration seconds(double s) {
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s));
}

// --wsess N1,N2,X with --burst-length B: N2 calls of the run's request in bursts of B (the last
// one shorter), X after each burst.
PlannedSession wsess_template(const options::Config& config) {
  PlannedSession session;
  session.calls = config.wsess_calls;
  for (std::uint64_t left = config.wsess_calls; left > 0;) {
    const std::uint64_t size = std::min(left, config.burst_length);
    PlannedBurst& burst = session.bursts.emplace_back();
    burst.requests.resize(size);
    for (PlannedRequest& request : burst.requests) request.no_body = http::reply_has_no_body(config);
    burst.think = config.session_think;
    left -= size;
  }
  return session;
}

PlannedSession file_template(const options::Config& config, const SessionTemplate& source) {
  PlannedSession session;
  for (const SessionBurst& burst : source.bursts) {
    PlannedBurst& planned = session.bursts.emplace_back();
    planned.think = burst.think_s ? seconds(*burst.think_s) : config.session_think;
    for (const SessionRequest& request : burst.requests) {
      PlannedRequest& call = planned.requests.emplace_back();
      call.bytes = http::render_request(
          config, http::RequestParts{.method = request.method,
                                     .uri = request.uri,
                                     .headers = request.headers,
                                     .body = request.body,
                                     .has_body = request.has_body});
      call.header_end = call.bytes.size() - request.body.size() - 2;
      call.no_body = request.method == "HEAD";
      if (request.timeout_s) call.timeout = seconds(*request.timeout_s);
      ++session.calls;
    }
  }
  return session;
}

}  // namespace

SessionPlan session_plan_from_config(const options::Config& config) {
  SessionPlan plan;
  plan.sessions = config.sessions;
  plan.max_connections = static_cast<std::size_t>(config.max_connections);
  plan.failure_status = config.failure_status;
  plan.retry_on_failure = config.retry_on_failure;
  plan.cookies = config.session_cookies;
  if (config.wsess_calls > 0) {
    plan.templates.push_back(wsess_template(config));
  } else {
    for (const SessionTemplate& source : read_session_log(config.wsesslog_path)) {
      plan.templates.push_back(file_template(config, source));
    }
  }
  return plan;
}

}  // namespace rateperf::workload
