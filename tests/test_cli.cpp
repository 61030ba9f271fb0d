#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "process.hpp"
#include "report_text.hpp"

namespace {

using namespace std::chrono_literals;
using rateperf::test::ProcessResult;
using rateperf::test::rateperf_binary;
using rateperf::test::run_process;

ProcessResult run(std::initializer_list<std::string> args) {
  std::vector<std::string> argv{rateperf_binary()};
  argv.insert(argv.end(), args);
  ProcessResult result = run_process(argv, 10s);
  REQUIRE_FALSE(result.timed_out);
  return result;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

// A bad command line: status 2, nothing on stdout, and exactly two lines on stderr, the error
// (which names `names`) and the pointer to --help.
void check_usage_error(std::initializer_list<std::string> args, const std::string& names) {
  const ProcessResult r = run(args);
  CAPTURE(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK((!r.err.empty() && r.err.back() == '\n'));
  const std::vector<std::string> lines = lines_of(r.err);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].rfind("rateperf: ", 0) == 0);
  CHECK(lines[0].find(names) != std::string::npos);
  CHECK(lines[1] == "Try 'rateperf --help'.");
}

}  // namespace

TEST_SUITE("cli") {
  TEST_CASE("bad numbers exit with status 2 and a one-line message naming the option") {
    // The server is the loopback, so a rateperf that wrongly accepted a value and ran would
    // only make one quick connection there, and fail the test with its status and its report.
    const std::string s = "127.0.0.1";
    check_usage_error({"--server", s, "--rate", "abc"}, "--rate: 'abc' is not a number");
    check_usage_error({"--server", s, "--rate", "12abc"}, "--rate: '12abc' is not a number");
    check_usage_error({"--server", s, "--rate", ""}, "--rate: '' is not a number");
    check_usage_error({"--server", s, "--rate", "nan"}, "--rate: 'nan' is not a number");
    check_usage_error({"--server", s, "--rate", "inf"}, "--rate: 'inf' is not a number");
    check_usage_error({"--server", s, "--rate", "-5"}, "--rate: must not be negative (got -5)");
    check_usage_error({"--server", s, "--num-conns", "0"}, "--num-conns: must be at least 1");
    check_usage_error({"--server", s, "--num-calls", "0"}, "--num-calls: must be at least 1");
    check_usage_error({"--server", s, "--burst-length", "0"}, "--burst-length: must be within 1..");
    check_usage_error({"--server", s, "--connections", "0", "--request-rate", "10", "--requests", "5"},
                      "--connections: must be within 1..");
    check_usage_error({"--server", s, "--request-rate", "10", "--rate", "5", "--requests", "5"},
                      "--rate: not with --request-rate");
    check_usage_error({"--server", s, "--request-rate", "10", "--num-conns", "5", "--requests", "5"},
                      "--num-conns: not with --request-rate");
    check_usage_error({"--server", s, "--request-rate", "10", "--num-calls", "5", "--requests", "5"},
                      "--num-calls: not with --request-rate");
    check_usage_error({"--server", s, "--request-rate", "10"},
                      "--request-rate: needs --requests N or --duration S");
    check_usage_error({"--server", s, "--port", "70000"},
                      "--port: must be within 1..65535 (got 70000)");
    check_usage_error({"--server", s, "--timeout", "-1"}, "--timeout: must not be negative");
    check_usage_error({"--server", s, "--think-timeout", "soon"},
                      "--think-timeout: 'soon' is not a number");
    check_usage_error({"--server", s, "--send-buffer", "0"}, "--send-buffer:");
    check_usage_error({"--server", s, "--recv-buffer", "x"}, "--recv-buffer: 'x' is not a number");
    check_usage_error({"--server", s, "--seed", "-3"}, "--seed: must not be negative");
    check_usage_error({"--server", s, "--max-error-rate", "150"},
                      "--max-error-rate: must be within 0..100 (got 150)");
    check_usage_error({"--server", s, "--max-error-rate", "lots"},
                      "--max-error-rate: 'lots' is not a number");
    check_usage_error({"--server", s, "--max-lag", "0"},
                      "--max-lag: must be greater than 0 (got 0)");
  }

  TEST_CASE("other bad values exit with status 2, naming the option") {
    const std::string s = "127.0.0.1";
    check_usage_error({"--server", s, "--client", "3/2"},
                      "--client: expected I/N with 0 <= I < N (got '3/2')");
    check_usage_error({"--server", s, "--period", "u2,1"}, "--period: u needs T1 <= T2");
    check_usage_error({"--server", s, "--period", "q1"}, "--period: unknown distribution 'q'");
    check_usage_error({"--server", s, "--period", "v1,2,3"}, "--period: v takes pairs");
    check_usage_error({"--server", s, "--rate", "5", "--period", "e1"},
                      "--rate and --period are exclusive");
    check_usage_error({"--server", s, "--uri", "index.html"}, "--uri: must start with '/'");
    check_usage_error({"--server", s, "--method", "GE T"}, "--method:");
    check_usage_error({"--server", s, "--http-version", "2.0"},
                      "--http-version: expected 1.0 or 1.1");
    check_usage_error({"--server", s, "--timing", "fast"},
                      "--timing: expected auto, sleep, hybrid, spin or batch (got 'fast')");
    check_usage_error({"--server", ""}, "--server: must not be empty");
    check_usage_error({"--server", s, "--json", ""}, "--json: expects a file name or -");
    check_usage_error({"--server", s, "--csv", ""}, "--csv: expects a file name or -");
    check_usage_error({"--server", s, "--json", "-", "--csv", "-"},
                      "--json and --csv cannot both write to stdout");
  }

  TEST_CASE("Boost's own errors exit with status 2, naming the option") {
    check_usage_error({"--bogus"}, "'--bogus'");
    check_usage_error({"--rate"}, "'--rate'");
    check_usage_error({"--rate", "1", "--rate", "2"}, "--rate: given more than once");
    check_usage_error({"--verbose=1"}, "'--verbose'");
  }

  TEST_CASE("bad URLs exit with status 2, naming the URL") {
    check_usage_error({"gopher://127.0.0.1/"},
                      "URL 'gopher://127.0.0.1/': only http:// and https:// URLs are supported");
    check_usage_error({"ftp://127.0.0.1/"}, "URL 'ftp://127.0.0.1/'");
    check_usage_error({"foo"}, "URL 'foo'");
    check_usage_error({"http://127.0.0.1:0/"}, "URL 'http://127.0.0.1:0/'");
    check_usage_error({"http://127.0.0.1/a", "http://127.0.0.1/b"}, "only one URL");
  }

  TEST_CASE("--help exits 0 and describes every option and the URL form") {
    for (const std::string word : {"--help", "-h"}) {
      const ProcessResult r = run({word});
      CHECK(r.exit_code == 0);
      CHECK(r.err.empty());
      CHECK(r.out.rfind("Usage: rateperf", 0) == 0);
      for (const char* option : {"--server",        "--port",           "--uri",
                                 "--server-name",   "--rate",           "--period",
                                 "--num-conns",     "--num-calls",      "--timeout",
                                 "--think-timeout", "--seed",           "--method",
                                 "--add-header",    "--http-version",   "--send-buffer",
                                 "--recv-buffer",   "--verbose",        "--client",
                                 "--help",          "--version",        "http://",
                                 "--max-lag",       "--max-error-rate", "--json FILE",
                                 "--csv FILE",      "-q, --quiet",      "--burst-length",
                                 "--max-piped-calls", "--request-rate", "--connections",
                                 "--requests",      "--duration",       "--no-host-hdr",
                                 "--close-with-reset", "--print-request[=header|body]",
                                 "--print-reply[=header|body]", "--wlog B,FILE", "--wset N,X",
                                 "--wsess N1,N2,X", "--wsesslog N,X,FILE", "--max-connections N",
                                 "--failure-status S", "--retry-on-failure", "--session-cookies",
                                 "--ssl", "--tls-server-name NAME", "--ssl-protocol P",
                                 "--ssl-ciphers LIST", "--tls-ciphersuites LIST", "--ssl-no-reuse",
                                 "--ssl-verify", "--ssl-ca-file FILE", "https://"}) {
        CAPTURE(option);
        CHECK(r.out.find(option) != std::string::npos);
      }
    }
  }

  TEST_CASE("every option of --help is in the README's option table, and the other way round") {
    const ProcessResult help = run({"--help"});
    REQUIRE(help.exit_code == 0);
    std::set<std::string> in_help;
    const std::regex help_row(R"(^  (?:-\w, )?(--[a-z-]+))");
    for (const std::string& line : lines_of(help.out)) {
      std::smatch match;
      if (std::regex_search(line, match, help_row)) in_help.insert(match[1]);
    }

    const char* source = std::getenv("RATEPERF_SOURCE_DIR");
    REQUIRE_MESSAGE(source != nullptr, "RATEPERF_SOURCE_DIR must name the source tree");
    std::ifstream file(std::string(source) + "/README.md");
    REQUIRE(file);
    std::stringstream text;
    text << file.rdbuf();
    // The rows of the table under "## Options", up to the next section.
    const std::string readme = text.str();
    const std::size_t start = readme.find("\n## Options\n");
    REQUIRE(start != std::string::npos);
    const std::size_t end = readme.find("\n## ", start + 1);
    std::set<std::string> in_readme;
    const std::regex readme_row(R"(^\| (?:`-\w`, )?`(--[a-z-]+))");
    for (const std::string& line : lines_of(readme.substr(start, end - start))) {
      std::smatch match;
      if (std::regex_search(line, match, readme_row)) in_readme.insert(match[1]);
    }
    CHECK(in_help.size() > 20);
    for (const std::string& option : in_help) {
      CAPTURE(option);
      CHECK(in_readme.count(option) == 1);
    }
    for (const std::string& option : in_readme) {
      CAPTURE(option);
      CHECK(in_help.count(option) == 1);
    }
  }

  TEST_CASE("--version exits 0 and prints the program name and version") {
    for (const std::string word : {"--version", "-V"}) {
      const ProcessResult r = run({word});
      CHECK(r.exit_code == 0);
      CHECK(r.err.empty());
      const std::vector<std::string> lines = lines_of(r.out);
      REQUIRE(lines.size() == 1);
      // The version the build was made with: meson.build's project version, and in a git
      // checkout the commit after it (scripts/version), "rateperf 0.1.0+g1a2b3c4".
      const char* version = std::getenv("RATEPERF_VERSION");
      REQUIRE_MESSAGE(version != nullptr, "meson sets RATEPERF_VERSION");
      CHECK(lines[0].rfind(std::string("rateperf ") + version, 0) == 0);
      CHECK(lines[0].find(' ', 9) == std::string::npos);
    }
  }
}
