#pragma once

#include <memory>

#include <event2/event.h>

// RAII owners for libevent handles: every handle lives in a unique_ptr whose deleter frees it.
namespace rateperf::engine {

struct EventBaseDeleter {
  void operator()(event_base* base) const { event_base_free(base); }
};
struct EventDeleter {
  void operator()(event* ev) const { event_free(ev); }
};
struct EventConfigDeleter {
  void operator()(event_config* config) const { event_config_free(config); }
};

using EventBasePtr = std::unique_ptr<event_base, EventBaseDeleter>;
using EventPtr = std::unique_ptr<event, EventDeleter>;
using EventConfigPtr = std::unique_ptr<event_config, EventConfigDeleter>;

}  // namespace rateperf::engine
