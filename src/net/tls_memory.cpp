#include "net/tls_memory.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <array>
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
// What one class keeps at most: 4 MiB of blocks, and never more than 32768 of them. No more
// than the run had in use at once: a client at its ceiling with a few thousand connections
// open uses them all again at once, and each one not kept is a trip through malloc.
constexpr std::size_t kClassBudget = 4 * 1024 * 1024;
constexpr std::size_t kClassMostBlocks = 32768;
constexpr std::uint32_t kFirstSlots = 64;  // a class's first array of kept blocks

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
constexpr std::size_t class_bytes(std::uint32_t c) {
  if (c < kSmallClasses) return (c + 1) * kSmallStep;
  const unsigned power = kFirstPower + (c - kSmallClasses) / 4;
  const std::size_t step = std::size_t{1} << (power - 3);
  return (std::size_t{1} << (power - 1)) + ((c - kSmallClasses) % 4 + 1) * step;
}

// The blocks a class keeps at most, by class (no division on the way).
constexpr auto kClassMost = [] {
  std::array<std::uint32_t, kClasses> most{};
  for (std::uint32_t c = 0; c < kClasses; ++c) {
    most[c] = static_cast<std::uint32_t>(
        std::clamp<std::size_t>(kClassBudget / class_bytes(c), 4, kClassMostBlocks));
  }
  return most;
}();

// A thread's kept blocks: an array of them a class, grown as needed (malloc's) up to the
// class's most. Popping one reads the array, not the block, which has often left the cache
// since it was freed (a list linked through the blocks loaded a cold line each time). Trivially
// destructible, so that a free after the thread's Keeper below is gone still finds it (and,
// told so by `gone`, frees).
struct Kept {
  void** slots[kClasses];
  std::uint32_t count[kClasses];
  std::uint32_t capacity[kClasses];
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
      for (std::uint32_t i = 0; i < kept.count[c]; ++i) {
        std::free(static_cast<Header*>(kept.slots[c][i]) - 1);
      }
      std::free(static_cast<void*>(kept.slots[c]));
      kept.slots[c] = nullptr;
      kept.count[c] = 0;
      kept.capacity[c] = 0;
    }
  }
};
thread_local Keeper keeper;

// Room for one more kept block of class `c`: false when the class keeps its most already (or
// malloc has no room for a larger array).
bool room_in(std::uint32_t c) {
  if (kept.count[c] < kept.capacity[c]) return true;
  if (kept.capacity[c] >= kClassMost[c]) return false;
  const std::uint32_t grown = std::min(std::max(kFirstSlots, kept.capacity[c] * 2), kClassMost[c]);
  void* slots = std::realloc(static_cast<void*>(kept.slots[c]), grown * sizeof(void*));
  if (slots == nullptr) return false;
  kept.slots[c] = static_cast<void**>(slots);
  kept.capacity[c] = grown;
  return true;
}

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
  if (kept.count[c] > 0) return kept.slots[c][--kept.count[c]];
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
  if (c != kUncached && !kept.gone && kept.keeper_made && room_in(c)) {
    kept.slots[c][kept.count[c]++] = block;
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
