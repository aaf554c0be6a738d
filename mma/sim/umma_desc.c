/* The sm_100 shared memory descriptor of tcgen05.mma and tcgen05.cp (PTX ISA
 * "Shared Memory Descriptor", "Canonical Layouts"), decoded here on its own:
 * it differs from Hopper's wgmma descriptor (wgmma.c) in its version bits
 * 46-48 (0b001), the leading-dimension mode bit 52 and the three swizzle bits
 * 61-63 (0 none, 1 128-byte with 32-byte atomicity, 2 128-byte, 4 64-byte,
 * 6 32-byte). Element (i along M or N, j along K) of a canonical layout sits
 * in a 16-byte chunk; T elements fill one (T = 128 / element bits, 16 for the
 * padded fp6/fp4 of kind::f8f6f4):
 *   K-major, no swizzle   ((8,m),(T,2k)):((1T,SBO),(1,LBO))
 *   K-major, span S       ((8,m),(T,2k)):((S/16 T,SBO),(1,T))
 *   MN-major, no swizzle  ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
 *   MN-major, span S      ((T,S/16,m),(8,k)):((1,T,LBO),(S/16 T,SBO))
 * then the swizzle XORs address bits 4.. with bits 7.. (Swizzle<B,4,3>: 1, 2,
 * 3 bits for 32, 64, 128 bytes), or, for 128 bytes with 32-byte atomicity,
 * bits 5-6 with bits 7-8 (CUTLASS's Swizzle<2,5,2>, its
 * Layout_MN_SW128_32B_Atom). */
#include <stdio.h>
#include <string.h>
#include "mma/sim/internal.h"

#define sh tcmma__sim_state

bool tcmma__sim_umma_desc(uint64_t desc, const char *what, sim_umma_desc *out) {
  static const int spans[8] = {0, 128, 128, -1, 64, -1, 32, -1};
  unsigned version = (unsigned)(desc >> 46 & 7), base = (unsigned)(desc >> 49 & 7);
  unsigned mode = (unsigned)(desc >> 61 & 7);
  const char *why = version != 1 ? "bits 46-48 must hold 0b001 (the sm_100 descriptor version)"
                    : base ? "base offset other than 0 (a matrix off its swizzle's repeat) is "
                             "not modelled"
                    : desc >> 52 & 1 ? "the absolute leading-dimension mode (bit 52, sm_103a) "
                                       "is not modelled"
                    : (desc >> 14 & 3) || (desc >> 30 & 3) || (desc >> 53 & 0xff)
                        ? "reserved bits 14-15, 30-31 or 53-60 are set"
                    : spans[mode] < 0 ? "swizzle mode 3, 5 and 7 are invalid"
                                      : NULL;
  if (why) {
    tcmma__sim_fail("%s: shared memory descriptor 0x%016llx: %s", what, (unsigned long long)desc,
                    why);
    return false;
  }
  if (!sh.dyn) {
    tcmma__sim_fail("%s: a shared memory descriptor, but the launch has no dynamic shared memory "
                    "(the simulator's descriptors address it)", what);
    return false;
  }
  out->start = (long)(desc & 0x3fff) << 4;
  out->lbo = (long)(desc >> 16 & 0x3fff) << 4;
  out->sbo = (long)(desc >> 32 & 0x3fff) << 4;
  out->mode = (int)mode;
  out->span = spans[mode];
  return true;
}

long tcmma__sim_umma_chunk(const sim_umma_desc *d, bool mn_major, int t, int i, int j, int *u) {
  long s = d->span, off;
  if (!mn_major && !s) *u = j % t, off = (i % 8) * 16L + (i / 8) * d->sbo + (j / t) * d->lbo;
  else if (!mn_major) *u = j % t, off = (i % 8) * s + (i / 8) * d->sbo + (j / t) * 16L;
  else if (!s) *u = i % t, off = (i / t) * d->sbo + (j % 8) * 16L + (j / 8) * d->lbo;
  else
    *u = i % t, off = ((i / t) % (s / 16)) * 16L + (i / (t * (s / 16))) * d->lbo + (j % 8) * s +
                      (j / 8) * d->sbo;
  long a = d->start + off;
  if (d->mode == 1) return a ^ (((a >> 7) & 3) << 5);
  long bits = s == 128 ? 7 : s == 64 ? 3 : s == 32 ? 1 : 0;
  return a ^ (((a >> 7) & bits) << 4);
}

bool tcmma__sim_umma_read(long at, size_t bytes, const char *what, int warp, void *out) {
  if (at < 0 || (size_t)at + bytes > sh.dyn_bytes) {
    tcmma__sim_fail("%s reads shared bytes %ld..+%zu, outside the block's %zu bytes of dynamic "
                    "shared memory", what, at, bytes, sh.dyn_bytes);
    return false;
  }
  const unsigned char *p = sh.dyn + at;
  if (!tcmma__sim_track_read(p, (unsigned)bytes, warp, 0, what) ||
      !tcmma__sim_async_view_check(p, bytes, what))
    return false;
  memcpy(out, p, bytes);
  return true;
}
