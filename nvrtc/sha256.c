/* SHA-256 (FIPS 180-4). A collision-resistant key keeps one program from
 * ever being served for another's source. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "nvrtc/sha256.h"

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

/* The portable compression of `blocks` 64-byte blocks. */
static void compress_c(uint32_t state[8], const unsigned char *p, size_t blocks) {
  for (; blocks--; p += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
      w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
             (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
      uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5],
             g = state[6], h = state[7];
    for (int i = 0; i < 64; i++) {
      uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
      uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    state[0] += a, state[1] += b, state[2] += c, state[3] += d;
    state[4] += e, state[5] += f, state[6] += g, state[7] += h;
  }
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

/* The same with the x86 SHA extensions (about ten times faster: the cache
 * key hashes every header a compile includes). Four rounds per step; the
 * message words live in a ring of four groups of four. */
__attribute__((target("sha,sse4.1"))) static void compress_ni(uint32_t state[8],
                                                              const unsigned char *p,
                                                              size_t blocks) {
  const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1); /* CDAB */
  __m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);  /* EFGH */
  __m128i s0 = _mm_alignr_epi8(tmp, s1, 8);                                            /* ABEF */
  s1 = _mm_blend_epi16(s1, tmp, 0xF0);                                                 /* CDGH */
  for (; blocks--; p += 64) {
    __m128i save0 = s0, save1 = s1, w[4];
    for (int g = 0; g < 16; g++) {
      __m128i *cur = &w[g % 4];
      if (g < 4)
        *cur = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), swap);
      else
        *cur = _mm_sha256msg2_epu32(
            _mm_add_epi32(_mm_sha256msg1_epu32(*cur, w[(g + 1) % 4]),
                          _mm_alignr_epi8(w[(g + 3) % 4], w[(g + 2) % 4], 4)),
            w[(g + 3) % 4]);
      __m128i msg = _mm_add_epi32(*cur, _mm_loadu_si128((const __m128i *)&K[4 * g]));
      s1 = _mm_sha256rnds2_epu32(s1, s0, msg);
      s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(msg, 0x0E));
    }
    s0 = _mm_add_epi32(s0, save0);
    s1 = _mm_add_epi32(s1, save1);
  }
  tmp = _mm_shuffle_epi32(s0, 0x1B);                     /* FEBA */
  s1 = _mm_shuffle_epi32(s1, 0xB1);                      /* DCHG */
  s0 = _mm_blend_epi16(tmp, s1, 0xF0);                   /* DCBA */
  s1 = _mm_alignr_epi8(s1, tmp, 8);                      /* HGFE */
  _mm_storeu_si128((__m128i *)&state[0], s0);
  _mm_storeu_si128((__m128i *)&state[4], s1);
}

static bool have_sha_ni(void) {
  unsigned a, b, c, d;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29)) && /* SHA */
         __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 19)) && (c & (1u << 9)); /* SSE4.1, SSSE3 */
}
#endif

static _Atomic int portable_only; /* tests: compare both implementations */

void tcmma__sha256_portable(bool on) { portable_only = on; }

static void compress(uint32_t state[8], const unsigned char *p, size_t blocks) {
#if defined(__x86_64__)
  static _Atomic int ni = -1; /* racing first callers agree: the CPU does not change */
  if (ni < 0) ni = have_sha_ni();
  if (ni && !portable_only) {
    compress_ni(state, p, blocks);
    return;
  }
#endif
  compress_c(state, p, blocks);
}

void tcmma__sha256_init(tcmma__sha256_state *s) {
  static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(s->h, iv, sizeof iv);
  s->bytes = 0;
  s->used = 0;
}

void tcmma__sha256_update(tcmma__sha256_state *s, const void *data, size_t n) {
  const unsigned char *p = data;
  s->bytes += n;
  if (s->used) { /* fill the pending block first */
    size_t take = 64 - s->used < n ? 64 - s->used : n;
    memcpy(s->block + s->used, p, take);
    s->used += take, p += take, n -= take;
    if (s->used < 64) return;
    compress(s->h, s->block, 1);
    s->used = 0;
  }
  if (n >= 64) { /* whole blocks straight from the input */
    compress(s->h, p, n / 64);
    p += n / 64 * 64, n %= 64;
  }
  memcpy(s->block, p, n);
  s->used = n;
}

void tcmma__sha256_final(tcmma__sha256_state *s, unsigned char out[32]) {
  uint64_t bits = s->bytes * 8;
  unsigned char pad = 0x80, zero = 0, len[8];
  tcmma__sha256_update(s, &pad, 1);
  while (s->used != 56) tcmma__sha256_update(s, &zero, 1);
  for (int i = 0; i < 8; i++) len[i] = (unsigned char)(bits >> (56 - 8 * i));
  tcmma__sha256_update(s, len, 8);
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 4; j++) out[4 * i + j] = (unsigned char)(s->h[i] >> (24 - 8 * j));
}

void tcmma__sha256_hex(const unsigned char digest[32], char hex[65]) {
  for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

void tcmma__sha256_hmac_init(tcmma__sha256_hmac_state *h, const unsigned char *key,
                             size_t key_len) {
  unsigned char inner_pad[64];
  for (size_t i = 0; i < 64; i++) {
    unsigned char k = i < key_len ? key[i] : 0;
    inner_pad[i] = k ^ 0x36;
    h->outer_pad[i] = k ^ 0x5c;
  }
  tcmma__sha256_init(&h->inner);
  tcmma__sha256_update(&h->inner, inner_pad, sizeof inner_pad);
}

void tcmma__sha256_hmac_update(tcmma__sha256_hmac_state *h, const void *data, size_t n) {
  tcmma__sha256_update(&h->inner, data, n);
}

void tcmma__sha256_hmac_final(tcmma__sha256_hmac_state *h, unsigned char out[32]) {
  unsigned char inner[32];
  tcmma__sha256_final(&h->inner, inner);
  tcmma__sha256_state outer;
  tcmma__sha256_init(&outer);
  tcmma__sha256_update(&outer, h->outer_pad, sizeof h->outer_pad);
  tcmma__sha256_update(&outer, inner, sizeof inner);
  tcmma__sha256_final(&outer, out);
}
