#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <http_parser.h>

namespace rateperf::http {

// Why a reply could not be framed. rateperf counts these apart (httperf lumps them into "other").
enum class ParseError {
  none,
  bad_status_line,  // not "HTTP/x.y NNN ..."
  bad_header,       // malformed header line, or invalid Content-Length
  bad_chunk,        // invalid chunked encoding
  truncated,        // the connection ended before the reply was complete
  other,            // anything else http-parser rejects
};

// A plain reply whole in one buffer: a 2xx-5xx status other than 204 and 304, header lines of
// token names and visible values ending in CRLF, one Content-Length, no Transfer-Encoding,
// Upgrade or Proxy-Connection, a Connection header (if any) of just "close" or "keep-alive",
// and all its Content-Length bytes of body in the buffer. frame_plain_reply() frames it with a
// few instructions a byte, where http-parser's byte-by-byte state machine takes some 25 (60 %
// of the client's instructions in a keep-alive run against nginx). It accepts only what
// http-parser accepts and frames it the same (the fuzz target compares the two); anything else,
// http-parser frames.
struct PlainReply {
  std::size_t length = 0;  // the reply's bytes; 0: not a plain reply
  std::size_t header_bytes = 0;
  std::size_t body_bytes = 0;
  int status = 0;
  bool keep_alive = false;
};
PlainReply frame_plain_reply(const char* data, std::size_t len);

// What feed() and finish() found.
enum class FeedStatus {
  need_more,  // the reply is not complete yet
  complete,   // a whole final (non-1xx) reply has been framed
  error,      // the bytes are not a valid reply; error() says why
};

// Frames HTTP/1.x replies with http-parser: Content-Length, chunked (with trailers) and
// close-delimited bodies; HEAD, 1xx, 204 and 304 replies without a body. 1xx interim replies
// (100 Continue...) are skipped: they are not replies, and the next reply on the stream is
// framed instead (their bytes count in header_bytes()).
//
// Pure: no I/O, no clock. One per connection, reset() between calls; it does not allocate,
// unless asked to capture cookies.
class ResponseParser {
 public:
  ResponseParser();
  ResponseParser(const ResponseParser&) = delete;
  ResponseParser& operator=(const ResponseParser&) = delete;

  // Starts a new reply. `head_request`: the request was HEAD, so the reply has no body.
  void reset(bool head_request = false);

  // Feeds received bytes. `consumed` is set to the bytes that belong to this reply (less than
  // `len` only when the reply completed before the end of the data, e.g. pipelined replies).
  FeedStatus feed(const char* data, std::size_t len, std::size_t& consumed);

  // The server closed the connection: completes a close-delimited body; otherwise a reply in
  // progress is an error (truncated). Returns need_more if no byte of a reply was seen.
  FeedStatus finish();

  bool started() const { return bytes_ > 0; }  // some byte of this reply has arrived
  int status() const { return status_; }       // the final reply's status code
  bool keep_alive() const { return keep_alive_; }
  std::size_t header_bytes() const { return header_bytes_; }  // status line + headers (+1xx)
  std::size_t body_bytes() const { return body_bytes_; }      // content (chunk data only)
  std::size_t footer_bytes() const { return footer_bytes_; }  // trailer of a chunked body
  std::size_t total_bytes() const { return bytes_; }          // everything consumed
  ParseError error() const { return error_; }

  // A reply that starts a feed() and is plain and whole in it (frame_plain_reply) is framed
  // without http-parser; on by default, off to compare the two. Change it between replies.
  void plain_replies(bool on) { plain_replies_ = on; }

  // Opt-in capture of the cookies the final reply sets (httperf's --session-cookies), off by
  // default; reset() leaves it as set. Change it between replies, before the first feed().
  void capture_cookies(bool on) { capture_cookies_ = on; }
  // The "name=value" of each Set-Cookie header of the final reply, in order: the value up to its
  // first ';' (the attributes are the server's business), trimmed; a pair without '=' or without
  // a name is left out. Valid once feed() or finish() returned complete, until reset().
  std::span<const std::string> set_cookies() const { return {cookies_.data(), cookie_count_}; }

 private:
  // Why the callbacks paused http-parser: feed() acts on it with the exact byte offset, which
  // only http_parser_execute's return value knows.
  enum class Pause : std::uint8_t { none, headers_complete, last_chunk, message_complete };

  static int on_header_field(http_parser* parser, const char* at, std::size_t length);
  static int on_header_value(http_parser* parser, const char* at, std::size_t length);
  static int on_headers_complete(http_parser* parser);
  static int on_body(http_parser* parser, const char* at, std::size_t length);
  static int on_chunk_header(http_parser* parser);
  static int on_message_complete(http_parser* parser);

  void start_message();
  void end_cookie_header();
  ParseError classify(http_errno err) const;
  static http_parser_settings make_settings();

  static const http_parser_settings kSettings;

  http_parser parser_{};
  Pause pause_ = Pause::none;
  bool head_request_ = false;
  bool interim_ = false;          // the message being parsed is a 1xx to skip
  bool seen_header_field_ = false;  // the status line of the current message is over
  bool headers_done_ = false;
  bool saw_last_chunk_ = false;
  bool complete_ = false;
  char last_byte_ = 0;             // the last byte of the previous feed (for the footer's end)
  std::size_t message_start_ = 0;  // offset of the current message (1xx or final) in the reply
  std::size_t trailer_start_ = 0;  // offset just past the last chunk-size line
  bool keep_alive_ = false;
  int status_ = 0;
  std::size_t bytes_ = 0;
  std::size_t header_bytes_ = 0;
  std::size_t body_bytes_ = 0;
  std::size_t footer_bytes_ = 0;
  ParseError error_ = ParseError::none;

  bool plain_replies_ = true;  // see plain_replies()

  // Set-Cookie capture. http-parser hands a header's name and value over in as many pieces as
  // the reads cut them into, so the name is matched and the value gathered piece by piece.
  bool capture_cookies_ = false;
  bool in_value_ = false;          // the last header callback was on_header_value
  bool cookie_cut_ = false;        // the captured value reached its ';': the rest is attributes
  std::uint8_t cookie_field_ = 0;  // characters of "set-cookie" the field name matched so far
  std::size_t cookie_count_ = 0;   // cookies_[0, count) are this reply's
  // The entries past cookie_count_ are kept for their storage, so that steady state does not
  // allocate either.
  std::vector<std::string> cookies_;
};

}  // namespace rateperf::http
