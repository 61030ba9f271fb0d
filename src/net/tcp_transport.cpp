#include "net/tcp_transport.hpp"

#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "net/addresses.hpp"

namespace rateperf::net {

namespace {

IoResult failed(int error) {
  IoResult result;
  result.status = IoStatus::failed;
  result.error = error;
  return result;
}

// Room for the control messages of a timestamped read or error-queue message: the timestamps
// and, from the error queue, the extended error that carries the send's key.
constexpr std::size_t kControlBytes =
    CMSG_SPACE(sizeof(scm_timestamping)) + CMSG_SPACE(sizeof(sock_extended_err)) + 64;

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
    start_stamping();
    IoResult result;
    result.status = IoStatus::done;
    result.connected = true;
    return result;
  }
  if (errno != EINPROGRESS) return failed(errno);
  start_stamping();
  return IoResult{};  // again
}

void TcpTransport::start_stamping() {
  stamping_ = false;
  sent_bytes_ = 0;
  if (options_.kernel_clock == nullptr) return;
  // After connect() has started, so that OPT_ID numbers the sends from the first data byte
  // (the kernel refuses it on a TCP socket not yet connecting). TSONLY: the error queue gives
  // back the timestamp alone, not a copy of the packet.
  const unsigned flags = kSoftwareTimestamps | SOF_TIMESTAMPING_OPT_ID;
  stamping_ = ::setsockopt(fd_, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags) == 0;
}

TimePoint TcpTransport::collect_transmit_stamps() {
  // A few at most: one per send since the last look.
  for (int i = 0; i < 16; ++i) {
    alignas(cmsghdr) char control[kControlBytes];
    msghdr message{};
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    if (::recvmsg(fd_, &message, MSG_ERRQUEUE) < 0) break;  // EAGAIN: none (yet)
    timespec stamp{};
    const bool stamped = software_timestamp(message, stamp);
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
      const bool error = (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
                         (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR);
      if (!error) continue;
      sock_extended_err extended{};
      std::memcpy(&extended, CMSG_DATA(c), sizeof extended);
      if (stamped && extended.ee_origin == SO_EE_ORIGIN_TIMESTAMPING &&
          extended.ee_info == SCM_TSTAMP_SND && extended.ee_data == sent_bytes_ - 1) {
        stamp_pending_ = false;
        return options_.kernel_clock->to_steady(stamp);
      }
    }
  }
  return TimePoint{};
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
      if (stamping_ && n > 0) {
        sent_bytes_ += static_cast<std::uint32_t>(n);
        stamp_pending_ = true;
        result.kernel_at = collect_transmit_stamps();
      }
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
  // A transmit timestamp that came after its send() returned (a packet held back by the
  // congestion window, or a device that stamps late) is taken off the error queue, which would
  // otherwise fill with them; too late to time its request.
  if (stamp_pending_) collect_transmit_stamps();
  for (;;) {
    IoResult result;
    result.at = now;
    ssize_t n = 0;
    if (stamping_) {
      iovec bytes{buffer, capacity};
      alignas(cmsghdr) char control[kControlBytes];
      msghdr message{};
      message.msg_iov = &bytes;
      message.msg_iovlen = 1;
      message.msg_control = control;
      message.msg_controllen = sizeof control;
      n = ::recvmsg(fd_, &message, 0);
      timespec stamp{};
      if (n > 0 && software_timestamp(message, stamp)) {
        result.kernel_at = options_.kernel_clock->to_steady(stamp);
      }
    } else {
      n = ::read(fd_, buffer, capacity);
    }
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

IoResult TcpTransport::read_first_apart(char* buffer, std::size_t capacity, TimePoint now) {
  if (!stamping_ || capacity < 2) return read(buffer, capacity, now);
  if (stamp_pending_) collect_transmit_stamps();
  iovec parts[2] = {{buffer, 1}, {buffer + 1, capacity - 1}};
  alignas(cmsghdr) char control[2][kControlBytes];
  mmsghdr messages[2]{};
  for (int k = 0; k < 2; ++k) {
    messages[k].msg_hdr.msg_iov = &parts[k];
    messages[k].msg_hdr.msg_iovlen = 1;
    messages[k].msg_hdr.msg_control = control[k];
    messages[k].msg_hdr.msg_controllen = sizeof control[k];
  }
  int got = 0;
  do {
    got = ::recvmmsg(fd_, messages, 2, 0, nullptr);
  } while (got < 0 && errno == EINTR);
  IoResult result;
  result.at = now;
  if (got < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return result;
    return failed(errno);
  }
  // A stream's recvmsg() that returns 0 (the end of stream) counts as a message: a first
  // message of no byte is the end. After the first byte, an error of the second read is the
  // socket's pending error, which the next read reports; EAGAIN ends the call at one message.
  if (messages[0].msg_len == 0) {
    result.status = IoStatus::closed;
    return result;
  }
  timespec stamp{};
  if (software_timestamp(messages[0].msg_hdr, stamp)) {
    result.first_kernel_at = options_.kernel_clock->to_steady(stamp);
  }
  result.status = IoStatus::done;
  result.first_bytes = 1;
  result.bytes = 1;
  result.kernel_at = result.first_kernel_at;
  if (got == 2 && messages[1].msg_len > 0) {
    result.bytes += messages[1].msg_len;
    result.kernel_at = software_timestamp(messages[1].msg_hdr, stamp)
                           ? options_.kernel_clock->to_steady(stamp)
                           : TimePoint{};
  }
  return result;
}

void TcpTransport::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  connected_ = false;
  stamping_ = false;
  stamp_pending_ = false;
}

}  // namespace rateperf::net
