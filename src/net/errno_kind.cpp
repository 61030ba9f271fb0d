#include "net/errno_kind.hpp"

#include <cerrno>

#include "net/tls.hpp"

namespace rateperf::net {

ErrorKind error_from_errno(int err) {
  switch (err) {
    case ETIMEDOUT:
      return ErrorKind::socket_timo;
    case ECONNREFUSED:
      return ErrorKind::connrefused;
    case ECONNRESET:
    case EPIPE:
      return ErrorKind::connreset;
    case EMFILE:
      return ErrorKind::fd_unavail;
    case EADDRNOTAVAIL:
      return ErrorKind::addrunavail;
    case ENFILE:
      return ErrorKind::ftab_full;
    case kTlsHandshakeFailed:
      return ErrorKind::tls_handshake;
    case kTlsCertificateRejected:
      return ErrorKind::tls_certificate;
    case kTlsAlert:
      return ErrorKind::tls_alert;
    default:
      return ErrorKind::other;
  }
}

}  // namespace rateperf::net
