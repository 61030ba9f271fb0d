#pragma once

#include <span>
#include <string>
#include <string_view>

#include "options/config.hpp"

namespace rateperf::http {

// Renders the request bytes once, before the run: request line (method, URI, HTTP version),
// a User-Agent, a Host header (Config::server_name, else the server with ":port" unless the port
// is 80; none with --no-host-hdr), every --add-header line, and the blank line. Every connection sends these same bytes.
std::string render_request(const options::Config& config);

// What a request of a session file (--wsesslog) has of its own: its method and URI, header lines
// after the run's own (--add-header), and a body, sent with its Content-Length when `has_body`.
struct RequestParts {
  std::string_view method;
  std::string_view uri;
  std::span<const std::string> headers;
  std::string_view body;
  bool has_body = false;
};

// The request of `parts`, rendered as the run's own is. Its header block ends at the returned
// size minus the body's and minus 2 (the blank line's CRLF): where a Cookie line can go.
std::string render_request(const options::Config& config, const RequestParts& parts);

// True when the reply to this request has no body whatever its headers say (HEAD).
bool reply_has_no_body(const options::Config& config);

}  // namespace rateperf::http
