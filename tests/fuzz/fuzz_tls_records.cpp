// libFuzzer target for replies that come over TLS: the server's bytes of an input (see
// fuzz_input.hpp) go out as TLS records, one record per chunk of the input's cutting, over a
// loopback connection made once; the client end is rateperf's own net::TlsTransport, whose reads
// (each drains what the socket holds, records merged) feed ResponseParser exactly as the engine
// feeds it. It traps when TLS changes a byte or loses one, or when a promise of
// response_parser.hpp breaks for the cutting the reads made. scripts/fuzz builds and runs it
// beside fuzz_response_parser.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../tls_self_signed.hpp"
#include "fuzz_input.hpp"
#include "net/tls.hpp"

namespace {

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "fuzz_tls_records: %s\n", what);
  __builtin_trap();
}

// The server's context: a P-256 key and a certificate signed by itself, made at start.
SSL_CTX* server_context() {
  SSL_CTX* ctx = rateperf::testing::self_signed_server_context("fuzz.test");
  if (ctx == nullptr) die("cannot make the server's context");
  return ctx;
}

void wait_for(int fd, short events) {
  pollfd p{fd, events, 0};
  ::poll(&p, 1, 100);
}

// One TLS connection over loopback, for the whole fuzzing run.
struct Pair {
  rateperf::net::SocketOptions options;
  rateperf::net::TlsContext client_context{rateperf::net::TlsSettings{}};
  rateperf::net::TlsTransport client{options, client_context};
  SSL* server = nullptr;
  int server_fd = -1;

  Pair() {
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    rateperf::net::Endpoint to;
    auto* in = reinterpret_cast<sockaddr_in*>(&to.address);
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    to.length = sizeof(sockaddr_in);
    if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(in), to.length) != 0 ||
        ::listen(listener, 1) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr*>(in), &to.length) != 0) {
      die("cannot listen on loopback");
    }
    if (client.connect(to).status == rateperf::net::IoStatus::failed) die("cannot connect");
    server_fd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    ::close(listener);
    if (server_fd < 0) die("cannot accept");
    server = SSL_new(server_context());
    SSL_set_fd(server, server_fd);
    SSL_set_accept_state(server);
    // Both ends in turn until the handshake is over at both.
    for (int turn = 0; turn < 1000; ++turn) {
      const int accepted = SSL_do_handshake(server);
      const rateperf::net::IoResult shook = client.finish_connect();
      if (shook.status == rateperf::net::IoStatus::failed) die("the client's handshake failed");
      if (accepted == 1 && client.connected()) return;
      wait_for(client.fd(), POLLIN);
      client.readable(false);  // as the engine does at a read edge
    }
    die("the handshake did not end");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Pair pair;
  namespace fuzz = rateperf::fuzz;
  const fuzz::FuzzInput input = fuzz::decode_input(data, size);
  // The server writes each chunk of the input's cutting as one record (at most 16 KB, TLS's
  // largest); after each, the client reads what has come, as the engine does at each edge.
  static std::vector<char> received;
  static std::vector<std::size_t> reads;
  received.clear();
  reads.clear();
  char buffer[64 * 1024];
  std::size_t sent = 0;
  std::size_t chunk = 0;
  const auto read_all = [&](std::size_t until) {
    for (int tries = 0; received.size() < until && tries < 100; ++tries) {
      const rateperf::net::IoResult got =
          pair.client.read(buffer, sizeof buffer, rateperf::TimePoint{});
      if (got.status == rateperf::net::IoStatus::failed ||
          got.status == rateperf::net::IoStatus::closed) {
        die("the client's read failed");
      }
      if (got.bytes > 0) {
        received.insert(received.end(), buffer, buffer + got.bytes);
        reads.push_back(got.bytes);
      } else {
        wait_for(pair.client.fd(), POLLIN);
        pair.client.readable(false);
      }
    }
  };
  while (sent < input.size) {
    std::size_t length = input.size - sent;
    if (input.chunking.one_byte_at_a_time) {
      length = 1;
    } else if (chunk < input.chunking.count && input.chunking.lengths[chunk] < length) {
      length = input.chunking.lengths[chunk];
    }
    ++chunk;
    if (length > 0) {
      if (SSL_write(pair.server, input.bytes + sent, static_cast<int>(length)) !=
          static_cast<int>(length)) {
        die("the server's write failed");
      }
      sent += length;
      read_all(sent);
    }
  }
  if (received.size() != input.size ||
      (input.size > 0 && std::memcmp(received.data(), input.bytes, input.size) != 0)) {
    die("TLS delivered other bytes than the server sent");
  }
  fuzz::Chunking cutting;
  cutting.reads = reads.data();
  cutting.read_count = reads.size();
  if (const char* violation = fuzz::check_cutting(input, cutting)) {
    std::fprintf(stderr, "fuzz_tls_records: %s\n", violation);
    __builtin_trap();
  }
  return 0;
}
