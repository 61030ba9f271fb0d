#include "process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace rateperf::test {

namespace {

// Closes a descriptor once; -1 marks "already closed".
void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

[[noreturn]] void throw_errno(const char* what) {
  throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          const std::vector<TimedSignal>& signals) {
  if (argv.empty()) throw std::runtime_error("run_process: empty argv");

  // Built before fork(): the child may only call async-signal-safe functions, so it must not
  // allocate.
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  // Close-on-exec, so that children started by other tests never hold our pipes open (which
  // would delay the end-of-file that tells us this child is done).
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw_errno("pipe2");
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    throw_errno("pipe2");
  }

  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    throw_errno("fork");
  }
  if (pid == 0) {
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    // dup2 clears close-on-exec on the new descriptors, so only these survive exec.
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    ::execvp(args[0], args.data());
    constexpr char message[] = "run_process: exec failed\n";
    [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
    ::_exit(127);
  }

  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  int out_fd = out_pipe[0];
  int err_fd = err_pipe[0];

  ProcessResult result;
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + timeout;
  std::size_t signals_sent = 0;
  std::array<char, 4096> buffer{};
  while (out_fd >= 0 || err_fd >= 0) {
    // Once the child is killed, its descriptors close with it; a grandchild that inherited
    // them could keep them open, so the wait for end-of-file is bounded too.
    int wait_ms = 1000;
    if (!result.timed_out) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        // Killed, the child closes its ends; keep reading what it wrote until end-of-file.
        ::kill(pid, SIGKILL);
        result.timed_out = true;
      } else {
        wait_ms = static_cast<int>(left.count()) + 1;
      }
      // Signals in their order; the wait ends in time for the next one.
      while (signals_sent < signals.size()) {
        const auto due = started + signals[signals_sent].after;
        const auto until = std::chrono::duration_cast<std::chrono::milliseconds>(
            due - std::chrono::steady_clock::now());
        if (until.count() > 0) {
          wait_ms = std::min(wait_ms, static_cast<int>(until.count()) + 1);
          break;
        }
        ::kill(pid, signals[signals_sent].signal);
        ++signals_sent;
      }
    }

    std::array<pollfd, 2> fds{};
    nfds_t count = 0;
    if (out_fd >= 0) fds[count++] = {out_fd, POLLIN, 0};
    if (err_fd >= 0) fds[count++] = {err_fd, POLLIN, 0};
    const int ready = ::poll(fds.data(), count, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (ready == 0 && result.timed_out) break;
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      int& fd = fds[i].fd == out_fd ? out_fd : err_fd;
      std::string& sink = fds[i].fd == out_fd ? result.out : result.err;
      const ssize_t n = ::read(fd, buffer.data(), buffer.size());
      if (n > 0) {
        sink.append(buffer.data(), static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close_fd(fd);
      }
    }
  }
  close_fd(out_fd);
  close_fd(err_fd);

  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  result.max_rss_kb = usage.ru_maxrss;
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.exit_code = 128 + WTERMSIG(status);
  }
  return result;
}

}  // namespace rateperf::test
