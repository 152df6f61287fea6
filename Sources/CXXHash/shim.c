#include "CXXHash.h"
#if defined(__x86_64__)
#include <xxh_x86dispatch.h>
#endif

XXH_errorcode cx_xxh3_128_update(XXH3_state_t *state, const void *input, size_t length) {
#if defined(__x86_64__)
    return XXH3_128bits_update_dispatch(state, input, length);
#else
    return XXH3_128bits_update(state, input, length);
#endif
}
