// The schedule and the target on the command line: --rate and --period (each distribution and
// its refusals) and the URL argument, as the options parse them and as parse_url splits them.

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "option_words.hpp"
#include "options/options.hpp"
#include "options/url.hpp"

namespace {

using namespace std::chrono_literals;
using rateperf::Duration;
using rateperf::options::Config;
using rateperf::options::echo_command_line;
using rateperf::options::parse_url;
using rateperf::options::PeriodKind;
using rateperf::options::Url;
using rateperf::test::config_of;
using rateperf::test::contains;
using rateperf::test::usage_error;

// The message of the UsageError parse_url throws; fails the test when none is thrown.
std::string url_error(std::string_view url) {
  return rateperf::test::usage_error_of([&] { parse_url(url); });
}

}  // namespace

TEST_SUITE("options") {
  TEST_CASE("--rate gives a deterministic period of 1/rate") {
    const Config c = config_of({"--rate", "300"});
    CHECK(echo_command_line(c).find(" --rate=300 ") != std::string::npos);
    CHECK(c.period.rate_per_s == 300);
    CHECK(c.period.kind == PeriodKind::deterministic);
    CHECK(c.period.mean == Duration(3333333));
    CHECK_FALSE(c.period.sequential());

    // Seconds are rounded to the nearest nanosecond, not truncated: 1/3 s is 333333333.3 ns
    // and 1/7 s is 142857142.86 ns.
    CHECK(config_of({"--rate", "3"}).period.mean == Duration(333333333));
    CHECK(config_of({"--rate", "7"}).period.mean == Duration(142857143));
    CHECK(config_of({"--rate", "0.5"}).period.mean == 2s);
  }

  TEST_CASE("--rate 0 is sequential") {
    const Config c = config_of({"--rate", "0"});
    CHECK(c.period.sequential());
    CHECK(c.period.rate_per_s == 0);
    // As httperf, a sequential run echoes no rate.
    CHECK(echo_command_line(c).find("--rate") == std::string::npos);
  }

  TEST_CASE("--period d, or no letter, is a fixed gap") {
    for (const char* text : {"d0.2", "0.2"}) {
      CAPTURE(text);
      const Config c = config_of({"--period", text});
      // A fixed period is echoed as the rate it amounts to.
      CHECK(echo_command_line(c).find(" --rate=5 ") != std::string::npos);
      CHECK(c.period.kind == PeriodKind::deterministic);
      CHECK(c.period.mean == 200ms);
      CHECK(c.period.rate_per_s == doctest::Approx(5));
    }
    CHECK(config_of({"--period", "d0"}).period.sequential());
  }

  TEST_CASE("--period e is exponential with the given mean") {
    const Config c = config_of({"--period", "e0.004"});
    CHECK(c.period.kind == PeriodKind::exponential);
    CHECK(c.period.mean == 4ms);
    CHECK(c.period.rate_per_s == doctest::Approx(250));
  }

  TEST_CASE("--period u is uniform over [T1,T2), at the rate of the mean gap") {
    const Config c = config_of({"--period", "u1,3"});
    CHECK(c.period.kind == PeriodKind::uniform);
    CHECK(c.period.low == 1s);
    CHECK(c.period.high == 3s);
    CHECK(c.period.rate_per_s == doctest::Approx(0.5));
    // Equal bounds are allowed: every gap is then T1.
    const Config fixed = config_of({"--period", "u0.5,0.5"});
    CHECK(fixed.period.low == 500ms);
    CHECK(fixed.period.high == 500ms);
    CHECK(fixed.period.rate_per_s == doctest::Approx(2));
  }

  TEST_CASE("--period v steps through gap,length pairs at their time-weighted rate") {
    const Config c = config_of({"--period", "v0.1,2,0.01,3"});
    CHECK(c.period.kind == PeriodKind::variable);
    REQUIRE(c.period.steps.size() == 2);
    CHECK(c.period.steps[0].gap == 100ms);
    CHECK(c.period.steps[0].length == 2s);
    CHECK(c.period.steps[1].gap == 10ms);
    CHECK(c.period.steps[1].length == 3s);
    // 20 arrivals in the first 2 s, 300 in the next 3 s: 320 in 5 s.
    CHECK(c.period.rate_per_s == doctest::Approx(64));
    CHECK(config_of({"--period", "v0.5,1"}).period.steps.size() == 1);
  }

  TEST_CASE("a URL sets server, port and uri") {
    Config c = config_of({"http://example.org:8080/index.html?q=1&r=2"});
    CHECK(c.server == "example.org");
    CHECK(c.port == 8080);
    CHECK(c.uri == "/index.html?q=1&r=2");

    c = config_of({"http://example.org"});
    CHECK(c.server == "example.org");
    CHECK(c.port == 80);
    CHECK(c.uri == "/");

    c = config_of({"http://example.org?x=1#section"});
    CHECK(c.uri == "/?x=1");

    // An IPv6 literal loses its brackets, which getaddrinfo() does not take.
    c = config_of({"http://[::1]:8081/v6"});
    CHECK(c.server == "::1");
    CHECK(c.port == 8081);
    CHECK(c.uri == "/v6");
    CHECK(config_of({"http://[fe80::1]"}).port == 80);
    CHECK(config_of({"--server", "[::1]"}).server == "::1");
  }

  TEST_CASE("explicit --server, --port and --uri override the URL's parts, in any order") {
    const Config c = config_of({"--port", "9090", "http://a.example:8080/x", "--uri", "/y"});
    CHECK(c.server == "a.example");
    CHECK(c.port == 9090);
    CHECK(c.uri == "/y");
    CHECK(config_of({"http://a.example/x", "--server", "b.example"}).server == "b.example");
  }

  TEST_CASE("malformed --period values are refused, naming --period and the problem") {
    struct Case {
      const char* text;
      const char* problem;
    };
    for (const Case& c : std::vector<Case>{
             {"", "expected [d|u|e|v]T1[,T2...]"},
             {"x1", "unknown distribution 'x'"},
             {"e", "'' is not a number"},
             {"dabc", "'abc' is not a number"},
             {"d1,", "'' is not a number"},
             {"d-1", "must not be negative"},
             {"d1,2", "d takes one number"},
             {"e0", "the mean gap of e must be positive"},
             {"e1,2", "e takes one number"},
             {"u1", "u takes two numbers"},
             {"u2,1", "u needs T1 <= T2"},
             {"u0,0", "u needs T2 > 0"},
             {"v1,2,3", "v takes pairs"},
             {"v", "'' is not a number"},
             {"v0,1", "v gaps must be positive"},
             {"v1,0", "v step lengths must be positive"},
             {"dnan", "'nan' is not a number"},
         }) {
      CAPTURE(c.text);
      const std::string message = usage_error({"--period", c.text});
      CHECK(message.rfind("--period: ", 0) == 0);
      CHECK(contains(message, c.problem));
    }
  }

  TEST_CASE("URLs other than http:// and https:// are refused, naming the URL") {
    for (const char* url : {"httpx://example.org/", "ftp://example.org/", "foo", "example.org:80"}) {
      CAPTURE(url);
      CHECK(usage_error({url}) ==
            "URL '" + std::string(url) + "': only http:// and https:// URLs are supported");
    }
    CHECK(usage_error({"http://"}) == "URL 'http://': no host");
    CHECK(usage_error({"http://h:0/"}) == "URL 'http://h:0/': the port must be within 1..65535");
    CHECK(usage_error({"http://h:99999/"}) ==
          "URL 'http://h:99999/': the port must be within 1..65535");
    CHECK(usage_error({"http://h:x/"}) == "URL 'http://h:x/': the port must be within 1..65535");
    CHECK(contains(usage_error({"http://[::1/"}), "URL 'http://[::1/'"));
    CHECK(usage_error({"http://a/", "http://b/"}) ==
          "only one URL may be given (got 'http://a/' and 'http://b/')");
  }

  TEST_CASE("parse_url splits host, port and request target") {
    Url url = parse_url("http://example.org:8080/a/b?q=1");
    CHECK(url.host == "example.org");
    CHECK(url.port == 8080);
    CHECK(url.target == "/a/b?q=1");

    // The scheme is case-insensitive; the host keeps its case, as typed.
    url = parse_url("HTTP://Example.org");
    CHECK(url.host == "Example.org");
    CHECK(url.port == 80);
    CHECK(url.target == "/");

    // A query without a path gets the root path; a fragment is never sent.
    CHECK(parse_url("http://h?x=1").target == "/?x=1");
    CHECK(parse_url("http://h#top").target == "/");
    CHECK(parse_url("http://h/p#top?no").target == "/p");
    CHECK(parse_url("http://h:65535").port == 65535);
  }

  TEST_CASE("parse_url takes an IPv6 literal in brackets and drops the brackets") {
    Url url = parse_url("http://[2001:db8::7]:9000/x");
    CHECK(url.host == "2001:db8::7");
    CHECK(url.port == 9000);
    CHECK(url.target == "/x");

    url = parse_url("http://[::1]?q");
    CHECK(url.host == "::1");
    CHECK(url.port == 80);
    CHECK(url.target == "/?q");
  }

  TEST_CASE("parse_url refuses malformed URLs with a message naming the URL and the problem") {
    CHECK(url_error("http://[]/") == "URL 'http://[]/': no host");
    CHECK(url_error("http://:80/") == "URL 'http://:80/': no host");
    CHECK(url_error("http://[::1]x/") ==
          "URL 'http://[::1]x/': unexpected text after the IPv6 address");
    CHECK(url_error("http://[::1") == "URL 'http://[::1': the IPv6 address lacks its ']'");
    CHECK(url_error("http://h:/") == "URL 'http://h:/': the port must be within 1..65535");
    CHECK(url_error("http://h:+80/") == "URL 'http://h:+80/': the port must be within 1..65535");
    CHECK(url_error("http://user:pw@h/") ==
          "URL 'http://user:pw@h/': user names and passwords are not supported");
    CHECK(url_error("http://h/a b") ==
          "URL 'http://h/a b': must not contain spaces or control characters");
    CHECK(url_error("http:/h/") == "URL 'http:/h/': only http:// and https:// URLs are supported");
  }
}
