/* The numerics policy that chooses between arms for one storage triple. */
#ifndef TCMMA_NUMERICS_H
#define TCMMA_NUMERICS_H

#include <stdbool.h>
#include "tcmma/status.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

/* Where d is f16: wide accumulates at f32 and narrows d per lane (default);
 * narrow accumulates in f16 (inline mma.sync with an f16 accumulator, or an
 * f16 wmma fragment). */
typedef enum { TCMMA_FP16_WIDE = 0, TCMMA_FP16_NARROW = 1 } tcmma_fp16_mode;

/* Where both an inline-PTX and a wmma arm fit: which comes first. */
typedef enum { TCMMA_PREFER_PTX = 0, TCMMA_PREFER_WMMA = 1 } tcmma_prefer;

typedef struct {
  tcmma_fp16_mode fp16; /* default TCMMA_FP16_WIDE */
  bool tf32;            /* f32 operands may be rounded to tf32; default false */
  tcmma_prefer prefer;  /* default TCMMA_PREFER_PTX */
  bool saturate;        /* s32 accumulation clamps to the int32 range on overflow
                           (.satfinite) instead of wrapping; default false */
} tcmma_numerics;

/* The default policy: fp16 wide, tf32 off, prefer ptx, s32 wraps. */
tcmma_numerics tcmma_numerics_default(void);

/* Parse "wide"|"narrow" and "ptx"|"wmma"; TCMMA_INVALID naming the value and
 * the valid spellings otherwise. */
tcmma_status tcmma_fp16_mode_parse(const char *s, tcmma_fp16_mode *out, tcmma_error *err);
tcmma_status tcmma_prefer_parse(const char *s, tcmma_prefer *out, tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
