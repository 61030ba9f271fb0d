#pragma once

// What a fuzz input means, and the run that checks ResponseParser's promises on it. The libFuzzer
// target (fuzz_response_parser.cpp) and the regression test (test_response_parser.cpp) both use
// it, so that a file that crashed the fuzzer replays exactly in the test.
//
// An input is one option byte, up to 7 chunk-length bytes, then the bytes the server sent:
//
//   option byte  bit 0: the request was HEAD
//                bit 1: pipelined: the bytes after a complete reply are the next reply
//                bit 2: the bytes arrive one at a time (the chunk lengths are then ignored)
//                bits 3-5: how many chunk-length bytes follow (0-7)
//                bits 6-7: ignored, so that letters make readable seeds: '@' is a GET fed in
//                one piece, 'A' a HEAD, 'B' pipelined, 'D' one byte at a time, 'H' one chunk
//                length, 'P' two ("H(" feeds the first 40 bytes, then the rest)
//   chunk length one byte each, 0-255: the bytes of each read() before the last, which takes
//                what is left (a length of 0 is an empty feed)

#include <array>
#include <cstddef>
#include <cstdint>

#include "http/response_parser.hpp"

namespace rateperf::fuzz {

// How the server's bytes are cut into the reads that feed() sees.
struct Chunking {
  bool one_byte_at_a_time = false;
  std::size_t count = 0;                 // chunk lengths given; then one chunk takes the rest
  std::array<std::size_t, 7> lengths{};  // bytes of each of the first `count` chunks
  // Instead of `lengths`, any number of them (the reads a TLS connection returned: see
  // fuzz_tls_records.cpp); not owned.
  const std::size_t* reads = nullptr;
  std::size_t read_count = 0;
};

struct FuzzInput {
  bool head_request = false;
  bool pipelined = false;
  Chunking chunking;
  const char* bytes = nullptr;  // what the server sent
  std::size_t size = 0;
};

inline FuzzInput decode_input(const std::uint8_t* data, std::size_t size) {
  FuzzInput input;
  if (size == 0) return input;
  const std::uint8_t options = data[0];
  input.head_request = (options & 0x01) != 0;
  input.pipelined = (options & 0x02) != 0;
  input.chunking.one_byte_at_a_time = (options & 0x04) != 0;
  std::size_t at = 1;
  const std::size_t wanted = (options >> 3) & 0x07;
  while (input.chunking.count < wanted && at < size) {
    input.chunking.lengths[input.chunking.count++] = data[at++];
  }
  input.bytes = reinterpret_cast<const char*>(data + at);
  input.size = size - at;
  return input;
}

// What the caller learns about one reply once it has ended.
struct ReplyOutcome {
  http::FeedStatus status = http::FeedStatus::need_more;
  http::ParseError error = http::ParseError::none;
  int http_status = 0;
  bool keep_alive = false;
  std::size_t header_bytes = 0;
  std::size_t body_bytes = 0;
  std::size_t footer_bytes = 0;
  std::size_t total_bytes = 0;
};

// A pipelined input is cut off after this many replies, which bounds the work per input.
inline constexpr std::size_t max_replies = 16;

struct RunResult {
  std::array<ReplyOutcome, max_replies> replies{};
  std::size_t count = 0;            // replies that ended, plus the one the stream ended in
  const char* violation = nullptr;  // the first broken promise, or nullptr
};

// What the parser shows after a feed() or finish() that returned `status`.
inline ReplyOutcome outcome_of(const http::ResponseParser& parser, http::FeedStatus status) {
  ReplyOutcome out;
  out.status = status;
  out.error = parser.error();
  out.http_status = parser.status();
  out.keep_alive = parser.keep_alive();
  out.header_bytes = parser.header_bytes();
  out.body_bytes = parser.body_bytes();
  out.footer_bytes = parser.footer_bytes();
  out.total_bytes = parser.total_bytes();
  return out;
}

namespace detail {

// The parser's counters must always describe a subset of the bytes it consumed.
inline const char* check_counters(const http::ResponseParser& parser, std::size_t consumed) {
  if (parser.total_bytes() != consumed) return "total_bytes() is not the sum of consumed";
  if (parser.header_bytes() + parser.body_bytes() + parser.footer_bytes() > parser.total_bytes()) {
    return "header + body + footer bytes exceed total_bytes()";
  }
  if (parser.started() != (parser.total_bytes() > 0)) return "started() disagrees with the total";
  return nullptr;
}

// What must hold of a reply that feed() or finish() reported `status` for.
inline const char* check_status(const http::ResponseParser& parser, http::FeedStatus status) {
  switch (status) {
    case http::FeedStatus::complete: {
      if (parser.error() != http::ParseError::none) return "a complete reply has an error";
      if (parser.total_bytes() == 0) return "a reply completed without a byte";
      // 101 Switching Protocols is final (HTTP ends on that connection); other 1xx are skipped.
      const int code = parser.status();
      if (code < 100 || code > 999) return "a complete reply has a status outside 100-999";
      if (code / 100 == 1 && code != 101) return "a 1xx interim reply was taken as the reply";
      return nullptr;
    }
    case http::FeedStatus::error:
      return parser.error() == http::ParseError::none ? "an error without a reason" : nullptr;
    case http::FeedStatus::need_more:
      return parser.error() == http::ParseError::none ? nullptr : "need_more with an error set";
  }
  return "feed() returned no FeedStatus";
}

// Once a reply has ended, the parser must repeat its verdict and take no further byte until
// reset(); `rest` is what the stream still holds (may be empty).
inline const char* check_ended(http::ResponseParser& parser, const ReplyOutcome& ended,
                               const char* rest, std::size_t rest_size) {
  std::size_t consumed = 12345;  // feed() must overwrite it
  if (parser.feed(rest, rest_size, consumed) != ended.status) return "an ended reply changed";
  if (consumed != 0) return "an ended reply consumed more bytes";
  if (parser.finish() != ended.status) return "finish() changed an ended reply";
  const ReplyOutcome again = outcome_of(parser, ended.status);
  if (again.error != ended.error || again.http_status != ended.http_status ||
      again.total_bytes != ended.total_bytes || again.body_bytes != ended.body_bytes) {
    return "an ended reply's figures changed";
  }
  return nullptr;
}

}  // namespace detail

// Feeds the server's bytes as `chunking` cuts them, as the engine does with each read(), then
// calls finish() (the server closed) unless the reply ended. Every call is checked against what
// response_parser.hpp promises; the first broken promise is in `violation`. `plain`: plain
// replies are framed without http-parser (ResponseParser::plain_replies).
inline RunResult run_parser(const FuzzInput& input, const Chunking& chunking, bool plain = true) {
  RunResult result;
  http::ResponseParser parser;
  parser.plain_replies(plain);
  parser.reset(input.head_request);
  std::size_t reply_consumed = 0;  // bytes of the stream the current reply has consumed
  std::size_t chunk_start = 0;
  std::size_t chunk_index = 0;

  auto record = [&](http::FeedStatus status) {
    result.replies[result.count++] = outcome_of(parser, status);
  };

  while (chunk_start < input.size) {
    std::size_t chunk_size = input.size - chunk_start;
    if (chunking.one_byte_at_a_time) {
      chunk_size = 1;
    } else if (chunking.reads != nullptr) {
      if (chunk_index < chunking.read_count && chunking.reads[chunk_index] < chunk_size) {
        chunk_size = chunking.reads[chunk_index];
      }
    } else if (chunk_index < chunking.count && chunking.lengths[chunk_index] < chunk_size) {
      chunk_size = chunking.lengths[chunk_index];
    }
    ++chunk_index;
    const char* chunk = input.bytes + chunk_start;
    std::size_t used_of_chunk = 0;
    // One read() may hold the end of a reply and the start of the next one.
    do {
      const std::size_t fed = chunk_size - used_of_chunk;
      std::size_t consumed = 12345;  // feed() must overwrite it
      const http::FeedStatus status = parser.feed(chunk + used_of_chunk, fed, consumed);
      if (consumed > fed) {
        result.violation = "consumed exceeds the bytes fed";
        return result;
      }
      if (status == http::FeedStatus::need_more && consumed != fed) {
        result.violation = "need_more without consuming every byte";
        return result;
      }
      used_of_chunk += consumed;
      reply_consumed += consumed;
      result.violation = detail::check_status(parser, status);
      if (result.violation == nullptr)
        result.violation = detail::check_counters(parser, reply_consumed);
      if (result.violation != nullptr) return result;
      if (status == http::FeedStatus::need_more) break;

      record(status);
      const std::size_t stream_at = chunk_start + used_of_chunk;
      result.violation = detail::check_ended(parser, result.replies[result.count - 1],
                                             input.bytes + stream_at, input.size - stream_at);
      if (result.violation != nullptr) return result;
      if (status == http::FeedStatus::error || !input.pipelined || result.count == max_replies ||
          stream_at == input.size) {
        return result;
      }
      parser.reset(input.head_request);
      reply_consumed = 0;
    } while (used_of_chunk < chunk_size);
    chunk_start += chunk_size;
  }

  // The stream ended with the reply still open: the server closed the connection.
  const http::FeedStatus status = parser.finish();
  result.violation = detail::check_status(parser, status);
  if (result.violation == nullptr)
    result.violation = detail::check_counters(parser, reply_consumed);
  if (result.violation == nullptr && status == http::FeedStatus::need_more && parser.started()) {
    result.violation = "finish() left a started reply open";
  }
  if (result.violation != nullptr) return result;
  record(status);
  if (status != http::FeedStatus::need_more) {
    result.violation = detail::check_ended(parser, result.replies[result.count - 1], nullptr, 0);
  }
  return result;
}

// Why `split` (the input's own cutting) and `whole` (the same bytes in one read) differ, or
// nullptr. http-parser is a byte-at-a-time state machine and ResponseParser keeps what it needs
// across feeds, so how the bytes arrive must not change any verdict, nor the figures of a
// complete reply. The figures of a rejected reply are unspecified and not compared.
inline const char* compare_runs(const RunResult& split, const RunResult& whole) {
  if (split.count != whole.count) return "the number of replies depends on the cutting";
  for (std::size_t i = 0; i < split.count; ++i) {
    const ReplyOutcome& a = split.replies[i];
    const ReplyOutcome& b = whole.replies[i];
    if (a.status != b.status) return "the verdict depends on the cutting";
    if (a.error != b.error) return "the error kind depends on the cutting";
    if (a.status != http::FeedStatus::complete) continue;
    if (a.http_status != b.http_status) return "the status code depends on the cutting";
    if (a.body_bytes != b.body_bytes) return "body_bytes depends on the cutting";
    if (a.header_bytes != b.header_bytes) return "header_bytes depends on the cutting";
    if (a.footer_bytes != b.footer_bytes) return "footer_bytes depends on the cutting";
    if (a.total_bytes != b.total_bytes) return "total_bytes depends on the cutting";
    if (a.keep_alive != b.keep_alive) return "keep_alive depends on the cutting";
  }
  return nullptr;
}

// The whole check of one input cut as `chunking` says: that cutting, then, when it cuts the bytes
// at all, the same bytes in one piece, compared. Returns the first broken promise, or nullptr.
// check_input cuts them as the input itself says.
inline const char* check_cutting(const FuzzInput& input, const Chunking& chunking) {
  const RunResult split = run_parser(input, chunking);
  if (split.violation != nullptr) return split.violation;
  const bool cut = chunking.one_byte_at_a_time || chunking.count > 0 || chunking.read_count > 1;
  if (!cut) return nullptr;
  const RunResult whole = run_parser(input, Chunking{});
  if (whole.violation != nullptr) return whole.violation;
  return compare_runs(split, whole);
}

// A plain reply (http::frame_plain_reply) is framed as http-parser frames it: the same bytes
// in one read, with and without the plain framing, give the same verdicts and figures.
inline const char* check_plain(const FuzzInput& input) {
  const RunResult plain = run_parser(input, Chunking{}, true);
  const RunResult parser = run_parser(input, Chunking{}, false);
  if (plain.violation != nullptr) return plain.violation;
  if (parser.violation != nullptr) return parser.violation;
  return compare_runs(plain, parser) == nullptr ? nullptr
                                                : "the plain framing differs from http-parser's";
}

inline const char* check_input(const FuzzInput& input) {
  if (const char* violation = check_cutting(input, input.chunking)) return violation;
  return check_plain(input);
}

}  // namespace rateperf::fuzz
