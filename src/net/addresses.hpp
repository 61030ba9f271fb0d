#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "net/endpoint.hpp"

namespace rateperf::net {

// The source addresses of --myaddr, each spec an address or a range A1-A2 (IPv4, or IPv6 ranges
// within one /64), expanded in order. Throws UsageError naming --myaddr for a spec that is no
// address, a range that goes backwards or mixes families, or more than kMaxSources addresses.
inline constexpr std::size_t kMaxSources = 65536;
std::vector<Endpoint> parse_sources(const std::vector<std::string>& specs);

// Checks before the run that this host has each source address (a bind to it on a throwaway
// socket): throws RunError naming the first one it does not have; throws UsageError when one's
// family differs from the server's.
void check_sources(const std::vector<Endpoint>& sources, int server_family);

// Where a worker's connections go and come from: the server's address (the first one, or with
// --server-addresses all each in turn) and the source address each socket binds to before its
// connect (--myaddr, in turn; the port left to connect() with IP_BIND_ADDRESS_NO_PORT, so that
// each source has the whole port range towards each server address), or with --hog a port of
// its own from 1024 up, in turn, as httperf's option does. One per worker, used on its thread;
// `offset` starts the turns at the worker's share, so that workers spread over the addresses,
// and with --hog each worker steps over the ports by `stride` (the run's shares), so that no
// two take the same port.
class Addresses {
 public:
  Addresses(std::vector<Endpoint> servers, bool all_servers, std::vector<Endpoint> sources,
            bool hog, std::size_t offset = 0, std::size_t stride = 1);

  // The server address of the next connection.
  const Endpoint& next_server();
  // Binds a new socket before its connect, as the plan says (nothing when it says nothing):
  // 0, or the errno of the bind.
  int bind_source(int fd, int family);
  bool binds() const { return !sources_.empty() || hog_; }

 private:
  std::vector<Endpoint> servers_;
  bool all_servers_;
  std::vector<Endpoint> sources_;
  bool hog_;
  std::size_t next_server_ = 0;
  std::size_t next_source_ = 0;
  std::uint32_t next_port_ = 0;  // --hog: the next port to try, 1024..65535
  std::uint32_t port_stride_ = 1;
};

}  // namespace rateperf::net
