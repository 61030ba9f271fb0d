#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>

namespace rateperf::test {

// How a FaultServer misbehaves, one fault per mode. Every mode that answers waits for the whole
// request first (its blank line), so that a close never turns into a reset because request
// bytes were left unread. The modes up to accept_nothing answer the first request of a
// connection only; the keep-alive modes after it answer every request (fault_script.hpp
// has their bytes).
enum class FaultMode {
  accept_never_read,    // accepts, never reads, never answers
  read_never_answer,    // reads the request, never answers
  slow_bytes,           // a valid 200 reply, one byte every 2 ms, connection kept open
  reset_on_accept,      // resets (SO_LINGER 0 + close) right after accept
  reset_mid_reply,      // sends half of a valid reply, then resets
  close_before_status,  // reads the request, closes before any byte of a reply
  short_body,           // announces Content-Length 100, sends 10 body bytes, closes
  garbage_status,       // a status line that is not HTTP, connection kept open
  huge_header,          // a 200 whose header block is 1 MB (1024 lines of 1 KB)
  bad_chunked,          // chunked encoding with a chunk size that is not hex
  continue_100,         // "100 Continue", then a valid 200, connection kept open
  no_content_204,       // 204 with no body, connection kept open
  not_modified_304,     // 304 with Content-Length 5 but (as HTTP says) no body, kept open
  extra_body,           // Content-Length 5, 10 body bytes, then close
  http10_close,         // HTTP/1.0 without Content-Length: the close ends the body
  accept_nothing,       // listens with the smallest backlog and never accepts
  keep_alive,           // a valid 200 to every request, connection kept open
  close_after_3,        // valid 200s to the first 3 requests, then a close (no Connection: close)
  close_header_3,       // the same, but the 3rd reply says "Connection: close"
  drop_second,          // answers every request but the 2nd, which it skips; kept open
  merge_replies,        // once no byte came for 5 ms, the replies of all requests in one write
  split_reply,          // every reply in writes of 3 bytes, 1 ms apart; kept open
  out_of_order,         // requests in pairs: reply 1's header block, reply 2, reply 1's body
  status_600,           // status 600 (Content-Length framed) to every request, kept open
};

// The --mode name of a mode ("accept-never-read"...).
std::string_view fault_name(FaultMode mode);
// The mode named `name`, if any.
std::optional<FaultMode> fault_from_name(std::string_view name);
// Every mode, in declaration order (for usage messages and loops over all faults).
std::span<const FaultMode> all_faults();

// Body sizes the valid-reply modes send, for tests to compare with the report.
inline constexpr std::size_t kSlowBodyBytes = 5;       // slow_bytes, continue_100
inline constexpr std::size_t kExtraBodyAnnounced = 5;  // extra_body's Content-Length
inline constexpr std::size_t kExtraBodySent = 10;      // extra_body's bytes actually sent
inline constexpr std::size_t kHttp10BodyBytes = 12;    // http10_close

// A deliberately faulty HTTP server on 127.0.0.1 (port 0 by default, so tests never collide),
// run with poll() on its own thread; the destructor stops it through a pipe and closes every
// connection. Used in-process by the "faults" tests and by the fault_server program.
//
// The object is owned by its creator; the counters may be read from any thread.
class FaultServer {
 public:
  explicit FaultServer(FaultMode mode, std::uint16_t port = 0);
  ~FaultServer();
  FaultServer(const FaultServer&) = delete;
  FaultServer& operator=(const FaultServer&) = delete;

  std::uint16_t port() const { return port_; }
  FaultMode mode() const { return mode_; }
  std::uint64_t accepted() const { return accepted_.load(); }  // connections accepted
  std::uint64_t requests() const { return requests_.load(); }  // whole requests read
  // Replies queued (status lines, valid or not; a skipped request has none).
  std::uint64_t replies() const { return replies_.load(); }
  std::uint64_t writes() const { return writes_.load(); }  // send() calls that wrote bytes
  // Wake-ups of the server at which a connection's reads brought whole requests: the bursts
  // it read (requests written together by the client arrive in one).
  std::uint64_t request_reads() const { return request_reads_.load(); }

 private:
  void serve();

  FaultMode mode_;
  int listen_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  std::uint16_t port_ = 0;
  std::atomic<std::uint64_t> accepted_{0};
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> replies_{0};
  std::atomic<std::uint64_t> writes_{0};
  std::atomic<std::uint64_t> request_reads_{0};
  std::thread thread_;
};

}  // namespace rateperf::test
