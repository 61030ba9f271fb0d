#pragma once

// demo_server's libevent handles and its accepted connections.

#include <event2/event.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace rateperf::demo {

struct EventDeleter {
  void operator()(event* ev) const { event_free(ev); }
};
struct EventBaseDeleter {
  void operator()(event_base* base) const { event_base_free(base); }
};
using EventPtr = std::unique_ptr<event, EventDeleter>;
using EventBasePtr = std::unique_ptr<event_base, EventBaseDeleter>;

class Server;

enum class State { reading, queued, serving, writing };

// One accepted connection. Owned by Server::connections_; lives on the loop thread. While it is
// queued its read event stays armed, so that a client that gives up is noticed and dropped.
struct Connection {
  Server* server = nullptr;
  int fd = -1;
  State state = State::reading;
  std::string request;
  const std::string* reply = nullptr;  // points at one of the server's pre-rendered replies
  std::size_t written = 0;
  std::chrono::steady_clock::time_point queued_at;  // when the request joined the queue
  EventPtr read_event;
  EventPtr write_event;

  ~Connection() {
    read_event.reset();
    write_event.reset();
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace rateperf::demo
