#ifndef CZLIB_H
#define CZLIB_H
// Debian's zlib (zlib1g-dev), already loaded with libcurl: CRC-32, the checksum S3 keeps with each upload.
#include <stdint.h>
#include <stddef.h>

/// Continues `crc` (0 to start) over `length` bytes at `bytes`.
uint32_t cz_crc32(uint32_t crc, const void *bytes, size_t length);
#endif
