#include "engine/call_printer.hpp"

#include <algorithm>

namespace rateperf::engine {

namespace {

// Appends `bytes` as lines "PREFIX<call>:<line>\n", each line up to (not including) its LF; a
// last line without an LF is a line too.
void append_lines(std::string& out, std::string_view prefix, std::uint64_t call,
                  std::string_view bytes) {
  const std::string head = std::string(prefix) + std::to_string(call) + ":";
  while (!bytes.empty()) {
    const std::size_t lf = bytes.find('\n');
    const std::string_view line = bytes.substr(0, lf);
    out.append(head).append(line).append("\n");
    if (lf == std::string_view::npos) break;
    bytes.remove_prefix(lf + 1);
  }
}

}  // namespace

CallPrinter::CallPrinter(options::PrintParts request, options::PrintParts reply, std::FILE* out)
    : request_(request), reply_(reply), out_(out) {}

void CallPrinter::request(std::uint64_t call, std::string_view bytes, std::size_t header_bytes) {
  if (!request_.any()) return;
  header_bytes = std::min(header_bytes, bytes.size());
  std::string text;
  if (request_.header) append_lines(text, "SH", call, bytes.substr(0, header_bytes));
  if (request_.body) append_lines(text, "SB", call, bytes.substr(header_bytes));
  text += "SS" + std::to_string(call) + ": header " + std::to_string(header_bytes) + " content " +
          std::to_string(bytes.size() - header_bytes) + "\n";
  emit(text);
}

void CallPrinter::reply(std::uint64_t call, std::string_view bytes, std::size_t header_bytes,
                        std::size_t body_bytes, std::size_t footer_bytes) {
  if (!reply_.any()) return;
  const std::size_t head = std::min(header_bytes, bytes.size());
  std::string text;
  if (reply_.header) append_lines(text, "RH", call, bytes.substr(0, head));
  if (reply_.body) append_lines(text, "RB", call, bytes.substr(head));
  text += "RS" + std::to_string(call) + ": header " + std::to_string(header_bytes) + " content " +
          std::to_string(body_bytes) + " footer " + std::to_string(footer_bytes) + "\n";
  emit(text);
}

void CallPrinter::emit(const std::string& text) {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::fwrite(text.data(), 1, text.size(), out_);
}

}  // namespace rateperf::engine
