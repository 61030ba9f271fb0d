// LD_PRELOAD'ed into rateperf by the kernel_clock tests: a kernel without SO_TIMESTAMPING, as
// an older kernel (or a socket family that lacks it) would be. Every other setsockopt() goes
// through to libc's.

#include <dlfcn.h>
#include <sys/socket.h>

#include <cerrno>

extern "C" int setsockopt(int fd, int level, int name, const void* value, socklen_t length) {
  using Real = int (*)(int, int, int, const void*, socklen_t);
  static const Real real = reinterpret_cast<Real>(::dlsym(RTLD_NEXT, "setsockopt"));
  if (level == SOL_SOCKET && name == SO_TIMESTAMPING) {
    errno = ENOPROTOOPT;
    return -1;
  }
  return real(fd, level, name, value, length);
}
