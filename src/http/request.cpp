#include "http/request.hpp"

#include <string_view>

#include "core/version.hpp"

namespace rateperf::http {

namespace {

// Appends one header line, without whatever line ending it came with, ending it in CRLF.
// Empty lines are dropped: an empty line would end the header block early.
void append_header_line(std::string& out, std::string_view line) {
  while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // A literal "\r" before a literal "\n" is the escaped form of CRLF.
  if (line.size() >= 2 && line.substr(line.size() - 2) == "\\r") line.remove_suffix(2);
  if (line.find_first_not_of(" \t") == std::string_view::npos) return;
  out.append(line);
  out.append("\r\n");
}

// httperf's --add-header may hold several headers separated by the two characters "\n" (typed
// on a shell command line) or by real line breaks; each becomes its own CRLF-terminated line.
void append_headers(std::string& out, std::string_view value) {
  while (!value.empty()) {
    const std::size_t escaped = value.find("\\n");
    const std::size_t newline = value.find('\n');
    const std::size_t end = escaped < newline ? escaped : newline;
    if (end == std::string_view::npos) {
      append_header_line(out, value);
      return;
    }
    append_header_line(out, value.substr(0, end));
    value.remove_prefix(end + (end == escaped ? 2 : 1));
  }
}

}  // namespace

std::string render_request(const options::Config& config) {
  RequestParts parts;
  parts.method = config.method;
  parts.uri = config.uri;
  return render_request(config, parts);
}

std::string render_request(const options::Config& config, const RequestParts& parts) {
  std::string out;
  out.reserve(128 + parts.uri.size() + config.server.size() + config.server_name.size() +
              parts.body.size());

  out.append(parts.method).append(" ").append(parts.uri);
  out.append(" HTTP/").append(config.http_version).append("\r\n");
  out.append("User-Agent: rateperf/").append(kVersion).append("\r\n");

  if (!config.no_host_header) {
    out.append("Host: ");
    if (!config.server_name.empty()) {
      out.append(config.server_name);
    } else {
      // An IPv6 literal needs brackets, or its colons would read as the port separator.
      const bool ipv6 =
          config.server.find(':') != std::string::npos && config.server.front() != '[';
      if (ipv6) out.append("[");
      out.append(config.server);
      if (ipv6) out.append("]");
      // Without the scheme's own port (80, or 443 for https), as browsers send it.
      if (config.port != (config.tls ? 443 : 80)) out.append(":").append(std::to_string(config.port));
    }
    out.append("\r\n");
  }

  for (const std::string& header : config.add_headers) append_headers(out, header);
  for (const std::string& header : parts.headers) append_header_line(out, header);
  if (parts.has_body) out.append("Content-Length: ").append(std::to_string(parts.body.size())).append("\r\n");
  out.append("\r\n");
  out.append(parts.body);
  return out;
}

bool reply_has_no_body(const options::Config& config) {
  return config.method == "HEAD";
}

}  // namespace rateperf::http
