#pragma once

#include <string>

#include "options/config.hpp"

namespace rateperf::http {

// Renders the request bytes once, before the run: request line (method, URI, HTTP version),
// a User-Agent, a Host header (Config::server_name, else the server with ":port" unless the port
// is 80; none with --no-host-hdr), every --add-header line, and the blank line. Every connection sends these same bytes.
std::string render_request(const options::Config& config);

// True when the reply to this request has no body whatever its headers say (HEAD).
bool reply_has_no_body(const options::Config& config);

}  // namespace rateperf::http
