#include "engine/call_log.hpp"

#include <netinet/in.h>
#include <sys/socket.h>

#include <cinttypes>

namespace rateperf::engine {

namespace {

// A time as wall-clock seconds with nine decimals, or nothing for the epoch (no time).
void put_time(std::FILE* out, const RealtimeOffset& clock, TimePoint at) {
  std::fputc(',', out);
  if (at == TimePoint{}) return;
  const std::int64_t ns = clock.to_realtime_ns(at);
  std::fprintf(out, "%" PRId64 ".%09" PRId64, ns / 1'000'000'000, ns % 1'000'000'000);
}

}  // namespace

CallLog::CallLog(std::FILE* out, const RealtimeOffset& clock) : out_(out), clock_(clock) {
  std::fputs(
      "port,status,bytes,intended,send,send_kernel,first_byte,first_byte_kernel,last_byte,"
      "last_byte_kernel\n",
      out_);
}

CallLog::~CallLog() {
  std::fflush(out_);
}

void CallLog::reply(unsigned port, const Call& call, TimePoint last, TimePoint last_kernel,
                    int status, std::uint64_t bytes) {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::fprintf(out_, "%u,%d,%" PRIu64, port, status, bytes);
  for (const TimePoint at : {call.intended, call.send_start, call.send_kernel, call.first_byte,
                             call.first_byte_kernel, last, last_kernel}) {
    put_time(out_, clock_, at);
  }
  std::fputc('\n', out_);
}

unsigned local_port(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return 0;
  if (address.ss_family == AF_INET) {
    return ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port);
  }
  if (address.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6&>(address).sin6_port);
  }
  return 0;
}

}  // namespace rateperf::engine
