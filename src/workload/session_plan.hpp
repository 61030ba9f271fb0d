#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "options/config.hpp"

// The sessions of --wsess and --wsesslog, rendered before the run into the bytes each call sends:
// the engine only walks them.
namespace rateperf::workload {

// One call of a session.
struct PlannedRequest {
  // Its request, rendered once (method, URI, the run's headers, its own, Content-Length, the
  // body); empty: the run's own request (--wsess), or the URI source's next (--wlog, --wset).
  std::string bytes;
  std::size_t header_end = 0;  // where its header block's blank line starts (a Cookie goes there)
  bool no_body = false;        // HEAD: its reply ends with its headers
  Duration timeout{};          // timeout=: its own watchdog instead of --timeout; zero: none
  // Made by a session for one call (--wsess with --wlog or --wset: the call's own URI, kept
  // should the call go out again); not part of a template.
  bool per_call = false;
};

// Calls sent together: the first, then the others once it is answered.
struct PlannedBurst {
  std::vector<PlannedRequest> requests;
  Duration think{};  // the pause after all its replies, before the next burst
};

// A session: its bursts in order.
struct PlannedSession {
  std::vector<PlannedBurst> bursts;
  std::uint64_t calls = 0;  // of all its bursts
};

// Every session of the run and how they behave.
struct SessionPlan {
  std::vector<PlannedSession> templates;  // used round robin: session k is template k mod size
  std::uint64_t sessions = 0;             // sessions in all
  std::size_t max_connections = 4;        // a session's connections open at once
  int failure_status = 0;                 // a reply with it fails its session; 0: none
  bool retry_on_failure = false;          // send such a call again (kMaxRetries times at most)
  bool cookies = false;                   // send back the cookies a session's replies set
};

// The plan the options describe: --wsess's one template, or the session file's (read here:
// UsageError "FILE:LINE: ..." or "--wsesslog: cannot read ..." before anything is sent).
SessionPlan session_plan_from_config(const options::Config& config);

}  // namespace rateperf::workload
