#include "http/response_parser.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>

namespace rateperf::http {

namespace {

ResponseParser* self(http_parser* parser) { return static_cast<ResponseParser*>(parser->data); }

// Field names are case-insensitive (RFC 9110 section 5.1).
constexpr std::string_view kSetCookie = "set-cookie";
// cookie_field_ once the field name is known to be another one.
constexpr std::uint8_t kOtherField = kSetCookie.size() + 1;

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// What a plain reply's bytes may be: a field name's (RFC 9110 section 5.6.2, tchar), and a
// status reason's or field value's (visible ASCII, space and tab: what no http-parser build
// rejects).
enum CharClass : std::uint8_t { kToken = 1, kVisible = 2 };
constexpr std::array<std::uint8_t, 256> kCharClasses = [] {
  std::array<std::uint8_t, 256> classes{};
  for (int c = 0x20; c < 0x7f; ++c) classes[c] = kVisible;
  classes['\t'] = kVisible;
  for (const char c : std::string_view("!#$%&'*+-.^_`|~0123456789")) classes[c] |= kToken;
  for (int c = 'a'; c <= 'z'; ++c) classes[c] |= kToken;
  for (int c = 'A'; c <= 'Z'; ++c) classes[c] |= kToken;
  return classes;
}();

bool is(std::uint8_t char_class, char c) {
  return (kCharClasses[static_cast<unsigned char>(c)] & char_class) != 0;
}

// The first byte at or after `p` that is not visible ASCII (0x20-0x7e), eight bytes at a time:
// a word has none when no byte is below 0x20, none has its top bit set and none is 0x7f.
const char* skip_visible(const char* p, const char* end) {
  constexpr std::uint64_t kOnes = 0x0101010101010101;
  constexpr std::uint64_t kTops = 0x8080808080808080;
  while (end - p >= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, sizeof word);
    const std::uint64_t del = word ^ (kOnes * 0x7f);
    // Any byte below 0x20 (the classic "has less than" test, exact as a yes or no), any top
    // bit, any 0x7f (a zero byte of `del`).
    if ((((word - kOnes * 0x20) & ~word) | word | ((del - kOnes) & ~del)) & kTops) break;
    p += 8;
  }
  return p;
}

bool equals_lower(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (ascii_lower(text[i]) != lower[i]) return false;
  }
  return true;
}

bool starts_lower(std::string_view text, std::string_view lower) {
  return text.size() >= lower.size() && equals_lower(text.substr(0, lower.size()), lower);
}

// A plain reply's head is at most this long; longer ones go to http-parser (whose own limit is
// 80 KiB).
constexpr std::size_t kPlainHeadMost = 16 * 1024;

}  // namespace

PlainReply frame_plain_reply(const char* data, std::size_t len) {
  constexpr PlainReply kNotPlain{};
  // "HTTP/1.x NNN " and at least CRLF CRLF after it.
  if (len < 17 || std::memcmp(data, "HTTP/1.", 7) != 0 || (data[7] != '0' && data[7] != '1') ||
      data[8] != ' ' || data[12] != ' ') {
    return kNotPlain;
  }
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (data[9] < '2' || data[9] > '5' || !digit(data[10]) || !digit(data[11])) return kNotPlain;
  const int status = (data[9] - '0') * 100 + (data[10] - '0') * 10 + (data[11] - '0');
  if (status == 204 || status == 304) return kNotPlain;
  const char* const end = data + std::min(len, kPlainHeadMost);
  const char* p = data + 13;
  // The rest of a line (after its name, or the status), up to its CRLF: visible bytes only.
  const auto line_end = [&p, end] {
    p = skip_visible(p, end);
    while (p < end && *p != '\r') {
      if (!is(kVisible, *p)) return false;
      ++p;
    }
    if (end - p < 2 || p[1] != '\n') return false;
    p += 2;
    return true;
  };
  if (!line_end()) return kNotPlain;
  bool close = false;
  bool keep_alive = false;
  bool has_length = false;
  std::size_t content_length = 0;
  for (;;) {
    if (p == end) return kNotPlain;
    if (*p == '\r') {  // the blank line
      if (end - p < 2 || p[1] != '\n') return kNotPlain;
      p += 2;
      break;
    }
    const char* const name_start = p;
    while (p < end && is(kToken, *p)) ++p;
    if (p == name_start || p == end || *p != ':') return kNotPlain;
    const std::string_view name(name_start, static_cast<std::size_t>(p - name_start));
    const char* const value_start = ++p;
    if (!line_end()) return kNotPlain;
    std::string_view value(value_start, static_cast<std::size_t>(p - 2 - value_start));
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    // http-parser skips spaces and tabs before a value, but after a Content-Length or a
    // Connection token only spaces ("close\t" is another token to it).
    while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
    if (equals_lower(name, "content-length")) {
      // One, of digits only, and not so long that it could overflow.
      if (has_length || value.empty() || value.size() > 15) return kNotPlain;
      for (const char c : value) {
        if (!digit(c)) return kNotPlain;
        content_length = content_length * 10 + static_cast<std::size_t>(c - '0');
      }
      has_length = true;
    } else if (equals_lower(name, "connection")) {
      if (equals_lower(value, "close")) {
        close = true;
      } else if (equals_lower(value, "keep-alive")) {
        keep_alive = true;
      } else {
        return kNotPlain;  // a list of tokens, "upgrade"...: http-parser's to read
      }
    } else if (starts_lower(name, "transfer-encoding") || starts_lower(name, "upgrade") ||
               starts_lower(name, "proxy-connection")) {
      // Any name that starts so (http-parser 2.9 takes "Transfer-Encoding-X" for
      // Transfer-Encoding, and then refuses a Content-Length beside it).
      return kNotPlain;
    }
  }
  const auto head = static_cast<std::size_t>(p - data);
  if (!has_length || len - head < content_length) return kNotPlain;
  PlainReply reply;
  reply.length = head + content_length;
  reply.header_bytes = head;
  reply.body_bytes = content_length;
  reply.status = status;
  // http_should_keep_alive's rule: HTTP/1.1 keeps the connection unless told to close it,
  // HTTP/1.0 only when told to keep it.
  reply.keep_alive = data[7] == '1' ? !close : keep_alive;
  return reply;
}

// The callbacks are the same for every parser: one table for all (a parser per pooled
// connection would otherwise carry 80 bytes of identical function pointers).
http_parser_settings ResponseParser::make_settings() {
  http_parser_settings settings{};
  settings.on_header_field = &ResponseParser::on_header_field;
  settings.on_header_value = &ResponseParser::on_header_value;
  settings.on_headers_complete = &ResponseParser::on_headers_complete;
  settings.on_body = &ResponseParser::on_body;
  settings.on_chunk_header = &ResponseParser::on_chunk_header;
  settings.on_message_complete = &ResponseParser::on_message_complete;
  return settings;
}

const http_parser_settings ResponseParser::kSettings = ResponseParser::make_settings();

ResponseParser::ResponseParser() { reset(false); }

void ResponseParser::reset(bool head_request) {
  head_request_ = head_request;
  complete_ = false;
  keep_alive_ = false;
  status_ = 0;
  bytes_ = 0;
  header_bytes_ = 0;
  body_bytes_ = 0;
  footer_bytes_ = 0;
  error_ = ParseError::none;
  last_byte_ = 0;
  message_start_ = 0;
  start_message();
}

// Prepares http-parser for one HTTP message: the final reply, or a 1xx before it. http-parser
// can carry on by itself after a message, but a strict build of it considers the connection
// dead after an HTTP/1.0 "100 Continue", so each message gets a fresh parser.
void ResponseParser::start_message() {
  http_parser_init(&parser_, HTTP_RESPONSE);
  parser_.data = this;
  pause_ = Pause::none;
  interim_ = false;
  seen_header_field_ = false;
  headers_done_ = false;
  saw_last_chunk_ = false;
  trailer_start_ = 0;
  // Cookies set by a 1xx go with it.
  in_value_ = false;
  cookie_cut_ = false;
  cookie_field_ = 0;
  cookie_count_ = 0;
}

// http-parser may call on_header_field and on_header_value several times for one header; a
// field after a value is the next header.
int ResponseParser::on_header_field(http_parser* parser, const char* at, std::size_t length) {
  ResponseParser& p = *self(parser);
  p.seen_header_field_ = true;
  // A trailer cannot set cookies (RFC 9110 section 6.5.1): only the header block counts.
  if (!p.capture_cookies_ || p.headers_done_) return 0;
  if (p.in_value_) {
    p.end_cookie_header();
    p.cookie_field_ = 0;
  }
  for (std::size_t i = 0; i < length && p.cookie_field_ != kOtherField; ++i) {
    const bool matches =
        p.cookie_field_ < kSetCookie.size() && ascii_lower(at[i]) == kSetCookie[p.cookie_field_];
    p.cookie_field_ = matches ? static_cast<std::uint8_t>(p.cookie_field_ + 1) : kOtherField;
  }
  return 0;
}

int ResponseParser::on_header_value(http_parser* parser, const char* at, std::size_t length) {
  ResponseParser& p = *self(parser);
  if (!p.capture_cookies_ || p.headers_done_) return 0;
  const bool set_cookie = p.cookie_field_ == kSetCookie.size();
  if (!p.in_value_) {
    p.in_value_ = true;
    if (!set_cookie) return 0;
    // Reuses the storage of a previous reply's cookie when there is one.
    if (p.cookie_count_ == p.cookies_.size()) {
      p.cookies_.emplace_back();
    } else {
      p.cookies_[p.cookie_count_].clear();
    }
    p.cookie_cut_ = false;
  }
  if (!set_cookie || p.cookie_cut_) return 0;
  // Only the pair before the first ';' is kept, so that long attributes are not copied.
  const std::string_view piece(at, length);
  const std::size_t semicolon = piece.find(';');
  p.cookie_cut_ = semicolon != std::string_view::npos;
  p.cookies_[p.cookie_count_].append(piece.substr(0, semicolon));
  return 0;
}

// The header whose value was being read is over: a Set-Cookie one yields its pair, if valid.
void ResponseParser::end_cookie_header() {
  in_value_ = false;
  if (cookie_field_ != kSetCookie.size()) return;
  std::string& pair = cookies_[cookie_count_];
  const std::size_t first = pair.find_first_not_of(" \t");
  if (first == std::string::npos) return;
  pair.erase(pair.find_last_not_of(" \t") + 1);
  pair.erase(0, first);
  const std::size_t equals = pair.find('=');
  if (equals != std::string::npos && equals > 0) ++cookie_count_;
}

// Pauses so that feed() learns where the header block ends (http-parser stops on its last LF).
// Returning 1 tells http-parser that the message has no body whatever its headers say.
int ResponseParser::on_headers_complete(http_parser* parser) {
  ResponseParser& p = *self(parser);
  if (p.in_value_) p.end_cookie_header();
  const int status = static_cast<int>(parser->status_code);
  // 101 Switching Protocols ends HTTP on this connection, so it is the final reply, not an
  // interim one to skip.
  p.interim_ = status / 100 == 1 && status != 101;
  if (!p.interim_) p.status_ = status;
  p.pause_ = Pause::headers_complete;
  http_parser_pause(parser, 1);
  // RFC 9112 section 6.3: replies to HEAD, 1xx, 204 and 304 end with their headers, even when
  // they carry a Content-Length (a 304 usually does).
  const bool no_body =
      p.interim_ || p.head_request_ || status == 101 || status == 204 || status == 304;
  return no_body ? 1 : 0;
}

int ResponseParser::on_body(http_parser* parser, const char*, std::size_t length) {
  self(parser)->body_bytes_ += length;
  return 0;
}

// The zero-size chunk ends the data; the trailer (httperf's "footer") starts after its line.
int ResponseParser::on_chunk_header(http_parser* parser) {
  if (parser->content_length != 0) return 0;
  ResponseParser& p = *self(parser);
  p.saw_last_chunk_ = true;
  p.pause_ = Pause::last_chunk;
  http_parser_pause(parser, 1);
  return 0;
}

// Pauses so that feed() stops exactly at the end of the reply: bytes after it belong to the
// next reply on the connection.
int ResponseParser::on_message_complete(http_parser* parser) {
  ResponseParser& p = *self(parser);
  if (!p.interim_) p.keep_alive_ = http_should_keep_alive(parser) != 0 && p.status_ != 101;
  p.pause_ = Pause::message_complete;
  http_parser_pause(parser, 1);
  return 0;
}

ParseError ResponseParser::classify(http_errno err) const {
  switch (err) {
    case HPE_INVALID_STATUS:
    case HPE_INVALID_VERSION:
      return ParseError::bad_status_line;
    case HPE_INVALID_CONSTANT:  // http-parser's "the reply does not start with H"
      return headers_done_ ? ParseError::other : ParseError::bad_status_line;
    case HPE_INVALID_HEADER_TOKEN:
    case HPE_INVALID_CONTENT_LENGTH:
    case HPE_UNEXPECTED_CONTENT_LENGTH:
    case HPE_INVALID_TRANSFER_ENCODING:
    case HPE_HEADER_OVERFLOW:
    case HPE_LF_EXPECTED:
      return ParseError::bad_header;
    case HPE_INVALID_CHUNK_SIZE:
      return ParseError::bad_chunk;
    case HPE_STRICT:
      // Only a strict build of http-parser raises it; the place it happened tells what it was.
      if (!headers_done_) {
        return seen_header_field_ ? ParseError::bad_header : ParseError::bad_status_line;
      }
      return (parser_.flags & F_CHUNKED) != 0 ? ParseError::bad_chunk : ParseError::other;
    default:
      return ParseError::other;
  }
}

FeedStatus ResponseParser::feed(const char* data, std::size_t len, std::size_t& consumed) {
  consumed = 0;
  if (error_ != ParseError::none) return FeedStatus::error;
  if (complete_) return FeedStatus::complete;
  if (bytes_ == 0 && plain_replies_ && !head_request_ && !capture_cookies_) {
    const PlainReply plain = frame_plain_reply(data, len);
    if (plain.length > 0) {
      status_ = plain.status;
      keep_alive_ = plain.keep_alive;
      header_bytes_ = plain.header_bytes;
      body_bytes_ = plain.body_bytes;
      headers_done_ = true;
      complete_ = true;
      bytes_ = plain.length;
      consumed = plain.length;
      return FeedStatus::complete;
    }
  }

  // http_parser_execute() with a length of 0 means end of stream, so it is never called here
  // with an empty buffer (the loop condition guarantees it).
  std::size_t offset = 0;
  while (offset < len) {
    pause_ = Pause::none;
    offset += http_parser_execute(&parser_, &kSettings, data + offset, len - offset);
    const http_errno err = HTTP_PARSER_ERRNO(&parser_);
    if (err != HPE_PAUSED) {
      if (err == HPE_OK && offset == len) break;
      error_ = err == HPE_OK ? ParseError::other : classify(err);
      bytes_ += offset;
      consumed = offset;
      return FeedStatus::error;
    }

    http_parser_pause(&parser_, 0);
    const std::size_t position = bytes_ + offset;  // offset of the pause point in the reply
    switch (pause_) {
      case Pause::headers_complete:
        // http-parser takes a status code of one to three digits ("HTTP/1.1 20 OK" is 20), but
        // RFC 9112 wants three, and a code under 100 has no class a reply could be counted in.
        if (parser_.status_code < 100) {
          error_ = ParseError::bad_status_line;
          bytes_ += offset;
          consumed = offset;
          return FeedStatus::error;
        }
        // http-parser stops on the LF that ends the header block, before consuming it.
        header_bytes_ += position + 1 - message_start_;
        headers_done_ = true;
        break;
      case Pause::last_chunk:
        trailer_start_ = position;
        break;
      case Pause::message_complete:
        if (interim_) {
          message_start_ = position;
          start_message();
          break;
        }
        if (saw_last_chunk_) {
          // The trailer is what lies between the last chunk-size line and the blank line that
          // ends the reply; that line is CRLF or, leniently, a bare LF. offset >= 1 here, as
          // http-parser pauses after the last LF.
          const char before_lf = offset >= 2 ? data[offset - 2] : last_byte_;
          const std::size_t blank_line = before_lf == '\r' ? 2 : 1;
          const std::size_t tail = position - trailer_start_;
          footer_bytes_ = tail > blank_line ? tail - blank_line : 0;
        }
        complete_ = true;
        bytes_ = position;
        consumed = offset;
        return FeedStatus::complete;
      case Pause::none:
        error_ = ParseError::other;  // a pause nobody asked for: cannot happen
        consumed = offset;
        return FeedStatus::error;
    }
  }

  bytes_ += len;
  consumed = len;
  if (len > 0) last_byte_ = data[len - 1];
  return FeedStatus::need_more;
}

FeedStatus ResponseParser::finish() {
  if (error_ != ParseError::none) return FeedStatus::error;
  if (complete_) return FeedStatus::complete;
  if (bytes_ == 0) return FeedStatus::need_more;

  // Only a close-delimited body completes at end of stream; http-parser then calls
  // on_message_complete. Anywhere else it reports HPE_INVALID_EOF_STATE, except between a 1xx
  // and the final reply, where it sees no message in progress: both are truncated replies.
  pause_ = Pause::none;
  http_parser_execute(&parser_, &kSettings, nullptr, 0);
  if (HTTP_PARSER_ERRNO(&parser_) == HPE_PAUSED && pause_ == Pause::message_complete &&
      !interim_) {
    http_parser_pause(&parser_, 0);
    complete_ = true;
    return FeedStatus::complete;
  }
  error_ = ParseError::truncated;
  return FeedStatus::error;
}

}  // namespace rateperf::http
