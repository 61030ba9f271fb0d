#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "options/config.hpp"
#include "workload/session_plan.hpp"
#include "workload/uri_source.hpp"

namespace rateperf::workload {

// What one arrival starts: a connection that makes `calls_per_connection` calls in pipelined
// bursts of `burst_length` (httperf's workload), or, in request mode, one request on a pool
// connection. Every call sends the same request bytes (rendered once, before the run), or, with
// a URI source (--wlog, --wset), the same request with the source's next URI. With sessions
// (--wsess, --wsesslog) an arrival starts a session, which makes its calls on connections of its
// own (`sessions`).
struct Workload {
  std::string request;                // the request's bytes, sent by every call
  // The request repeated max_in_flight times: the calls in flight on a connection, one after
  // another, so that a pipelined burst goes out in one write.
  std::string requests_in_flight;
  bool replies_have_no_body = false;  // HEAD: a reply ends with its headers
  std::uint64_t calls_per_connection = 1;
  std::uint64_t burst_length = 1;  // calls issued at once; the next burst after their replies
  std::size_t max_in_flight = 1;   // the most calls in flight on one connection
  // Request mode and sessions: connections take requests from their owner (the worker's pool,
  // or a session) as they come, and stay open between them, instead of making their own calls.
  bool pooled = false;
  // Sessions: what an arrival starts; none: connections (or, pooled, requests).
  std::shared_ptr<const SessionPlan> sessions;
  // The calls send requests of their own (a URI source's, a session file's), gathered per
  // connection, rather than `request` repeated.
  bool own_requests = false;
  // --wlog, --wset: each call's URI from here, its request request_head + URI + request_tail;
  // none: every call sends `request`.
  std::shared_ptr<UriSource> uris;
  std::string request_head;
  std::string request_tail;

  // The URI list has ended (--wlog n,FILE): no call may start any more.
  bool uris_ended() const { return uris && uris->exhausted(); }
};

// The workload the options describe.
Workload from_config(const options::Config& config);

}  // namespace rateperf::workload
