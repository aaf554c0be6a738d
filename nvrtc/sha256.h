/* SHA-256 (FIPS 180-4): the cache's key and its entries' checksum. Internal. */
#ifndef TCMMA_NVRTC_SHA256_H
#define TCMMA_NVRTC_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint32_t h[8];
  uint64_t bytes;
  unsigned char block[64];
  size_t used;
} tcmma_sha256;

void tcmma_sha256_init(tcmma_sha256 *s);
void tcmma_sha256_update(tcmma_sha256 *s, const void *data, size_t n);
/* Writes the 32-byte digest. */
void tcmma_sha256_final(tcmma_sha256 *s, unsigned char out[32]);
/* Lower-case hex of a 32-byte digest into hex[65]. */
void tcmma_sha256_hex(const unsigned char digest[32], char hex[65]);

#endif
