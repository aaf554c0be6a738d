/* SHA-256 (FIPS 180-4): the cache's key; HMAC-SHA256: its entries'
 * checksum. Internal. */
#ifndef TCMMA_NVRTC_SHA256_H
#define TCMMA_NVRTC_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint32_t h[8];
  uint64_t bytes;
  unsigned char block[64];
  size_t used;
} tcmma__sha256_state;

void tcmma__sha256_init(tcmma__sha256_state *s);
void tcmma__sha256_update(tcmma__sha256_state *s, const void *data, size_t n);
/* Writes the 32-byte digest. */
void tcmma__sha256_final(tcmma__sha256_state *s, unsigned char out[32]);
/* Only the portable implementation from now on (true), or the fastest the
 * CPU has (false, the default: the x86 SHA extensions where present). For
 * tests that compare the two. */
void tcmma__sha256_portable(bool on);

/* Lower-case hex of a 32-byte digest into hex[65]. */
void tcmma__sha256_hex(const unsigned char digest[32], char hex[65]);

/* HMAC-SHA256 (RFC 2104) with a key of at most 64 bytes: the cache entries'
 * checksum, keyed with a per-user secret so that no one else can forge one. */
typedef struct {
  tcmma__sha256_state inner;
  unsigned char outer_pad[64];
} tcmma__sha256_hmac_state;

void tcmma__sha256_hmac_init(tcmma__sha256_hmac_state *h, const unsigned char *key, size_t key_len);
void tcmma__sha256_hmac_update(tcmma__sha256_hmac_state *h, const void *data, size_t n);
void tcmma__sha256_hmac_final(tcmma__sha256_hmac_state *h, unsigned char out[32]);

#endif
