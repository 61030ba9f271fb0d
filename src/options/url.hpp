#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/failure.hpp"

namespace rateperf::options {

// What the positional URL argument names: the parts it sets of --server, --port and --uri.
struct Url {
  std::string host;          // without the brackets of an IPv6 literal, as getaddrinfo() wants it
  std::uint16_t port = 80;   // http's port (https's 443) when the URL names none
  bool tls = false;          // https://
  bool has_port = false;     // the URL names its port
  std::string target = "/";  // path and query as they go on the request line; never the fragment
};

// Parses http[s]://host[:port][/path][?query][#fragment]. The scheme is case-insensitive; user
// names, other schemes, spaces and control characters are refused. Throws UsageError, whose
// message starts with "URL '<url>': ".
Url parse_url(std::string_view url);

}  // namespace rateperf::options
