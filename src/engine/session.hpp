#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "engine/connection.hpp"
#include "engine/context.hpp"
#include "engine/store.hpp"
#include "engine/timer.hpp"
#include "http/response_parser.hpp"
#include "workload/session_plan.hpp"

namespace rateperf::engine {

class Session;

// Who starts sessions and is told when one has ended.
class SessionOwner {
 public:
  // The session completed or failed and its connections are closed; it may be started again,
  // but not from inside this call.
  virtual void session_ended(Session& session, TimePoint now) = 0;

 protected:
  ~SessionOwner() = default;
};

// One user session of httperf's --wsess or --wsesslog: its bursts in order, each burst's first
// call alone and its other calls once that one is answered (a browser fetching a page, then what
// it embeds), the burst's think time after all its replies, then the next burst. Its calls go
// out on up to max_connections connections of its own, each pipelining up to max_in_flight of
// them (the first connection with room takes a call, as httperf's do), opened when a call needs
// one. It ends completed, once every call is answered, or failed: a call that ends with an error
// (the connection counts it), a reply with --failure-status (unless --retry-on-failure sends it
// again), or the run's stop. A server's close of a persistent connection after a reply is no
// failure: the calls it left unanswered go out again on a new connection, as httperf does.
// When it fails, its calls still in flight count as unanswered.
//
// Owned by its worker's SessionStore and reused for later arrivals; used only on the worker's
// thread. The worker forwards the events of the session's connections (Connection::session).
class Session {
 public:
  Session(ConnectionContext& context, ConnectionStore& connections, SessionOwner& owner);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();

  // Starts the session `script` for the arrival intended at `intended`.
  void start(const workload::PlannedSession& script, TimePoint intended, TimePoint now);
  // One of its connections framed a reply (before the connection acts on it).
  void reply_received(Connection& connection, const http::ResponseParser& reply, TimePoint now);
  // One of its connections has room after a reply: more calls may go.
  void idle(Connection& connection, TimePoint now);
  // One of its connections ended (already released to the store).
  void ended(Connection& connection, TimePoint now);
  // Fails the session now, ending its connections with `kind` for their calls (a stopped run).
  void abort(ErrorKind kind, TimePoint now);

  bool active() const { return state_ != State::idle; }

  Session* next_free = nullptr;  // the SessionStore's list of ended sessions

 private:
  enum class State { idle, running, ending };

  // A connection of the session and the requests of its calls in flight, oldest first (a ring
  // of the connection's capacity, allocated once).
  struct Slot {
    Connection* connection = nullptr;
    std::vector<const workload::PlannedRequest*> ring;
    std::size_t head = 0;
    std::size_t size = 0;

    bool full() const { return size == ring.size(); }
    void push(const workload::PlannedRequest* request) {
      ring[(head + size) % ring.size()] = request;
      ++size;
    }
    const workload::PlannedRequest* pop() {
      const workload::PlannedRequest* request = ring[head];
      head = (head + 1) % ring.size();
      --size;
      return request;
    }
  };

  void on_resume(Timer& timer, TimePoint now);
  // After a reply or a connection's end: fails, completes, thinks, or issues what may go now.
  void advance(TimePoint now);
  // Issues the calls that may go now and find room: those to send again first, then the
  // burst's. The first one issued is intended at `intended`, the others at `now`.
  void issue(TimePoint intended, TimePoint now);
  // Sends `request` on `slot`'s connection, opening one if it has none.
  void send(Slot& slot, const Request& request, TimePoint now);
  Slot* slot_of(const Connection& connection);
  void complete(TimePoint now);
  // Fails the session: calls to send again and calls in flight count as `kind` (unanswered,
  // or what stopped the run).
  void fail(ErrorKind kind, TimePoint now);
  // Ends the session once its connections are closed.
  void maybe_end(TimePoint now);
  void keep_cookies(const http::ResponseParser& reply);
  // The request a call of `planned` sends: `planned` itself, or with a URI source (--wsess with
  // --wlog, --wset) a per-call copy with the source's next URI, so that a call sent again keeps
  // its URI.
  const workload::PlannedRequest* for_call(const workload::PlannedRequest& planned);
  // A call ended (or will never go out): its per-call request, if any, is reused.
  void done_with(const workload::PlannedRequest* request);
  // Drops the calls in flight on `slot` (counted by its connection).
  void drop(Slot& slot);

  ConnectionContext& context_;
  ConnectionStore& connections_;
  SessionOwner& owner_;
  const workload::SessionPlan& plan_;
  std::vector<Slot> slots_;
  Timer resume_;  // the think time, or a deferred issue (never from inside a connection's end)

  State state_ = State::idle;
  const workload::PlannedSession* script_ = nullptr;
  std::size_t burst_ = 0;    // the burst being made
  std::size_t next_ = 0;     // its next call to issue
  std::size_t allowed_ = 0;  // its calls that may be issued so far (1 until the first reply)
  std::size_t done_ = 0;     // its calls answered
  std::deque<const workload::PlannedRequest*> again_;  // calls to send again, in order
  bool thinking_ = false;
  bool must_fail_ = false;  // a reply had --failure-status: fail at the next step
  bool closing_ = false;    // closing its connections in a loop: maybe_end() waits
  bool failed_ = false;
  int retries_ = 0;
  std::size_t open_ = 0;  // its connections open now
  std::uint64_t replies_ = 0;
  std::uint64_t connections_opened_ = 0;
  TimePoint started_{};
  TimePoint ended_at_{};
  std::vector<std::pair<std::string, std::string>> cookies_;  // name, value
  std::string cookie_line_;  // "Cookie: n=v; ...\r\n", or empty
  // Per-call requests not in use, reused (allocated up to the most calls in flight at once).
  std::vector<std::unique_ptr<workload::PlannedRequest>> spare_;
  std::vector<std::unique_ptr<workload::PlannedRequest>> in_use_;
};

// The sessions of one worker, reused as its connections are.
using SessionStore = Store<Session, ConnectionContext, ConnectionStore, SessionOwner>;

}  // namespace rateperf::engine
