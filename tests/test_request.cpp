#include <doctest/doctest.h>

#include <string>

#include "http/request.hpp"
#include "options/config.hpp"

namespace {

using rateperf::http::render_request;
using rateperf::http::reply_has_no_body;
using rateperf::options::Config;

#ifdef RATEPERF_VERSION
const std::string kUserAgent = "User-Agent: rateperf/" RATEPERF_VERSION "\r\n";
#else
const std::string kUserAgent = "User-Agent: rateperf/dev\r\n";
#endif

}  // namespace

TEST_SUITE("request") {
  TEST_CASE("a default GET is exactly request line, User-Agent, Host and the blank line") {
    Config config;
    config.server = "127.0.0.1";
    config.port = 8080;
    config.uri = "/index.html";
    CHECK(render_request(config) == "GET /index.html HTTP/1.1\r\n" + kUserAgent +
                                        "Host: 127.0.0.1:8080\r\n"
                                        "\r\n");
    CHECK_FALSE(reply_has_no_body(config));
  }

  TEST_CASE("HEAD is sent as such and its reply has no body") {
    Config config;
    config.method = "HEAD";
    CHECK(render_request(config) ==
          "HEAD / HTTP/1.1\r\n" + kUserAgent + "Host: localhost\r\n\r\n");
    CHECK(reply_has_no_body(config));
    // Methods are case-sensitive: "head" is some other method.
    config.method = "head";
    CHECK_FALSE(reply_has_no_body(config));
  }

  TEST_CASE("the port appears in Host unless it is 80") {
    Config config;
    config.server = "example.org";
    config.port = 80;
    CHECK(render_request(config).find("\r\nHost: example.org\r\n") != std::string::npos);
    config.port = 8080;
    CHECK(render_request(config).find("\r\nHost: example.org:8080\r\n") != std::string::npos);
  }

  TEST_CASE("--server-name replaces the Host value as given") {
    Config config;
    config.server = "10.0.0.1";
    config.port = 8080;
    config.server_name = "www.example.org";
    const std::string request = render_request(config);
    CHECK(request.find("\r\nHost: www.example.org\r\n") != std::string::npos);
    CHECK(request.find("10.0.0.1") == std::string::npos);
  }

  TEST_CASE("an IPv6 literal is bracketed in Host") {
    Config config;
    config.server = "::1";
    config.port = 8080;
    CHECK(render_request(config).find("\r\nHost: [::1]:8080\r\n") != std::string::npos);
    config.port = 80;
    CHECK(render_request(config).find("\r\nHost: [::1]\r\n") != std::string::npos);
    config.server = "[fe80::1]";  // already bracketed: not twice
    CHECK(render_request(config).find("\r\nHost: [fe80::1]\r\n") != std::string::npos);
  }

  TEST_CASE("added headers each become one CRLF-terminated line") {
    Config config;
    config.add_headers = {
        "Accept: */*",
        "X-One: 1\\nX-Two: 2",       // httperf's convention: a typed backslash-n separates
        "X-Three: 3\r\n",           // already terminated: not twice
        "X-Four: 4\\r\\nX-Five: 5\\n",  // escaped CRLF, and a trailing separator
        "",                          // an empty line would end the headers early
        "X-Six: 6\nX-Seven: 7",
    };
    CHECK(render_request(config) == "GET / HTTP/1.1\r\n" + kUserAgent +
                                        "Host: localhost\r\n"
                                        "Accept: */*\r\n"
                                        "X-One: 1\r\n"
                                        "X-Two: 2\r\n"
                                        "X-Three: 3\r\n"
                                        "X-Four: 4\r\n"
                                        "X-Five: 5\r\n"
                                        "X-Six: 6\r\n"
                                        "X-Seven: 7\r\n"
                                        "\r\n");
  }

  TEST_CASE("--no-host-hdr: no Host header, the other headers as before") {
    Config config;
    config.no_host_header = true;
    config.server_name = "example.test";
    config.add_headers = {"Accept: */*"};
    CHECK(render_request(config) ==
          "GET / HTTP/1.1\r\n" + kUserAgent + "Accept: */*\r\n\r\n");
  }

  TEST_CASE("HTTP/1.0 is written in the request line") {
    Config config;
    config.http_version = "1.0";
    config.method = "POST";
    config.uri = "/form?a=1";
    const std::string request = render_request(config);
    CHECK(request.rfind("POST /form?a=1 HTTP/1.0\r\n", 0) == 0);
    CHECK(request.size() >= 4);
    CHECK(request.substr(request.size() - 4) == "\r\n\r\n");
  }
}
