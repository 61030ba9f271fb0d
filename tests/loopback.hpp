#pragma once

// The test servers' listening socket.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace rateperf::test {

// A listening TCP socket on 127.0.0.1:`port`, or on [::1]:`port` when `ipv6` (0: the kernel
// picks one, and `port` is set to it), with the given accept backlog; non-blocking when asked.
// Throws when it cannot listen.
inline int listen_on_loopback(std::uint16_t& port, int backlog, bool nonblocking,
                              bool ipv6 = false) {
  const int family = ipv6 ? AF_INET6 : AF_INET;
  const int fd =
      ::socket(family, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
  if (fd < 0) throw std::runtime_error("test server: socket failed");
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_storage storage{};
  socklen_t length = 0;
  if (ipv6) {
    auto* address = reinterpret_cast<sockaddr_in6*>(&storage);
    address->sin6_family = AF_INET6;
    address->sin6_addr = in6addr_loopback;
    address->sin6_port = htons(port);
    length = sizeof *address;
  } else {
    auto* address = reinterpret_cast<sockaddr_in*>(&storage);
    address->sin_family = AF_INET;
    address->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address->sin_port = htons(port);
    length = sizeof *address;
  }
  if (::bind(fd, reinterpret_cast<sockaddr*>(&storage), length) != 0 ||
      ::listen(fd, backlog) != 0) {
    ::close(fd);
    throw std::runtime_error(std::string("test server: cannot listen on ") +
                             (ipv6 ? "[::1]:" : "127.0.0.1:") + std::to_string(port));
  }
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &length);
  port = ntohs(ipv6 ? reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port
                    : reinterpret_cast<sockaddr_in*>(&storage)->sin_port);
  return fd;
}

}  // namespace rateperf::test
