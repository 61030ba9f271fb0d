#pragma once

#include "net/socket_options.hpp"
#include "net/transport.hpp"

namespace rateperf::net {

// Plain TCP. "Connected" is learnt without a getsockopt(SO_ERROR) per connection: the first
// write that moves bytes proves the handshake complete, and a failed handshake makes the first
// write (or read) fail with the socket's pending error. Only a connection opened with nothing
// to write asks the socket (finish_connect).
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
  void close() override;

  int fd() const override { return fd_; }
  bool connected() const override { return connected_; }
  bool options_refused() const override { return options_refused_; }

 private:
  const SocketOptions& options_;
  int fd_ = -1;
  bool connected_ = false;
  bool options_refused_ = false;
};

}  // namespace rateperf::net
