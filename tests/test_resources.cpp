// The client's own limits (descriptors, local ports, memory) and its signals: a run that hits
// them still ends, counts every arrival, and says what happened.

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "process.hpp"
#include "report_text.hpp"
#include "test_server.hpp"

namespace {

using rateperf::test::rateperf_binary;
using rateperf::test::report_figure;
using rateperf::test::ProcessResult;
using rateperf::test::run_process;
using rateperf::test::ServerMode;
using rateperf::test::TestServer;
using rateperf::test::TimedSignal;
using namespace std::chrono_literals;

std::vector<std::string> rateperf_args(std::uint16_t port, std::vector<std::string> more) {
  std::vector<std::string> argv = {rateperf_binary(), "--server", "127.0.0.1", "--port",
                                   std::to_string(port)};
  argv.insert(argv.end(), more.begin(), more.end());
  return argv;
}

// argv run by `sh -c SCRIPT`, which ends with `exec "$@"`.
std::vector<std::string> in_shell(const std::string& script, std::vector<std::string> argv) {
  std::vector<std::string> shell = {"sh", "-c", script + "; exec \"$@\"", "sh"};
  shell.insert(shell.end(), argv.begin(), argv.end());
  return shell;
}

bool have(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

// Shell lines that wait (5 s at most) until a listener started in the background has printed
// "up" to listener.out.
const std::string kWaitForListener =
    "i=0; until grep -q up listener.out 2>/dev/null || [ $i -ge 50 ]; do sleep 0.1; "
    "i=$((i+1)); done";

// rateperf ARGS (after --server, --port, --rate 100, --timeout 2) in a network namespace of its
// own: loopback up, 10 local ports, and a listener on 127.0.0.1:18999 that never accepts (its
// backlog and the SYN retries hold every port the client takes) for 10 s, its output away from
// the pipe that the run's end waits for. With `held_from`, the listener first connects to itself
// from that address 10 times: every port of it is taken before the run.
ProcessResult run_with_ten_ports(const std::vector<std::string>& args,
                                 const std::string& held_from = "") {
  REQUIRE_MESSAGE(::geteuid() == 0, "needs root (meson runs this suite through needs_netns.sh)");
  for (const char* tool : {"unshare", "ip", "sysctl", "python3"}) {
    REQUIRE_MESSAGE(have(tool), tool << " is missing (needs_netns.sh checks it)");
  }
  // The listener takes held_from's ports with 10 connections to itself (none without one).
  const std::string script =
      "ip link set lo up && sysctl -q -w net.ipv4.ip_local_port_range='40000 40009' && "
      "python3 -c 'import socket, sys, time\n"
      "s = socket.socket(); s.bind((\"127.0.0.1\", 18999)); s.listen(64)\n"
      "held = []\n"
      "for source in sys.argv[1:] * 10:\n"
      "    c = socket.socket(); c.bind((source, 0)); c.connect((\"127.0.0.1\", 18999))\n"
      "    held.append(c)\n"
      "print(\"up\", flush=True); time.sleep(10)' " +
      held_from + " > listener.out 2>&1 & " + kWaitForListener;
  char dir_template[] = "/tmp/rateperf-ports.XXXXXX";
  REQUIRE(::mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template;
  std::vector<std::string> command = {rateperf_binary(), "--server", "127.0.0.1", "--port",
                                      "18999", "--rate", "100", "--timeout", "2"};
  command.insert(command.end(), args.begin(), args.end());
  std::vector<std::string> argv = {"unshare", "--net", "--"};
  const auto inner = in_shell("cd " + dir + "; " + script, command);
  argv.insert(argv.end(), inner.begin(), inner.end());
  const ProcessResult run = run_process(argv, 60s);
  std::system(("rm -rf " + dir).c_str());
  return run;
}

}  // namespace

TEST_SUITE("resources") {
  TEST_CASE("ulimit -n 64: arrivals without a descriptor count as fd-unavail, and stderr says so") {
    TestServer server(ServerMode::never_answer);
    // 150 arrivals in 0.75 s to a silent server, each held for 1 s: about 60 fit in 64
    // descriptors, the rest find none until the first ones time out.
    const ProcessResult run = run_process(
        in_shell("ulimit -n 64", rateperf_args(server.port(), {"--rate", "200", "--num-conns",
                                                               "150", "--timeout", "1"})),
        60s);
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    const double fd_unavail = report_figure(run.out, "Errors: fd-unavail", "fd-unavail");
    const double timeouts = report_figure(run.out, "Errors: total", "client-timo");
    CHECK(fd_unavail > 0);
    CHECK(timeouts > 0);
    // Every arrival is a reply or exactly one counted error; as in httperf, "connections" are
    // the sockets opened, so the arrivals without one are not among them.
    CHECK(fd_unavail + timeouts == 150);
    CHECK(report_figure(run.out, "Errors: total", "total") == 150);
    CHECK(report_figure(run.out, "Total:", "connections") == timeouts);
    // Warned before the run, and told after it.
    CHECK(run.err.find("warning: --rate 200 with --timeout 1 s may keep 150 connections open at "
                       "once, more than the 64 descriptors allowed") != std::string::npos);
    CHECK(run.err.find(std::to_string(static_cast<int>(fd_unavail)) +
                       " arrivals found no free descriptor (fd-unavail; the limit is 64") !=
          std::string::npos);
  }

  TEST_CASE("no warning when the descriptors suffice") {
    TestServer server(ServerMode::reply);
    const ProcessResult run = run_process(
        rateperf_args(server.port(), {"--rate", "100", "--num-conns", "10", "--timeout", "2"}),
        30s);
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(run.err.find("descriptor") == std::string::npos);
  }

  // Suite "ports", run by tests/needs_netns.sh, which skips it (exit 77) where it cannot run.
  TEST_CASE("out of local ports (a namespace with 10 of them): addrunavail" *
            doctest::test_suite("ports")) {
    const ProcessResult run = run_with_ten_ports({"--num-conns", "30"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(report_figure(run.out, "Total:", "connections") == 30);
    const double addrunavail = report_figure(run.out, "Errors: fd-unavail", "addrunavail");
    const double timeouts = report_figure(run.out, "Errors: total", "client-timo");
    // All 30 arrivals come within 0.3 s, long before the first port is freed (2 s): 10 take
    // the ports and time out, 20 find none.
    CHECK(addrunavail == 20);
    CHECK(timeouts == 10);
    CHECK(run.err.find("20 arrivals found no free local port (addrunavail") != std::string::npos);
  }

  TEST_CASE("--myaddr: each source address has the whole port range, one more arrival finds none" *
            doctest::test_suite("ports")) {
    // One source address: 10 connections held, the 11th addrunavail.
    const ProcessResult one = run_with_ten_ports({"--num-conns", "11", "--myaddr", "127.0.0.2"});
    INFO(one.out << one.err);
    REQUIRE(one.exit_code == 0);
    CHECK(report_figure(one.out, "Errors: total", "client-timo") == 10);
    CHECK(report_figure(one.out, "Errors: fd-unavail", "addrunavail") == 1);
    // Three: 30 held, the 31st addrunavail.
    const ProcessResult three =
        run_with_ten_ports({"--num-conns", "31", "--myaddr", "127.0.0.2-127.0.0.4"});
    INFO(three.out << three.err);
    REQUIRE(three.exit_code == 0);
    CHECK(report_figure(three.out, "Errors: total", "client-timo") == 30);
    CHECK(report_figure(three.out, "Errors: fd-unavail", "addrunavail") == 1);
    CHECK(three.out.find("--myaddr=127.0.0.2-127.0.0.4") != std::string::npos);
  }

  TEST_CASE("--myaddr whose every port is taken: the run goes on, its arrivals addrunavail" *
            doctest::test_suite("ports")) {
    // The check that the address is the host's binds without a port: an address whose ports an
    // earlier run's TIME_WAIT sockets hold is no usage error.
    const ProcessResult run =
        run_with_ten_ports({"--num-conns", "3", "--myaddr", "127.0.0.2"}, "127.0.0.2");
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(report_figure(run.out, "Errors: fd-unavail", "addrunavail") == 3);
    CHECK(run.err.find("3 arrivals found no free local port (addrunavail") != std::string::npos);
  }

  TEST_CASE("--server-addresses all: a name with two addresses gets connections in turn" *
            doctest::test_suite("ports")) {
    REQUIRE_MESSAGE(::geteuid() == 0, "needs root (meson runs this suite through needs_netns.sh)");
    // A namespace of its own for the network and the mounts: /etc/hosts gives multi.test two
    // addresses, and a listener on every address of loopback answers each connection and
    // writes the address it was reached at.
    const std::string script =
        "ip link set lo up && printf '127.0.0.1 multi.test\\n127.0.0.2 multi.test\\n' > hosts && "
        "mount --bind hosts /etc/hosts && "
        "timeout 10 python3 -c 'import socket, sys\n"
        "s = socket.socket(); s.bind((\"0.0.0.0\", 18999)); s.listen(64)\n"
        "print(\"up\", flush=True)\n"
        "for _ in range(10):\n"
        "    c, _ = s.accept(); c.recv(4096)\n"
        "    c.sendall(b\"HTTP/1.1 200 OK\\r\\nContent-Length: 0\\r\\n\\r\\n\"); "
        "sys.stderr.write(c.getsockname()[0] + \"\\n\"); c.close()' 2> reached.txt > listener.out & " +
        kWaitForListener + "; \"$0\" --server multi.test --port 18999 --server-addresses all "
        "--num-conns 10 --rate 100 --timeout 2; wait; echo reached; sort reached.txt | uniq -c";
    char dir_template[] = "/tmp/rateperf-addresses.XXXXXX";
    REQUIRE(::mkdtemp(dir_template) != nullptr);
    const std::string dir = dir_template;
    const ProcessResult run = run_process(
        {"unshare", "--net", "--mount", "--", "sh", "-c", "cd " + dir + "; " + script,
         rateperf_binary()},
        60s);
    std::system(("rm -rf " + dir).c_str());
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(report_figure(run.out, "Total:", "replies") == 10);
    CHECK(run.out.find("5 127.0.0.1\n") != std::string::npos);
    CHECK(run.out.find("5 127.0.0.2\n") != std::string::npos);
  }

  TEST_CASE("SIGINT: the report and the JSON export of what was done, marked interrupted") {
    TestServer server(ServerMode::reply);
    char path_template[] = "/tmp/rateperf-sigint.XXXXXX";
    const int fd = ::mkstemp(path_template);
    REQUIRE(fd >= 0);
    ::close(fd);
    ::unlink(path_template);
    const std::string json_path = path_template;
    const ProcessResult run = run_process(
        rateperf_args(server.port(), {"--rate", "50", "--num-conns", "1000", "--timeout", "2",
                                      "--json", json_path}),
        60s, {TimedSignal{700ms, SIGINT}});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(run.out.find("Run: interrupted") != std::string::npos);
    const double connections = report_figure(run.out, "Total:", "connections");
    CHECK(connections > 0);
    CHECK(connections < 1000);
    std::ifstream file(json_path);
    REQUIRE(file.good());
    const nlohmann::json doc = nlohmann::json::parse(file);
    ::unlink(json_path.c_str());
    CHECK(doc.at("interrupted") == true);
    CHECK(doc.at("totals").at("connections") == connections);
  }

  TEST_CASE("a second SIGINT ends the open connections at once") {
    TestServer server(ServerMode::never_answer);
    const auto started = std::chrono::steady_clock::now();
    // The first signal would give the silent connections up to --timeout (30 s) more; the
    // second ends them now, as client-timo, and the report still comes.
    const ProcessResult run = run_process(
        rateperf_args(server.port(), {"--rate", "50", "--num-conns", "1000", "--timeout", "30"}),
        60s, {TimedSignal{500ms, SIGINT}, TimedSignal{900ms, SIGINT}});
    const double elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(elapsed_s < 10);
    const double connections = report_figure(run.out, "Total:", "connections");
    CHECK(connections > 0);
    CHECK(report_figure(run.out, "Errors: total", "client-timo") == connections);
    CHECK(run.out.find("Run: interrupted") != std::string::npos);
  }

  TEST_CASE("a client far behind its schedule still heeds SIGINT") {
    // A million connections a second to a closed port: the client cannot keep up, and the
    // arrivals due pile up. It used to issue all of them in one burst (seconds long) before it
    // looked at a signal; the signal now stops the schedule within one burst of 128.
    const std::uint16_t port = rateperf::test::closed_port();
    const auto started = std::chrono::steady_clock::now();
    const ProcessResult run = run_process(
        rateperf_args(port, {"--rate", "1000000", "--num-conns", "200000", "--timeout", "5"}),
        120s, {TimedSignal{500ms, SIGINT}});
    const double elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(run.out.find("Run: interrupted") != std::string::npos);
    const double connections = report_figure(run.out, "Total:", "connections");
    CHECK(connections > 0);
    CHECK(connections < 200000);
    CHECK(report_figure(run.out, "Errors: total", "connrefused") == connections);
    CHECK(report_figure(run.out, "Maximum connect burst length:", "length:") <= 128);
    CHECK(elapsed_s < 10);
  }

  TEST_CASE("SIGTERM soon after the start still gives a report") {
    TestServer server(ServerMode::reply);
    // main() blocks the signal until the schedule can be stopped cleanly; only the dynamic
    // loader's few milliseconds before main() remain (tens on a loaded machine), hence 300 ms.
    const ProcessResult run = run_process(
        rateperf_args(server.port(), {"--rate", "10", "--num-conns", "100", "--timeout", "2"}),
        60s, {TimedSignal{300ms, SIGTERM}});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(run.out.find("Run: interrupted") != std::string::npos);
    CHECK(report_figure(run.out, "Total:", "connections") < 5);
  }

  TEST_CASE("a closed stdout (SIGPIPE) does not kill rateperf") {
    TestServer server(ServerMode::reply);
    // The report goes into a pipe whose reader has gone: the write fails with EPIPE, and the
    // process must end by itself, not by SIGPIPE (status 141).
    auto argv = rateperf_args(server.port(), {"--rate", "50", "--num-conns", "5"});
    std::string command;
    for (const std::string& arg : argv) command += "'" + arg + "' ";
    const ProcessResult run = run_process(
        {"bash", "-c", "exec 3>&1; (" + command + "; echo status $? >&3) | true"}, 60s);
    INFO(run.out << run.err);
    const std::regex status(R"(status (\d+))");
    std::smatch match;
    REQUIRE(std::regex_search(run.out, match, status));
    // The run itself went well: a failed write of the report is no reason for another status.
    CHECK(match[1].str() == "0");
  }

  TEST_CASE("memory does not grow with the number of connections") {
    // A closed port: each connection is refused at once, so the peak of open connections is the
    // same in both runs whatever the machine's load, and only the count differs.
    const std::uint16_t port = rateperf::test::closed_port();
    const auto peak_kb = [&](const char* conns) {
      const ProcessResult run = run_process(
          rateperf_args(port, {"--rate", "10000", "--num-conns", conns, "--timeout", "5",
                               "--quiet"}),
          120s);
      INFO(run.out << run.err);
      REQUIRE(run.exit_code == 0);
      CHECK(report_figure(run.out, "Errors: total", "connrefused") == std::stod(conns));
      return run.max_rss_kb;
    };
    const long small = peak_kb("10000");
    const long large = peak_kb("100000");
    MESSAGE("peak RSS: " << small << " kB for 10000 connections, " << large
                         << " kB for 100000");
    CHECK(static_cast<double>(large) <= 1.1 * static_cast<double>(small));
  }
}
