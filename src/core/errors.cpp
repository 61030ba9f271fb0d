#include "core/errors.hpp"

namespace rateperf {

std::string_view error_label(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::client_timo:
      return "client-timo";
    case ErrorKind::socket_timo:
      return "socket-timo";
    case ErrorKind::connrefused:
      return "connrefused";
    case ErrorKind::connreset:
      return "connreset";
    case ErrorKind::fd_unavail:
      return "fd-unavail";
    case ErrorKind::addrunavail:
      return "addrunavail";
    case ErrorKind::ftab_full:
      return "ftab-full";
    case ErrorKind::other:
      return "other";
    case ErrorKind::parse_status:
      return "parse-status";
    case ErrorKind::parse_header:
      return "parse-header";
    case ErrorKind::parse_chunk:
      return "parse-chunk";
    case ErrorKind::parse_other:
      return "parse-other";
    case ErrorKind::unanswered:
      return "unanswered";
    case ErrorKind::tls_handshake:
      return "tls-handshake";
    case ErrorKind::tls_certificate:
      return "tls-cert";
    case ErrorKind::tls_alert:
      return "tls-alert";
    case ErrorKind::count_:
      break;
  }
  return "other";
}

}  // namespace rateperf
