#pragma once

// A TLS server context for tests over loopback: a P-256 key and a certificate for `name`
// signed by itself, valid for a day. nullptr when OpenSSL could not make one. Used by the
// tls_transport suite and by fuzz_tls_records.
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace rateperf::testing {

inline SSL_CTX* self_signed_server_context(const char* name) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  SSL_CTX* ctx = nullptr;
  if (key != nullptr && cert != nullptr) {
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), 0);
    X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
    X509_set_pubkey(cert, key);
    X509_NAME* subject = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>(name), -1, -1, 0);
    X509_set_issuer_name(cert, subject);
    if (X509_sign(cert, key, EVP_sha256()) != 0) ctx = SSL_CTX_new(TLS_server_method());
    if (ctx != nullptr &&
        (SSL_CTX_use_certificate(ctx, cert) != 1 || SSL_CTX_use_PrivateKey(ctx, key) != 1)) {
      SSL_CTX_free(ctx);
      ctx = nullptr;
    }
  }
  X509_free(cert);
  EVP_PKEY_free(key);
  return ctx;
}

}  // namespace rateperf::testing
