#pragma once

#include <linux/net_tstamp.h>
#include <sys/socket.h>

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"

namespace rateperf::net {

class Addresses;

// What each new socket is given: --send-buffer and --recv-buffer (SO_SNDBUF and SO_RCVBUF in
// bytes, where given), SO_LINGER for --close-with-reset, and TCP_NODELAY for pipelined calls, where Nagle's algorithm would hold
// a request back until the one before it is acknowledged (httperf sets it always; one
// setsockopt a connection is spared where nothing is pipelined).
struct SocketOptions {
  std::optional<std::uint32_t> send_bytes;
  std::optional<std::uint32_t> recv_bytes;
  bool no_delay = false;
  // --close-with-reset: SO_LINGER on with a zero timeout, so that close() sends a reset.
  bool reset_on_close = false;
  // --myaddr, --hog: binds each socket before its connect; none: the kernel chooses.
  Addresses* addresses = nullptr;
  // --clock kernel: each socket asks for the kernel's software timestamps (SO_TIMESTAMPING:
  // received bytes, and each send's transmission), converted to the steady clock with this
  // offset; none: the client's own clock only.
  const RealtimeOffset* kernel_clock = nullptr;
};

// What each connection's socket asks the kernel for (--clock kernel): software timestamps of
// received data and of each send's transmission, the latter returned alone (TSONLY) on the error
// queue. A connecting socket adds SOF_TIMESTAMPING_OPT_ID (refused before connect()).
inline constexpr unsigned kSoftwareTimestamps =
    SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE |
    SOF_TIMESTAMPING_OPT_TSONLY;

// The software timestamp a received message's control data carries, if it has one (not zero).
bool software_timestamp(msghdr& message, timespec& stamp);

// Software receive timestamps for the run: a TCP socket of `family` that asks for them, kept
// open until the end. Linux stamps received packets only while some socket wants it, and turns
// the stamping on and off through a deferred work item: without a socket that holds it on,
// connections opened one after another would each turn it on anew, and their replies could
// come before it is on (a run of 10 sequential connections had 4 replies unstamped). Made
// before the run, so that the stamping is on before the first connection.
class TimestampKeeper {
 public:
  explicit TimestampKeeper(int family);
  ~TimestampKeeper();
  TimestampKeeper(const TimestampKeeper&) = delete;
  TimestampKeeper& operator=(const TimestampKeeper&) = delete;

  // Empty when the kernel gives timestamps; otherwise why not (for the note).
  const std::string& refused() const { return refused_; }

 private:
  void wait_until_stamping();

  int fd_ = -1;
  std::string refused_;
};

// Sets the options on a new socket. Returns false when the kernel refused a buffer size.
bool set_socket_options(int fd, const SocketOptions& sizes);

// Tries the given buffer sizes on a throwaway socket of `family` before the run, and returns a
// one-line warning for each that the kernel refused or did not take as asked (Linux doubles the
// size for its bookkeeping and keeps it within net.core.wmem_max / rmem_max and a minimum of its
// own): once, instead of once per connection.
std::vector<std::string> check_buffer_sizes(int family, const SocketOptions& sizes);

}  // namespace rateperf::net
