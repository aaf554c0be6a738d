/* wgmma.mma_async reference model (docs/sim.md "wgmma"): a rendezvous of the
 * warpgroup's 128 threads, operands gathered from shared memory through the
 * PTX ISA's matrix descriptors (start address, LBO, SBO, swizzle; K-major
 * and M/N-major canonical layouts, written here from the ISA's "Shared
 * Memory Matrix Layout", apart from the renderer's mma/wgmma_plan.c) or A
 * from registers (mma.sync's A fragment per warp), D = A B (+ C) computed as
 * mma.c does (exact products summed in double, one rounding per
 * instruction; integers exact, wrapped or clamped).
 *
 * Asynchrony: a product's result is kept per thread (a record per
 * accumulator array) and lands in the registers only at the
 * wgmma.wait_group that completes its group; meanwhile the registers hold
 * TCMMA_SIM_WGMMA_POISON, so a read before the wait sees NaN, and a write
 * to them is found at the hold, the landing or the thread's end. The async
 * proxy's view of the dynamic shared memory is a copy taken at each
 * fence.proxy.async (and written by TMA landings): a shared byte a
 * descriptor reads that differs from it was stored by the generic proxy
 * after the last fence, which the run reports. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mma/sim/internal.h"

#define sh tcmma__sim_state

enum { WG = 128, WG_MAX = SIM_WARPS / 4, REGS_MAX = 128, RECORDS = 8, K_MAX = 32, N_MAX = 256 };

typedef enum { T_F16, T_BF16, T_TF32, T_E4M3, T_E5M2, T_S8, T_U8, T_F32, T_S32 } wtype;
static const char *const type_names[] = {"f16", "bf16", "tf32", "e4m3", "e5m2",
                                         "s8",  "u8",   "f32",  "s32"};
static const int type_bytes[] = {2, 2, 4, 1, 1, 1, 1, 4, 4};

typedef struct {
  int n, k;
  wtype d, a, b;
  bool satfinite;
  int regs; /* accumulator registers per thread */
} wshape;

/* ---- per-thread asynchronous state ---- */

typedef struct {
  void *acc;               /* the thread's accumulator array; NULL: free slot */
  unsigned regs;
  unsigned long group;     /* the group its latest product belongs to */
  uint32_t value[REGS_MAX]; /* the result, landed at the wait */
} record;

typedef struct {
  bool fenced;             /* a wgmma.fence since the block began */
  unsigned long open;      /* groups committed so far: the open group's number */
  record rec[RECORDS];
} wthread;

static wthread threads[TCMMA_SIM_BLOCK_THREADS_MAX];
static bool touched; /* a wgmma call in this block: threads[] needs clearing */

/* the warpgroup rendezvous */
typedef struct {
  const char *opcode;
  void *acc;
  const uint32_t *a;
  unsigned long long da, db;
  int scale_d, trans_a, trans_b;
} wargs;

static struct {
  unsigned arrived;
  unsigned long generation;
  const wargs *arg[WG];
} groups[WG_MAX];

/* the async proxy's view of the dynamic shared memory */
static unsigned char *view;
static size_t view_cap;

void tcmma__sim_wgmma_reset(void) {
  if (touched) memset(threads, 0, sizeof threads);
  touched = false;
  for (int g = 0; g < WG_MAX; g++) groups[g].arrived = 0;
  if (sh.dyn && sh.dyn_bytes > view_cap) {
    free(view);
    view = malloc(sh.dyn_bytes);
    view_cap = view ? sh.dyn_bytes : 0;
  }
  tcmma__sim_async_view_fence();
}

void tcmma__sim_wgmma_free(void) {
  free(view);
  view = NULL, view_cap = 0;
}

void tcmma__sim_async_view_fence(void) {
  if (view && sh.dyn && sh.dyn_bytes <= view_cap) memcpy(view, sh.dyn, sh.dyn_bytes);
}

void tcmma__sim_async_view_write(const void *p, size_t bytes) {
  uintptr_t a = (uintptr_t)p, lo = (uintptr_t)sh.dyn;
  if (!view || !sh.dyn || a < lo || a - lo + bytes > sh.dyn_bytes) return;
  memcpy(view + (a - lo), p, bytes);
}

bool tcmma__sim_async_view_check(const void *p, size_t bytes, const char *what) {
  uintptr_t a = (uintptr_t)p, lo = (uintptr_t)sh.dyn;
  if (!view || !sh.dyn || a < lo || a - lo + bytes > sh.dyn_bytes) return true;
  if (!memcmp(p, view + (a - lo), bytes)) return true;
  tcmma__sim_fail("%s reads shared byte offset %ld, which a generic-proxy store changed after "
                  "the block's last fence.proxy.async (expected fence.proxy.async, then a "
                  "barrier, between the stores and the instruction)", what, (long)(a - lo));
  return false;
}

static unsigned in_flight(const wthread *t) {
  unsigned n = 0;
  for (int r = 0; r < RECORDS; r++) n += t->rec[r].acc != NULL;
  return n;
}

unsigned tcmma__sim_wgmma_lane_end(void) {
  int tid = tcmma__sim_current_thread();
  if (tid < 0) return 0;
  tcmma__sim_lock();
  unsigned n = in_flight(&threads[tid]);
  memset(&threads[tid], 0, sizeof threads[tid]);
  tcmma__sim_unlock();
  return n;
}

/* Fails (lock held) when a register of r's accumulators no longer holds the
 * poison its issue wrote: the thread wrote it while the product was in flight. */
static bool untouched(const record *r, int tid, const char *where) {
  const uint32_t *w = r->acc;
  for (unsigned i = 0; i < r->regs; i++)
    if (w[i] != TCMMA_SIM_WGMMA_POISON) {
      tcmma__sim_fail("%s: thread %d wrote accumulator register %u (of %p) while its wgmma "
                      "group %lu was in flight (expected wgmma.wait_group before touching it)",
                      where, tid, i, r->acc, r->group);
      return false;
    }
  return true;
}

/* ---- the opcode ---- */

static bool take_type(const char **s, wtype *out) {
  size_t n = strcspn(*s, ".");
  for (int e = 0; e < (int)(sizeof type_names / sizeof type_names[0]); e++)
    if (strlen(type_names[e]) == n && strncmp(*s, type_names[e], n) == 0) {
      *out = (wtype)e;
      *s += n + ((*s)[n] == '.');
      return true;
    }
  return false;
}

static bool is_fp8(wtype t) { return t == T_E4M3 || t == T_E5M2; }
static bool is_int8(wtype t) { return t == T_S8 || t == T_U8; }

/* The PTX ISA's wgmma.mma_async forms: .f16/.bf16 (k16), .tf32 (k8), fp8
 * and integer (k32), each with its accumulator types and n. */
static bool valid(const wshape *s) {
  bool n_ok = s->n >= 8 && s->n <= N_MAX && s->n % 8 == 0;
  if (s->satfinite && s->d != T_S32) return false;
  if (s->d == T_S32)
    return s->k == 32 && is_int8(s->a) && is_int8(s->b) && n_ok && (s->n <= 24 || s->n % 16 == 0);
  if (!n_ok || (s->d != T_F32 && s->d != T_F16)) return false;
  if (s->a == T_F16 && s->b == T_F16) return s->k == 16;
  if (s->a == T_BF16 && s->b == T_BF16) return s->k == 16 && s->d == T_F32;
  if (s->a == T_TF32 && s->b == T_TF32) return s->k == 8 && s->d == T_F32;
  return s->k == 32 && is_fp8(s->a) && is_fp8(s->b);
}

static bool parse(const char *op, wshape *s) {
  static const char head[] = "wgmma.mma_async.sync.aligned.";
  memset(s, 0, sizeof *s);
  if (!op || strncmp(op, head, sizeof head - 1) != 0) return false;
  const char *p = op + sizeof head - 1;
  int m = 0, used = 0;
  if (sscanf(p, "m%dn%dk%d.%n", &m, &s->n, &s->k, &used) != 3 || !used || m != 64) return false;
  p += used;
  if (!take_type(&p, &s->d) || !take_type(&p, &s->a) || !take_type(&p, &s->b)) return false;
  if (strcmp(p, "satfinite") == 0) s->satfinite = true;
  else if (*p) return false;
  if (!valid(s)) return false;
  s->regs = s->d == T_F16 ? s->n / 4 : s->n / 2;
  char canon[128];
  snprintf(canon, sizeof canon, "%sm64n%dk%d.%s.%s.%s%s", head, s->n, s->k, type_names[s->d],
           type_names[s->a], type_names[s->b], s->satfinite ? ".satfinite" : "");
  return strcmp(canon, op) == 0;
}

/* ---- operands ---- */

/* The value of raw element bits v of type t (tf32: the top 19 bits). */
static double decode(wtype t, uint32_t v) {
  float f;
  switch (t) {
  case T_F16: return tcmma__sim_decode(&tcmma__sim_fmt_f16, v);
  case T_BF16: return tcmma__sim_decode(&tcmma__sim_fmt_bf16, v);
  case T_E4M3: return tcmma__sim_decode(&tcmma__sim_fmt_e4m3, v);
  case T_E5M2: return tcmma__sim_decode(&tcmma__sim_fmt_e5m2, v);
  case T_S8: return (int8_t)v;
  case T_U8: return (uint8_t)v;
  case T_S32: return (int32_t)v;
  case T_TF32: v &= ~0x1fffu;
    /* fall through */
  default: memcpy(&f, &v, sizeof f); return f;
  }
}

/* The byte offset, before the swizzle, of element (i along m or n, j along
 * k) of an operand a descriptor reads (the ISA's canonical layouts, in
 * 16-byte units T = 16 / eb elements): K-major without swizzle
 * ((8,m),(T,2k)):((1T,SBO),(1,LBO)), swizzled with span S
 * ((8,m),(T,2k)):((S/eb,SBO),(1,T)); M/N-major without swizzle
 * ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)), swizzled
 * ((T,S/16,m),(8,k)):((1,T,LBO),(S/eb,SBO)). */
static long offset_of(int i, int j, bool mn_major, int eb, long span, long lbo, long sbo) {
  long t = 16 / eb;
  if (!mn_major && !span) return (i % 8) * 16 + (i / 8) * sbo + (j % t) * eb + (j / t) * lbo;
  if (!mn_major) return (i % 8) * span + (i / 8) * sbo + (long)j * eb;
  if (!span) return (i % t) * eb + (i / t) * sbo + (j % 8) * 16 + (j / 8) * lbo;
  long w = span / 16;
  return (i % t) * eb + ((i / t) % w) * 16 + (i / (t * w)) * lbo + (j % 8) * span + (j / 8) * sbo;
}

/* The swizzle on a shared address: bits 4.. XORed with bits 7.. (1, 2 or 3
 * bits for 32-, 64- and 128-byte spans). */
static long swizzled(long addr, long span) {
  long bits = span == 128 ? 7 : span == 64 ? 3 : span == 32 ? 1 : 0;
  return addr ^ (((addr >> 7) & bits) << 4);
}

/* Element (i, j) of the operand desc reads into *x; false after a failure. */
typedef struct {
  uint64_t desc;
  bool mn_major;
  wtype t;
  const char *name; /* "A" or "B" */
  int warp;         /* the warpgroup's first warp, for the trackers */
} operand;

static bool gather(const operand *o, int rows, int k, double *out) {
  /* the ISA's fields: start address, LBO and SBO >> 4 in 14 bits at 0, 16
   * and 32; base offset at 49; swizzle at 62 (1: 128, 2: 64, 3: 32 bytes) */
  static const long spans[4] = {0, 128, 64, 32};
  long start = (long)(o->desc & 0x3fff) << 4, lbo = (long)(o->desc >> 16 & 0x3fff) << 4,
       sbo = (long)(o->desc >> 32 & 0x3fff) << 4, span = spans[o->desc >> 62];
  int base = (int)(o->desc >> 49 & 7);
  if (base) {
    tcmma__sim_fail("wgmma.mma_async: operand %s's descriptor has base offset %d: only 0 (a "
                    "matrix on its swizzle's repeat) is modelled", o->name, base);
    return false;
  }
  if (!sh.dyn) {
    tcmma__sim_fail("wgmma.mma_async: operand %s through a descriptor, but the launch has no "
                    "dynamic shared memory (the simulator's descriptors address it)", o->name);
    return false;
  }
  int eb = type_bytes[o->t];
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < k; j++) {
      long at = swizzled(start + offset_of(i, j, o->mn_major, eb, span, lbo, sbo), span);
      const unsigned char *p = sh.dyn + at;
      char what[96];
      snprintf(what, sizeof what, "wgmma.mma_async (operand %s, element %d,%d)", o->name, i, j);
      if (!tcmma__sim_track_read(p, (unsigned)eb, o->warp, 0, what) ||
          !tcmma__sim_async_view_check(p, (size_t)eb, what))
        return false;
      uint32_t v = 0;
      memcpy(&v, p, (size_t)eb);
      out[i * k + j] = decode(o->t, v);
    }
  return true;
}

/* Element i of a lane's register A of one k step (PTX ISA, wgmma's
 * register fragments: warp w holds rows 16w.. as mma.sync m16n8kK holds its
 * A; g = lane / 4, q = lane % 4): tf32 (k 8) a0..a3 at (g + 8 (i&1),
 * q + 4 (i>>1)); 16-bit (k 16) a0..a7 at (g + 8 ((i>>1)&1), 2q + (i&1) +
 * 8 (i>>2)); 8-bit (k 32) a0..a15 at (g + 8 ((i>>2)&1), 4q + (i&3) +
 * 16 (i>>3)). */
static void a_at(int k, int lane, int i, int *row, int *col) {
  int g = lane / 4, q = lane % 4;
  if (k == 8) *row = g + 8 * (i & 1), *col = q + 4 * (i >> 1);
  else if (k == 16) *row = g + 8 * ((i >> 1) & 1), *col = 2 * q + (i & 1) + 8 * (i >> 2);
  else *row = g + 8 * ((i >> 2) & 1), *col = 4 * q + (i & 3) + 16 * (i >> 3);
}

/* A from the threads' registers: warp w's rows 16w.. as mma.sync's A. */
static void gather_regs(const wshape *s, const wargs *const arg[WG], double *out) {
  int per = 4 / type_bytes[s->a];
  for (int t = 0; t < WG; t++)
    for (int i = 0; i < 4 * per; i++) {
      int row, col, bits = 32 / per;
      a_at(s->k, t % 32, i, &row, &col);
      uint32_t word = arg[t]->a[i / per];
      uint32_t v = bits == 32 ? word : (word >> (bits * (i % per))) & ((1u << bits) - 1);
      out[(16 * (t / 32) + row) * s->k + col] = decode(s->a, v);
    }
}

/* ---- the accumulators ---- */

/* Thread t's x-th accumulator element: the ISA's wgmma D layout (per
 * 8-column block mma.sync's m16n8 C, warp w rows 16w..). */
static void acc_at(int t, int x, int *row, int *col) {
  int lane = t % 32;
  *row = 16 * (t / 32) + lane / 4 + 8 * ((x % 4) / 2);
  *col = 8 * (x / 4) + 2 * (lane % 4) + x % 2;
}

static double acc_get(const wshape *s, const uint32_t *w, int x) {
  if (s->d == T_F16) return tcmma__sim_decode(&tcmma__sim_fmt_f16, (w[x / 2] >> (16 * (x % 2))) & 0xffffu);
  return decode(s->d, w[x]);
}

static void acc_put(const wshape *s, uint32_t *w, int x, double v) {
  if (s->d == T_F16) {
    uint32_t h = tcmma__sim_encode(&tcmma__sim_fmt_f16, v, false), at = 16 * (unsigned)(x % 2);
    w[x / 2] = (w[x / 2] & ~(0xffffu << at)) | h << at;
  } else if (s->d == T_F32) {
    float f = (float)v;
    memcpy(&w[x], &f, sizeof f);
  } else {
    if (s->satfinite) v = fmax(-2147483648.0, fmin(2147483647.0, v));
    w[x] = (uint32_t)(int64_t)v; /* wraps mod 2^32 */
  }
}

/* Thread tid's record for acc: the one in flight, else a free one (NULL
 * when all RECORDS are in flight). */
static record *record_for(wthread *t, void *acc, bool *chained) {
  record *free_slot = NULL;
  for (int r = 0; r < RECORDS; r++) {
    if (t->rec[r].acc == acc) return *chained = true, &t->rec[r];
    if (!t->rec[r].acc && !free_slot) free_slot = &t->rec[r];
  }
  *chained = false;
  return free_slot;
}

/* ---- the warpgroup's product ---- */

static bool uniform(const wargs *const arg[WG], int first_thread) {
  for (int t = 1; t < WG; t++)
    if (arg[t]->da != arg[0]->da || arg[t]->db != arg[0]->db ||
        arg[t]->scale_d != arg[0]->scale_d || arg[t]->trans_a != arg[0]->trans_a ||
        arg[t]->trans_b != arg[0]->trans_b || (arg[t]->a == NULL) != (arg[0]->a == NULL)) {
      tcmma__sim_fail("wgmma.mma_async: thread %d passes descriptors 0x%llx/0x%llx, scale-d %d, "
                      "trans %d/%d, A %s; thread %d passes 0x%llx/0x%llx, %d, %d/%d, %s (they must "
                      "be the same in the warpgroup)", first_thread, arg[0]->da, arg[0]->db,
                      arg[0]->scale_d, arg[0]->trans_a, arg[0]->trans_b,
                      arg[0]->a ? "registers" : "shared", first_thread + t, arg[t]->da,
                      arg[t]->db, arg[t]->scale_d, arg[t]->trans_a, arg[t]->trans_b,
                      arg[t]->a ? "registers" : "shared");
      return false;
    }
  return true;
}

/* Issues the product for every thread: result into its record, poison into
 * its registers. */
static void issue(const wshape *s, const wargs *const arg[WG], int first, const double *A,
                  const double *B) {
  for (int t = 0; t < WG; t++) {
    wthread *th = &threads[first + t];
    bool chained;
    record *r = record_for(th, arg[t]->acc, &chained);
    if (!r) {
      tcmma__sim_fail("wgmma.mma_async: thread %d has %d accumulator arrays in flight (the "
                      "model holds %d)", first + t, RECORDS, RECORDS);
      return;
    }
    if (chained && !untouched(r, first + t, "wgmma.mma_async")) return;
    if (chained && r->regs != (unsigned)s->regs) {
      tcmma__sim_fail("wgmma.mma_async: thread %d chains %d registers onto %u in flight at %p",
                      first + t, s->regs, r->regs, arg[t]->acc);
      return;
    }
    uint32_t in[REGS_MAX];
    memcpy(in, chained ? r->value : arg[t]->acc, (size_t)s->regs * 4);
    int elems = s->d == T_F16 ? 2 * s->regs : s->regs;
    for (int x = 0; x < elems; x++) {
      int row, col;
      acc_at(t, x, &row, &col);
      double sum = arg[0]->scale_d ? acc_get(s, in, x) : 0.0;
      for (int j = 0; j < s->k; j++) sum += A[row * s->k + j] * B[col * s->k + j];
      acc_put(s, r->value, x, sum);
    }
    r->acc = arg[t]->acc, r->regs = (unsigned)s->regs, r->group = th->open;
    uint32_t *w = arg[t]->acc;
    for (int i = 0; i < s->regs; i++) w[i] = TCMMA_SIM_WGMMA_POISON;
  }
}

static void exec_mma(int g) {
  const wargs *const *arg = groups[g].arg;
  int first = g * WG;
  for (int t = 0; t < WG; t++)
    if (strcmp(arg[t]->opcode, arg[0]->opcode) != 0) {
      tcmma__sim_fail("wgmma.mma_async: thread %d issues '%s' but thread %d '%s'", first,
                      arg[0]->opcode, first + t, arg[t]->opcode);
      return;
    }
  wshape s;
  if (!parse(arg[0]->opcode, &s)) {
    tcmma__sim_fail("wgmma.mma_async: unknown opcode '%s' (expected a form of "
                    "wgmma.mma_async.sync.aligned.m64nNkK.D.A.B of the PTX ISA)", arg[0]->opcode);
    return;
  }
  for (int t = 0; t < WG; t++)
    if (!threads[first + t].fenced) {
      tcmma__sim_fail("wgmma.mma_async by thread %d before any wgmma.fence (the ISA requires "
                      "wgmma.fence before the first wgmma.mma_async)", first + t);
      return;
    }
  if (!uniform(arg, first)) return;
  bool a_regs = arg[0]->a != NULL;
  if (a_regs && arg[0]->trans_a) {
    tcmma__sim_fail("wgmma.mma_async: an A from registers with imm-trans-a %d (it is K-major)",
                    arg[0]->trans_a);
    return;
  }
  if ((arg[0]->trans_a || arg[0]->trans_b) && s.a != T_F16 && s.a != T_BF16) {
    tcmma__sim_fail("wgmma.mma_async '%s': imm-trans %d/%d: only f16 and bf16 take M/N-major "
                    "operands", arg[0]->opcode, arg[0]->trans_a, arg[0]->trans_b);
    return;
  }
  static double A[64 * K_MAX], B[N_MAX * K_MAX]; /* lock held: one product at a time */
  operand oa = {arg[0]->da, arg[0]->trans_a != 0, s.a, "A", first / 32};
  operand ob = {arg[0]->db, arg[0]->trans_b != 0, s.b, "B", first / 32};
  if (a_regs) gather_regs(&s, arg, A);
  else if (!gather(&oa, 64, s.k, A)) return;
  if (!gather(&ob, s.n, s.k, B)) return;
  issue(&s, arg, first, A, B);
}

static bool generation_moved(void *ctx) {
  const unsigned long *seen = ctx;
  return groups[seen[0]].generation != seen[1];
}

void tcmma_sim_wgmma_mma(const char *opcode, void *acc, const uint32_t *a,
                         unsigned long long desc_a, unsigned long long desc_b, int scale_d,
                         int trans_a, int trans_b) {
  int tid = tcmma__sim_current_thread();
  if (tid < 0) return;
  if (!acc) tcmma__sim_fail_lane("wgmma.mma_async: thread %d passes NULL accumulators", tid);
  unsigned threads_in = sh.nthreads;
  int g = tid / WG;
  if ((unsigned)(g + 1) * WG > threads_in)
    tcmma__sim_fail_lane("wgmma.mma_async by thread %d: its warpgroup (threads %d-%d) is partial "
                         "in a block of %u threads", tid, g * WG, g * WG + WG - 1, threads_in);
  wargs mine = {opcode ? opcode : "(null)", acc, a, desc_a, desc_b, scale_d, trans_a, trans_b};
  tcmma__sim_lock();
  if (sh.failed) {
    tcmma__sim_unlock();
    tcmma__sim_stop_thread();
  }
  groups[g].arg[tid % WG] = &mine;
  unsigned long seen[2] = {(unsigned long)g, groups[g].generation};
  if (++groups[g].arrived == WG) {
    exec_mma(g);
    groups[g].arrived = 0;
    groups[g].generation++;
    tcmma__sim_block_wake_locked();
  } else {
    char what[200];
    snprintf(what, sizeof what, "warpgroup %d's '%s'", g, mine.opcode);
    tcmma__sim_block_wait_locked(generation_moved, seen, what);
  }
  bool failed = sh.failed;
  tcmma__sim_unlock();
  if (failed) tcmma__sim_stop_thread();
}

/* ---- fence, commit, wait, hold (per thread) ---- */

static const char *const op_fence = "wgmma.fence.sync.aligned";
static const char *const op_commit = "wgmma.commit_group.sync.aligned";
static const char *const op_wait = "wgmma.wait_group.sync.aligned ";

/* A fence (fence true) or a commit by the calling thread, its opcode want. */
static void fence_or_commit(const char *opcode, const char *want, bool fence) {
  int tid = tcmma__sim_current_thread();
  if (tid < 0) return;
  if (!opcode || strcmp(opcode, want) != 0)
    tcmma__sim_fail_lane("wgmma %s: unknown opcode '%s': expected %s", fence ? "fence" : "commit",
                         opcode ? opcode : "(null)", want);
  tcmma__sim_lock();
  if (fence) threads[tid].fenced = true;
  else threads[tid].open++;
  touched = true;
  tcmma__sim_unlock();
}

void tcmma_sim_wgmma_fence(const char *opcode) { fence_or_commit(opcode, op_fence, true); }
void tcmma_sim_wgmma_commit(const char *opcode) { fence_or_commit(opcode, op_commit, false); }

void tcmma_sim_wgmma_wait(const char *opcode) {
  int tid = tcmma__sim_current_thread();
  if (tid < 0) return;
  size_t head = strlen(op_wait);
  char *end = NULL;
  long n = opcode && strncmp(opcode, op_wait, head) == 0 ? strtol(opcode + head, &end, 10) : -1;
  if (!end || *end || end == opcode + head || n < 0 || n > 7)
    tcmma__sim_fail_lane("wgmma wait: opcode '%s': expected '%sN', N 0 to 7",
                         opcode ? opcode : "(null)", op_wait);
  tcmma__sim_lock();
  wthread *t = &threads[tid];
  for (int r = 0; r < RECORDS && !sh.failed; r++) {
    record *rec = &t->rec[r];
    /* committed, and older than the n most recent committed groups */
    if (!rec->acc || rec->group >= t->open || rec->group + (unsigned long)n >= t->open) continue;
    if (!untouched(rec, tid, "wgmma.wait_group")) break;
    memcpy(rec->acc, rec->value, rec->regs * 4u);
    rec->acc = NULL;
  }
  bool failed = sh.failed;
  tcmma__sim_unlock();
  if (failed) tcmma__sim_stop_thread();
}

void tcmma_sim_wgmma_hold(const void *acc, unsigned regs) {
  int tid = tcmma__sim_current_thread();
  if (tid < 0) return;
  if (!acc) tcmma__sim_fail_lane("wgmma register hold: thread %d passes NULL accumulators", tid);
  tcmma__sim_lock();
  for (int r = 0; r < RECORDS; r++) {
    const record *rec = &threads[tid].rec[r];
    if (rec->acc == acc && (rec->regs != regs || !untouched(rec, tid, "wgmma register hold")))
      if (!sh.failed)
        tcmma__sim_fail("wgmma register hold: thread %d holds %u registers at %p, %u in flight",
                        tid, regs, acc, rec->regs);
  }
  bool failed = sh.failed;
  tcmma__sim_unlock();
  if (failed) tcmma__sim_stop_thread();
}

unsigned tcmma_sim_cvta_shared(const void *p) {
  uintptr_t a = (uintptr_t)p, lo = (uintptr_t)sh.dyn;
  if (tcmma__sim_current_thread() < 0) return 0;
  if (!sh.dyn || a < lo || a - lo >= sh.dyn_bytes)
    tcmma__sim_fail_lane("__cvta_generic_to_shared(%p) by thread %d: not in the block's %zu "
                         "bytes of dynamic shared memory at %p (wgmma operands must live there "
                         "in the simulator)", p, tcmma__sim_current_thread(), sh.dyn_bytes,
                         (void *)sh.dyn);
  return (unsigned)(a - lo);
}
