// The report's shape, held fixed: fixed-seed runs against the in-process servers, their text
// report, JSON document and CSV row compared with the files in tests/golden/ once the figures
// that measure time (and the servers' ports) are masked. A change to a label, a line, a field,
// a count or a size shows here. RATEPERF_GOLDEN_UPDATE=1 rewrites the files instead (for a
// deliberate change of the report, reviewed in the diff).

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "fault_server.hpp"
#include "process.hpp"
#include "report_text.hpp"
#include "test_server.hpp"

namespace {

using rateperf::test::closed_port;
using rateperf::test::FaultMode;
using rateperf::test::FaultServer;
using rateperf::test::ProcessResult;
using rateperf::test::run_rateperf_on;
using rateperf::test::ServerMode;
using rateperf::test::TestServer;

std::string golden_dir() {
  const char* source = std::getenv("RATEPERF_SOURCE_DIR");
  REQUIRE_MESSAGE(source != nullptr, "RATEPERF_SOURCE_DIR must name the source tree");
  return std::string(source) + "/tests/golden/";
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text report with what measures time masked: every decimal figure but the sizes (which
// only the bytes decide), the port, and the counts that depend on the client's wake-ups.
std::string mask_text(const std::string& report) {
  std::istringstream in(report);
  std::string out;
  // A decimal figure, not the label "p99.9".
  const std::regex decimal(R"((^|[^p\d.])\d+\.\d+)");
  const std::regex number(R"(\d+)");
  for (std::string line; std::getline(in, line);) {
    const auto starts = [&](const char* prefix) { return line.rfind(prefix, 0) == 0; };
    if (starts("rateperf ")) {
      line = std::regex_replace(line, std::regex(R"(--port=\d+)"), "--port=PORT");
    } else if (starts(" ")) {
      // ab's table: its padding follows the width of the times, so it goes with them.
      line = std::regex_replace(line, std::regex(R"( +\d+)"), " #");
    } else if (starts("Maximum connect burst length") || starts("Connection rate") ||
               starts("Client lag") || starts("Timing:")) {
      line = std::regex_replace(line, number, "#");
    } else if (!starts("Request size") && !starts("Reply size") && !starts("Connection length")) {
      line = std::regex_replace(line, decimal, "$1#.#");
    }
    out += line + "\n";
  }
  return out;
}

// The JSON document with what measures time masked (by key), the rest as it is.
void mask_json(nlohmann::json& value, const std::string& key = "") {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) mask_json(it.value(), it.key());
    return;
  }
  if (value.is_array()) {
    for (auto& element : value) mask_json(element, key);
    return;
  }
  static const std::regex timing(
      R"(.*(_ms|_s|_per_s|_percent|_utc|_per_connection|_per_request)$|^(port|command_line|max_burst|max_concurrent|late_arrivals|client_limited|sleeps|polls|timer_arms|timer_wakeups|[0-9]+)$)");
  // The sizes only the bytes decide stay, as do the configuration's numbers.
  static const std::regex kept(
      R"(^(avg_bytes|header_bytes|content_bytes|footer_bytes|total_bytes|timeout_s|think_timeout_s|rate_per_s|mean_s|low_s|high_s|gap_s|max_lag_ms)$)");
  if (std::regex_match(key, timing) && !std::regex_match(key, kept)) value = "#";
}

// The CSV row with the columns that measure time masked, by the header's names.
std::string mask_csv(const std::string& text) {
  std::istringstream in(text);
  std::string header;
  std::string row;
  std::getline(in, header);
  std::getline(in, row);
  std::vector<std::string> names;
  std::stringstream h(header);
  for (std::string name; std::getline(h, name, ',');) names.push_back(name);
  std::stringstream r(row);
  std::string out = header + "\n";
  std::size_t i = 0;
  const std::regex timing(R"(.*(_ms|_s|_per_s|_percent|_utc)$|^(port|max_burst|max_concurrent)$)");
  for (std::string field; std::getline(r, field, ','); ++i) {
    const std::string name = i < names.size() ? names[i] : std::string();
    const bool masked = std::regex_match(name, timing) && name != "timeout_s";
    if (i > 0) out += ',';
    out += masked ? std::string("#") : field;
  }
  return out + "\n";
}

// Compares `actual` with tests/golden/NAME, or writes it there when asked to.
void check_golden(const std::string& name, const std::string& actual) {
  const std::string path = golden_dir() + name;
  const char* update = std::getenv("RATEPERF_GOLDEN_UPDATE");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path) << actual;
    MESSAGE("wrote " << path);
    return;
  }
  const std::string expected = read_text(path);
  REQUIRE_MESSAGE(!expected.empty(), "no golden file " << path);
  CHECK_MESSAGE(actual == expected, name << " differs from " << path << "; got:\n" << actual);
}

// Runs rateperf against 127.0.0.1:`port` with `args` (the Host header fixed, so that the
// request size does not depend on the port), the JSON document to a file and the CSV row to
// stdout... and checks all three against the golden files named after `name`.
void golden_run(const std::string& name, std::uint16_t port, std::vector<std::string> args) {
  char path_template[] = "/tmp/rateperf-golden.XXXXXX";
  const int fd = ::mkstemp(path_template);
  REQUIRE(fd >= 0);
  ::close(fd);
  const std::string json_path = path_template;
  args.insert(args.end(), {"--server-name", "golden.test", "--json", json_path, "--quiet"});
  const ProcessResult run = run_rateperf_on("127.0.0.1", port, args);
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  nlohmann::json doc = nlohmann::json::parse(read_text(json_path));
  ::unlink(json_path.c_str());
  check_golden(name + ".txt", mask_text(run.out));
  // How many intervals a run's series has, and what falls in each, depend on its timing.
  if (doc.contains("series")) doc["series"]["points"] = "#";
  mask_json(doc);
  check_golden(name + ".json", doc.dump(1) + "\n");

  args.insert(args.end(), {"--csv", "-"});
  const ProcessResult csv = run_rateperf_on("127.0.0.1", port, args);
  REQUIRE(csv.exit_code == 0);
  check_golden(name + ".csv", mask_csv(csv.out));
}

}  // namespace

TEST_SUITE("golden") {
  TEST_CASE("golden: replies of every status class, with --verbose") {
    TestServer server(ServerMode::reply, {200, 301, 404, 500});
    golden_run("statuses", server.port(),
               {"--rate", "100", "--num-conns", "8", "--timeout", "2", "--verbose"});
  }

  TEST_CASE("golden: sequential, HEAD, HTTP/1.0, a header") {
    TestServer server(ServerMode::reply);
    golden_run("sequential-head", server.port(),
               {"--num-conns", "5", "--method", "HEAD", "--http-version", "1.0", "--add-header",
                "X-Golden: 1", "--send-buffer", "65536"});
  }

  TEST_CASE("golden: Poisson arrivals with a fixed seed, and thresholds") {
    TestServer server(ServerMode::reply);
    golden_run("poisson", server.port(),
               {"--period", "e0.01", "--seed", "5", "--num-conns", "10", "--timeout", "1",
                "--max-lag", "1000", "--max-error-rate", "50"});
  }

  TEST_CASE("golden: malformed and cut replies, one error kind each") {
    for (const auto& [name, mode] : std::vector<std::pair<std::string, FaultMode>>{
             {"garbage-status", FaultMode::garbage_status},
             {"huge-header", FaultMode::huge_header},
             {"bad-chunked", FaultMode::bad_chunked},
             {"short-body", FaultMode::short_body},
             {"http10-close", FaultMode::http10_close},
             {"continue-100", FaultMode::continue_100}}) {
      CAPTURE(name);
      FaultServer server(mode);
      golden_run(name, server.port(), {"--rate", "50", "--num-conns", "4", "--timeout", "1"});
    }
  }

  TEST_CASE("golden: timeouts and refusals") {
    TestServer silent(ServerMode::never_answer);
    golden_run("client-timo", silent.port(),
               {"--period", "v0.05,0.1,0.02,0.1", "--num-conns", "4", "--timeout", "0.3",
                "--think-timeout", "0.1"});
    golden_run("connrefused", closed_port(), {"--rate", "200", "--num-conns", "6"});
  }
}
