#pragma once

#include <cstdint>
#include <span>

#include "core/clock.hpp"
#include "http/response_parser.hpp"
#include "net/addresses.hpp"
#include "net/endpoint.hpp"
#include "net/socket_options.hpp"
#include "net/tls.hpp"
#include "stats/collector.hpp"
#include "workload/workload.hpp"

namespace rateperf::engine {

class CallLog;
class CallPrinter;
class Connection;
class Loop;

// Who pools the connections and is told when one ends, or (request mode) has room for
// another request.
class ConnectionOwner {
 public:
  // The connection closed; it may be started again, but not from inside this call.
  virtual void connection_ended(Connection& connection, TimePoint now) = 0;
  // A pooled connection (request mode) has room for another call: the owner may submit() to it
  // from inside this call, or queue() calls that go out together when the read that made the
  // room ends.
  virtual void connection_idle(Connection& connection, TimePoint now) = 0;
  // A session's connection framed a whole reply (its front call's), before the next one.
  virtual void reply_received(Connection& connection, const http::ResponseParser& reply,
                              TimePoint now) = 0;

 protected:
  ~ConnectionOwner() = default;
};

// All a connection may use of its worker, handed to it at construction: the loop and its
// timers, the collector to tell what happened, where to connect, what to send, and whom to
// tell when it ends. It never reaches further into the worker.
struct ConnectionContext {
  Loop& loop;
  stats::Collector& collector;
  net::Addresses& addresses;  // where to connect (and from where)
  const workload::Workload& workload;  // what each call sends
  std::span<char> read_buffer;  // shared by the worker's connections: reads are consumed at once
  Duration timeout{};           // the inactivity watchdog; zero: none
  Duration think_timeout{};     // added while a reply has not started
  const net::SocketOptions& socket_options;  // buffer sizes and TCP_NODELAY for each socket
  std::uint64_t& buffer_refusals;  // sockets on which the kernel refused a buffer size
  ConnectionOwner& owner;
  CallPrinter* printer = nullptr;  // --print-request/--print-reply; none: nothing is printed
  net::TlsContext* tls = nullptr;  // TLS (--ssl): the worker's client context; none: plain TCP
  CallLog* call_log = nullptr;     // --call-log: a row per reply; none: no log
};

}  // namespace rateperf::engine
