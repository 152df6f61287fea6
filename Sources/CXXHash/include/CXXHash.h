#ifndef CXXHASH_H
#define CXXHASH_H
// Debian's libxxhash (libxxhash-dev): XXH3-128, the journal's content hash.
#include <xxhash.h>
#endif
