#pragma once

#include <cstdint>
#include <cstdio>
#include <mutex>

#include "core/clock.hpp"
#include "engine/call.hpp"

namespace rateperf::engine {

// --call-log: one CSV row per reply, for comparing rateperf's times with another's (a packet
// capture's): the connection's local port, the reply's status and bytes, and its times on the
// wall clock (seconds since the epoch, to the nanosecond), each by the client's own clock (when
// it wrote or read) and by the kernel's timestamps (empty where it gave none). The header line
// names the columns:
//
//   port,status,bytes,intended,send,send_kernel,first_byte,first_byte_kernel,last_byte,last_byte_kernel
//
// Shared by the workers (a row is written under a lock); the steady clock's times become wall
// time through the run's RealtimeOffset, the one that converted the kernel's.
class CallLog {
 public:
  CallLog(std::FILE* out, const RealtimeOffset& clock);
  CallLog(const CallLog&) = delete;
  CallLog& operator=(const CallLog&) = delete;
  ~CallLog();

  // The reply of `call` on the connection from local `port` completed: read at `last` (by the
  // kernel's clock at `last_kernel`, the epoch where it gave none).
  void reply(unsigned port, const Call& call, TimePoint last, TimePoint last_kernel, int status,
             std::uint64_t bytes);

 private:
  std::mutex mutex_;
  std::FILE* out_;
  const RealtimeOffset& clock_;
};

// The local port of a connected socket (0 when the kernel does not say).
unsigned local_port(int fd);

}  // namespace rateperf::engine
