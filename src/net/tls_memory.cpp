#include "net/tls_memory.hpp"

#include <openssl/crypto.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace rateperf::net {

namespace {

// Each block starts with a header of 16 bytes (malloc's alignment is kept): its class, or
// kUncached with the size asked for.
struct Header {
  std::uint32_t size_class;
  std::uint32_t unused;
  std::size_t bytes;
};
static_assert(sizeof(Header) == 16);

constexpr std::size_t kSmallStep = 16;
constexpr std::size_t kSmallMost = 256;  // 16 classes of 16 bytes
constexpr std::size_t kSmallClasses = kSmallMost / kSmallStep;
constexpr unsigned kFirstPower = 9;  // 257..512: the first doubling
constexpr unsigned kLastPower = 16;  // ..65536: the last
constexpr std::size_t kClasses = kSmallClasses + (kLastPower - kFirstPower + 1) * 4;
constexpr std::uint32_t kUncached = 0xffffffff;
// What one class keeps at most: 256 KiB of blocks, and never more than 1024 of them.
constexpr std::size_t kClassBudget = 256 * 1024;
constexpr std::size_t kClassMostBlocks = 1024;

// The class of a request of `bytes` (1 to 65536).
std::uint32_t class_of(std::size_t bytes) {
  if (bytes <= kSmallMost)
    return static_cast<std::uint32_t>((bytes + kSmallStep - 1) / kSmallStep - 1);
  // 2^(power-1) < bytes <= 2^power, in four steps of 2^(power-3).
  const auto power = static_cast<unsigned>(std::bit_width(bytes - 1));
  const std::size_t step = std::size_t{1} << (power - 3);
  const std::size_t quarter = (bytes - 1 - (std::size_t{1} << (power - 1))) / step;
  return static_cast<std::uint32_t>(kSmallClasses + (power - kFirstPower) * 4 + quarter);
}

// The bytes a block of class `c` holds.
std::size_t class_bytes(std::uint32_t c) {
  if (c < kSmallClasses) return (c + 1) * kSmallStep;
  const unsigned power = kFirstPower + (c - kSmallClasses) / 4;
  const std::size_t step = std::size_t{1} << (power - 3);
  return (std::size_t{1} << (power - 1)) + ((c - kSmallClasses) % 4 + 1) * step;
}

std::size_t class_most(std::uint32_t c) {
  const std::size_t by_budget = kClassBudget / class_bytes(c);
  return by_budget < 4 ? 4 : (by_budget > kClassMostBlocks ? kClassMostBlocks : by_budget);
}

// A thread's kept blocks: a list a class, linked through the blocks' first bytes. Trivially
// destructible, so that a free after the thread's Keeper below is gone still finds it (and,
// told so by `gone`, frees).
struct Kept {
  void* first[kClasses];
  std::uint32_t count[kClasses];
  bool gone;
  bool keeper_made;
};
thread_local Kept kept{};

// Gives the kept blocks back to malloc when the thread ends.
struct Keeper {
  // Its first use constructs it, and registers its destructor for the thread's end.
  void arm() { armed = true; }
  bool armed = false;
  ~Keeper() {
    kept.gone = true;
    for (std::size_t c = 0; c < kClasses; ++c) {
      while (kept.first[c] != nullptr) {
        void* block = kept.first[c];
        std::memcpy(&kept.first[c], block, sizeof(void*));
        std::free(static_cast<Header*>(block) - 1);
      }
      kept.count[c] = 0;
    }
  }
};
thread_local Keeper keeper;

Header* header_of(const void* block) {
  return const_cast<Header*>(static_cast<const Header*>(block) - 1);
}

void* crypto_malloc(std::size_t bytes, const char*, int) {
  return tls_memory_allocate(bytes);
}
void* crypto_realloc(void* block, std::size_t bytes, const char*, int) {
  return tls_memory_resize(block, bytes);
}
void crypto_free(void* block, const char*, int) {
  tls_memory_free(block);
}

}  // namespace

void* tls_memory_allocate(std::size_t bytes) {
  // OpenSSL's own rule: nothing for nothing.
  if (bytes == 0) return nullptr;
  if (bytes > class_bytes(kClasses - 1)) {
    auto* header = static_cast<Header*>(std::malloc(sizeof(Header) + bytes));
    if (header == nullptr) return nullptr;
    header->size_class = kUncached;
    header->bytes = bytes;
    return header + 1;
  }
  const std::uint32_t c = class_of(bytes);
  if (!kept.keeper_made && !kept.gone) {
    // The first use on this thread: the keeper, whose end frees what the thread kept.
    kept.keeper_made = true;
    keeper.arm();
  }
  if (void* block = kept.first[c]; block != nullptr) {
    std::memcpy(&kept.first[c], block, sizeof(void*));
    --kept.count[c];
    return block;
  }
  auto* header = static_cast<Header*>(std::malloc(sizeof(Header) + class_bytes(c)));
  if (header == nullptr) return nullptr;
  header->size_class = c;
  header->bytes = class_bytes(c);
  return header + 1;
}

void tls_memory_free(void* block) {
  if (block == nullptr) return;
  Header* header = header_of(block);
  const std::uint32_t c = header->size_class;
  if (c != kUncached && !kept.gone && kept.keeper_made && kept.count[c] < class_most(c)) {
    std::memcpy(block, &kept.first[c], sizeof(void*));
    kept.first[c] = block;
    ++kept.count[c];
    return;
  }
  std::free(header);
}

void* tls_memory_resize(void* block, std::size_t bytes) {
  if (block == nullptr) return tls_memory_allocate(bytes);
  if (bytes == 0) {
    tls_memory_free(block);
    return nullptr;
  }
  const std::size_t holds = tls_memory_capacity(block);
  if (bytes <= holds) return block;
  void* bigger = tls_memory_allocate(bytes);
  if (bigger == nullptr) return nullptr;  // the old block stays, as realloc's does
  std::memcpy(bigger, block, holds);
  tls_memory_free(block);
  return bigger;
}

std::size_t tls_memory_capacity(const void* block) {
  return header_of(block)->bytes;
}

std::size_t tls_memory_kept() {
  std::size_t total = 0;
  for (const std::uint32_t count : kept.count) total += count;
  return total;
}

bool install_tls_memory() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return false;
#else
  return CRYPTO_set_mem_functions(&crypto_malloc, &crypto_realloc, &crypto_free) == 1;
#endif
}

}  // namespace rateperf::net
