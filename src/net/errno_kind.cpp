#include "net/errno_kind.hpp"

#include <cerrno>

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
    default:
      return ErrorKind::other;
  }
}

}  // namespace rateperf::net
