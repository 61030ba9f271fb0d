// OpenSSL's memory kept by thread (net/tls_memory): blocks hold what was asked, keep their bytes
// when resized, come back for reuse on the thread that freed them, and go back to malloc when
// the thread ends; the TLS runs of tls_nginx_test.sh use it through OpenSSL.
#include <doctest/doctest.h>
#include <malloc.h>

#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "net/tls_memory.hpp"

using namespace rateperf::net;

TEST_SUITE("tls_memory") {
  TEST_CASE("a block holds at least the bytes asked for, in its class's steps") {
    CHECK(tls_memory_allocate(0) == nullptr);
    for (const std::size_t bytes :
         {1, 15, 16, 17, 255, 256, 257, 320, 321, 513, 16709, 65536, 65537, 200000}) {
      void* block = tls_memory_allocate(bytes);
      REQUIRE(block != nullptr);
      CHECK(reinterpret_cast<std::uintptr_t>(block) % 16 == 0);
      CHECK(tls_memory_capacity(block) >= bytes);
      // At most a quarter (and 15 bytes) over: the classes' steps.
      CHECK(tls_memory_capacity(block) <= bytes + bytes / 4 + 15);
      std::memset(block, 0xab, bytes);  // all of it is the caller's (ASan would say otherwise)
      tls_memory_free(block);
    }
    tls_memory_free(nullptr);
  }

  TEST_CASE("a freed block comes back for the next request of its class, on the same thread") {
    void* a = tls_memory_allocate(100);
    const std::size_t kept_before = tls_memory_kept();
    tls_memory_free(a);
    CHECK(tls_memory_kept() == kept_before + 1);
    void* b = tls_memory_allocate(97);  // the same 16-byte class as 100
    CHECK(b == a);
    CHECK(tls_memory_kept() == kept_before);
    void* c = tls_memory_allocate(200);  // another class: not that block
    CHECK(c != a);
    tls_memory_free(b);
    tls_memory_free(c);
  }

  TEST_CASE("a class keeps a bounded number of blocks; the rest go back to malloc") {
    std::vector<void*> blocks;
    for (int i = 0; i < 40000; ++i) blocks.push_back(tls_memory_allocate(48));
    const std::size_t kept_before = tls_memory_kept();
    for (void* block : blocks) tls_memory_free(block);
    const std::size_t kept = tls_memory_kept() - kept_before;
    CHECK(kept > 1024);
    CHECK(kept <= 32768);
    // Record-sized blocks (20 KiB): 4 MiB of them.
    blocks.clear();
    for (int i = 0; i < 300; ++i) blocks.push_back(tls_memory_allocate(17000));
    const std::size_t before_large = tls_memory_kept();
    for (void* block : blocks) tls_memory_free(block);
    CHECK(tls_memory_kept() - before_large > 16);
    CHECK(tls_memory_kept() - before_large <= 4 * 1024 * 1024 / 20480);
    // Larger than the classes: never kept.
    void* huge = tls_memory_allocate(100000);
    const std::size_t before_huge = tls_memory_kept();
    tls_memory_free(huge);
    CHECK(tls_memory_kept() == before_huge);
  }

  TEST_CASE("resizing keeps the bytes, in place while they fit, moved when they do not") {
    CHECK(tls_memory_resize(nullptr, 0) == nullptr);
    auto* p = static_cast<unsigned char*>(tls_memory_resize(nullptr, 40));
    REQUIRE(p != nullptr);
    for (int i = 0; i < 40; ++i) p[i] = static_cast<unsigned char>(i);
    CHECK(tls_memory_resize(p, 48) == p);  // its 48-byte class holds it
    auto* q = static_cast<unsigned char*>(tls_memory_resize(p, 5000));
    REQUIRE(q != nullptr);
    bool same = true;
    for (int i = 0; i < 40; ++i) same = same && q[i] == i;
    CHECK(same);
    auto* r = static_cast<unsigned char*>(tls_memory_resize(q, 300000));  // past the classes
    REQUIRE(r != nullptr);
    same = true;
    for (int i = 0; i < 40; ++i) same = same && r[i] == i;
    CHECK(same);
    CHECK(tls_memory_capacity(r) >= 300000);
    CHECK(tls_memory_resize(r, 0) == nullptr);  // OpenSSL's rule: frees
  }

  TEST_CASE(
      "a block made on one thread may be freed on another; a thread's kept blocks go back "
      "to malloc when it ends") {
    std::vector<void*> made;
    std::thread([&made] {
      for (int i = 0; i < 500; ++i) made.push_back(tls_memory_allocate(64 + i % 512));
    }).join();
    const std::size_t kept_before = tls_memory_kept();
    for (void* block : made) tls_memory_free(block);
    CHECK(tls_memory_kept() > kept_before);
    // A thread that makes and frees 8 MiB in blocks the classes keep (all of them stay in its
    // arrays), then ends: what malloc has handed out is back near where it was.
    const std::size_t in_use_before = mallinfo2().uordblks;
    std::size_t kept_in_thread = 0;
    std::thread([&kept_in_thread] {
      std::vector<void*> blocks;
      for (int i = 0; i < 2048; ++i) blocks.push_back(tls_memory_allocate(1024 + (i % 32) * 1024));
      for (void* block : blocks) tls_memory_free(block);
      kept_in_thread = tls_memory_kept();
    }).join();
    const std::size_t in_use_after = mallinfo2().uordblks;
    CHECK(kept_in_thread > 100);
    CHECK(in_use_after < in_use_before + 512 * 1024);
  }
}
