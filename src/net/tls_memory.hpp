#pragma once

#include <cstddef>

namespace rateperf::net {

// OpenSSL's own memory, kept by thread. A full TLS handshake makes some thousands of small and
// a few record-sized allocations and frees them all again; glibc's malloc spends some 15 % of
// the client's CPU on them (the bins past its per-thread cache of 7 blocks, and their
// consolidation), twice what a caching allocator does. These functions keep freed blocks in
// per-thread arrays by size class (16-byte steps up to 256 bytes, then four a doubling up to 64
// KiB), up to 4 MiB or 32768 blocks a class, and hand them out again; larger blocks, and any
// past that, go back to malloc. A block can be freed on another thread than the one that made
// it.
//
// install_tls_memory(): makes OpenSSL allocate through them; false when it cannot (OpenSSL
// has allocated already, or a sanitizer build, which should see OpenSSL's blocks itself).
// Called once, before any use of OpenSSL.
bool install_tls_memory();

// The functions themselves (OpenSSL's signatures, without its file and line), for the tests.
void* tls_memory_allocate(std::size_t bytes);
void* tls_memory_resize(void* block, std::size_t bytes);
void tls_memory_free(void* block);
// The bytes `block` can hold (at least what was asked).
std::size_t tls_memory_capacity(const void* block);
// Blocks this thread keeps for reuse, over all classes.
std::size_t tls_memory_kept();

}  // namespace rateperf::net
