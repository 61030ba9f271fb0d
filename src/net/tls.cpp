#include "net/tls.hpp"

#include <openssl/err.h>
#include <openssl/x509_vfy.h>
#include <arpa/inet.h>

#include <cerrno>
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
  if (!settings.ciphers.empty() && SSL_CTX_set_cipher_list(ctx, settings.ciphers.c_str()) != 1) {
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

}  // namespace

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
    : settings_(settings), ctx_(make_context(settings)) {
  SSL_CTX_set_app_data(ctx_, this);
  if (settings_.reuse_sessions) {
    // The client keeps its sessions itself (the newest one): no internal cache to search.
    SSL_CTX_set_session_cache_mode(ctx_, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx_, &TlsContext::on_new_session);
  } else {
    SSL_CTX_set_session_cache_mode(ctx_, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(ctx_, SSL_OP_NO_TICKET);
  }
}

TlsContext::~TlsContext() {
  if (session_ != nullptr) SSL_SESSION_free(session_);
  SSL_CTX_free(ctx_);
}

int TlsContext::on_new_session(SSL* ssl, SSL_SESSION* session) {
  auto* self = static_cast<TlsContext*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
  if (self->session_ != nullptr) SSL_SESSION_free(self->session_);
  self->session_ = session;
  return 1;  // the reference is ours
}

SSL* TlsContext::open(int fd) {
  SSL* ssl = SSL_new(ctx_);
  if (ssl == nullptr) return nullptr;
  if (SSL_set_fd(ssl, fd) != 1) {
    SSL_free(ssl);
    return nullptr;
  }
  SSL_set_connect_state(ssl);
  const std::string& name = settings_.server_name;
  if (!name.empty() && !is_address(name)) SSL_set_tlsext_host_name(ssl, name.c_str());
  if (settings_.verify && !name.empty()) SSL_set1_host(ssl, name.c_str());
  if (settings_.reuse_sessions && session_ != nullptr) SSL_set_session(ssl, session_);
  return ssl;
}

TlsTransport::~TlsTransport() {
  close();
}

IoResult TlsTransport::connect(const Endpoint& to) {
  done_ = false;
  hello_sent_ = false;
  IoResult opened = tcp_.connect(to);
  if (opened.status == IoStatus::failed) return opened;
  ssl_ = context_.open(tcp_.fd());
  if (ssl_ == nullptr) return failed_with(kTlsHandshakeFailed);
  // The handshake starts now: on loopback the TCP handshake is often over already, and a server
  // on another core can even answer before this call returns (connected at once).
  return handshake(Clock::now());
}

IoResult TlsTransport::handshake(TimePoint now) {
  ERR_clear_error();
  const int ret = SSL_do_handshake(ssl_);
  if (ret == 1) {
    done_ = true;
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
    ERR_clear_error();
    return failed_with(ECONNRESET);
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

IoResult TlsTransport::write(const char* data, std::size_t length, TimePoint now) {
  IoResult shook;
  if (!done_) {
    shook = handshake(now);
    if (shook.status != IoStatus::done) return shook;
  }
  ERR_clear_error();
  const int n = SSL_write(ssl_, data, static_cast<int>(length));
  IoResult result;
  result.connected = shook.connected;
  result.handshake = shook.handshake;
  result.resumed = shook.resumed;
  result.at = now;
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
  // buffer is full.
  std::size_t got = 0;
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
    if (error == SSL_ERROR_ZERO_RETURN ||
        (error == SSL_ERROR_SSL &&
         ERR_GET_REASON(ERR_peek_last_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING)) {
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
    SSL_free(ssl_);
    ssl_ = nullptr;
  }
  tcp_.close();
  done_ = false;
}

const char* TlsTransport::protocol() const {
  return ssl_ != nullptr && done_ ? SSL_get_version(ssl_) : "";
}

const char* TlsTransport::cipher() const {
  return ssl_ != nullptr && done_ ? SSL_get_cipher_name(ssl_) : "";
}

}  // namespace rateperf::net
