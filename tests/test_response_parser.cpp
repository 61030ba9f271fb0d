#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_input.hpp"
#include "http/response_parser.hpp"

namespace {

using rateperf::http::FeedStatus;
using rateperf::http::ParseError;
using rateperf::http::ResponseParser;

// Everything a caller can observe once the bytes have been fed: the parser's figures (the fuzz
// target's ReplyOutcome) and the bytes it took.
struct Outcome : rateperf::fuzz::ReplyOutcome {
  std::size_t consumed = 0;  // sum of `consumed` over the feeds
};

// Feeds `bytes` cut at the positions in `cuts` (ascending), stopping at the first feed that does
// not ask for more; then calls finish() if `finish` and the reply still needs more.
Outcome drive(ResponseParser& parser, std::string_view bytes, const std::vector<std::size_t>& cuts,
              bool finish) {
  Outcome out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= cuts.size(); ++i) {
    const std::size_t end = i < cuts.size() ? cuts[i] : bytes.size();
    std::size_t used = 12345;  // feed() must overwrite it
    out.status = parser.feed(bytes.data() + start, end - start, used);
    REQUIRE(used <= end - start);
    out.consumed += used;
    if (out.status != FeedStatus::need_more) break;
    start = end;
  }
  if (finish && out.status == FeedStatus::need_more) out.status = parser.finish();
  static_cast<rateperf::fuzz::ReplyOutcome&>(out) = rateperf::fuzz::outcome_of(parser, out.status);
  return out;
}

Outcome drive_fresh(std::string_view bytes, const std::vector<std::size_t>& cuts, bool head,
                    bool finish) {
  ResponseParser parser;
  parser.reset(head);
  return drive(parser, bytes, cuts, finish);
}

void check_same(const Outcome& got, const Outcome& want) {
  CHECK(got.status == want.status);
  CHECK(got.error == want.error);
  if (want.status == FeedStatus::error) return;  // counters of a rejected reply are unspecified
  CHECK(got.consumed == want.consumed);
  CHECK(got.http_status == want.http_status);
  CHECK(got.keep_alive == want.keep_alive);
  CHECK(got.header_bytes == want.header_bytes);
  CHECK(got.body_bytes == want.body_bytes);
  CHECK(got.footer_bytes == want.footer_bytes);
  CHECK(got.total_bytes == want.total_bytes);
}

// The outcome must not depend on how the bytes arrive: whole, split in two at every position,
// and one byte at a time.
void check_every_split(std::string_view bytes, const Outcome& want, bool head = false,
                       bool finish = false) {
  {
    INFO("fed whole");
    check_same(drive_fresh(bytes, {}, head, finish), want);
  }
  for (std::size_t split = 0; split <= bytes.size(); ++split) {
    INFO("split at ", split);
    check_same(drive_fresh(bytes, {split}, head, finish), want);
  }
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < bytes.size(); ++i) every.push_back(i);
  {
    INFO("one byte at a time");
    check_same(drive_fresh(bytes, every, head, finish), want);
  }
}

Outcome complete_reply(int status, bool keep_alive, std::size_t header, std::size_t body,
                       std::size_t footer, std::size_t total) {
  Outcome o;
  o.status = FeedStatus::complete;
  o.consumed = total;
  o.http_status = status;
  o.keep_alive = keep_alive;
  o.header_bytes = header;
  o.body_bytes = body;
  o.footer_bytes = footer;
  o.total_bytes = total;
  return o;
}

Outcome error_reply(ParseError error) {
  Outcome o;
  o.status = FeedStatus::error;
  o.error = error;
  return o;
}

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in, "cannot read " << path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// Replays one fuzz input as the fuzzer does, and also cut in two at every position: the verdict
// must not depend on where a read() ends. A name starting with "complete-" or "error-" says how
// the last reply on the stream must end.
void replay_fuzz_input(const std::string& name, const std::string& bytes) {
  namespace fuzz = rateperf::fuzz;
  const fuzz::FuzzInput input =
      fuzz::decode_input(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  const char* violation = fuzz::check_input(input);
  CHECK_MESSAGE(violation == nullptr,
                "broken promise: " << std::string(violation != nullptr ? violation : ""));

  const fuzz::RunResult whole = fuzz::run_parser(input, fuzz::Chunking{});
  if (whole.violation != nullptr) return;  // reported just above
  REQUIRE(whole.count > 0);
  const FeedStatus last = whole.replies[whole.count - 1].status;
  if (starts_with(name, "complete-")) CHECK(last == FeedStatus::complete);
  if (starts_with(name, "error-")) CHECK(last == FeedStatus::error);

  for (std::size_t split = 0; split <= input.size && split <= 255; ++split) {
    fuzz::Chunking chunking;
    chunking.count = 1;
    chunking.lengths[0] = split;
    const fuzz::RunResult cut = fuzz::run_parser(input, chunking);
    const char* problem = cut.violation != nullptr ? cut.violation : fuzz::compare_runs(cut, whole);
    if (problem != nullptr) FAIL_CHECK("split at " << split << ": " << std::string(problem));
  }
}

using Cookies = std::vector<std::string>;

Cookies cookies_of(const ResponseParser& parser) {
  const auto cookies = parser.set_cookies();
  return {cookies.begin(), cookies.end()};
}

// The cookies must not depend on how the bytes arrive, and capturing them must not change how
// the reply is framed.
void check_cookies_every_split(std::string_view bytes, const Cookies& want) {
  std::vector<std::vector<std::size_t>> cut_sets{{}};
  for (std::size_t split = 0; split <= bytes.size(); ++split) cut_sets.push_back({split});
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < bytes.size(); ++i) every.push_back(i);
  cut_sets.push_back(every);
  for (const auto& cuts : cut_sets) {
    INFO("cut in ", cuts.size() + 1, " at ", cuts.empty() ? 0 : cuts.front());
    ResponseParser parser;
    parser.capture_cookies(true);
    const Outcome captured = drive(parser, bytes, cuts, /*finish=*/true);
    REQUIRE(captured.status == FeedStatus::complete);
    CHECK(cookies_of(parser) == want);
    check_same(captured, drive_fresh(bytes, cuts, /*head=*/false, /*finish=*/true));
  }
}

}  // namespace

TEST_SUITE("response_parser") {
  TEST_CASE("a Content-Length body is framed exactly, however the bytes arrive") {
    const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer: t\r\n\r\n";
    const std::string reply = head + "hello";
    REQUIRE(head.size() == 49);
    check_every_split(reply, complete_reply(200, true, 49, 5, 0, 54));
  }

  TEST_CASE("an empty Content-Length body completes with the headers") {
    const std::string reply = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
    check_every_split(reply, complete_reply(404, true, reply.size(), 0, 0, reply.size()));
  }

  TEST_CASE("a chunked body counts chunk data as body and the framing only in the total") {
    const std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    const std::string chunks = "5\r\nhello\r\n6;ext=1\r\n world\r\na\r\n0123456789\r\n0\r\n";
    const std::string reply = head + chunks + "\r\n";
    check_every_split(reply, complete_reply(200, true, head.size(), 21, 0, reply.size()));
  }

  TEST_CASE("the trailer of a chunked body is its footer") {
    const std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    const std::string chunks = "3\r\nabc\r\n4\r\ndefg\r\n0\r\n";
    const std::string trailer = "X-Checksum: 42\r\nX-Other: yes\r\n";
    const std::string reply = head + chunks + trailer + "\r\n";
    REQUIRE(trailer.size() == 30);
    check_every_split(reply, complete_reply(200, true, head.size(), 7, 30, reply.size()));
  }

  TEST_CASE("bare LF line ends in the headers and the trailer are framed too") {
    // http-parser insists on CRLF after a chunk size, but accepts bare LF in header lines.
    const std::string head = "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n";
    const std::string reply = head + "2\r\nab\r\n0\r\nX-T: 1\n\n";
    check_every_split(reply, complete_reply(200, true, head.size(), 2, 7, reply.size()));
  }

  TEST_CASE("a close-delimited body completes only when the server closes") {
    const std::string head = "HTTP/1.0 200 OK\r\nServer: old\r\n\r\n";
    const std::string reply = head + "body until close";

    ResponseParser parser;
    std::size_t used = 0;
    CHECK(parser.feed(reply.data(), reply.size(), used) == FeedStatus::need_more);
    CHECK(used == reply.size());
    CHECK(parser.started());

    check_every_split(reply, complete_reply(200, false, head.size(), 16, 0, reply.size()),
                      /*head=*/false, /*finish=*/true);
  }

  TEST_CASE("an HTTP/1.1 reply with Connection: close and no length is close-delimited") {
    const std::string head = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n";
    const std::string reply = head + "abc";
    check_every_split(reply, complete_reply(200, false, head.size(), 3, 0, reply.size()), false,
                      true);
  }

  TEST_CASE("the reply to HEAD has no body despite its Content-Length") {
    const std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n";
    check_every_split(reply, complete_reply(200, true, reply.size(), 0, 0, reply.size()),
                      /*head=*/true);

    // The same reply to a GET waits for the 1000 bytes.
    ResponseParser parser;
    std::size_t used = 0;
    CHECK(parser.feed(reply.data(), reply.size(), used) == FeedStatus::need_more);
  }

  TEST_CASE("204 and 304 replies have no body") {
    const std::string no_content = "HTTP/1.1 204 No Content\r\nServer: t\r\n\r\n";
    check_every_split(no_content,
                      complete_reply(204, true, no_content.size(), 0, 0, no_content.size()));
    // A 304 usually carries the Content-Length of the resource it stands for.
    const std::string not_modified = "HTTP/1.1 304 Not Modified\r\nContent-Length: 512\r\n\r\n";
    check_every_split(not_modified,
                      complete_reply(304, true, not_modified.size(), 0, 0, not_modified.size()));
  }

  TEST_CASE("1xx interim replies are skipped and their bytes count as header bytes") {
    const std::string cont = "HTTP/1.1 100 Continue\r\n\r\n";
    const std::string hints = "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n";
    const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n";
    const std::string reply = cont + hints + head + "ok";
    check_every_split(reply, complete_reply(200, true, cont.size() + hints.size() + head.size(),
                                            2, 0, reply.size()));

    // An HTTP/1.0 100 Continue must not make the parser think the connection is over.
    const std::string old = "HTTP/1.0 100 Continue\r\n\r\n" + head + "ok";
    check_every_split(old, complete_reply(200, true, old.size() - 2, 2, 0, old.size()));
  }

  TEST_CASE("keep_alive follows the version and the Connection header") {
    auto keep_alive_of = [](const std::string& reply) {
      ResponseParser parser;
      std::size_t used = 0;
      REQUIRE(parser.feed(reply.data(), reply.size(), used) == FeedStatus::complete);
      return parser.keep_alive();
    };
    CHECK(keep_alive_of("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
    CHECK_FALSE(keep_alive_of("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"));
    CHECK(keep_alive_of("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n"));
    CHECK_FALSE(keep_alive_of("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"));
  }

  TEST_CASE("a plain reply is framed without http-parser, as http-parser frames it") {
    const std::string nginx =
        "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nContent-Type: text/plain\r\n"
        "Content-Length: 3\r\nConnection: keep-alive\r\nETag: \"6750a1b0-3\"\r\n\r\nok\n";
    const rateperf::http::PlainReply plain =
        rateperf::http::frame_plain_reply(nginx.data(), nginx.size());
    CHECK(plain.length == nginx.size());
    CHECK(plain.header_bytes == nginx.size() - 3);
    CHECK(plain.body_bytes == 3);
    CHECK(plain.status == 200);
    CHECK(plain.keep_alive);
    // Followed by the next reply: only its own bytes.
    const std::string two = nginx + nginx;
    CHECK(rateperf::http::frame_plain_reply(two.data(), two.size()).length == nginx.size());
    const auto is_plain = [](const std::string& reply) {
      return rateperf::http::frame_plain_reply(reply.data(), reply.size()).length > 0;
    };
    const std::string ok = "HTTP/1.1 200 OK\r\n";
    CHECK(is_plain(ok + "Content-Length: 0\r\n\r\n"));
    CHECK(is_plain("HTTP/1.0 503 Busy\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx"));
    // What http-parser frames instead: a body it must wait for, or read to the close, or
    // chunks; no body by the status; a head not whole; anything unusual.
    const std::vector<std::string> others = {
        ok + "Content-Length: 4\r\n\r\nabc",  // body not whole yet
        ok + "Content-Length: 4\r\n\r",       // head not whole yet
        ok + "\r\n",                          // close-delimited
        ok + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 600 Odd\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n",
        ok + "Content-Length: 1\r\nContent-Length: 1\r\n\r\nab",
        ok + "Content-Length: 1x\r\n\r\nab",
        ok + "Content-Length: 1\r\nConnection: keep-alive, close\r\n\r\na",
        ok + "Content-Length: 1\r\nConnection: upgrade\r\nUpgrade: x\r\n\r\na",
        ok + "Content-Length: 1\r\nProxy-Connection: close\r\n\r\na",
        ok + "Transfer-Encoding-Type: x\r\nContent-Length: 1\r\n\r\na",  // refused by http-parser
        ok + "Content-Length: 10\t\r\n\r\n0123456789",                   // refused too
        ok + "Content-Length: 1\r\nX-A: b\r\n folded\r\n\r\na",
        ok + "Content-Length: 1\nX-A: b\r\n\r\na",           // a bare LF
        ok + "Content-Length: 1\r\nX-A: b\x01\r\n\r\na",     // a control byte
        ok + "Content-Length: 1\r\nX-A: \xc3\xa9\r\n\r\na",  // not ASCII
        ok + "Content-Length: 1\r\nX A: b\r\n\r\na",         // not a token
        ok + "Content-Length: 1\r\n: b\r\n\r\na",            // no name
    };
    for (const std::string& other : others) {
      CAPTURE(other);
      CHECK_FALSE(is_plain(other));
    }
    // The same bytes, framed with and without the plain path, in one read and cut anywhere:
    // the same verdicts and figures (the fuzz target checks this for every input it makes).
    std::vector<std::string> all = others;
    all.insert(all.end(), {nginx, two, ok + "Content-Length: 0\r\n\r\n"});
    for (const std::string& reply : all) {
      replay_fuzz_input("plain", "B" + reply);
    }
  }

  TEST_CASE("a garbage status line is bad_status_line") {
    check_every_split("garbage\r\n\r\n", error_reply(ParseError::bad_status_line));
    check_every_split("HTTP/1.1 2x0 OK\r\n\r\n", error_reply(ParseError::bad_status_line));
    check_every_split("HTTP/x.1 200 OK\r\n\r\n", error_reply(ParseError::bad_status_line));
  }

  TEST_CASE("an invalid chunk size is bad_chunk") {
    const std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    check_every_split(head + "zz\r\nhello\r\n0\r\n\r\n", error_reply(ParseError::bad_chunk));
    check_every_split(head + "2\r\nhello\r\n0\r\n\r\n", error_reply(ParseError::bad_chunk));
  }

  TEST_CASE("an invalid or conflicting Content-Length is bad_header") {
    check_every_split("HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n",
                      error_reply(ParseError::bad_header));
    check_every_split("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
                      error_reply(ParseError::bad_header));
    check_every_split("HTTP/1.1 200 OK\r\nX-A: b\r\rContent-Length: 1\r\n\r\nab",
                      error_reply(ParseError::bad_header));
  }

  TEST_CASE("the connection closing before the reply is complete is truncated") {
    const std::string truncated_body = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf";
    check_every_split(truncated_body, error_reply(ParseError::truncated), false, true);
    const std::string truncated_head = "HTTP/1.1 200 OK\r\nContent-Len";
    check_every_split(truncated_head, error_reply(ParseError::truncated), false, true);
    const std::string truncated_chunks =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n";
    check_every_split(truncated_chunks, error_reply(ParseError::truncated), false, true);
    // A 100 Continue alone is not a reply.
    check_every_split("HTTP/1.1 100 Continue\r\n\r\n", error_reply(ParseError::truncated), false,
                      true);
  }

  TEST_CASE("finish() before any byte is not an error") {
    ResponseParser parser;
    CHECK_FALSE(parser.started());
    CHECK(parser.finish() == FeedStatus::need_more);
    CHECK(parser.error() == ParseError::none);
  }

  TEST_CASE("an error sticks until reset()") {
    ResponseParser parser;
    const std::string bad = "nonsense";
    const std::string good = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
    std::size_t used = 0;
    REQUIRE(parser.feed(bad.data(), bad.size(), used) == FeedStatus::error);
    CHECK(parser.feed(good.data(), good.size(), used) == FeedStatus::error);
    CHECK(parser.finish() == FeedStatus::error);
    CHECK(parser.error() == ParseError::bad_status_line);
    parser.reset();
    CHECK(parser.feed(good.data(), good.size(), used) == FeedStatus::complete);
    CHECK(parser.error() == ParseError::none);
  }

  TEST_CASE("reset() makes the parser ready for the next reply") {
    ResponseParser parser;
    const std::string first = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                              "3\r\nabc\r\n0\r\nX-T: 1\r\n\r\n";
    const std::string second = "HTTP/1.0 404 Not Found\r\n\r\nnope";
    std::size_t used = 0;
    REQUIRE(parser.feed(first.data(), first.size(), used) == FeedStatus::complete);
    CHECK(parser.footer_bytes() == 8);

    parser.reset();
    const Outcome o = drive(parser, second, {}, /*finish=*/true);
    const std::size_t head = second.size() - 4;
    check_same(o, complete_reply(404, false, head, 4, 0, second.size()));
  }

  TEST_CASE("back-to-back replies: each feed consumes only its own reply") {
    const std::string one = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc";
    const std::string two = "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n"
                            "1\r\nx\r\n0\r\n\r\n";
    const std::string three = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n";
    const std::string stream = one + two + three;

    ResponseParser parser;
    std::size_t used = 0;
    REQUIRE(parser.feed(stream.data(), stream.size(), used) == FeedStatus::complete);
    CHECK(used == one.size());
    CHECK(parser.total_bytes() == one.size());
    CHECK(parser.body_bytes() == 3);

    // Feeding after completion consumes nothing: those bytes are the next reply's.
    std::size_t again = 99;
    CHECK(parser.feed(stream.data() + used, stream.size() - used, again) == FeedStatus::complete);
    CHECK(again == 0);

    parser.reset();
    std::size_t offset = used;
    REQUIRE(parser.feed(stream.data() + offset, stream.size() - offset, used) ==
            FeedStatus::complete);
    CHECK(used == two.size());
    CHECK(parser.status() == 201);
    CHECK(parser.body_bytes() == 1);

    // The third is a HEAD reply, followed by nothing: it completes with its headers.
    parser.reset(/*head_request=*/true);
    offset += used;
    REQUIRE(parser.feed(stream.data() + offset, stream.size() - offset, used) ==
            FeedStatus::complete);
    CHECK(used == three.size());

    // Split anywhere, the first reply still ends exactly where it should.
    for (std::size_t split = 1; split < one.size() + two.size(); ++split) {
      INFO("split at ", split);
      ResponseParser p;
      const std::string pair = one + two;
      std::size_t first_used = 0;
      FeedStatus s = p.feed(pair.data(), split, first_used);
      std::size_t total = first_used;
      if (s == FeedStatus::need_more) {
        std::size_t second_used = 0;
        s = p.feed(pair.data() + split, pair.size() - split, second_used);
        total += second_used;
      }
      CHECK(s == FeedStatus::complete);
      CHECK(total == one.size());
      CHECK(p.total_bytes() == one.size());
    }
  }

  TEST_CASE("a status code under 100 is bad_status_line, even after a 1xx") {
    // http-parser reads one to three digits; such a reply used to complete with status 20.
    const std::string body = " OK\r\nContent-Length: 0\r\n\r\n";
    check_every_split("HTTP/1.1 20" + body, error_reply(ParseError::bad_status_line));
    check_every_split("HTTP/1.1 0" + body, error_reply(ParseError::bad_status_line));
    check_every_split("HTTP/1.1 099" + body, error_reply(ParseError::bad_status_line));
    check_every_split("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 02" + body,
                      error_reply(ParseError::bad_status_line));
    // Three digits still frame, after a 1xx too.
    const std::string ok = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200" + body;
    check_every_split(ok, complete_reply(200, true, ok.size(), 0, 0, ok.size()));
  }

  TEST_CASE("cookies are not captured unless asked for") {
    const std::string reply = "HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nContent-Length: 0\r\n\r\n";
    ResponseParser parser;
    std::size_t used = 0;
    REQUIRE(parser.feed(reply.data(), reply.size(), used) == FeedStatus::complete);
    CHECK(parser.set_cookies().empty());
  }

  TEST_CASE("each Set-Cookie header yields its name=value pair, in order") {
    const std::string reply =
        "HTTP/1.1 200 OK\r\nSet-Cookie: a=1; Path=/\r\nContent-Length: 2\r\n"
        "set-cookie: sid=xyz\r\n\r\nok";
    check_cookies_every_split(reply, {"a=1", "sid=xyz"});
    // Blanks around the pair go; other fields that merely look alike, and trailers, do not count.
    const std::string others =
        "HTTP/1.1 200 OK\r\nX-Set-Cookie: x=1\r\nSet-Cookie2: y=2\r\nSET-COOKIE:\t t = 2 \t;x\r\n"
        "Set-Cookie: e=\r\nTransfer-Encoding: chunked\r\n\r\n"
        "1\r\nz\r\n0\r\nSet-Cookie: trailer=1\r\n\r\n";
    check_cookies_every_split(others, {"t = 2", "e="});
  }

  TEST_CASE("a Set-Cookie header fed byte by byte is captured whole") {
    const std::string reply =
        "HTTP/1.1 200 OK\r\nSet-Cookie: session=abc123; HttpOnly\r\nContent-Length: 0\r\n\r\n";
    std::vector<std::size_t> every;
    for (std::size_t i = 1; i < reply.size(); ++i) every.push_back(i);
    ResponseParser parser;
    parser.capture_cookies(true);
    REQUIRE(drive(parser, reply, every, /*finish=*/false).status == FeedStatus::complete);
    CHECK(cookies_of(parser) == Cookies{"session=abc123"});
  }

  TEST_CASE("cookies set by a 1xx interim reply do not count") {
    const std::string reply =
        "HTTP/1.1 100 Continue\r\nSet-Cookie: early=1\r\n\r\n"
        "HTTP/1.1 200 OK\r\nSet-Cookie: late=2\r\nContent-Length: 0\r\n\r\n";
    check_cookies_every_split(reply, {"late=2"});
    const std::string none =
        "HTTP/1.1 103 Early Hints\r\nSet-Cookie: early=1\r\n\r\n"
        "HTTP/1.1 204 No Content\r\n\r\n";
    check_cookies_every_split(none, {});
  }

  TEST_CASE("reset() clears the cookies and keeps the capture on") {
    const std::string first =
        "HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 0\r\n\r\n";
    const std::string second = "HTTP/1.1 200 OK\r\nSet-Cookie: c=3\r\nContent-Length: 0\r\n\r\n";
    const std::string third = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
    ResponseParser parser;
    parser.capture_cookies(true);
    std::size_t used = 0;
    REQUIRE(parser.feed(first.data(), first.size(), used) == FeedStatus::complete);
    CHECK(cookies_of(parser) == Cookies{"a=1", "b=2"});
    parser.reset();
    CHECK(parser.set_cookies().empty());
    REQUIRE(parser.feed(second.data(), second.size(), used) == FeedStatus::complete);
    CHECK(cookies_of(parser) == Cookies{"c=3"});
    parser.reset();
    REQUIRE(parser.feed(third.data(), third.size(), used) == FeedStatus::complete);
    CHECK(parser.set_cookies().empty());
    // Turned off, it captures nothing any more.
    parser.capture_cookies(false);
    parser.reset();
    REQUIRE(parser.feed(second.data(), second.size(), used) == FeedStatus::complete);
    CHECK(parser.set_cookies().empty());
  }

  TEST_CASE("a pair without '=' or without a name is ignored") {
    const std::string reply =
        "HTTP/1.1 200 OK\r\nSet-Cookie: noequals\r\nSet-Cookie: =v\r\nSet-Cookie: \r\n"
        "Set-Cookie: ; a=b\r\nSet-Cookie: ok=1\r\nContent-Length: 0\r\n\r\n";
    check_cookies_every_split(reply, {"ok=1"});
  }

  TEST_CASE("every fuzz seed and past fuzz crash replays with the parser's promises kept") {
    const char* source = std::getenv("RATEPERF_SOURCE_DIR");
    REQUIRE_MESSAGE(source != nullptr, "RATEPERF_SOURCE_DIR must name the source tree");
    const std::filesystem::path fuzz_dir = std::filesystem::path(source) / "tests" / "fuzz";
    std::size_t seeds = 0;
    for (const char* folder : {"corpus", "regressions"}) {
      for (const auto& entry : std::filesystem::directory_iterator(fuzz_dir / folder)) {
        const std::string name = entry.path().filename().string();
        // A README says what the folder is for; it is not an input.
        if (!entry.is_regular_file() || starts_with(name, "README") || starts_with(name, ".")) {
          continue;
        }
        INFO("fuzz input ", std::string(folder), "/", name);
        replay_fuzz_input(name, read_bytes(entry.path()));
        if (std::string_view(folder) == "corpus") ++seeds;
      }
    }
    // The corpus is the fuzzer's starting point; an empty one would make this test vacuous.
    CHECK(seeds >= 15);
  }
}
