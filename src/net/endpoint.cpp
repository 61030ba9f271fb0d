#include "net/endpoint.hpp"

#include <netdb.h>

#include <cstring>

#include "core/failure.hpp"

namespace rateperf::net {

std::vector<Endpoint> resolve(const std::string& host, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
  if (rc != 0 || found == nullptr) {
    throw RunError("--server: cannot resolve '" + host + "': " + ::gai_strerror(rc));
  }
  std::vector<Endpoint> endpoints;
  for (const addrinfo* at = found; at != nullptr; at = at->ai_next) {
    Endpoint endpoint;
    std::memcpy(&endpoint.address, at->ai_addr, at->ai_addrlen);
    endpoint.length = at->ai_addrlen;
    endpoints.push_back(endpoint);
  }
  ::freeaddrinfo(found);
  return endpoints;
}

}  // namespace rateperf::net
