#ifndef CXXHASH_H
#define CXXHASH_H
// Debian's libxxhash (libxxhash-dev): XXH3-128, the journal's content hash.
#include <stddef.h>
#include <xxhash.h>

/// XXH3_128bits_update through libxxhash's run-time dispatcher (AVX2/AVX-512 where the CPU has them) on
/// x86-64; the portable update elsewhere.
XXH_errorcode cx_xxh3_128_update(XXH3_state_t *state, const void *input, size_t length);
#endif
