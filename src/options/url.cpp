#include "options/url.hpp"

#include <cctype>
#include <charconv>
#include <system_error>

#include "options/values.hpp"

namespace rateperf::options {

// The fragment is never sent, as browsers do.
Url parse_url(std::string_view url) {
  auto fail_url = [&](const std::string& problem) {
    throw UsageError("URL " + quoted(url) + ": " + problem);
  };
  const auto has_scheme = [&](std::string_view scheme) {
    bool same = url.size() >= scheme.size();
    for (std::size_t i = 0; same && i < scheme.size(); ++i) {
      same = std::tolower(static_cast<unsigned char>(url[i])) == scheme[i];
    }
    return same;
  };
  Url parts;
  parts.tls = has_scheme("https://");
  if (parts.tls) parts.port = 443;
  const std::string_view scheme = parts.tls ? "https://" : "http://";
  if (!parts.tls && !has_scheme(scheme)) fail_url("only http:// and https:// URLs are supported");
  if (has_space_or_control(url)) fail_url("must not contain spaces or control characters");

  const std::string_view rest = url.substr(scheme.size());
  const std::size_t target_start = rest.find_first_of("/?#");
  const std::string_view authority = rest.substr(0, target_start);
  std::string_view target = target_start == std::string_view::npos ? "" : rest.substr(target_start);
  if (authority.find('@') != std::string_view::npos)
    fail_url("user names and passwords are not supported");

  std::string_view host;
  std::string_view port_text;
  bool has_port = false;
  if (!authority.empty() && authority.front() == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) fail_url("the IPv6 address lacks its ']'");
    host = authority.substr(1, close - 1);
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') fail_url("unexpected text after the IPv6 address");
      has_port = true;
      port_text = after.substr(1);
    }
  } else {
    const std::size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    if (colon != std::string_view::npos) {
      has_port = true;
      port_text = authority.substr(colon + 1);
    }
  }
  if (host.empty()) fail_url("no host");
  parts.host = std::string(host);
  if (has_port) {
    unsigned port = 0;
    const char* end = port_text.data() + port_text.size();
    const auto [ptr, ec] = std::from_chars(port_text.data(), end, port);
    if (ec != std::errc() || ptr != end || port < 1 || port > 65535) {
      fail_url("the port must be within 1..65535");
    }
    parts.port = static_cast<std::uint16_t>(port);
    parts.has_port = true;
  }
  target = target.substr(0, target.find('#'));
  // A query alone asks for the root path. The target is built by appending because GCC 12 at -O3
  // gives a false -Wrestrict warning for "/" + std::string(...) here.
  if (!target.empty()) {
    parts.target.clear();
    if (target.front() == '?') parts.target += '/';
    parts.target += target;
  }
  return parts;
}

}  // namespace rateperf::options
