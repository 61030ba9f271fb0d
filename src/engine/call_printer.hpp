#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

#include "options/config.hpp"

namespace rateperf::engine {

// --print-request and --print-reply: each call's request and reply as they happen, line by line
// on stdout, in httperf's form. Every line starts with a prefix, the call's number and a colon
// (SH for a request header line, SB a request body line, RH a reply header line, RB a reply body
// line) and is printed as it was sent or received up to its LF (so a CRLF line keeps its CR); a
// summary line follows each: "SS<n>: header H content C" and "RS<n>: header H content C footer
// F" (bytes; a reply's content is its body as framed, without chunk framing). Calls are numbered
// from 0 in the order their requests were written. The reply's body lines are the bytes after
// its headers as received (with a chunked body's chunk-size lines).
class CallPrinter {
 public:
  CallPrinter(options::PrintParts request, options::PrintParts reply, std::FILE* out);

  bool replies() const { return reply_.any(); }
  // The next call's number.
  std::uint64_t next_call() { return next_.fetch_add(1, std::memory_order_relaxed); }
  // The request of call `call` was written: `bytes`, of which the first `header_bytes` are its
  // request line and headers.
  void request(std::uint64_t call, std::string_view bytes, std::size_t header_bytes);
  // The reply of call `call` is complete: its bytes as received, and the parser's figures.
  void reply(std::uint64_t call, std::string_view bytes, std::size_t header_bytes,
             std::size_t body_bytes, std::size_t footer_bytes);

 private:
  void emit(const std::string& text);

  options::PrintParts request_;
  options::PrintParts reply_;
  std::FILE* out_;
  std::atomic<std::uint64_t> next_{0};
  std::mutex mutex_;  // one call's lines stay together should workers share the printer
};

}  // namespace rateperf::engine
