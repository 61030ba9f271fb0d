// The exports of a real run: --json and --csv files as a spreadsheet or a script reads them,
// several processes appending to one CSV, and paths that cannot be written.

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "csv_text.hpp"
#include "process.hpp"
#include "test_server.hpp"

namespace {

using rateperf::test::csv_rows;
using rateperf::test::ProcessResult;
using rateperf::test::run_process;
using rateperf::test::ServerMode;
using rateperf::test::TestServer;

// A fresh temporary directory, removed with its files at the end of the test.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/rateperf-test-XXXXXX";
    REQUIRE(::mkdtemp(pattern) != nullptr);
    path_ = pattern;
  }
  ~TempDir() { [[maybe_unused]] int rc = std::system(("rm -rf '" + path_ + "'").c_str()); }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

ProcessResult run_rateperf(std::uint16_t port, std::vector<std::string> args) {
  const char* binary = std::getenv("RATEPERF_BIN");
  REQUIRE_MESSAGE(binary != nullptr, "RATEPERF_BIN must name the rateperf binary");
  std::vector<std::string> argv = {binary, "--server", "127.0.0.1", "--port",
                                   std::to_string(port), "--timeout", "5"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, std::chrono::seconds(60));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The number of columns of a CSV text's header.
std::string header_fields(const std::string& text) {
  return std::to_string(rateperf::test::split_csv(text.substr(0, text.find('\n'))).size());
}

// The fields docs/json.md documents: (JSON pointer with "[]" for array elements, type word).
std::vector<std::pair<std::string, std::string>> documented_json_fields() {
  const char* source = std::getenv("RATEPERF_SOURCE_DIR");
  REQUIRE_MESSAGE(source != nullptr, "RATEPERF_SOURCE_DIR must name the source tree");
  std::vector<std::pair<std::string, std::string>> fields;
  const std::regex row(R"(^\| `(/[^`]*)` \| ([a-z ]+?) \|)");
  for (const std::string& line : lines_of(read_file(std::string(source) + "/docs/json.md"))) {
    std::smatch match;
    if (std::regex_search(line, match, row)) fields.emplace_back(match[1], match[2]);
  }
  return fields;
}

bool has_documented_type(const nlohmann::json& value, const std::string& type) {
  if (type == "integer") return value.is_number_integer();
  if (type == "number") return value.is_number();
  if (type == "number or null") return value.is_number() || value.is_null();
  if (type == "string") return value.is_string();
  if (type == "string or null") return value.is_string() || value.is_null();
  if (type == "boolean") return value.is_boolean();
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  return false;
}

}  // namespace

TEST_SUITE("output") {
  TEST_CASE("a real run's JSON holds every field docs/json.md documents, of its type") {
    // 22 arrivals at 4/s last 5.25 s: long enough for one reply-rate sample.
    TestServer server(ServerMode::reply);
    TempDir dir;
    const std::string path = dir.file("run.json");
    const ProcessResult run =
        run_rateperf(server.port(), {"--rate", "4", "--num-conns", "22", "--add-header",
                                     "X-Test: 1", "--json", path});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    const nlohmann::json doc = nlohmann::json::parse(read_file(path));
    REQUIRE(doc.at("samples").size() >= 1);

    const auto fields = documented_json_fields();
    CHECK(fields.size() > 100);
    for (const auto& [documented, type] : fields) {
      std::string pointer = documented;
      // "[]" stands for every element: check the first one, when the array has any.
      bool empty_array = false;
      for (auto at = pointer.find("[]"); at != std::string::npos; at = pointer.find("[]")) {
        const nlohmann::json::json_pointer array(pointer.substr(0, at));
        if (doc.contains(array) && doc.at(array).empty()) empty_array = true;
        pointer.replace(at, 2, "/0");
      }
      if (empty_array) continue;  // the period's steps: only a v period has any
      INFO(documented << " (" << type << ")");
      const nlohmann::json::json_pointer at(pointer);
      REQUIRE(doc.contains(at));
      CHECK(has_documented_type(doc.at(at), type));
    }
  }

  TEST_CASE("--json writes one document with every figure, typed and named with its unit") {
    TestServer server(ServerMode::reply, {200, 404});
    TempDir dir;
    const std::string path = dir.file("run.json");
    const ProcessResult run =
        run_rateperf(server.port(), {"--rate", "100", "--num-conns", "20", "--json", path});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    // The text report is still printed.
    CHECK(run.out.find("Total: connections 20") != std::string::npos);

    const nlohmann::json doc = nlohmann::json::parse(read_file(path));
    CHECK(doc.at("schema_version") == 1);
    CHECK(doc.at("rateperf_version").is_string());
    CHECK(std::regex_match(doc.at("start_time_utc").get<std::string>(),
                           std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")));
    CHECK(doc.at("config").at("port") == server.port());
    CHECK(doc.at("config").at("num_conns") == 20);
    CHECK(doc.at("config").at("seed").is_number_integer());
    CHECK(doc.at("totals").at("connections") == 20);
    CHECK(doc.at("totals").at("replies") == 20);
    CHECK(doc.at("reply_status").at("2xx") == 10);
    CHECK(doc.at("reply_status").at("4xx") == 10);
    CHECK(doc.at("errors").at("total") == 0);
    CHECK(doc.at("schedule").at("offered_rate_per_s") == 100.0);
    for (const char* pointer :
         {"/totals/duration_s", "/schedule/issue_window_s", "/reply_rate/avg_per_s",
          "/reply_time/response_ms", "/reply_time/transfer_ms", "/connection_time/avg_ms",
          "/connection_time/median_ms", "/latency_intended/p99_ms", "/latency_actual/p50_ms",
          "/connect_time/p90_ms", "/response_time/max_ms", "/lag/p99_ms", "/cpu/total_percent",
          "/net_io/kb_per_s", "/served_within_ms/50"}) {
      INFO(pointer);
      CHECK(doc.at(nlohmann::json::json_pointer(pointer)).is_number());
    }
    CHECK(doc.at("lag").at("client_limited").is_boolean());
    CHECK(doc.at("samples").is_array());
    CHECK(doc.at("interrupted") == false);
  }

  TEST_CASE("--csv appends one row per run, with one header") {
    TestServer server(ServerMode::reply);
    TempDir dir;
    const std::string path = dir.file("sweep.csv");
    for (const char* rate : {"50", "100"}) {
      const ProcessResult run =
          run_rateperf(server.port(), {"--rate", rate, "--num-conns", "10", "--csv", path});
      INFO(run.out << run.err);
      REQUIRE(run.exit_code == 0);
    }
    // Read as a spreadsheet reads it: by column name, every row as wide as the header.
    const std::string text = read_file(path);
    CHECK(text.rfind("start_time_utc,server,port,uri,offered_rate_per_s,", 0) == 0);
    const auto rows = csv_rows(text);
    REQUIRE(rows.size() == 2);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      auto row = rows[i];
      CAPTURE(i);
      CHECK(row["#fields"] == header_fields(text));
      CHECK(row["offered_rate_per_s"] == (i == 0 ? "50.000" : "100.000"));
      CHECK(row["server"] == "127.0.0.1");
      CHECK(row["port"] == std::to_string(server.port()));
      CHECK(row["num_conns"] == "10");
      CHECK(row["connections"] == "10");
      CHECK(row["replies"] == "10");
      CHECK(row["status_2xx"] == "10");
      CHECK(row["errors_total"] == "0");
      CHECK(row["interrupted"] == "0");
    }
  }

  TEST_CASE("four processes appending to one CSV at once leave only whole rows") {
    TestServer server(ServerMode::reply);
    TempDir dir;
    const std::string path = dir.file("shared.csv");
    std::vector<ProcessResult> results(4);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < results.size(); ++i) {
      threads.emplace_back([&, i] {
        results[i] = run_rateperf(server.port(), {"--rate", "200", "--num-conns", "20", "--uri",
                                                  "/client-" + std::to_string(i), "--csv", path});
      });
    }
    for (auto& thread : threads) thread.join();
    for (const auto& result : results) CHECK(result.exit_code == 0);
    // One header, then one whole row per process: each client's URI exactly once.
    const std::string text = read_file(path);
    INFO(text);
    CHECK(lines_of(text).size() == 5);
    const auto rows = csv_rows(text);
    REQUIRE(rows.size() == 4);
    std::map<std::string, int> uris;
    for (auto row : rows) {
      CHECK(row["#fields"] == header_fields(text));
      CHECK(row["connections"] == "20");
      CHECK(row["replies"] == "20");
      ++uris[row["uri"]];
    }
    for (std::size_t i = 0; i < results.size(); ++i) {
      CHECK(uris["/client-" + std::to_string(i)] == 1);
    }
  }

  TEST_CASE("--csv - and --json - write to stdout, and the report moves to stderr") {
    TestServer server(ServerMode::reply);
    const ProcessResult csv = run_rateperf(server.port(), {"--num-conns", "3", "--csv", "-"});
    INFO(csv.out << csv.err);
    REQUIRE(csv.exit_code == 0);
    REQUIRE(lines_of(csv.out).size() == 2);
    const auto rows = csv_rows(csv.out);
    REQUIRE(rows.size() == 1);
    auto row = rows[0];
    CHECK(row["#fields"] == header_fields(csv.out));
    CHECK(row["replies"] == "3");
    CHECK(csv.err.find("Total: connections 3") != std::string::npos);

    const ProcessResult json = run_rateperf(server.port(), {"--num-conns", "3", "--json", "-"});
    INFO(json.out << json.err);
    REQUIRE(json.exit_code == 0);
    CHECK(nlohmann::json::parse(json.out).at("totals").at("replies") == 3);

    // --print-reply's lines go with the report too.
    const ProcessResult printed =
        run_rateperf(server.port(), {"--num-conns", "2", "--json", "-", "--print-reply"});
    INFO(printed.out << printed.err);
    REQUIRE(printed.exit_code == 0);
    CHECK(nlohmann::json::parse(printed.out).at("totals").at("replies") == 2);
    CHECK(printed.err.find("RS1: header ") != std::string::npos);
  }

  TEST_CASE("an output path that cannot be written stops the run before any traffic") {
    TestServer server(ServerMode::reply);
    for (const char* option : {"--json", "--csv"}) {
      const ProcessResult run = run_rateperf(
          server.port(), {"--rate", "100", "--num-conns", "5", option, "/nonexistent/dir/out"});
      INFO(run.out << run.err);
      CHECK(run.exit_code == 1);
      CHECK(run.err.find(option) != std::string::npos);
      CHECK(run.out.empty());
    }
    CHECK(server.accepted() == 0);
  }

  TEST_CASE("when writing an export fails at the end, the report is still printed") {
    TestServer server(ServerMode::reply);
    const ProcessResult run =
        run_rateperf(server.port(), {"--num-conns", "3", "--json", "/dev/full"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 1);
    CHECK(run.err.find("--json") != std::string::npos);
    CHECK(run.out.find("Total: connections 3 requests 3 replies 3") != std::string::npos);
  }
}
