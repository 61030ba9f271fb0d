#include "fault_script.hpp"

#include <cstdio>

namespace rateperf::test {

namespace {

// The third reply of close_header_3: the last one the server means to send.
constexpr std::string_view kClosingReply =
    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello";
// A status above 599 is no HTTP status, though it has the three digits a parser looks for.
constexpr std::string_view kStatus600Reply =
    "HTTP/1.1 600 Beyond\r\nContent-Length: 5\r\n\r\nhello";
// out_of_order cuts kHelloReply here, between its header block and its body.
constexpr std::size_t kHelloHeaderBytes = kHelloReply.size() - kSlowBodyBytes;

// 200 with a header block of about 1 MB: many ordinary lines rather than one, so that a client
// that bounds only the length of one line is caught too.
std::string huge_header_reply() {
  constexpr std::size_t kLines = 1024;
  constexpr std::size_t kLineBytes = 1024;  // with its CRLF
  std::string reply = "HTTP/1.1 200 OK\r\n";
  reply.reserve(kLines * kLineBytes + 64);
  for (std::size_t i = 0; i < kLines; ++i) {
    char name[32];
    const int length = std::snprintf(name, sizeof name, "X-Fill-%04zu: ", i);
    reply.append(name, static_cast<std::size_t>(length));
    reply.append(kLineBytes - static_cast<std::size_t>(length) - 2, 'a');
    reply += "\r\n";
  }
  reply += "Content-Length: 0\r\n\r\n";
  return reply;
}

// The single-reply modes: what follows the first request, and what then.
Answer single_reply(FaultMode mode) {
  Answer answer;
  answer.handled = 1;
  std::string reply;
  switch (mode) {
    case FaultMode::slow_bytes:
      reply = kHelloReply;
      break;
    case FaultMode::reset_mid_reply: {
      const std::string whole =
          "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + std::string(100, 'x');
      reply = whole.substr(0, whole.size() / 2);
      answer.after = AfterWrites::reset;
      break;
    }
    case FaultMode::close_before_status:
      answer.after = AfterWrites::close;
      break;
    case FaultMode::short_body:
      reply = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789";
      answer.after = AfterWrites::close;
      break;
    case FaultMode::garbage_status:
      // The status code and the reason phrase swapped.
      reply = "HTTP/1.1 OK 200\r\nContent-Length: 0\r\n\r\n";
      break;
    case FaultMode::huge_header:
      reply = huge_header_reply();
      break;
    case FaultMode::bad_chunked:
      reply = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n";
      break;
    case FaultMode::continue_100:
      reply = "HTTP/1.1 100 Continue\r\n\r\n" + std::string(kHelloReply);
      break;
    case FaultMode::no_content_204:
      reply = "HTTP/1.1 204 No Content\r\n\r\n";
      break;
    case FaultMode::not_modified_304:
      // A 304 announces the length of the entity it stands for; it has no body all the same.
      reply = "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n";
      break;
    case FaultMode::extra_body:
      reply = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n0123456789";
      answer.after = AfterWrites::close;
      break;
    case FaultMode::http10_close:
      reply = "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nhello world\n";
      answer.after = AfterWrites::close;
      break;
    default:
      // The modes that never answer (their requests are not handled either).
      answer.handled = 0;
      return answer;
  }
  if (!reply.empty()) {
    answer.writes.push_back(std::move(reply));
    answer.replies = 1;
  }
  return answer;
}

}  // namespace

FaultScript script_of(FaultMode mode) {
  FaultScript script;
  switch (mode) {
    case FaultMode::accept_never_read:
      script.reads = false;
      break;
    case FaultMode::reset_on_accept:
      script.resets_on_accept = true;
      break;
    case FaultMode::accept_nothing:
      script.accepts = false;
      break;
    case FaultMode::slow_bytes:
      script.pace_bytes = 1;
      script.pace_gap_ms = 2;
      break;
    case FaultMode::keep_alive:
    case FaultMode::close_after_3:
    case FaultMode::close_header_3:
    case FaultMode::drop_second:
    case FaultMode::out_of_order:
    case FaultMode::status_600:
      script.first_request_only = false;
      script.no_delay = true;
      break;
    case FaultMode::merge_replies:
      script.first_request_only = false;
      script.no_delay = true;
      // rateperf writes a burst's requests back to back; 5 ms of silence means the burst is in.
      script.quiet_ms = 5;
      break;
    case FaultMode::split_reply:
      script.first_request_only = false;
      script.no_delay = true;
      script.pace_bytes = 3;
      script.pace_gap_ms = 1;
      break;
    default:
      break;
  }
  return script;
}

Answer answer_requests(FaultMode mode, std::uint64_t handled, std::uint64_t read) {
  Answer answer;
  answer.handled = handled;
  if (script_of(mode).first_request_only)
    return handled > 0 || read == 0 ? answer : single_reply(mode);

  const auto reply = [&answer](std::string_view bytes) {
    answer.writes.emplace_back(bytes);
    ++answer.replies;
  };
  switch (mode) {
    case FaultMode::merge_replies:
      if (read > handled) answer.writes.emplace_back();
      for (; answer.handled < read; ++answer.handled) {
        answer.writes.back() += kHelloReply;
        ++answer.replies;
      }
      break;
    case FaultMode::out_of_order:
      // Pairs only: the second reply must be out before the first one's body.
      for (; read - answer.handled >= 2; answer.handled += 2) {
        answer.writes.emplace_back(kHelloReply.substr(0, kHelloHeaderBytes));
        answer.writes.emplace_back(kHelloReply);
        answer.writes.emplace_back(kHelloReply.substr(kHelloHeaderBytes));
        answer.replies += 2;
      }
      break;
    default:
      while (answer.handled < read && answer.after == AfterWrites::keep_open) {
        const std::uint64_t request = ++answer.handled;
        switch (mode) {
          case FaultMode::close_after_3:
          case FaultMode::close_header_3: {
            const bool last = request == kRepliesBeforeClose;
            if (last) answer.after = AfterWrites::linger_close;
            reply(last && mode == FaultMode::close_header_3 ? kClosingReply : kHelloReply);
            break;
          }
          case FaultMode::drop_second:
            if (request != 2) reply(kHelloReply);
            break;
          case FaultMode::status_600:
            reply(kStatus600Reply);
            break;
          default:
            reply(kHelloReply);
            break;
        }
      }
      break;
  }
  return answer;
}

}  // namespace rateperf::test
