#include "net/tcp_transport.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "net/addresses.hpp"

namespace rateperf::net {

namespace {

IoResult failed(int error) {
  IoResult result;
  result.status = IoStatus::failed;
  result.error = error;
  return result;
}

}  // namespace

TcpTransport::~TcpTransport() {
  close();
}

IoResult TcpTransport::connect(const Endpoint& to) {
  connected_ = false;
  options_refused_ = false;
  fd_ = ::socket(to.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return failed(errno);
  options_refused_ = !set_socket_options(fd_, options_);
  if (options_.addresses != nullptr) {
    if (const int error = options_.addresses->bind_source(fd_, to.family()); error != 0) {
      return failed(error);
    }
  }
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&to.address), to.length) == 0) {
    connected_ = true;
    IoResult result;
    result.status = IoStatus::done;
    result.connected = true;
    return result;
  }
  if (errno != EINPROGRESS) return failed(errno);
  return IoResult{};  // again
}

IoResult TcpTransport::finish_connect() {
  IoResult result;
  if (connected_) {
    result.status = IoStatus::done;
    return result;
  }
  int error = 0;
  socklen_t length = sizeof error;
  if (::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &length) != 0) return failed(errno);
  if (error != 0) return failed(error);
  connected_ = true;
  result.status = IoStatus::done;
  result.connected = true;
  return result;
}

IoResult TcpTransport::write(const char* data, std::size_t length, TimePoint now) {
  for (;;) {
    const ssize_t n = ::send(fd_, data, length, MSG_NOSIGNAL);
    if (n >= 0) {
      IoResult result;
      result.status = IoStatus::done;
      result.bytes = static_cast<std::size_t>(n);
      result.at = now;
      // Bytes accepted by the kernel prove the handshake complete.
      if (!connected_ && n > 0) {
        connected_ = true;
        result.connected = true;
      }
      return result;
    }
    // Still connecting, or the send buffer is full: the next write edge resumes.
    if (errno == EAGAIN || errno == EWOULDBLOCK) return IoResult{};
    if (errno == EINTR) continue;
    // A failed connect makes the first send fail with the socket's pending error.
    return failed(errno);
  }
}

IoResult TcpTransport::read(char* buffer, std::size_t capacity, TimePoint now) {
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, capacity);
    IoResult result;
    result.at = now;
    if (n > 0) {
      result.status = IoStatus::done;
      result.bytes = static_cast<std::size_t>(n);
      return result;
    }
    if (n == 0) {
      result.status = IoStatus::closed;
      return result;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) return result;
    if (errno == EINTR) continue;
    return failed(errno);
  }
}

void TcpTransport::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  connected_ = false;
}

}  // namespace rateperf::net
