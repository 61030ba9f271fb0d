#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// httperf's --wsesslog session files, parsed into plain values before the run (not wired into
// the engine yet). The format, as httperf's man page gives it: a line with '#' in column 1 is a
// comment; a blank (or whitespace-only) line ends a session; a line that is not indented starts
// a burst of the current session with its URI; an indented line adds a request to that burst.
// After the URI come name=value attributes: method, think, contents, and, beyond httperf,
// header (repeatable) and timeout.
namespace rateperf::workload {

// One request of a burst.
struct SessionRequest {
  std::string method = "GET";
  std::string uri;                   // starts with '/', as --uri does
  std::string body;                  // contents=, escapes decoded
  bool has_body = false;             // contents= given (even empty): Content-Length is sent
  std::vector<std::string> headers;  // header='Name: value', in file order
  std::optional<double> timeout_s;   // timeout=, seconds > 0
  std::size_t line = 0;              // its line in the file, for messages
};

// Requests sent together; the next burst goes out after all their replies and the think time.
struct SessionBurst {
  std::vector<SessionRequest> requests;
  // think= on any request of the burst (the last one given wins): the pause after the burst's
  // replies. Unset: the default think time of --wsesslog applies.
  std::optional<double> think_s;
};

// One session as the file defines it: its bursts in order.
struct SessionTemplate {
  std::vector<SessionBurst> bursts;
};

// Parses the text of a session file (LF or CRLF line endings); `file` names it in messages.
// Returns the sessions in file order. Throws UsageError "FILE:LINE: what is wrong" (one line)
// on bad input, and "FILE: no request in the file" when it defines none.
std::vector<SessionTemplate> parse_session_log(std::string_view text, std::string_view file);

// Reads and parses the file at `path`; UsageError "--wsesslog: cannot read 'PATH': reason" when
// it cannot be read.
std::vector<SessionTemplate> read_session_log(const std::string& path);

}  // namespace rateperf::workload
