#include "net/addresses.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/failure.hpp"

namespace rateperf::net {

namespace {

// The address `text` as an endpoint with port 0; false when it is none.
bool parse_address(std::string_view text, Endpoint& out) {
  const std::string copy(text);
  out = Endpoint{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&out.address);
  if (inet_pton(AF_INET, copy.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    out.length = sizeof(sockaddr_in);
    return true;
  }
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&out.address);
  if (inet_pton(AF_INET6, copy.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    out.length = sizeof(sockaddr_in6);
    return true;
  }
  return false;
}

std::string text_of(const Endpoint& endpoint) {
  char text[INET6_ADDRSTRLEN] = "?";
  if (endpoint.family() == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&endpoint.address)->sin_addr, text,
              sizeof text);
  } else {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&endpoint.address)->sin6_addr,
              text, sizeof text);
  }
  return text;
}

// The low 64 bits of an IPv6 address, and the address with other low bits.
std::uint64_t low64(const in6_addr& a) {
  std::uint64_t v = 0;
  for (int i = 8; i < 16; ++i) v = (v << 8) | a.s6_addr[i];
  return v;
}
void set_low64(in6_addr& a, std::uint64_t v) {
  for (int i = 15; i >= 8; --i) {
    a.s6_addr[i] = static_cast<std::uint8_t>(v & 0xff);
    v >>= 8;
  }
}

[[noreturn]] void refuse(const std::string& spec, const std::string& why) {
  throw UsageError("--myaddr: " + why + " (got '" + spec + "')");
}

}  // namespace

std::vector<Endpoint> parse_sources(const std::vector<std::string>& specs) {
  std::vector<Endpoint> sources;
  for (const std::string& spec : specs) {
    const std::size_t dash = spec.find('-');
    Endpoint first;
    Endpoint last;
    if (!parse_address(std::string_view(spec).substr(0, dash), first)) {
      refuse(spec, "expected an address or a range A1-A2 of addresses");
    }
    if (dash == std::string::npos) {
      last = first;
    } else if (!parse_address(std::string_view(spec).substr(dash + 1), last)) {
      refuse(spec, "expected an address after the '-'");
    }
    if (first.family() != last.family()) refuse(spec, "a range's two ends must be of one family");
    std::uint64_t from = 0;
    std::uint64_t to = 0;
    if (first.family() == AF_INET) {
      from = ntohl(reinterpret_cast<const sockaddr_in*>(&first.address)->sin_addr.s_addr);
      to = ntohl(reinterpret_cast<const sockaddr_in*>(&last.address)->sin_addr.s_addr);
    } else {
      const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(&first.address)->sin6_addr;
      const in6_addr& b = reinterpret_cast<const sockaddr_in6*>(&last.address)->sin6_addr;
      if (std::memcmp(a.s6_addr, b.s6_addr, 8) != 0) {
        refuse(spec, "an IPv6 range must stay within one /64");
      }
      from = low64(a);
      to = low64(b);
    }
    if (to < from) refuse(spec, "the range goes backwards");
    if (to - from >= kMaxSources || sources.size() + (to - from + 1) > kMaxSources) {
      refuse(spec, "more than " + std::to_string(kMaxSources) + " addresses");
    }
    for (std::uint64_t v = from;; ++v) {
      Endpoint source = first;
      if (source.family() == AF_INET) {
        reinterpret_cast<sockaddr_in*>(&source.address)->sin_addr.s_addr =
            htonl(static_cast<std::uint32_t>(v));
      } else {
        set_low64(reinterpret_cast<sockaddr_in6*>(&source.address)->sin6_addr, v);
      }
      sources.push_back(source);
      if (v == to) break;
    }
  }
  return sources;
}

void check_sources(const std::vector<Endpoint>& sources, int server_family) {
  for (const Endpoint& source : sources) {
    if (source.family() != server_family) {
      throw UsageError("--myaddr: " + text_of(source) + " is " +
                       (source.family() == AF_INET ? "IPv4" : "IPv6") + " and the server's address " +
                       (server_family == AF_INET ? "IPv4" : "IPv6"));
    }
    const int fd = ::socket(source.family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw RunError(std::string("--myaddr: socket: ") + std::strerror(errno));
    // Without a port: an address whose every local port is taken (by an earlier run's
    // TIME_WAIT sockets) is still this host's, and its arrivals count as addrunavail.
    const int on = 1;
    ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &on, sizeof on);
    const bool bound = ::bind(fd, reinterpret_cast<const sockaddr*>(&source.address), source.length) == 0;
    const int error = errno;
    ::close(fd);
    if (!bound) {
      throw RunError(
          "--myaddr: " + text_of(source) +
          (error == EADDRNOTAVAIL ? " is not an address of this host (" : ": cannot bind to it (") +
          std::strerror(error) + ")");
    }
  }
}

Addresses::Addresses(std::vector<Endpoint> servers, bool all_servers, std::vector<Endpoint> sources,
                     bool hog, std::size_t offset, std::size_t stride)
    : servers_(std::move(servers)),
      all_servers_(all_servers),
      sources_(std::move(sources)),
      hog_(hog),
      next_server_(offset),
      next_source_(offset),
      next_port_(static_cast<std::uint32_t>(offset)),
      port_stride_(static_cast<std::uint32_t>(stride)) {}

const Endpoint& Addresses::next_server() {
  if (!all_servers_ || servers_.size() == 1) return servers_.front();
  const Endpoint& server = servers_[next_server_ % servers_.size()];
  ++next_server_;
  return server;
}

int Addresses::bind_source(int fd, int family) {
  if (!binds()) return 0;
  Endpoint local;
  if (!sources_.empty()) {
    local = sources_[next_source_ % sources_.size()];
    ++next_source_;
  } else {
    local.address.ss_family = static_cast<sa_family_t>(family);
    local.length = family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
  }
  if (!hog_) {
    // The port is chosen by connect(), for this source and server: each source has the whole
    // local port range towards each server address.
    const int one = 1;
    ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    return ::bind(fd, reinterpret_cast<const sockaddr*>(&local.address), local.length) == 0 ? 0 : errno;
  }
  // --hog: ports 1024..65535 in turn, whatever the local range; a port in use is skipped, and
  // after 1024 ports in use in a row the arrival is out of ports (EADDRNOTAVAIL).
  constexpr std::uint32_t kFirst = 1024;
  constexpr std::uint32_t kPorts = 65536 - kFirst;
  // Not a whole turn: an arrival must not try 64,512 binds when every port is taken.
  constexpr std::uint32_t kHogTries = 1024;
  for (std::uint32_t tried = 0; tried < kHogTries; ++tried) {
    const auto port = static_cast<std::uint16_t>(kFirst + next_port_ % kPorts);
    next_port_ += port_stride_;
    if (local.family() == AF_INET) {
      reinterpret_cast<sockaddr_in*>(&local.address)->sin_port = htons(port);
    } else {
      reinterpret_cast<sockaddr_in6*>(&local.address)->sin6_port = htons(port);
    }
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&local.address), local.length) == 0) return 0;
    if (errno != EADDRINUSE) return errno;
  }
  return EADDRNOTAVAIL;
}

}  // namespace rateperf::net
