// --wlog's URI lists and --wset's working sets: the URIs each call takes, in order.

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/failure.hpp"
#include "usage_error.hpp"
#include "workload/uri_source.hpp"

namespace {

using rateperf::workload::parse_uri_log;
using rateperf::workload::UriLog;
using rateperf::workload::WorkingSet;

std::vector<std::string> take(rateperf::workload::UriSource& source, int count) {
  std::vector<std::string> uris;
  std::string uri;
  for (int i = 0; i < count && !source.exhausted(); ++i) {
    uri.clear();
    if (source.append_next(uri)) uris.push_back(uri);
  }
  return uris;
}

}  // namespace

TEST_SUITE("uri_source") {
  TEST_CASE("a --wlog file: NUL-separated (httperf's), or one URI a line; empty entries skipped") {
    using namespace std::string_literals;
    CHECK(parse_uri_log("/a\0/b?x=1\0\0/c\0"s, "f") == std::vector<std::string>{"/a", "/b?x=1", "/c"});
    // Without any NUL byte, lines (LF or CRLF), blank ones skipped.
    CHECK(parse_uri_log("/a\r\n\n/b\n/c", "f") == std::vector<std::string>{"/a", "/b", "/c"});
    // A NUL-separated file keeps a line break inside an entry out: it is a control character.
    CHECK(rateperf::test::usage_error_of([] { parse_uri_log("/a\0/b\nc\0"s, "log.bin"); }) ==
          "--wlog: log.bin: URI 2 has a space or a control character (each URI goes in a request line)");
    CHECK(rateperf::test::usage_error_of([] { parse_uri_log("/a b\n", "urls.txt"); }) ==
          "--wlog: urls.txt: URI 1 has a space or a control character (each URI goes in a request line)");
    CHECK(rateperf::test::usage_error_of([] { parse_uri_log("\n\r\n", "empty.txt"); }) ==
          "--wlog: empty.txt: no URI in the file");
  }

  TEST_CASE("a URI log ends at its end (n), or starts again (y)") {
    UriLog once({"/a", "/b"}, false);
    CHECK_FALSE(once.exhausted());
    CHECK(take(once, 5) == std::vector<std::string>{"/a", "/b"});
    CHECK(once.exhausted());
    UriLog again({"/a", "/b"}, true);
    CHECK(take(again, 5) == std::vector<std::string>{"/a", "/b", "/a", "/b", "/a"});
    CHECK_FALSE(again.exhausted());
  }

  TEST_CASE("--wset: the file's number in as many digits as N - 1, a slash between them") {
    // httperf's example: the 103rd file of 1024 under /wset1024 is /wset1024/0/1/0/3.html.
    WorkingSet set("/wset1024", 1024, 1.0);
    std::vector<std::string> uris = take(set, 104);
    CHECK(uris[0] == "/wset1024/0/0/0/0.html");
    CHECK(uris[103] == "/wset1024/0/1/0/3.html");
    // One digit for 10 files; a trailing slash of the prefix is not doubled; after the last
    // file, the first again.
    WorkingSet ten("/w/", 10, 1.0);
    uris = take(ten, 11);
    CHECK(uris[9] == "/w/9.html");
    CHECK(uris[10] == "/w/0.html");
  }

  TEST_CASE("--wset X: new files per call (0.25: each file four calls in a row)") {
    WorkingSet set("/s", 3, 0.25);
    CHECK(take(set, 9) == std::vector<std::string>{"/s/0.html", "/s/0.html", "/s/0.html",
                                                   "/s/0.html", "/s/1.html", "/s/1.html",
                                                   "/s/1.html", "/s/1.html", "/s/2.html"});
    WorkingSet half("/h", 2, 0.5);
    CHECK(take(half, 5) ==
          std::vector<std::string>{"/h/0.html", "/h/0.html", "/h/1.html", "/h/1.html", "/h/0.html"});
  }
}
