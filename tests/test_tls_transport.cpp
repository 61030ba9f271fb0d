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

// A TLS listener of the test's on a free port of 127.0.0.1, with its server context (tickets
// on, OpenSSL's default: two after a full handshake, one after a resumed one).
// `receive_buffer`: the listener's SO_RCVBUF, where given.
struct Listener {
  SSL_CTX* ctx = testing::self_signed_server_context("tls.test");
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  Endpoint to;

  explicit Listener(int receive_buffer = 0) {
    REQUIRE(ctx != nullptr);
    REQUIRE(fd >= 0);
    if (receive_buffer > 0) {
      ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    }
    auto* in = reinterpret_cast<sockaddr_in*>(&to.address);
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    to.length = sizeof(sockaddr_in);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(in), to.length) == 0);
    REQUIRE(::listen(fd, 8) == 0);
    REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(in), &to.length) == 0);
  }
  ~Listener() {
    ::close(fd);
    SSL_CTX_free(ctx);
  }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
};

// A client TlsTransport on `context` connected to `listener`, and the server's SSL for it, the
// handshake not yet begun at the server. `client_buffer`: the client's SO_SNDBUF, where given
// (a small one, with a small receive buffer at the listener, makes the client's sends stop
// part way).
struct Pair {
  SocketOptions options;
  TlsTransport client;
  SSL* server = nullptr;
  int server_fd = -1;

  Pair(Listener& listener, TlsContext& context, std::uint32_t client_buffer = 0)
      : options(send_buffer(client_buffer)), client(options, context) {
    REQUIRE(client.connect(listener.to).status != IoStatus::failed);
    server_fd = ::accept4(listener.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    REQUIRE(server_fd >= 0);
    server = SSL_new(listener.ctx);
    SSL_set_fd(server, server_fd);
    SSL_set_accept_state(server);
  }
  ~Pair() {
    client.close();
    SSL_free(server);
    if (server_fd >= 0) ::close(server_fd);
  }
  Pair(const Pair&) = delete;
  Pair& operator=(const Pair&) = delete;

  // Waits until the client's socket is readable, and tells the client so, as the engine does
  // at a read edge.
  void await_read() {
    wait_for(client.fd(), POLLIN);
    client.readable(false);
  }

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

// One connection to a listener of its own, on a client context of its own.
struct Lone {
  Listener listener;
  TlsContext context{TlsSettings{}};
  Pair pair;
  explicit Lone(int server_buffer = 0, std::uint32_t client_buffer = 0)
      : listener(server_buffer), pair(listener, context, client_buffer) {}
};

const std::string kRequest = "GET /ok.txt HTTP/1.1\r\nHost: tls.test\r\n\r\n";
const std::string kResponse = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n";

// The client writes kRequest as the engine does, at each edge until it is out, the server
// answering the handshake in between; returns the write that took it, with the handshake's
// outcome (connected, resumed) from whichever write completed it.
IoResult send_request(Pair& pair) {
  IoResult wrote;
  IoResult shook;
  for (int turn = 0; turn < 200 && wrote.status != IoStatus::done; ++turn) {
    SSL_do_handshake(pair.server);
    wrote = pair.client.write(kRequest.data(), kRequest.size(), TimePoint{});
    REQUIRE(wrote.status != IoStatus::failed);
    if (wrote.connected) shook = wrote;
    if (wrote.status != IoStatus::done) {
      pair.await_read();
    }
  }
  REQUIRE(wrote.status == IoStatus::done);
  wrote.connected = shook.connected;
  wrote.resumed = shook.resumed;
  return wrote;
}

// The server ends its handshake (and sends its tickets) and reads kRequest whole.
void server_receives(Pair& pair) {
  std::string got;
  for (int turn = 0; turn < 200 && got.size() < kRequest.size(); ++turn) {
    SSL_do_handshake(pair.server);
    pair.server_reads(got);
    if (got.size() < kRequest.size()) wait_for(pair.server_fd, POLLIN);
  }
  REQUIRE(got == kRequest);
}

// The client reads until the server's bytes are all in and the stream has ended (closed) or
// `want` bytes are in; returns what it read.
std::string client_reads(Pair& pair, std::size_t want, IoStatus* last = nullptr) {
  std::string got;
  char buffer[4096];
  IoResult read;
  for (int turn = 0; turn < 200; ++turn) {
    read = pair.client.read(buffer, sizeof buffer, TimePoint{});
    if (read.status == IoStatus::done) got.append(buffer, read.bytes);
    if (read.status == IoStatus::failed || read.status == IoStatus::closed) break;
    if (last == nullptr && got.size() >= want) break;
    if (read.status == IoStatus::again) {
      pair.await_read();
    }
  }
  if (last != nullptr) *last = read.status;
  return got;
}

// One whole exchange on `pair`: request, response, both read; returns the client's handshake.
IoResult exchange(Pair& pair) {
  const IoResult shook = send_request(pair);
  server_receives(pair);
  REQUIRE(SSL_write(pair.server, kResponse.data(), static_cast<int>(kResponse.size())) > 0);
  CHECK(client_reads(pair, kResponse.size()) == kResponse);
  return shook;
}

}  // namespace

TEST_SUITE("tls_transport") {
  TEST_CASE("the client's Finished and the first request leave in one segment") {
    Lone lone;
    Pair& pair = lone.pair;
    const IoResult wrote = send_request(pair);
    CHECK(wrote.connected);
    CHECK(wrote.bytes == kRequest.size());
    server_receives(pair);
    CHECK(std::string(pair.client.protocol()) == "TLSv1.3");
    // The ClientHello, then the Finished with the request: two segments, not three.
    CHECK(pair.data_segments_in() == 2);
  }

  TEST_CASE("a request the socket takes in part goes once and whole, reported when it is out") {
    // The server's receive buffer is small and it reads nothing until the client has written
    // what it could: the held Finished and request stop part way.
    Lone lone(2048, 4096);
    Pair& pair = lone.pair;
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
      pair.client.readable(false);
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
    Lone lone;
    Pair& pair = lone.pair;
    std::string request = "POST /big HTTP/1.1\r\nHost: tls.test\r\nContent-Length: 40000\r\n\r\n";
    request.append(40000, 'y');
    std::size_t written = 0;
    std::string got;
    for (int turn = 0; turn < 2000 && (written < request.size() || got.size() < request.size());
         ++turn) {
      SSL_do_handshake(pair.server);
      pair.client.readable(false);  // the server's answer may have come: as at a read edge
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

  TEST_CASE("a connection opened while another's resumed handshake awaits its ticket resumes") {
    // OpenSSL's client session cache would mark a TLS 1.3 session spent when a connection
    // resumes it, and every connection opened before that one's own ticket came would make a
    // full handshake.
    Listener listener;
    TlsContext context{TlsSettings{}};
    {
      Pair first(listener, context);
      CHECK_FALSE(exchange(first).resumed);
    }
    Pair second(listener, context);
    CHECK(send_request(second).resumed);
    server_receives(second);  // its handshake over at both ends; its ticket unread
    Pair third(listener, context);
    CHECK(exchange(third).resumed);
  }

  TEST_CASE("two tickets, the reply and a close without close_notify in one read: it resumes") {
    // A full handshake's two tickets replace the session twice in one read (the second copy
    // can take the first one's freed address), and the close without close_notify is the end
    // of the stream, no error: the next connection resumes the newest session.
    Listener listener;
    TlsContext context{TlsSettings{}};
    {
      Pair first(listener, context);
      CHECK_FALSE(send_request(first).resumed);
      server_receives(first);
      // The tickets, the response and the TCP close, all there before the client reads.
      REQUIRE(SSL_write(first.server, kResponse.data(), static_cast<int>(kResponse.size())) > 0);
      REQUIRE(::shutdown(first.server_fd, SHUT_WR) == 0);
      wait_for(first.client.fd(), POLLRDHUP);
      // One edge, which reports the close with the bytes (EV_CLOSED), as the engine has it:
      // the bytes, then the end, with no edge in between (none would come).
      first.client.readable(true);
      char buffer[4096];
      const IoResult read = first.client.read(buffer, sizeof buffer, TimePoint{});
      REQUIRE(read.status == IoStatus::done);
      CHECK(std::string(buffer, read.bytes) == kResponse);
      CHECK(first.client.read(buffer, sizeof buffer, TimePoint{}).status == IoStatus::closed);
    }
    Pair second(listener, context);
    CHECK(exchange(second).resumed);
  }

  TEST_CASE("a server that ends the stream in the handshake: a handshake failure") {
    Lone lone;
    Pair& pair = lone.pair;
    REQUIRE(::shutdown(pair.server_fd, SHUT_WR) == 0);  // no TLS at all, a FIN
    IoResult wrote;
    for (int turn = 0; turn < 200 && wrote.status == IoStatus::again; ++turn) {
      wrote = pair.client.write(kRequest.data(), kRequest.size(), TimePoint{});
      if (wrote.status == IoStatus::again) {
        pair.await_read();
      }
    }
    CHECK(wrote.status == IoStatus::failed);
    CHECK(wrote.error == kTlsHandshakeFailed);
  }

  TEST_CASE("once a read has drained the socket, reads wait for a read edge to look again") {
    Lone lone;
    Pair& pair = lone.pair;
    send_request(pair);
    server_receives(pair);
    char buffer[4096];
    // The tickets came and were read (or are waiting): read until the socket is drained.
    pair.client.readable(false);
    while (pair.client.read(buffer, sizeof buffer, TimePoint{}).status == IoStatus::done) {
    }
    REQUIRE(SSL_write(pair.server, kResponse.data(), static_cast<int>(kResponse.size())) > 0);
    wait_for(pair.client.fd(), POLLIN);
    // The reply is in the socket, but no read edge was reported: no recv(), nothing read.
    CHECK(pair.client.read(buffer, sizeof buffer, TimePoint{}).status == IoStatus::again);
    // The edge: the reply.
    pair.client.readable(false);
    const IoResult read = pair.client.read(buffer, sizeof buffer, TimePoint{});
    REQUIRE(read.status == IoStatus::done);
    CHECK(std::string(buffer, read.bytes) == kResponse);
  }
}
