#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rateperf::net {

// A resolved socket address to connect to.
struct Endpoint {
  sockaddr_storage address{};
  socklen_t length = 0;

  int family() const { return address.ss_family; }
};

// Every address `host` resolves to for TCP on `port`, in getaddrinfo()'s order (the first is
// where connections go until the run spreads them). Throws RunError naming --server when the
// name does not resolve.
std::vector<Endpoint> resolve(const std::string& host, std::uint16_t port);

}  // namespace rateperf::net
