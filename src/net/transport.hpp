#pragma once

#include <cstddef>
#include <cstdint>

#include "core/clock.hpp"
#include "net/endpoint.hpp"

namespace rateperf::net {

// What an I/O call on a transport came to, wrk's three-valued status plus the end of stream.
enum class IoStatus : std::uint8_t {
  done,    // bytes moved (write, read), or the connection is established (connect)
  again,   // nothing for now: the next readiness edge resumes
  closed,  // read: the peer closed its side (end of stream)
  failed,  // an error; `error` holds the errno
};

struct IoResult {
  IoStatus status = IoStatus::again;
  std::size_t bytes = 0;
  int error = 0;
  // The transport learnt in this call that the connection is established (the handshake of a
  // non-blocking connect completed); reported once, with the call's time.
  bool connected = false;
  // TLS: the handshake completed in this call (with `connected`): its time from the
  // ClientHello to the end, and whether the session was resumed.
  Duration handshake{};
  bool resumed = false;
  // read: when the bytes were read (the time of the readiness event); write: when they were
  // written.
  TimePoint at{};
  // The kernel's own time of the bytes, on the steady clock, where it gave one (--clock
  // kernel); the epoch otherwise. read: when the packet with the last byte read came in (TCP
  // gives one timestamp per read, the last segment's). write: when the packet with the last
  // byte written left (the transmit timestamp, if the kernel queued it before send() returned).
  TimePoint kernel_at{};
  // read_first_apart: the first `first_bytes` bytes (0 or 1) were read on their own, with the
  // time of the packet that brought them (the epoch where the kernel gave none).
  std::size_t first_bytes = 0;
  TimePoint first_kernel_at{};
};

// A byte stream to one endpoint, non-blocking, driven by the readiness events of the descriptor
// fd(): plain TCP now, TLS beside it later. It reports "connected" and hands back bytes read
// with their time; it never parses HTTP. One per pooled connection, reused for later arrivals.
class Transport {
 public:
  virtual ~Transport() = default;

  // Opens a socket and starts connecting to `to`: done (connected at once), again (in
  // progress) or failed (errno in `error`; is_open() tells whether a socket was made at all).
  virtual IoResult connect(const Endpoint& to) = 0;
  // Ends a connect in progress with nothing to write (a pooled connection opened ahead of its
  // requests), on the descriptor's first write edge: done (connected), again, or failed.
  virtual IoResult finish_connect() = 0;
  // Writes what it can of [data, data + length).
  virtual IoResult write(const char* data, std::size_t length, TimePoint now) = 0;
  // Reads what there is, up to `capacity` bytes.
  virtual IoResult read(char* buffer, std::size_t capacity, TimePoint now) = 0;
  // The loop reported the descriptor readable (or is about to read it for any other reason):
  // a transport that skips the reads it knows would find nothing (TLS: the socket drained by
  // its last read, and no read edge since) reads the socket again. `hangup`: the edge also
  // reported the peer's close or an error, which stays in the socket behind the last bytes
  // with no edge of its own: the reads go on to it. Called before acting on each read edge.
  virtual void readable(bool /*hangup*/) {}
  // As read(), but with the first byte's own kernel time beside the last byte's (TCP gives one
  // timestamp per read, the last segment's): a reply's first read, with kernel timestamps. A
  // transport without them reads as read() does.
  virtual IoResult read_first_apart(char* buffer, std::size_t capacity, TimePoint now) {
    return read(buffer, capacity, now);
  }
  virtual void close() = 0;

  virtual int fd() const = 0;
  bool is_open() const { return fd() >= 0; }
  virtual bool connected() const = 0;
  // The kernel refused a socket option of the last connect() (a buffer size): counted, never
  // fatal.
  virtual bool options_refused() const = 0;
  // The kernel timestamps this connection's packets (IoResult::kernel_at); plain TCP with
  // --clock kernel, where the kernel accepted.
  virtual bool kernel_timestamps() const { return false; }
  // A write returned `again` until the peer answers (a TLS handshake in progress): the next
  // read edge, not only a write edge, should retry it.
  virtual bool write_waits_for_read() const { return false; }
};

}  // namespace rateperf::net
