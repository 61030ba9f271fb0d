// net::TlsTransport against an OpenSSL server in the test, over loopback: the client's last
// handshake flight and its first request leave in one segment (the server's TCP counts the
// segments with data it received), a request too large to hold goes whole after it, and a
// request the socket could take only in part is sent once, whole, at the next write.
#include <doctest/doctest.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "net/tls.hpp"
#include "tls_self_signed.hpp"

using namespace rateperf;
using namespace rateperf::net;

namespace {

void wait_for(int fd, short events) {
  pollfd p{fd, events, 0};
  ::poll(&p, 1, 100);
}

SocketOptions send_buffer(std::uint32_t bytes) {
  SocketOptions options;
  if (bytes > 0) options.send_bytes = bytes;
  return options;
}

// A client TlsTransport connected to a server SSL of the test's, the handshake not yet begun
// at the server. `server_buffer`, `client_buffer`: the listener's SO_RCVBUF and the client's
// SO_SNDBUF, where given (small ones make the client's sends stop part way).
struct Pair {
  SocketOptions options;
  TlsContext client_context{TlsSettings{}};
  TlsTransport client{options, client_context};
  SSL_CTX* server_ctx = testing::self_signed_server_context("tls.test");
  SSL* server = nullptr;
  int server_fd = -1;

  explicit Pair(int server_buffer = 0, std::uint32_t client_buffer = 0)
      : options(send_buffer(client_buffer)) {
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(server_ctx != nullptr);
    REQUIRE(listener >= 0);
    if (server_buffer > 0) {
      ::setsockopt(listener, SOL_SOCKET, SO_RCVBUF, &server_buffer, sizeof server_buffer);
    }
    Endpoint to;
    auto* in = reinterpret_cast<sockaddr_in*>(&to.address);
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    to.length = sizeof(sockaddr_in);
    REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(in), to.length) == 0);
    REQUIRE(::listen(listener, 1) == 0);
    REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(in), &to.length) == 0);
    REQUIRE(client.connect(to).status != IoStatus::failed);
    server_fd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    ::close(listener);
    REQUIRE(server_fd >= 0);
    server = SSL_new(server_ctx);
    SSL_set_fd(server, server_fd);
    SSL_set_accept_state(server);
  }
  ~Pair() {
    client.close();
    SSL_free(server);
    SSL_CTX_free(server_ctx);
    if (server_fd >= 0) ::close(server_fd);
  }
  Pair(const Pair&) = delete;
  Pair& operator=(const Pair&) = delete;

  // What the server has read of the request so far, appended to `got`.
  void server_reads(std::string& got) {
    char buffer[4096];
    for (;;) {
      const int n = SSL_read(server, buffer, sizeof buffer);
      if (n <= 0) return;
      got.append(buffer, static_cast<std::size_t>(n));
    }
  }

  // The segments with data the server's TCP has received.
  unsigned data_segments_in() const {
    tcp_info info{};
    socklen_t length = sizeof info;
    REQUIRE(::getsockopt(server_fd, IPPROTO_TCP, TCP_INFO, &info, &length) == 0);
    return info.tcpi_data_segs_in;
  }
};

}  // namespace

TEST_SUITE("tls_transport") {
  TEST_CASE("the client's Finished and the first request leave in one segment") {
    Pair pair;
    const std::string request = "GET /ok.txt HTTP/1.1\r\nHost: tls.test\r\n\r\n";
    // As the engine does: the request is written at each edge until it is out; the server
    // answers the handshake in between.
    IoResult wrote;
    bool connected = false;
    std::string got;
    for (int turn = 0; turn < 200 && wrote.status != IoStatus::done; ++turn) {
      SSL_do_handshake(pair.server);
      wrote = pair.client.write(request.data(), request.size(), TimePoint{});
      REQUIRE(wrote.status != IoStatus::failed);
      connected = connected || wrote.connected;
      if (wrote.status != IoStatus::done) wait_for(pair.client.fd(), POLLIN);
    }
    REQUIRE(wrote.status == IoStatus::done);
    CHECK(connected);
    CHECK(wrote.bytes == request.size());
    for (int turn = 0; turn < 200 && got.size() < request.size(); ++turn) {
      SSL_do_handshake(pair.server);
      pair.server_reads(got);
      if (got.size() < request.size()) wait_for(pair.server_fd, POLLIN);
    }
    CHECK(got == request);
    CHECK(std::string(pair.client.protocol()) == "TLSv1.3");
    // The ClientHello, then the Finished with the request: two segments, not three.
    CHECK(pair.data_segments_in() == 2);
  }

  TEST_CASE("a request the socket takes in part goes once and whole, reported when it is out") {
    // The server's receive buffer is small and it reads nothing until the client has written
    // what it could: the held Finished and request stop part way.
    Pair pair(2048, 4096);
    std::string request = "POST /up HTTP/1.1\r\nHost: tls.test\r\nContent-Length: 12000\r\n\r\n";
    request.append(12000, 'x');
    IoResult wrote;
    bool connected = false;
    bool waited = false;
    std::string got;
    for (int turn = 0; turn < 2000 && wrote.status != IoStatus::done; ++turn) {
      if (!pair.client.connected()) SSL_do_handshake(pair.server);
      wrote = pair.client.write(request.data(), request.size(), TimePoint{});
      REQUIRE(wrote.status != IoStatus::failed);
      connected = connected || wrote.connected;
      if (wrote.status == IoStatus::done) break;
      if (pair.client.connected()) {
        // Held bytes wait for room: the server reads, and the client writes the same bytes
        // again, as the engine does at the next write edge.
        waited = true;
        pair.server_reads(got);
      }
      wait_for(pair.client.fd(), pair.client.connected() ? POLLOUT : POLLIN);
    }
    REQUIRE(wrote.status == IoStatus::done);
    CHECK(connected);
    CHECK(waited);
    // SSL_write takes it whole (or in part, as partial writes allow): never more than given.
    CHECK(wrote.bytes <= request.size());
    CHECK(wrote.bytes > 0);
    for (int turn = 0; turn < 2000 && got.size() < wrote.bytes; ++turn) {
      pair.server_reads(got);
      if (got.size() < wrote.bytes) wait_for(pair.server_fd, POLLIN);
    }
    CHECK(got == request.substr(0, wrote.bytes));
  }

  TEST_CASE("a request larger than what is held goes whole after the handshake") {
    Pair pair;
    std::string request = "POST /big HTTP/1.1\r\nHost: tls.test\r\nContent-Length: 40000\r\n\r\n";
    request.append(40000, 'y');
    std::size_t written = 0;
    std::string got;
    for (int turn = 0; turn < 2000 && (written < request.size() || got.size() < request.size());
         ++turn) {
      SSL_do_handshake(pair.server);
      if (written < request.size()) {
        const IoResult wrote =
            pair.client.write(request.data() + written, request.size() - written, TimePoint{});
        REQUIRE(wrote.status != IoStatus::failed);
        if (wrote.status == IoStatus::done) written += wrote.bytes;
      }
      pair.server_reads(got);
      if (got.size() < request.size()) wait_for(pair.server_fd, POLLIN);
    }
    CHECK(written == request.size());
    CHECK(got == request);
  }
}
