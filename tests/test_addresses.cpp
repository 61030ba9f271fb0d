// Where connections come from and go to: --myaddr (addresses and ranges), --hog and
// --server-addresses, against the loopback test server; their bad input. The source addresses'
// port ranges are tested in the "ports" suite (test_resources.cpp), in a namespace of their own.
#include <doctest/doctest.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "core/failure.hpp"
#include "net/addresses.hpp"
#include "net/endpoint.hpp"
#include "process.hpp"
#include "report_text.hpp"
#include "run_on_loopback.hpp"
#include "test_server.hpp"

namespace rateperf::test {

namespace {

// The address families "localhost" resolves to here.
std::set<int> localhost_families() {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::set<int> families;
  if (::getaddrinfo("localhost", "80", &hints, &found) != 0) return families;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) families.insert(a->ai_family);
  ::freeaddrinfo(found);
  return families;
}

}  // namespace

TEST_SUITE("addresses") {
  TEST_CASE("--myaddr ranges: IPv4 across octets, IPv6 within a /64, in order") {
    const auto v4 = net::parse_sources({"10.0.0.254-10.0.1.1", "10.0.0.7"});
    REQUIRE(v4.size() == 5);
    const auto text = [](const net::Endpoint& e) {
      char out[64];
      const auto* in = reinterpret_cast<const sockaddr_in*>(&e.address);
      ::inet_ntop(AF_INET, &in->sin_addr, out, sizeof out);
      return std::string(out);
    };
    CHECK(text(v4[0]) == "10.0.0.254");
    CHECK(text(v4[1]) == "10.0.0.255");
    CHECK(text(v4[2]) == "10.0.1.0");
    CHECK(text(v4[3]) == "10.0.1.1");
    CHECK(text(v4[4]) == "10.0.0.7");
    const auto v6 = net::parse_sources({"fd00::ffff-fd00::1:1"});
    CHECK(v6.size() == 3);
    CHECK(v6.front().family() == AF_INET6);
    CHECK_THROWS_AS(net::parse_sources({"fd00::1-fd00:0:0:1::1"}), UsageError);
    CHECK_THROWS_AS(net::parse_sources({"10.0.0.0-10.1.0.0"}), UsageError);  // over 65,536
  }

  TEST_CASE("--myaddr and --hog: every connection made and answered, the options echoed") {
    TestServer server(ServerMode::reply);
    const ProcessResult run = run_rateperf(
        server.port(), {"--num-conns", "20", "--rate", "200", "--myaddr", "127.0.0.2-127.0.0.4",
                        "--myaddr", "127.0.0.9", "--timeout", "5"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(report_figure(run.out, "Total:", "replies") == 20);
    CHECK(server.accepted() == 20);
    CHECK(report_line(run.out, "rateperf").find("--myaddr=127.0.0.2-127.0.0.4 --myaddr=127.0.0.9") !=
          std::string::npos);

    TestServer hogged(ServerMode::reply);
    const ProcessResult hog = run_rateperf(
        hogged.port(), {"--num-conns", "20", "--rate", "200", "--hog", "--timeout", "5"});
    INFO(hog.out << hog.err);
    REQUIRE(hog.exit_code == 0);
    CHECK(report_figure(hog.out, "Total:", "replies") == 20);
    CHECK(report_line(hog.out, "rateperf").find(" --hog") != std::string::npos);
  }

  TEST_CASE("--hog over two workers: each takes ports of its own, in steps of the workers") {
    // Worker 0 and worker 1 of two, as --threads 2 makes them: their sockets' ports never meet
    // (worker k takes 1024 + k, 1024 + k + 2, ...; a port in use is skipped, by the same step).
    std::vector<net::Endpoint> servers = net::resolve("127.0.0.1", 80);
    std::set<int> ports[2];
    std::vector<int> sockets;
    for (std::size_t k = 0; k < 2; ++k) {
      net::Addresses addresses(servers, false, {}, true, k, 2);
      for (int i = 0; i < 50; ++i) {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        REQUIRE(fd >= 0);
        sockets.push_back(fd);
        REQUIRE(addresses.bind_source(fd, AF_INET) == 0);
        sockaddr_in local{};
        socklen_t length = sizeof local;
        REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0);
        const int port = ntohs(local.sin_port);
        CHECK(port % 2 == static_cast<int>(k));
        ports[k].insert(port);
      }
    }
    for (const int fd : sockets) ::close(fd);
    CHECK(ports[0].size() == 50);
    CHECK(ports[1].size() == 50);
  }

  TEST_CASE("--server-addresses all: connections go to each address of the name in turn") {
    const std::set<int> families = localhost_families();
    if (families.size() < 2) {
      MESSAGE("SKIP: 'localhost' resolves to one address family here; the case needs two");
      return;
    }
    // The server listens on 127.0.0.1 only: the connections to ::1 are refused, one in two.
    TestServer server(ServerMode::reply);
    const ProcessResult run = run_rateperf_on(
        "localhost", server.port(),
        {"--num-conns", "10", "--rate", "100", "--server-addresses", "all", "--timeout", "5"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(report_figure(run.out, "Total:", "replies") == 5);
    CHECK(report_figure(run.out, "Errors: total", "connrefused") == 5);
  }

  TEST_CASE("bad addresses: one line, exit 2 for bad input, 1 for an address this host lacks") {
    TestServer server(ServerMode::reply);
    const struct {
      std::vector<std::string> args;
      int status;
      std::string message;
    } cases[] = {
        {{"--myaddr", "127.0.0.9-127.0.0.2"}, 2, "--myaddr: the range goes backwards"},
        {{"--myaddr", "nowhere"}, 2, "--myaddr: expected an address"},
        {{"--myaddr", "127.0.0.1-::1"}, 2, "--myaddr: a range's two ends must be of one family"},
        {{"--myaddr", "::1"}, 2, "--myaddr: ::1 is IPv6 and the server's address IPv4"},
        {{"--myaddr", "192.0.2.1"}, 1, "--myaddr: 192.0.2.1 is not an address of this host"},
        {{"--server-addresses", "some"}, 2, "--server-addresses"},
    };
    for (const auto& c : cases) {
      std::vector<std::string> args = {"--num-conns", "1"};
      args.insert(args.end(), c.args.begin(), c.args.end());
      const ProcessResult run = run_rateperf(server.port(), args);
      INFO(run.err);
      CHECK(run.exit_code == c.status);
      CHECK(run.err.rfind("rateperf: ", 0) == 0);
      CHECK(run.err.find(c.message) != std::string::npos);
    }
    CHECK(server.accepted() == 0);
  }
}

}  // namespace rateperf::test
