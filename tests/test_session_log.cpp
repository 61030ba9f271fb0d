// httperf's --wsesslog session files: the man page's example, quoting and escapes, the
// attributes beyond httperf (header=, timeout=), think times, separators, and every refusal
// with its one-line "FILE:LINE: problem" message.

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/failure.hpp"
#include "usage_error.hpp"
#include "workload/session_log.hpp"

namespace {

using rateperf::UsageError;
using rateperf::test::usage_error_of;
using rateperf::workload::parse_session_log;
using rateperf::workload::read_session_log;
using rateperf::workload::SessionRequest;
using rateperf::workload::SessionTemplate;

std::vector<SessionTemplate> parse(std::string_view text) {
  return parse_session_log(text, "s.log");
}

// The one request of a file that holds a single one.
SessionRequest only_request(std::string_view text) {
  const std::vector<SessionTemplate> sessions = parse(text);
  REQUIRE(sessions.size() == 1);
  REQUIRE(sessions[0].bursts.size() == 1);
  REQUIRE(sessions[0].bursts[0].requests.size() == 1);
  return sessions[0].bursts[0].requests[0];
}

// The message of the UsageError the text throws; fails the test when none is thrown.
std::string error_of(std::string_view text) {
  return usage_error_of([&] { parse(text); });
}

// A new file in /tmp holding `text`; the caller removes it.
std::string temp_file(std::string_view text) {
  char path[] = "/tmp/rateperf-sesslog-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  const ssize_t written = ::write(fd, text.data(), text.size());
  ::close(fd);
  REQUIRE(written == static_cast<ssize_t>(text.size()));
  return path;
}

std::vector<std::string> uris(const rateperf::workload::SessionBurst& burst) {
  std::vector<std::string> out;
  for (const SessionRequest& request : burst.requests) out.push_back(request.uri);
  return out;
}

// httperf's man page example, as it is printed there.
constexpr std::string_view kManPageExample =
    "# Comment lines start with a ``#'' as the first\n"
    "# character.  Lines with only whitespace delimit\n"
    "# sessions (multiple blank lines do not generate\n"
    "# ``null'' sessions).  All other lines specify a\n"
    "# uri-sequence (1 uri per line).  If the first\n"
    "# character of the line is whitespace (e.g. space\n"
    "# or tab), the uri is considered to be part of a\n"
    "# burst that is sent out after the previous\n"
    "# non-burst uri.\n"
    "\n"
    "# session 1 definition (this is a comment)\n"
    "/foo.html think=2.0\n"
    "     /pict1.gif\n"
    "     /pict2.gif\n"
    "/foo2.html method=POST contents='Post data'\n"
    "     /pict3.gif\n"
    "     /pict4.gif\n"
    "\n"
    "# session 2 definition\n"
    "/foo3.html method=POST contents=\"Multiline\\ndata\"\n"
    "/foo4.html method=HEAD\n";

}  // namespace

TEST_SUITE("session_log") {
  TEST_CASE("the man page's example is two sessions of two bursts each") {
    const std::vector<SessionTemplate> sessions = parse(kManPageExample);
    REQUIRE(sessions.size() == 2);

    const SessionTemplate& first = sessions[0];
    REQUIRE(first.bursts.size() == 2);
    CHECK(uris(first.bursts[0]) ==
          std::vector<std::string>{"/foo.html", "/pict1.gif", "/pict2.gif"});
    CHECK(first.bursts[0].think_s == 2.0);
    CHECK(uris(first.bursts[1]) ==
          std::vector<std::string>{"/foo2.html", "/pict3.gif", "/pict4.gif"});
    CHECK_FALSE(first.bursts[1].think_s.has_value());
    const SessionRequest& post = first.bursts[1].requests[0];
    CHECK(post.method == "POST");
    CHECK(post.has_body);
    CHECK(post.body == "Post data");
    CHECK(post.line == 15);
    const SessionRequest& picture = first.bursts[1].requests[1];
    CHECK(picture.method == "GET");
    CHECK_FALSE(picture.has_body);
    CHECK(picture.line == 16);

    const SessionTemplate& second = sessions[1];
    REQUIRE(second.bursts.size() == 2);
    REQUIRE(second.bursts[0].requests.size() == 1);
    REQUIRE(second.bursts[1].requests.size() == 1);
    CHECK(second.bursts[0].requests[0].uri == "/foo3.html");
    CHECK(second.bursts[0].requests[0].body == "Multiline\ndata");
    CHECK(second.bursts[0].requests[0].line == 20);
    CHECK(second.bursts[1].requests[0].uri == "/foo4.html");
    CHECK(second.bursts[1].requests[0].method == "HEAD");
    CHECK_FALSE(second.bursts[1].requests[0].has_body);
  }

  TEST_CASE("quoted contents decode every escape; unquoted contents are taken as typed") {
    CHECK(only_request(R"(/a contents="n\n r\r t\t bs\\ dq\" sq\' x\x end")").body ==
          "n\n r\r t\t bs\\ dq\" sq' x\\x end");
    CHECK(only_request(R"(/a contents='it\'s "quoted"')").body == "it's \"quoted\"");
    CHECK(only_request(R"(/a contents="it's")").body == "it's");
    CHECK(only_request(R"(/a contents=a\nb)").body == "a\\nb");
    // Blanks inside quotes are kept; the attribute after the value is still read.
    const SessionRequest spaced = only_request("/a contents=\"  two\tparts \" method=PUT");
    CHECK(spaced.body == "  two\tparts ");
    CHECK(spaced.method == "PUT");
  }

  TEST_CASE("contents= given empty still sends a body; no contents= sends none") {
    const SessionRequest quoted_empty = only_request("/a method=POST contents=\"\"");
    CHECK(quoted_empty.has_body);
    CHECK(quoted_empty.body.empty());
    const SessionRequest bare_empty = only_request("/a contents= method=POST");
    CHECK(bare_empty.has_body);
    CHECK(bare_empty.body.empty());
    CHECK(bare_empty.method == "POST");
    CHECK_FALSE(only_request("/a method=POST").has_body);
  }

  TEST_CASE("a backslash ending a line inside quotes is a line break, the value going on") {
    const std::vector<SessionTemplate> sessions =
        parse("/a method=POST contents=\"first\\\nsecond\" think=1\n /b\n");
    REQUIRE(sessions.size() == 1);
    REQUIRE(sessions[0].bursts.size() == 1);
    const auto& requests = sessions[0].bursts[0].requests;
    REQUIRE(requests.size() == 2);
    CHECK(requests[0].body == "first\nsecond");
    CHECK(requests[0].line == 1);
    CHECK(sessions[0].bursts[0].think_s == 1.0);
    CHECK(requests[1].uri == "/b");
    CHECK(requests[1].line == 3);
  }

  TEST_CASE("header= may be repeated and keeps its order and its value as quoted") {
    const SessionRequest request =
        only_request("/a header='X-One: 1' header=X-Two:2 header=\"Cookie: a=b; c=d\"");
    CHECK(request.headers == std::vector<std::string>{"X-One: 1", "X-Two:2", "Cookie: a=b; c=d"});
    CHECK(only_request("/a").headers.empty());
  }

  TEST_CASE("timeout= gives one request its own timeout in seconds") {
    const std::vector<SessionTemplate> sessions = parse("/a timeout=2.5\n /b\n");
    const auto& requests = sessions.at(0).bursts.at(0).requests;
    REQUIRE(requests.size() == 2);
    CHECK(requests[0].timeout_s == 2.5);
    CHECK_FALSE(requests[1].timeout_s.has_value());
  }

  TEST_CASE("think= on any request of a burst is the burst's; the last given wins") {
    const std::vector<SessionTemplate> sessions =
        parse("/a\n /b think=3\n/c think=1\n /d think=0.5\n/e\n");
    REQUIRE(sessions.size() == 1);
    const auto& bursts = sessions[0].bursts;
    REQUIRE(bursts.size() == 3);
    CHECK(bursts[0].think_s == 3.0);
    CHECK(bursts[1].think_s == 0.5);
    CHECK_FALSE(bursts[2].think_s.has_value());
    // Zero is a think time (none at all), not "unset".
    CHECK(parse("/a think=0").at(0).bursts.at(0).think_s == 0.0);
  }

  TEST_CASE("comments, blank and whitespace-only lines: several in a row are one separator") {
    const std::vector<SessionTemplate> sessions = parse(
        "\n\n# leading comment\n/a\n# a comment inside a session does not end it\n\t/b\n/c\n"
        "\n  \n\t\n\n/d\n \n/e");  // no line break at the end
    REQUIRE(sessions.size() == 3);
    REQUIRE(sessions[0].bursts.size() == 2);
    CHECK(uris(sessions[0].bursts[0]) == std::vector<std::string>{"/a", "/b"});
    CHECK(uris(sessions[0].bursts[1]) == std::vector<std::string>{"/c"});
    REQUIRE(sessions[1].bursts.size() == 1);
    CHECK(uris(sessions[1].bursts[0]) == std::vector<std::string>{"/d"});
    REQUIRE(sessions[2].bursts.size() == 1);
    CHECK(sessions[2].bursts[0].requests.at(0).uri == "/e");
    CHECK(sessions[2].bursts[0].requests.at(0).line == 14);
    // '#' is a comment only in column 1: indented, it is a request that is not a URI.
    CHECK(error_of("/a\n  # note\n") == "s.log:2: URI: must start with '/' (got '#')");
  }

  TEST_CASE("CRLF line endings read as LF ones") {
    const std::vector<SessionTemplate> sessions =
        parse("# comment\r\n/a think=1 contents='x'\r\n /b\r\n\r\n/c method=HEAD\r\n");
    REQUIRE(sessions.size() == 2);
    CHECK(uris(sessions[0].bursts.at(0)) == std::vector<std::string>{"/a", "/b"});
    CHECK(sessions[0].bursts[0].think_s == 1.0);
    CHECK(sessions[0].bursts[0].requests[0].body == "x");
    CHECK(sessions[1].bursts.at(0).requests.at(0).method == "HEAD");
    CHECK(sessions[1].bursts[0].requests[0].line == 5);
    // The continuation of a quoted value works across CRLF too, giving a bare LF.
    CHECK(only_request("/a contents='one\\\r\ntwo'\r\n").body == "one\ntwo");
  }

  TEST_CASE("each refusal is one line naming the file, the line and the problem") {
    struct Refusal {
      std::string_view text;
      std::string_view message;
    };
    const std::string_view no_burst =
        "an indented request needs a burst to join (a session's first line must not be indented)";
    const Refusal refusals[] = {
        {"/a\n/b color=red\n",
         "s.log:2: unknown attribute 'color' (known: method, think, contents, header, timeout)"},
        {"/a contents='open\n", "s.log:1: contents: the ' quote is not closed"},
        {"/a\n\n/b header=\"X: y\n", "s.log:3: header: the \" quote is not closed"},
        // A backslash ending the file's last line continues a value into nothing.
        {"/a contents='open\\\n", "s.log:1: contents: the ' quote is not closed"},
        {"/a contents='x'y\n", "s.log:1: contents: text right after the closing quote"},
        {"/a think=soon\n", "s.log:1: think: 'soon' is not a number"},
        {"/a think=-1\n", "s.log:1: think: must not be negative (got -1)"},
        {"/a think=\n", "s.log:1: think: '' is not a number"},
        {"/a timeout=0\n", "s.log:1: timeout: must be greater than 0 (got 0)"},
        {"/a timeout=1x\n", "s.log:1: timeout: '1x' is not a number"},
        {"/a timeout=1e-12\n", "s.log:1: timeout: below the 1 ns resolution (got 1e-12)"},
        {"/a method='GET\\nX'\n", "s.log:1: method: must not contain a line break"},
        {"/a method=G(T\n", "s.log:1: method: 'G(T' is not a valid method name"},
        {"/a think\n", "s.log:1: 'think' is not an attribute (name=value)"},
        {"/a =2\n", "s.log:1: '=2' is not an attribute (name=value)"},
        {"/a header='no colon'\n", "s.log:1: header: 'no colon' is not 'Name: value'"},
        {"/a header=': v'\n", "s.log:1: header: ': v' is not 'Name: value'"},
        {"/a header='X Y: v'\n", "s.log:1: header: 'X Y' is not a valid header name"},
        {"/a header='X: 1\\r\\nY: 2'\n", "s.log:1: header: must not contain a line break"},
        {"/a\nfoo.html\n", "s.log:2: URI: must start with '/' (got 'foo.html')"},
        // Like --uri: a request target, not a URL.
        {"http://example.org/a\n",
         "s.log:1: URI: must start with '/' (got 'http://example.org/a')"},
        {"", "s.log: no request in the file"},
        {"# only a comment\n\n  \n", "s.log: no request in the file"},
    };
    for (const Refusal& refusal : refusals) {
      CAPTURE(refusal.text);
      CHECK(error_of(refusal.text) == refusal.message);
    }
    CHECK(error_of("# c\n /a\n") == "s.log:2: " + std::string(no_burst));
    // After a blank line the session is over: there is no burst to join either.
    CHECK(error_of("/a\n\n\t/b\n") == "s.log:3: " + std::string(no_burst));
  }

  TEST_CASE("read_session_log reads a file and names a path it cannot read") {
    const std::string good = temp_file("/x think=1\n /y\n");
    const std::vector<SessionTemplate> sessions = read_session_log(good);
    ::unlink(good.c_str());
    REQUIRE(sessions.size() == 1);
    CHECK(uris(sessions[0].bursts.at(0)) == std::vector<std::string>{"/x", "/y"});

    // Parse errors name the file by the path it was read from.
    const std::string bad = temp_file("x\n");
    const std::string message = usage_error_of([&] { read_session_log(bad); });
    ::unlink(bad.c_str());
    CHECK(message == bad + ":1: URI: must start with '/' (got 'x')");

    CHECK_THROWS_WITH_AS(read_session_log("/nonexistent/sessions.log"),
                         "--wsesslog: cannot read '/nonexistent/sessions.log': No such file or "
                         "directory",
                         UsageError);
    CHECK_THROWS_WITH_AS(read_session_log("/tmp"), "--wsesslog: cannot read '/tmp': Is a directory",
                         UsageError);
  }
}
