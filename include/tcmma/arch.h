/* Architecture options: which --gpu-architecture a source needs, from the
 * markers it carries (tables/arms.def markers, tables/markers.def) and the
 * target (floor or native). */
#ifndef TCMMA_ARCH_H
#define TCMMA_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include "tcmma/ptx.h"
#include "tcmma/status.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

/* Which architecture a compile targets. CURRENT means the current setting
 * (tcmma_target_current in compile.h). */
typedef enum {
  TCMMA_TARGET_CURRENT = 0,
  TCMMA_TARGET_FLOOR = 1,
  TCMMA_TARGET_NATIVE = 2
} tcmma_target;

#define TCMMA_ARCH_MAX_ARCHS 64
#define TCMMA_ARCH_MAX_MARKERS 64

/* What an NVRTC can compile for. archs: its numeric archs ascending (75 80 ...),
 * as nvrtcGetSupportedArchs lists them. family_f / specific_a: whether it
 * accepts compute_<N>f / compute_<N>a for N (a callback so that it is asked
 * only when a family marker needs it; NULL means "no"). */
typedef struct {
  int archs[TCMMA_ARCH_MAX_ARCHS];
  size_t count;
  bool (*accepts)(int arch, char suffix, void *ctx);
  void *ctx;
} tcmma_arch_support;

/* The lowest numeric arch support lists; 0 when it lists none. */
int tcmma_arch_support_lowest(const tcmma_arch_support *support);

/* The rows of tables/markers.def: source markers besides the arms' own. */
typedef enum {
#define TCMMA_MARKER(ID, value, ...) TCMMA_MARKER_##ID = (value),
#include "tables/markers.def"
#undef TCMMA_MARKER
  /* the number of rows (the values: 0..COUNT-1 in any row order, mma/abi_values.c) */
  TCMMA_MARKER_COUNT = 0
#define TCMMA_MARKER(...) +1
#include "tables/markers.def"
#undef TCMMA_MARKER
} tcmma_marker;

/* Marker m's text ("cp.async.", written "(cp.async.)" as a tag: see
 * tables/markers.def) and the floor it raises a source to (80); "" and 0
 * when m is out of range. */
const char *tcmma_marker_text(tcmma_marker m);
int tcmma_marker_floor(tcmma_marker m);

/* Whether marker m is a TAG, written "(text)" (true), or a CODE name. */
bool tcmma_marker_is_tag(tcmma_marker m);

/* The arguments a call of CODE marker m must have for the name to count
 * (3: __launch_bounds__ with max blocks per cluster); 0: any use. */
int tcmma_marker_min_args(tcmma_marker m);

/* What a marker is. */
typedef enum {
  TCMMA_HIT_ARM = 0,  /* an arm's "(marker)" (tables/arms.def) */
  TCMMA_HIT_MARKER = 1, /* a row of tables/markers.def */
  TCMMA_HIT_FRAGMENT = 2, /* a wmma fragment element type (tables/wmma_fragments.def) */
  TCMMA_HIT_PTX = 3,  /* an instruction in an asm() string (tables/ptx_features.def) */
  TCMMA_HIT_GUARD = 4, /* an __CUDA_ARCH__ comparison in #if or #elif */
  TCMMA_HIT_MACRO = 5, /* an instruction in an asm() string of a #define body */
  TCMMA_HIT_UNKNOWN = 6, /* an asm() instruction that is no PTX ISA instruction
                          * (tables/ptx_instructions.def) and no row of
                          * tables/ptx_features.def matches: floor 0, what it
                          * needs is not known */
  TCMMA_HIT_MACRO_UNKNOWN = 7 /* the same, seen in an asm() string of a #define body */
} tcmma_hit_kind;

/* One marker found in a source (its first occurrence). */
typedef struct {
  char text[160];  /* as found: "(mma-bf16)", "nvcuda::wmma", "precision::tf32",
                    * "wgmma.fence.sync.aligned", "__CUDA_ARCH__ >= 800" */
  int floor;       /* the lowest cc it needs; 0 for a guard that raises nothing */
  bool family;     /* needs an arch-specific (a) or family (f) target */
  tcmma_ptx_suffix suffix; /* which targets: ANY, A (sm_90a) or A_OR_F */
  int line;        /* 1-based line */
  tcmma_hit_kind kind;
  /* guards: the body is compiled for cc >= guard_cc ('>') or cc < guard_cc
   * ('<'); compiled_away is set by the decision when the chosen arch drops
   * it. A '>' guard of an #if with no #else raises the floor; a '<' guard
   * whose body holds an #error does too; the others are only reported. */
  char guard_op;
  int guard_cc;
  bool compiled_away;
} tcmma_marker_hit;

/* The decision for one source. */
typedef struct {
  char option[64];   /* "--gpu-architecture=compute_80", "" for none */
  int arch;          /* 80, 120, ...; 0 without an option */
  char suffix;       /* 0, 'a' or 'f' */
  int floor;         /* highest marker floor; 0 when the source has no marker */
  size_t n_markers;
  tcmma_marker_hit markers[TCMMA_ARCH_MAX_MARKERS]; /* in source order */
  char note[256];    /* why the arch differs from what was asked ("" if not) */
  int cc;            /* the device cc decided for (given or asked); 0: none */
  bool cc_from_driver; /* cc is the lowest attached device's (driver API) */
} tcmma_arch_options;

/* Parses "floor" / "native" into *out; TCMMA_INVALID naming the value and
 * both valid ones. */
tcmma_status tcmma_target_parse(const char *text, tcmma_target *out, tcmma_error *err);

/* "floor", "native" or "current". */
const char *tcmma_target_name(tcmma_target target);

/* Scans source[0..len) for markers, reading it as CUDA C++: each arm's
 * "(marker)" and each TAG row of tables/markers.def outside string literals;
 * each CODE row as a name in code (not in comments or strings); wmma:: after
 * `using namespace nvcuda`; wmma fragment element types
 * (tables/wmma_fragments.def); the tensor-core and async-copy instructions
 * inside asm(...) strings at what tables/ptx_features.def says they need;
 * and __CUDA_ARCH__ comparisons in #if/#elif. Fills hits (at most cap, each
 * marker once, in source order), returns how many were found; *floor gets
 * the highest floor (0: none). */
size_t tcmma_source_markers(const char *source, size_t len, tcmma_marker_hit *hits,
                            size_t cap, int *floor);

/* Decides the arch option for source at target (FLOOR or NATIVE) on a device
 * of compute capability cc (0: unknown; NATIVE needs one) against support.
 * Errors: TCMMA_FLOOR when the source's floor exceeds cc or cc is below the
 * lowest supported arch; TCMMA_INVALID for a family source off its major or
 * a bad target; TCMMA_UNAVAILABLE when support lacks the needed target. */
tcmma_status tcmma_arch_decide(const char *source, size_t len, int cc, tcmma_target target,
                               const tcmma_arch_support *support, tcmma_arch_options *out,
                               tcmma_error *err);

/* tcmma_arch_decide against the loaded NVRTC (nvrtcGetSupportedArchs; a/f
 * targets detected by trying them, see docs/nvrtc.md). target CURRENT reads
 * the current setting. NATIVE with min_cc 0 takes the lowest cc among the
 * attached devices (tcmma_device_lowest_cc); without a driver or device that
 * is TCMMA_UNAVAILABLE naming the cause. TCMMA_UNAVAILABLE also when NVRTC
 * cannot be loaded. */
tcmma_status tcmma_gpu_arch_options(const char *source, size_t len, int min_cc,
                                    tcmma_target target, tcmma_arch_options *out,
                                    tcmma_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
