#include "engine/session.hpp"

#include <algorithm>

#include "engine/loop.hpp"

namespace rateperf::engine {

Session::Session(ConnectionContext& context, ConnectionStore& connections, SessionOwner& owner)
    : context_(context),
      connections_(connections),
      owner_(owner),
      plan_(*context.workload.sessions),
      slots_(plan_.max_connections) {
  for (Slot& slot : slots_) slot.ring.resize(context.workload.max_in_flight);
  resume_.bind<&Session::on_resume>(*this);
}

Session::~Session() {
  context_.loop.cancel(resume_);
}

void Session::start(const workload::PlannedSession& script, TimePoint intended, TimePoint now) {
  state_ = State::running;
  script_ = &script;
  burst_ = 0;
  next_ = 0;
  allowed_ = 1;
  done_ = 0;
  for (const workload::PlannedRequest* request : again_) done_with(request);
  again_.clear();
  thinking_ = false;
  must_fail_ = false;
  closing_ = false;
  failed_ = false;
  retries_ = 0;
  open_ = 0;
  replies_ = 0;
  connections_opened_ = 0;
  started_ = now;
  ended_at_ = now;
  cookies_.clear();
  cookie_line_.clear();
  for (Slot& slot : slots_) {
    slot.connection = nullptr;
    slot.head = 0;
    slot.size = 0;
  }
  for (auto& own : in_use_) spare_.push_back(std::move(own));
  in_use_.clear();
  issue(intended, now);
}

Session::Slot* Session::slot_of(const Connection& connection) {
  for (Slot& slot : slots_) {
    if (slot.connection == &connection) return &slot;
  }
  return nullptr;
}

void Session::issue(TimePoint intended, TimePoint now) {
  const workload::PlannedBurst& burst = script_->bursts[burst_];
  while (state_ == State::running && !must_fail_) {
    const bool again = !again_.empty();
    if (!again && next_ >= std::min(allowed_, burst.requests.size())) return;
    // The first connection with room takes the call (httperf fills one before the next).
    const auto slot = std::find_if(slots_.begin(), slots_.end(),
                                   [](const Slot& s) { return !s.full(); });
    if (slot == slots_.end()) return;  // every connection is full: a reply makes room
    const workload::PlannedRequest* request = nullptr;
    if (again) {
      request = again_.front();
      again_.pop_front();
    } else {
      request = for_call(burst.requests[next_++]);
    }
    send(*slot, Request{intended, now, request, cookie_line_}, now);
    intended = now;
  }
}

void Session::send(Slot& slot, const Request& request, TimePoint now) {
  slot.push(request.planned);
  if (slot.connection != nullptr) {
    // False: the connection ended doing it, and ended() heard of it.
    slot.connection->submit(request, now);
    return;
  }
  Connection& connection = connections_.acquire();
  connection.session = this;
  slot.connection = &connection;
  ++open_;
  ++connections_opened_;
  connection.open(now, &request);
}

void Session::keep_cookies(const http::ResponseParser& reply) {
  bool changed = false;
  for (const std::string& pair : reply.set_cookies()) {
    const std::size_t equals = pair.find('=');
    std::string name = pair.substr(0, equals);
    std::string value = pair.substr(equals + 1);
    const auto known = std::find_if(cookies_.begin(), cookies_.end(),
                                    [&](const auto& cookie) { return cookie.first == name; });
    if (known != cookies_.end()) {
      known->second = std::move(value);
    } else {
      cookies_.emplace_back(std::move(name), std::move(value));
    }
    changed = true;
  }
  if (!changed) return;
  cookie_line_ = "Cookie: ";
  for (std::size_t i = 0; i < cookies_.size(); ++i) {
    if (i > 0) cookie_line_ += "; ";
    cookie_line_.append(cookies_[i].first).append("=").append(cookies_[i].second);
  }
  cookie_line_ += "\r\n";
}

void Session::reply_received(Connection& connection, const http::ResponseParser& reply,
                             TimePoint) {
  Slot* slot = slot_of(connection);
  if (slot == nullptr || slot->size == 0 || state_ != State::running) return;
  const workload::PlannedRequest* request = slot->pop();
  ++replies_;
  if (plan_.cookies) keep_cookies(reply);
  if (plan_.failure_status != 0 && reply.status() == plan_.failure_status) {
    if (plan_.retry_on_failure && retries_ < options::kMaxRetries) {
      ++retries_;
      again_.push_back(request);
    } else {
      done_with(request);
      must_fail_ = true;
    }
    return;
  }
  done_with(request);
  ++done_;
  // The burst's first reply lets its other calls go.
  allowed_ = script_->bursts[burst_].requests.size();
}

void Session::idle(Connection&, TimePoint now) {
  advance(now);
}

void Session::advance(TimePoint now) {
  if (state_ != State::running || thinking_) return;
  if (must_fail_) {
    fail(ErrorKind::unanswered, now);
    return;
  }
  const workload::PlannedBurst& burst = script_->bursts[burst_];
  if (done_ == burst.requests.size()) {
    if (burst_ + 1 == script_->bursts.size()) {
      complete(now);
      return;
    }
    ++burst_;
    next_ = 0;
    allowed_ = 1;
    done_ = 0;
    thinking_ = true;
    context_.loop.schedule(resume_, now + burst.think);
    return;
  }
  issue(now, now);
}

void Session::on_resume(Timer& timer, TimePoint now) {
  if (thinking_) {
    // The next burst's first call was due at the end of the think time.
    thinking_ = false;
    issue(timer.deadline, now);
    return;
  }
  advance(now);
}

void Session::ended(Connection& connection, TimePoint now) {
  Slot* slot = slot_of(connection);
  if (slot == nullptr) return;
  slot->connection = nullptr;
  --open_;
  if (state_ != State::running) {
    drop(*slot);
    if (!closing_) maybe_end(now);
    return;
  }
  if (connection.failed()) {
    // Its calls are counted (the connection did): the session fails.
    drop(*slot);
    fail(ErrorKind::unanswered, now);
    return;
  }
  // The server closed it after a reply: the calls it left go out again, first.
  std::vector<const workload::PlannedRequest*> returned;
  while (slot->size > 0) returned.push_back(slot->pop());
  again_.insert(again_.begin(), returned.begin(), returned.end());
  // Not from here: the connection that ended may still be on the stack.
  if (!thinking_ && !resume_.armed()) context_.loop.schedule(resume_, now);
}

void Session::complete(TimePoint now) {
  state_ = State::ending;
  ended_at_ = now;
  closing_ = true;
  for (Slot& slot : slots_) {
    if (slot.connection != nullptr) slot.connection->close_idle(now);
  }
  closing_ = false;
  maybe_end(now);
}

void Session::fail(ErrorKind kind, TimePoint now) {
  if (state_ != State::running) return;
  state_ = State::ending;
  failed_ = true;
  ended_at_ = now;
  context_.loop.cancel(resume_);
  thinking_ = false;
  // Calls a closed connection left, not sent again: unanswered.
  if (!again_.empty()) context_.collector.error(ErrorKind::unanswered, again_.size());
  for (const workload::PlannedRequest* request : again_) done_with(request);
  again_.clear();
  closing_ = true;
  for (Slot& slot : slots_) {
    if (slot.connection != nullptr) slot.connection->abort(kind, now);
  }
  closing_ = false;
  maybe_end(now);
}

const workload::PlannedRequest* Session::for_call(const workload::PlannedRequest& planned) {
  const workload::Workload& work = context_.workload;
  if (!work.uris || !planned.bytes.empty()) return &planned;
  if (spare_.empty()) spare_.push_back(std::make_unique<workload::PlannedRequest>());
  std::unique_ptr<workload::PlannedRequest> own = std::move(spare_.back());
  spare_.pop_back();
  // A session's URI source never ends (--wlog n is refused with sessions).
  own->bytes.assign(work.request_head);
  work.uris->append_next(own->bytes);
  own->bytes.append(work.request_tail);
  own->header_end = own->bytes.size() - 2;
  own->no_body = planned.no_body;
  own->timeout = planned.timeout;
  own->per_call = true;
  in_use_.push_back(std::move(own));
  return in_use_.back().get();
}

void Session::done_with(const workload::PlannedRequest* request) {
  if (request == nullptr || !request->per_call) return;
  const auto used = std::find_if(in_use_.begin(), in_use_.end(),
                                 [&](const auto& own) { return own.get() == request; });
  if (used == in_use_.end()) return;
  spare_.push_back(std::move(*used));
  *used = std::move(in_use_.back());
  in_use_.pop_back();
}

void Session::drop(Slot& slot) {
  while (slot.size > 0) done_with(slot.pop());
}

void Session::abort(ErrorKind kind, TimePoint now) {
  fail(kind, now);
}

void Session::maybe_end(TimePoint now) {
  if (state_ != State::ending || open_ > 0) return;
  state_ = State::idle;
  context_.loop.cancel(resume_);
  context_.collector.session_ended(failed_, ended_at_ - started_, replies_, connections_opened_);
  owner_.session_ended(*this, now);
}

}  // namespace rateperf::engine
