#pragma once

#include <openssl/ssl.h>

#include <string>

#include "net/socket_options.hpp"
#include "net/tcp_transport.hpp"
#include "net/transport.hpp"

namespace rateperf::net {

// Error codes a TLS transport puts in IoResult::error, beside the errno values: each its own
// error kind (error_from_errno).
inline constexpr int kTlsHandshakeFailed = 100001;  // the handshake failed (no alert from the peer)
inline constexpr int kTlsCertificateRejected = 100002;  // --ssl-verify rejected the certificate
inline constexpr int kTlsAlert = 100003;  // the server sent a fatal alert (protocol, version...)

// The TLS 1.3 suites offered when --tls-ciphersuites is not given, in the browsers' order.
inline constexpr const char* kDefaultCiphersuites =
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";
// The TLS 1.2 ciphers offered when --ssl-ciphers is not given: OpenSSL's DEFAULT set (its
// definition, ALL:!COMPLEMENTOFDEFAULT:!eNULL) with ECDHE's AES-128-GCM first, as browsers
// offer it. OpenSSL's own order puts AES-256-GCM-SHA384 first, whose SHA-384 key schedule and
// transcript hash cost the client and the server more a handshake.
inline constexpr const char* kDefaultCiphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ALL:!COMPLEMENTOFDEFAULT:!eNULL";

// What the options ask of TLS, OpenSSL's terms.
struct TlsSettings {
  std::string server_name;   // SNI, and the name verified; empty: none (an address literal)
  int min_version = 0;       // TLS1_2_VERSION...; 0: OpenSSL's defaults
  int max_version = 0;
  std::string ciphers;       // TLS 1.2 and below (SSL_CTX_set_cipher_list); empty: kDefaultCiphers
  std::string ciphersuites;  // TLS 1.3 (SSL_CTX_set_ciphersuites); empty: kDefaultCiphersuites
  bool reuse_sessions = true;  // resume the last session on each new connection
  bool verify = false;         // check the server's certificate chain and name
  std::string ca_file;         // with verify: the CA certificates (PEM); empty: the system's
};

// One worker's TLS client: an SSL_CTX and the last session the server gave, which each new
// connection resumes (unless TlsSettings::reuse_sessions is off). Used on its worker's thread.
// OpenSSL's client session cache stays off: with it, every TLS 1.3 handshake that resumes marks
// the session it used as spent (tickets are single use by RFC 8446's advice, for privacy), and
// the connections that open before that connection's own new ticket arrives, a round trip
// later, all make full handshakes (a fifth of them at 2,500 connections a second). A benchmark
// resumes one ticket on many connections, as h2load and httperf do.
class TlsContext {
 public:
  // Throws std::runtime_error naming what OpenSSL refused (a cipher list, a CA file).
  explicit TlsContext(const TlsSettings& settings);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // A new SSL on `bio` (taking it, freed with the SSL, or here when there is none), client
  // side, with SNI and the session to resume; nullptr when OpenSSL could not make one.
  SSL* open(BIO* bio);
  // `ssl`, made by open() and its connection closed, made ready for the next connection
  // (SSL_clear: no SSL_new's allocations and method lookups): SNI and the session to offer set
  // again; its BIO and --ssl-verify's host name stay. False when OpenSSL cannot clear it: the
  // caller frees it and opens a new one.
  bool reopen(SSL* ssl);
  // The session `ssl` holds now, kept as the one to resume when it is resumable (a TLS 1.3
  // session once its ticket has come, a TLS 1.2 one at the end of its handshake).
  void keep(SSL_SESSION* session);
  const TlsSettings& settings() const { return settings_; }

 private:
  // Client side, SNI, the session to offer: what open() and reopen() both set.
  void prepare(SSL* ssl) const;

  TlsSettings settings_;
  std::string sni_;  // the name sent as SNI: server_name, unless empty or an address literal
  SSL_CTX* ctx_ = nullptr;
  SSL_SESSION* session_ = nullptr;  // the latest session received, owned
};

// Checks the settings before the run, on a throwaway context: returns the one-line reason
// OpenSSL refuses them (an empty cipher list, a CA file that is missing or holds no
// certificate), or an empty string.
std::string check_tls_settings(const TlsSettings& settings);

// The socket under a TlsTransport's SSL, read and written by a BIO of our own: as OpenSSL's
// socket BIO, except that while `holding` it keeps what OpenSSL writes, for one send() at the
// end of TlsTransport::write. So the handshake's last flight (the client's Finished) and the
// first request leave in one segment, not two: one send() the less a connection, and a
// single segment in flight, which TCP probes for a lost tail only after 200 ms (two are
// probed after two round trips and two clock ticks, some 8 ms, and a server that many
// milliseconds behind then gets every request twice).
//
// It also skips the reads that would find nothing: after a read that drained the socket (it
// took less than asked, or found nothing), OpenSSL is told "retry" without a recv() until the
// loop reports the descriptor readable again (TlsTransport::readable). Edge-triggered
// readiness reports every arrival after that read, so nothing is missed; a connection saves
// the recv() calls that found nothing (after the ClientHello, at the connect's write edge, at
// the write edge with the server's answer, after the reply), some 1.5 us each on this machine.
// But a close or a reset that came before the edge was reported stays behind the bytes (a read
// stops short at a FIN) with no edge of its own: after an edge that reported one, only a read
// that finds nothing (or the end) counts as drained.
struct HeldSocket {
  int fd = -1;
  bool holding = false;
  bool drained = true;   // nothing to read until the next read edge (none before a ClientHello)
  bool hangup = false;   // the last read edge reported a close or an error: short reads go on
  bool eof = false;      // a read found the end of stream
  std::string bytes;     // written while holding, not yet sent
  std::size_t sent = 0;  // of `bytes`, sent already (a send() that took part of them)
  // Sends what is held: true when nothing is left; false with errno (EAGAIN or the error).
  bool send_held();
};

// TLS over a TcpTransport, non-blocking: the handshake runs inside the first write or read (or
// finish_connect) and goes on at each readiness edge; "connected" is reported when it completes,
// with its time and whether the session was resumed. A read returns everything OpenSSL can give
// until the socket is drained (or the buffer full), so that a short read still means "nothing
// more for now" as it does for TCP.
class TlsTransport final : public Transport {
 public:
  TlsTransport(const SocketOptions& options, TlsContext& context)
      : tcp_(options), context_(context) {}
  ~TlsTransport() override;
  TlsTransport(const TlsTransport&) = delete;
  TlsTransport& operator=(const TlsTransport&) = delete;

  IoResult connect(const Endpoint& to) override;
  IoResult finish_connect() override;
  IoResult write(const char* data, std::size_t length, TimePoint now) override;
  IoResult read(char* buffer, std::size_t capacity, TimePoint now) override;
  void readable(bool hangup) override {
    socket_.drained = false;
    socket_.hangup = hangup;
  }
  void close() override;

  int fd() const override { return tcp_.fd(); }
  bool connected() const override { return done_; }
  bool options_refused() const override { return tcp_.options_refused(); }
  // A write that waits for the handshake, which waits for the server: the next read edge, not a
  // write edge, lets it go on.
  bool write_waits_for_read() const override { return !done_ && ssl_ != nullptr; }
  const char* protocol() const;  // of the last handshake ("TLSv1.3"), or ""
  const char* cipher() const;

 private:
  // Drives the handshake: done (connected, reported once), again, or failed.
  IoResult handshake(TimePoint now);
  IoResult failure(int ssl_error, int ret);
  // Stops holding and sends what was held: done, again (the rest goes at the next write), or
  // failed.
  IoResult release();
  // Offers the context the session the SSL holds, when it is not the one last offered (OpenSSL
  // replaces it with a copy as each ticket arrives).
  void offer_session();

  TcpTransport tcp_;
  HeldSocket socket_;
  // Bytes of the caller's data that SSL_write took while the socket held them, reported
  // written once the socket has sent them all (a send() that took part of them).
  std::size_t accepted_ = 0;
  TlsContext& context_;
  SSL* ssl_ = nullptr;
  SSL* spare_ = nullptr;  // the last connection's SSL, closed: the next connect() reopens it
  bool done_ = false;
  bool hello_sent_ = false;
  TimePoint hello_at_{};
  // The session last offered, held so that its address is not another's: OpenSSL frees the
  // copy it replaces at each ticket, and a full handshake's two tickets can bring the second
  // copy to the first one's address.
  SSL_SESSION* offered_ = nullptr;
};

}  // namespace rateperf::net
