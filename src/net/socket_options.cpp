#include "net/socket_options.hpp"

#include <arpa/inet.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

namespace rateperf::net {

namespace {

// One buffer option: its flag, socket option and the sysctl that caps it.
struct BufferOption {
  const char* flag;
  int option;
  const char* option_name;
  const char* sysctl;
};

constexpr BufferOption kSend{"--send-buffer", SO_SNDBUF, "SO_SNDBUF", "net.core.wmem_max"};
constexpr BufferOption kRecv{"--recv-buffer", SO_RCVBUF, "SO_RCVBUF", "net.core.rmem_max"};

bool set_size(int fd, int option, std::uint32_t bytes) {
  const int value = static_cast<int>(bytes);
  return ::setsockopt(fd, SOL_SOCKET, option, &value, sizeof value) == 0;
}

std::string sysctl_text(const char* name) {
  std::string path = std::string("/proc/sys/") + name;
  for (char& c : path) {
    if (c == '.') c = '/';
  }
  std::ifstream in(path);
  std::string value;
  in >> value;
  return value.empty() ? "?" : value;
}

// Empty when the size holds; otherwise the warning.
std::string check_one(int fd, const BufferOption& what, std::uint32_t bytes) {
  const std::string head =
      std::string("rateperf: warning: ") + what.flag + " " + std::to_string(bytes) + ": ";
  if (!set_size(fd, what.option, bytes)) {
    return head + "the kernel refused " + what.option_name + " (" + std::strerror(errno) + ")";
  }
  int actual = 0;
  socklen_t length = sizeof actual;
  if (::getsockopt(fd, SOL_SOCKET, what.option, &actual, &length) != 0) return "";
  const auto wanted = 2 * static_cast<std::uint64_t>(bytes);
  if (static_cast<std::uint64_t>(actual) == wanted) return "";
  return head + "the kernel set " + what.option_name + " to " + std::to_string(actual) +
         " bytes, not 2 x " + std::to_string(bytes) + " (it doubles the size asked for, within " +
         what.sysctl + " = " + sysctl_text(what.sysctl) + " and a minimum of its own)";
}

}  // namespace

bool set_socket_options(int fd, const SocketOptions& sizes) {
  bool ok = true;
  if (sizes.send_bytes) ok = set_size(fd, SO_SNDBUF, *sizes.send_bytes) && ok;
  if (sizes.recv_bytes) ok = set_size(fd, SO_RCVBUF, *sizes.recv_bytes) && ok;
  if (sizes.no_delay) {
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  if (sizes.reset_on_close) {
    const linger reset{.l_onoff = 1, .l_linger = 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  }
  return ok;
}

std::vector<std::string> check_buffer_sizes(int family, const SocketOptions& sizes) {
  std::vector<std::string> warnings;
  if (!sizes.send_bytes && !sizes.recv_bytes) return warnings;
  const int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return warnings;  // the run's own sockets will meet the same failure, counted
  const auto check = [&](const BufferOption& what, const std::optional<std::uint32_t>& bytes) {
    if (!bytes) return;
    std::string warning = check_one(fd, what, *bytes);
    if (!warning.empty()) warnings.push_back(std::move(warning));
  };
  check(kSend, sizes.send_bytes);
  check(kRecv, sizes.recv_bytes);
  ::close(fd);
  return warnings;
}

bool software_timestamp(msghdr& message, timespec& stamp) {
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING) {
      scm_timestamping stamps{};
      std::memcpy(&stamps, CMSG_DATA(c), sizeof stamps);
      stamp = stamps.ts[0];
      return stamp.tv_sec != 0 || stamp.tv_nsec != 0;
    }
  }
  return false;
}

TimestampKeeper::TimestampKeeper(int family) {
  fd_ = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    refused_ = std::string("cannot make a socket to try them (") + std::strerror(errno) + ")";
    return;
  }
  // OPT_ID waits for a connect; the rest is what each connection asks for.
  const unsigned flags = kSoftwareTimestamps;
  if (::setsockopt(fd_, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags) != 0) {
    refused_ = std::string("the kernel refused SO_TIMESTAMPING (") + std::strerror(errno) + ")";
    return;
  }
  wait_until_stamping();
}

void TimestampKeeper::wait_until_stamping() {
  // The stamping comes on once the kernel's work item has run, some microseconds from now:
  // a datagram to ourselves on loopback comes back stamped once it is. At most 200 ms (a
  // namespace without loopback up gets no answer, and the run goes on).
  const int probe = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (probe < 0) return;
  const unsigned flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
  sockaddr_in self{};
  self.sin_family = AF_INET;
  self.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof self;
  if (::setsockopt(probe, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags) == 0 &&
      ::bind(probe, reinterpret_cast<const sockaddr*>(&self), sizeof self) == 0 &&
      ::getsockname(probe, reinterpret_cast<sockaddr*>(&self), &length) == 0) {
    for (int attempt = 0; attempt < 200; ++attempt) {
      const char byte = 0;
      if (::sendto(probe, &byte, 1, 0, reinterpret_cast<const sockaddr*>(&self), sizeof self) !=
          1) {
        break;
      }
      ::usleep(attempt == 0 ? 100 : 1000);
      char buffer[1];
      iovec data{buffer, sizeof buffer};
      alignas(cmsghdr) char control[256];
      msghdr message{};
      message.msg_iov = &data;
      message.msg_iovlen = 1;
      message.msg_control = control;
      message.msg_controllen = sizeof control;
      if (::recvmsg(probe, &message, 0) != 1) continue;
      timespec stamp{};
      if (software_timestamp(message, stamp)) break;
    }
  }
  ::close(probe);
}

TimestampKeeper::~TimestampKeeper() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace rateperf::net
