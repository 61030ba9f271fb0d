#include "workload/session_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "core/failure.hpp"
#include "options/values.hpp"

namespace rateperf::workload {

namespace {

constexpr std::string_view kBlanks = " \t\r\v\f";
constexpr std::array<std::string_view, 5> kAttributes = {"method", "think", "contents", "header",
                                                         "timeout"};

bool is_blank(char c) {
  return kBlanks.find(c) != std::string_view::npos;
}

// Walks the file one physical line at a time; a request line is read from `rest_`, and a quoted
// value may go on to the next line (httperf's backslash at the end of a line).
class Parser {
 public:
  Parser(std::string_view text, std::string_view file) : text_(text), file_(file) {}

  std::vector<SessionTemplate> parse() {
    std::vector<SessionTemplate> sessions;
    bool session_open = false;
    while (next_line()) {
      if (!rest_.empty() && rest_.front() == '#') continue;
      if (rest_.find_first_not_of(kBlanks) == std::string_view::npos) {
        session_open = false;  // several blank lines in a row are one separator
        continue;
      }
      const bool indented = is_blank(rest_.front());
      if (indented && !session_open) {
        fail_at(line_,
                "an indented request needs a burst to join (a session's first line must "
                "not be indented)");
      }
      if (!indented) {
        if (!session_open) sessions.emplace_back();
        session_open = true;
        sessions.back().bursts.emplace_back();
      }
      SessionBurst& burst = sessions.back().bursts.back();
      burst.requests.push_back(parse_request(burst.think_s));
    }
    if (sessions.empty()) throw UsageError(std::string(file_) + ": no request in the file");
    return sessions;
  }

 private:
  // Moves `rest_` to the next line without its LF or CRLF; false at the end of the text.
  bool next_line() {
    if (pos_ >= text_.size()) return false;
    std::size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    rest_ = text_.substr(pos_, end - pos_);
    if (!rest_.empty() && rest_.back() == '\r') rest_.remove_suffix(1);
    pos_ = end + 1;
    ++line_;
    return true;
  }

  std::string where(std::size_t line) const {
    return std::string(file_) + ":" + std::to_string(line);
  }

  [[noreturn]] void fail_at(std::size_t line, const std::string& problem) const {
    throw UsageError(where(line) + ": " + problem);
  }

  void skip_blanks() {
    const std::size_t start = rest_.find_first_not_of(kBlanks);
    rest_.remove_prefix(start == std::string_view::npos ? rest_.size() : start);
  }

  std::string_view take_word() {
    std::size_t end = 0;
    while (end < rest_.size() && !is_blank(rest_[end])) ++end;
    const std::string_view word = rest_.substr(0, end);
    rest_.remove_prefix(end);
    return word;
  }

  SessionRequest parse_request(std::optional<double>& think_s) {
    SessionRequest request;
    request.line = line_;
    skip_blanks();
    request.uri = options::check_uri(where(line_) + ": URI", take_word());
    for (skip_blanks(); !rest_.empty(); skip_blanks()) parse_attribute(request, think_s);
    return request;
  }

  void parse_attribute(SessionRequest& request, std::optional<double>& think_s) {
    const std::size_t line = line_;
    const std::size_t name_end = rest_.find_first_of("= \t\r\v\f");
    if (name_end == 0 || name_end == std::string_view::npos || rest_[name_end] != '=') {
      fail_at(line, options::quoted(take_word()) + " is not an attribute (name=value)");
    }
    const std::string name(rest_.substr(0, name_end));
    rest_.remove_prefix(name_end + 1);
    if (std::find(kAttributes.begin(), kAttributes.end(), name) == kAttributes.end()) {
      std::string known;
      for (const std::string_view attribute : kAttributes) {
        known.append(known.empty() ? "" : ", ").append(attribute);
      }
      fail_at(line, "unknown attribute " + options::quoted(name) + " (known: " + known + ")");
    }
    const std::string option = where(line) + ": " + name;
    const std::string value = read_value(option);
    if (name == "contents") {
      request.body = value;
      request.has_body = true;
      return;
    }
    // Every other value ends up in the request's head or in a message: one line only.
    if (value.find_first_of("\r\n") != std::string::npos) {
      options::fail(option, "must not contain a line break");
    }
    if (name == "method") {
      if (!options::is_token(value)) {
        options::fail(option, options::quoted(value) + " is not a valid method name");
      }
      request.method = value;
    } else if (name == "think") {
      think_s = options::parse_seconds(option, value);
    } else if (name == "timeout") {
      const double seconds = options::parse_seconds(option, value);
      if (seconds <= 0) options::fail(option, "must be greater than 0 (got " + value + ")");
      options::to_duration(option, seconds, value);
      request.timeout_s = seconds;
    } else {
      request.headers.push_back(checked_header(option, value));
    }
  }

  // A value: quoted with " or ' (escapes decoded, may go on past the line's end after a
  // backslash), or unquoted up to the next blank.
  std::string read_value(const std::string& option) {
    if (rest_.empty() || (rest_.front() != '"' && rest_.front() != '\'')) {
      return std::string(take_word());
    }
    const char quote = rest_.front();
    rest_.remove_prefix(1);
    const std::string unclosed = std::string("the ") + quote + " quote is not closed";
    std::string value;
    for (;;) {
      if (rest_.empty()) options::fail(option, unclosed);
      const char c = rest_.front();
      rest_.remove_prefix(1);
      if (c == quote) break;
      if (c != '\\') {
        value += c;
        continue;
      }
      if (rest_.empty()) {
        // httperf's "\<CR>": a backslash ending the line is a line break in the value, which
        // goes on on the next line.
        if (!next_line()) options::fail(option, unclosed);
        value += '\n';
        continue;
      }
      const char escaped = rest_.front();
      rest_.remove_prefix(1);
      value += decoded_escape(escaped);
    }
    if (!rest_.empty() && !is_blank(rest_.front())) {
      options::fail(option, "text right after the closing quote");
    }
    return value;
  }

  // The characters a backslash pair inside quotes stands for; an unknown pair stays as it is.
  static std::string decoded_escape(char escaped) {
    switch (escaped) {
      case 'n':
        return "\n";
      case 'r':
        return "\r";
      case 't':
        return "\t";
      case '\\':
      case '"':
      case '\'':
        return std::string(1, escaped);
      default:
        return std::string{'\\', escaped};
    }
  }

  // "Name: value", the name a token (as a header's name must be for the request to be valid).
  static std::string checked_header(const std::string& option, const std::string& header) {
    const std::size_t colon = header.find(':');
    if (colon == std::string::npos || colon == 0) {
      options::fail(option, options::quoted(header) + " is not 'Name: value'");
    }
    if (!options::is_token(std::string_view(header).substr(0, colon))) {
      options::fail(option,
                    options::quoted(header.substr(0, colon)) + " is not a valid header name");
    }
    return header;
  }

  std::string_view text_;
  std::string_view file_;
  std::size_t pos_ = 0;    // where the next line starts in text_
  std::size_t line_ = 0;   // the number of the line `rest_` is on
  std::string_view rest_;  // what is left of that line
};

[[noreturn]] void cannot_read(const std::string& path, int error) {
  options::fail("--wsesslog", "cannot read " + options::quoted(path) + ": " + std::strerror(error));
}

}  // namespace

std::vector<SessionTemplate> parse_session_log(std::string_view text, std::string_view file) {
  return Parser(text, file).parse();
}

std::vector<SessionTemplate> read_session_log(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) cannot_read(path, errno);
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      const int error = errno;
      ::close(fd);
      cannot_read(path, error);
    }
  }
  ::close(fd);
  return parse_session_log(text, path);
}

}  // namespace rateperf::workload
