#include "net/tls.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509_vfy.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <stdexcept>

namespace rateperf::net {

namespace {

// OpenSSL's reason for the last error of this thread, and the queue emptied.
std::string openssl_reason() {
  const unsigned long code = ERR_peek_last_error();
  char text[256] = "unknown reason";
  if (code != 0) ERR_error_string_n(code, text, sizeof text);
  ERR_clear_error();
  return text;
}

bool is_address(const std::string& name) {
  unsigned char buffer[sizeof(in6_addr)];
  return inet_pton(AF_INET, name.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, name.c_str(), buffer) == 1;
}

IoResult failed_with(int error) {
  IoResult result;
  result.status = IoStatus::failed;
  result.error = error;
  return result;
}

// Makes the client context of `settings`; throws std::runtime_error with the reason.
SSL_CTX* make_context(const TlsSettings& settings) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr) throw std::runtime_error("TLS: cannot make a context: " + openssl_reason());
  const auto refuse = [ctx](const std::string& what) {
    SSL_CTX_free(ctx);
    throw std::runtime_error(what);
  };
  if (settings.min_version != 0 && SSL_CTX_set_min_proto_version(ctx, settings.min_version) != 1) {
    refuse("--ssl-protocol: " + openssl_reason());
  }
  if (settings.max_version != 0 && SSL_CTX_set_max_proto_version(ctx, settings.max_version) != 1) {
    refuse("--ssl-protocol: " + openssl_reason());
  }
  if (SSL_CTX_set_cipher_list(
          ctx, settings.ciphers.empty() ? kDefaultCiphers : settings.ciphers.c_str()) != 1) {
    refuse("--ssl-ciphers: no cipher of '" + settings.ciphers + "' is known: " + openssl_reason());
  }
  // No list given: the browsers' order (and h2load's and curl's), AES-128-GCM first. OpenSSL's
  // own default puts AES-256-GCM first, which costs a server and the client more per record
  // and per handshake key schedule than the suite every browser offers first.
  const std::string& suites =
      settings.ciphersuites.empty() ? std::string(kDefaultCiphersuites) : settings.ciphersuites;
  if (SSL_CTX_set_ciphersuites(ctx, suites.c_str()) != 1) {
    refuse("--tls-ciphersuites: no suite of '" + suites +
           "' is known: " + openssl_reason());
  }
  if (settings.verify) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    if (!settings.ca_file.empty()) {
      if (SSL_CTX_load_verify_locations(ctx, settings.ca_file.c_str(), nullptr) != 1) {
        refuse("--ssl-ca-file: cannot use '" + settings.ca_file + "': " + openssl_reason());
      }
    } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
      refuse("--ssl-verify: cannot load the system's CA certificates: " + openssl_reason());
    }
  }
  // A peer that closes without close_notify ends the stream, as a TCP close does (servers do
  // it all the time).
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                            SSL_MODE_RELEASE_BUFFERS);
  // Read ahead: a read takes whatever the socket holds (a server's whole flight of handshake
  // records, a reply's records) into OpenSSL's buffer, not each record's 5-byte header and then
  // its body. TlsTransport::read reads until OpenSSL wants the socket again, so nothing stays
  // buffered without an edge to announce it.
  SSL_CTX_set_read_ahead(ctx, 1);
  return ctx;
}

// send() without SIGPIPE, again when a signal interrupted it.
ssize_t send_some(int fd, const char* data, std::size_t length) {
  for (;;) {
    const ssize_t n = ::send(fd, data, length, MSG_NOSIGNAL);
    if (n >= 0 || errno != EINTR) return n;
  }
}

// HeldSocket's BIO: reads and writes the socket as OpenSSL's socket BIO does, but keeps what
// is written while the socket is holding.
int held_write(BIO* bio, const char* data, int length) {
  auto& socket = *static_cast<HeldSocket*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  if (socket.holding) {
    socket.bytes.append(data, static_cast<std::size_t>(length));
    return length;
  }
  // What was held and not yet sent goes first: the stream's bytes stay in order.
  if (!socket.send_held()) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_write(bio);
    return -1;
  }
  const ssize_t n = send_some(socket.fd, data, static_cast<std::size_t>(length));
  if (n >= 0) return static_cast<int>(n);
  if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_write(bio);
  return -1;
}

int held_read(BIO* bio, char* buffer, int capacity) {
  auto& socket = *static_cast<HeldSocket*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  if (socket.drained) {
    BIO_set_retry_read(bio);
    return -1;
  }
  for (;;) {
    const ssize_t n = ::recv(socket.fd, buffer, static_cast<std::size_t>(capacity), 0);
    if (n > 0) {
      // A stream read that took less than asked took all there was, but for a close (or reset)
      // that came with the bytes: the next read finds it.
      socket.drained = n < capacity && !socket.hangup;
      return static_cast<int>(n);
    }
    if (n == 0) {
      socket.eof = true;
      return 0;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      socket.drained = true;
      BIO_set_retry_read(bio);
    }
    return -1;
  }
}

long held_ctrl(BIO* bio, int command, long, void* pointer) {
  const auto& socket = *static_cast<const HeldSocket*>(BIO_get_data(bio));
  switch (command) {
    case BIO_CTRL_FLUSH:
      return 1;  // nothing buffered below OpenSSL but what is held, sent by its holder
    case BIO_CTRL_EOF:
      return socket.eof ? 1 : 0;
    case BIO_CTRL_WPENDING:
      return static_cast<long>(socket.bytes.size() - socket.sent);
    case BIO_C_GET_FD:
      if (pointer != nullptr) *static_cast<int*>(pointer) = socket.fd;
      return socket.fd;
    default:
      return 0;
  }
}

BIO_METHOD* held_method() {
  static BIO_METHOD* const method = [] {
    BIO_METHOD* made = BIO_meth_new(
        BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "rateperf held socket");
    if (made != nullptr) {
      BIO_meth_set_write(made, held_write);
      BIO_meth_set_read(made, held_read);
      BIO_meth_set_ctrl(made, held_ctrl);
    }
    return made;
  }();
  return method;
}

// The most TlsTransport::write holds of the first request beside the handshake's last flight:
// a larger one goes in sends of its own.
constexpr std::size_t kHoldMost = 16384;

}  // namespace

bool HeldSocket::send_held() {
  while (sent < bytes.size()) {
    const ssize_t n = send_some(fd, bytes.data() + sent, bytes.size() - sent);
    if (n < 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  bytes.clear();
  sent = 0;
  return true;
}

std::string check_tls_settings(const TlsSettings& settings) {
  SSL_CTX* ctx = nullptr;
  try {
    ctx = make_context(settings);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  std::string problem;
  if (!settings.ca_file.empty()) {
    // A file OpenSSL reads without a certificate in it is no CA file either. Without
    // --ssl-verify the context has not loaded it: loaded here, on the same throwaway context.
    const bool loaded =
        settings.verify ||
        SSL_CTX_load_verify_locations(ctx, settings.ca_file.c_str(), nullptr) == 1;
    STACK_OF(X509_OBJECT)* objects = X509_STORE_get0_objects(SSL_CTX_get_cert_store(ctx));
    if (!loaded || objects == nullptr || sk_X509_OBJECT_num(objects) == 0) {
      problem = "--ssl-ca-file: '" + settings.ca_file + "' holds no certificate";
    }
    ERR_clear_error();
  }
  SSL_CTX_free(ctx);
  return problem;
}

TlsContext::TlsContext(const TlsSettings& settings)
    : settings_(settings),
      sni_(settings.server_name.empty() || is_address(settings.server_name) ? ""
                                                                            : settings.server_name),
      ctx_(make_context(settings)) {
  // The client keeps its session itself (the newest one; see the class).
  SSL_CTX_set_session_cache_mode(ctx_, SSL_SESS_CACHE_OFF);
  if (!settings_.reuse_sessions) SSL_CTX_set_options(ctx_, SSL_OP_NO_TICKET);
}

TlsContext::~TlsContext() {
  if (session_ != nullptr) SSL_SESSION_free(session_);
  SSL_CTX_free(ctx_);
}

void TlsContext::keep(SSL_SESSION* session) {
  if (!settings_.reuse_sessions || session == nullptr || session == session_ ||
      SSL_SESSION_is_resumable(session) != 1) {
    return;
  }
  SSL_SESSION_up_ref(session);
  if (session_ != nullptr) SSL_SESSION_free(session_);
  session_ = session;
}

SSL* TlsContext::open(BIO* bio) {
  if (bio == nullptr) return nullptr;
  SSL* ssl = SSL_new(ctx_);
  if (ssl == nullptr) {
    BIO_free(bio);
    return nullptr;
  }
  SSL_set_bio(ssl, bio, bio);  // one reference, for reading and writing
  const std::string& name = settings_.server_name;
  if (settings_.verify && !name.empty()) SSL_set1_host(ssl, name.c_str());
  prepare(ssl);
  return ssl;
}

bool TlsContext::reopen(SSL* ssl) {
  if (SSL_clear(ssl) != 1) return false;
  prepare(ssl);
  return true;
}

void TlsContext::prepare(SSL* ssl) const {
  SSL_set_connect_state(ssl);
  if (!sni_.empty()) SSL_set_tlsext_host_name(ssl, sni_.c_str());
  // The session to offer, or none (SSL_clear keeps the last connection's).
  SSL_set_session(ssl, settings_.reuse_sessions ? session_ : nullptr);
}

TlsTransport::~TlsTransport() {
  close();
  SSL_free(spare_);
}

IoResult TlsTransport::connect(const Endpoint& to) {
  done_ = false;
  hello_sent_ = false;
  IoResult opened = tcp_.connect(to);
  if (opened.status == IoStatus::failed) return opened;
  socket_ = HeldSocket{};
  socket_.fd = tcp_.fd();
  accepted_ = 0;
  if (spare_ != nullptr && context_.reopen(spare_)) {
    ssl_ = spare_;
    spare_ = nullptr;
  } else {
    SSL_free(spare_);
    spare_ = nullptr;
    BIO_METHOD* const method = held_method();
    BIO* bio = method != nullptr ? BIO_new(method) : nullptr;
    if (bio != nullptr) {
      BIO_set_data(bio, &socket_);
      BIO_set_init(bio, 1);
    }
    ssl_ = context_.open(bio);
  }
  if (ssl_ == nullptr) return failed_with(kTlsHandshakeFailed);
  offered_ = SSL_get1_session(ssl_);  // the context's own (or none): nothing new
  // The handshake starts now: on loopback the TCP handshake is often over already, and a server
  // on another core can even answer before this call returns (connected at once).
  return handshake(Clock::now());
}

IoResult TlsTransport::handshake(TimePoint now) {
  ERR_clear_error();
  const int ret = SSL_do_handshake(ssl_);
  if (ret == 1) {
    done_ = true;
    offer_session();
    // From the ClientHello (written in this call, at `now`, if not in an earlier one) to now: a
    // server on another core can answer within the call that wrote it.
    const TimePoint end = Clock::now();
    IoResult result;
    result.status = IoStatus::done;
    result.connected = true;
    result.handshake = end - (hello_sent_ ? hello_at_ : now);
    result.resumed = SSL_session_reused(ssl_) == 1;
    result.at = end;
    return result;
  }
  const int error = SSL_get_error(ssl_, ret);
  if (error == SSL_ERROR_WANT_READ) {
    // The ClientHello went out in this call (the TCP handshake is over): the TLS handshake's
    // time starts.
    if (!hello_sent_) {
      hello_sent_ = true;
      hello_at_ = now;
    }
    return IoResult{};
  }
  if (error == SSL_ERROR_WANT_WRITE) return IoResult{};
  return failure(error, ret);
}

void TlsTransport::offer_session() {
  SSL_SESSION* const session = SSL_get0_session(ssl_);
  if (session == offered_) return;
  SSL_SESSION_free(offered_);
  offered_ = session;
  if (offered_ != nullptr) SSL_SESSION_up_ref(offered_);
  context_.keep(session);
}

IoResult TlsTransport::failure(int ssl_error, int ret) {
  if (ssl_error == SSL_ERROR_SYSCALL) {
    const int err = errno;
    ERR_clear_error();
    // A failed TCP connect, or a reset, shows here as its errno; an end of stream in the
    // handshake is the server's refusal.
    if (ret < 0 && err != 0) return failed_with(err);
    return failed_with(done_ ? ECONNRESET : kTlsHandshakeFailed);
  }
  if (ssl_error == SSL_ERROR_ZERO_RETURN) {
    // The end of the stream (close_notify, or none): in the handshake, the server's refusal.
    ERR_clear_error();
    return failed_with(done_ ? ECONNRESET : kTlsHandshakeFailed);
  }
  const unsigned long code = ERR_peek_last_error();
  ERR_clear_error();
  if (!done_ && SSL_get_verify_result(ssl_) != X509_V_OK) return failed_with(kTlsCertificateRejected);
  // A fatal alert from the server (reasons from 1000 up are alerts received, as OpenSSL
  // numbers them).
  if (ERR_GET_LIB(code) == ERR_LIB_SSL && ERR_GET_REASON(code) >= SSL_AD_REASON_OFFSET) {
    return failed_with(kTlsAlert);
  }
  return failed_with(done_ ? ECONNRESET : kTlsHandshakeFailed);
}

IoResult TlsTransport::finish_connect() {
  if (done_) {
    IoResult result;
    result.status = IoStatus::done;
    return result;
  }
  return handshake(Clock::now());
}

IoResult TlsTransport::release() {
  socket_.holding = false;
  IoResult result;
  if (socket_.send_held()) {
    result.status = IoStatus::done;
  } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
    result = failed_with(errno);
  }
  return result;
}

IoResult TlsTransport::write(const char* data, std::size_t length, TimePoint now) {
  // What an earlier write held and could not wholly send goes first; the caller's bytes that
  // SSL_write took then are reported written once they are out.
  if (socket_.sent < socket_.bytes.size()) {
    IoResult rest = release();
    if (rest.status != IoStatus::done) return rest;
  }
  IoResult result;
  result.at = now;
  if (accepted_ > 0) {
    result.status = IoStatus::done;
    result.bytes = accepted_;
    accepted_ = 0;
    return result;
  }
  IoResult shook;
  if (!done_) {
    // The handshake may end here: its last flight is held, for one send() with the request.
    socket_.holding = true;
    shook = handshake(now);
    if (shook.status != IoStatus::done || length > kHoldMost) {
      const IoResult sent = release();
      if (shook.status != IoStatus::done) return shook;
      if (sent.status == IoStatus::failed) {
        IoResult bad = sent;
        bad.connected = shook.connected;
        return bad;
      }
    }
  }
  ERR_clear_error();
  const int n = SSL_write(ssl_, data, static_cast<int>(std::min<std::size_t>(length, INT_MAX)));
  result.connected = shook.connected;
  result.handshake = shook.handshake;
  result.resumed = shook.resumed;
  if (socket_.holding) {
    // The last flight and the request (SSL_write's own error, if any, decides below).
    const IoResult sent = release();
    if (n > 0 && sent.status == IoStatus::failed) {
      IoResult bad = sent;
      bad.connected = shook.connected;
      return bad;
    }
    if (n > 0 && sent.status != IoStatus::done) {
      // Part of it is still held: the next write sends the rest and reports these bytes.
      accepted_ = static_cast<std::size_t>(n);
      result.status = IoStatus::again;
      return result;
    }
  }
  if (n > 0) {
    result.status = IoStatus::done;
    result.bytes = static_cast<std::size_t>(n);
    return result;
  }
  const int error = SSL_get_error(ssl_, n);
  if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
    result.status = IoStatus::again;
    return result;
  }
  IoResult bad = failure(error, n);
  bad.connected = shook.connected;
  return bad;
}

IoResult TlsTransport::read(char* buffer, std::size_t capacity, TimePoint now) {
  IoResult result;
  result.at = now;
  if (!done_) {
    result = handshake(now);
    if (result.status != IoStatus::done) return result;
  }
  // Record by record until OpenSSL wants more from the socket (which is then empty) or the
  // buffer is full. A TLS 1.3 ticket comes in among them: its session is offered at the end.
  std::size_t got = 0;
  struct Offer {
    TlsTransport& self;
    ~Offer() { self.offer_session(); }
  } offer{*this};
  while (got < capacity) {
    ERR_clear_error();
    const int n = SSL_read(ssl_, buffer + got, static_cast<int>(capacity - got));
    if (n > 0) {
      got += static_cast<std::size_t>(n);
      continue;
    }
    const int error = SSL_get_error(ssl_, n);
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) break;
    if (got > 0) break;  // the bytes first; the end or the error again at the next read
    if (error == SSL_ERROR_ZERO_RETURN) {  // close_notify, or the end of the stream
      ERR_clear_error();
      result.status = IoStatus::closed;
      return result;
    }
    if (error == SSL_ERROR_SYSCALL && errno == 0) {
      result.status = IoStatus::closed;
      return result;
    }
    IoResult bad = failure(error, n);
    bad.connected = result.connected;
    bad.at = now;
    return bad;
  }
  result.status = got > 0 ? IoStatus::done : IoStatus::again;
  result.bytes = got;
  return result;
}

void TlsTransport::close() {
  if (ssl_ != nullptr) {
    // No close_notify written (a benchmark's close is the TCP one), yet the session stays
    // resumable: marked as shut down both ways.
    SSL_set_shutdown(ssl_, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
    SSL_free(spare_);
    spare_ = ssl_;
    ssl_ = nullptr;
  }
  SSL_SESSION_free(offered_);
  offered_ = nullptr;
  tcp_.close();
  socket_ = HeldSocket{};
  accepted_ = 0;
  done_ = false;
}

const char* TlsTransport::protocol() const {
  return ssl_ != nullptr && done_ ? SSL_get_version(ssl_) : "";
}

const char* TlsTransport::cipher() const {
  return ssl_ != nullptr && done_ ? SSL_get_cipher_name(ssl_) : "";
}

}  // namespace rateperf::net
