#include "net/socket_options.hpp"

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

}  // namespace rateperf::net
