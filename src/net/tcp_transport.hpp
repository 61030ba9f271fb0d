#pragma once

#include "net/socket_options.hpp"
#include "net/transport.hpp"

namespace rateperf::net {

// Plain TCP. "Connected" is learnt without a getsockopt(SO_ERROR) per connection: the first
// write that moves bytes proves the handshake complete, and a failed handshake makes the first
// write (or read) fail with the socket's pending error. Only a connection opened with nothing
// to write asks the socket (finish_connect).
//
// With SocketOptions::kernel_clock, each socket asks for software timestamps once connect() has
// started (SO_TIMESTAMPING: receive, and transmit with SOF_TIMESTAMPING_OPT_ID, which numbers a
// send's timestamp by the stream offset of its last byte). A read is then a recvmsg() whose
// control message carries the time the last segment it read came in; a write reads the error
// queue for its own transmit timestamp, which the kernel queues during send() when the packet
// leaves at once (always on loopback). A socket the kernel refused timestamps reads and writes
// as plain TCP.
class TcpTransport final : public Transport {
 public:
  // `buffers` outlives the transport (one for a worker's connections).
  explicit TcpTransport(const SocketOptions& options) : options_(options) {}
  ~TcpTransport() override;
  TcpTransport(const TcpTransport&) = delete;
  TcpTransport& operator=(const TcpTransport&) = delete;

  IoResult connect(const Endpoint& to) override;
  IoResult finish_connect() override;
  IoResult write(const char* data, std::size_t length, TimePoint now) override;
  IoResult read(char* buffer, std::size_t capacity, TimePoint now) override;
  // One recvmmsg() of two messages on the stream, a byte and the rest: each has its own
  // timestamp, where a 1-byte recvmsg() and a recvmsg() of the rest would take two calls.
  IoResult read_first_apart(char* buffer, std::size_t capacity, TimePoint now) override;
  void close() override;

  int fd() const override { return fd_; }
  bool connected() const override { return connected_; }
  bool options_refused() const override { return options_refused_; }
  bool kernel_timestamps() const override { return stamping_; }

 private:
  void start_stamping();
  // Reads the transmit timestamps queued so far; the one of the send that ended at stream
  // offset `sent_bytes_` - 1 is returned (the epoch when it is not there yet).
  TimePoint collect_transmit_stamps();

  const SocketOptions& options_;
  int fd_ = -1;
  bool connected_ = false;
  bool options_refused_ = false;
  bool stamping_ = false;
  bool stamp_pending_ = false;    // a send's transmit timestamp is still to come
  std::uint32_t sent_bytes_ = 0;  // since the connect, modulo 2^32 like the kernel's key
};

}  // namespace rateperf::net
