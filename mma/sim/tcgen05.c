/* tcgen05's Tensor Memory instructions (docs/sim.md "tcgen05"):
 * alloc/dealloc/relinquish_alloc_permit, ld/st/wait (warp collectives, run
 * once per warp through the rendezvous), commit and cp (one thread), fence
 * (any thread). The state lives in tmem.c, the mbarrier in tma.c, the mma in
 * tcgen05_mma.c. Opcodes are the PTX ISA's forms, parsed here (cta_group::1
 * only): an opcode outside them fails the run naming it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mma/sim/internal.h"

#define sh tcmma__sim_state

static const char *const op_alloc = "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32";
static const char *const op_alloc_plain = "tcgen05.alloc.cta_group::1.sync.aligned.b32";
static const char *const op_dealloc = "tcgen05.dealloc.cta_group::1.sync.aligned.b32";
static const char *const op_relinquish =
    "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned";
static const char *const op_commit =
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64";
static const char *const op_commit_plain = "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64";
static const char *const op_wait_ld = "tcgen05.wait::ld.sync.aligned";
static const char *const op_wait_st = "tcgen05.wait::st.sync.aligned";
static const char *const op_fence_before = "tcgen05.fence::before_thread_sync";
static const char *const op_fence_after = "tcgen05.fence::after_thread_sync";

static bool is(const char *opcode, const char *want) { return opcode && !strcmp(opcode, want); }
static const char *name(const char *opcode) { return opcode ? opcode : "(null)"; }

/* each lane's operands at a warp collective */
typedef struct {
  uint32_t *out;
  const uint32_t *in;
  unsigned addr, ncols;
} lane_ops;

/* Fails (lock held) unless every lane passed the same addr and ncols. */
static bool uniform(const char *opcode, void *const arg[SIM_LANES]) {
  const lane_ops *a0 = arg[0];
  for (int l = 1; l < SIM_LANES; l++) {
    const lane_ops *a = arg[l];
    if (a->addr == a0->addr && a->ncols == a0->ncols) continue;
    tcmma__sim_fail("'%s' by warp %d: lane 0 passes 0x%08x, %u; lane %d passes 0x%08x, %u (the "
                    "operands of a .sync.aligned tcgen05 instruction must be the same in the "
                    "warp)", opcode, tcmma__sim_current_warp(), a0->addr, a0->ncols, l, a->addr,
                    a->ncols);
    return false;
  }
  return true;
}

/* ---- alloc, dealloc, relinquish ---- */

static void exec_alloc(const char *opcode, void *const arg[SIM_LANES]) {
  int warp = tcmma__sim_current_warp();
  if (!is(opcode, op_alloc) && !is(opcode, op_alloc_plain)) {
    tcmma__sim_fail("tcgen05.alloc by warp %d: unknown opcode '%s': expected %s", warp,
                    name(opcode), op_alloc);
    return;
  }
  if (!uniform(opcode, arg)) return;
  const lane_ops *a = arg[0];
  uint32_t taddr;
  if (!sh.dyn || a->addr % 4 || a->addr + 4 > sh.dyn_bytes) {
    tcmma__sim_fail("tcgen05.alloc by warp %d: destination shared offset %u is not 4 aligned "
                    "inside the block's %zu bytes of dynamic shared memory", warp, a->addr,
                    sh.dyn_bytes);
    return;
  }
  if (!tcmma__sim_tmem_alloc("tcgen05.alloc", a->ncols, warp, &taddr)) return;
  memcpy(sh.dyn + a->addr, &taddr, 4);
  tcmma__sim_async_view_write(sh.dyn + a->addr, 4);
}

static void exec_dealloc(const char *opcode, void *const arg[SIM_LANES]) {
  int warp = tcmma__sim_current_warp();
  if (!is(opcode, op_dealloc)) {
    tcmma__sim_fail("tcgen05.dealloc by warp %d: unknown opcode '%s': expected %s", warp,
                    name(opcode), op_dealloc);
    return;
  }
  if (!uniform(opcode, arg)) return;
  const lane_ops *a = arg[0];
  tcmma__sim_tmem_dealloc("tcgen05.dealloc", a->addr, a->ncols, warp);
}

static void exec_relinquish(const char *opcode, void *const arg[SIM_LANES]) {
  (void)arg;
  if (!is(opcode, op_relinquish)) {
    tcmma__sim_fail("tcgen05.relinquish_alloc_permit by warp %d: unknown opcode '%s': expected "
                    "%s", tcmma__sim_current_warp(), name(opcode), op_relinquish);
    return;
  }
  tcmma__sim_tmem_relinquish();
}

void tcmma_sim_tcgen05_alloc(const char *opcode, unsigned dst, unsigned ncols) {
  lane_ops mine = {NULL, NULL, dst, ncols};
  tcmma__sim_collective(opcode, exec_alloc, &mine);
}

void tcmma_sim_tcgen05_dealloc(const char *opcode, unsigned taddr, unsigned ncols) {
  lane_ops mine = {NULL, NULL, taddr, ncols};
  tcmma__sim_collective(opcode, exec_dealloc, &mine);
}

void tcmma_sim_tcgen05_relinquish(const char *opcode) {
  lane_ops mine = {NULL, NULL, 0, 0};
  tcmma__sim_collective(opcode, exec_relinquish, &mine);
}

/* ---- ld, st, wait ---- */

/* tcgen05.ld/st's shapes (PTX ISA "Data Movement Shape", Table 49): lanes
 * x bits a lane per .x1, and the largest .num. */
typedef struct {
  const char *name;
  unsigned lanes, bits, max_num;
} ldst_shape;

static const ldst_shape ldst_shapes[] = {
    {"32x32b", 32, 32, 128}, {"16x64b", 16, 64, 128}, {"16x128b", 16, 128, 64},
    {"16x256b", 16, 256, 32},
};

/* prefix.<shape>.x<num>[<pack_q>].b32: the shape, num and the (un)pack
 * qualifier; false for another form (16x32bx2, .red, and pack with a 16-lane
 * shape are not modelled). */
static const ldst_shape *parse_ldst(const char *opcode, const char *prefix, const char *pack_q,
                                    unsigned *num, bool *pack) {
  size_t n = strlen(prefix);
  if (!opcode || strncmp(opcode, prefix, n) || opcode[n] != '.') return NULL;
  const char *s = opcode + n + 1;
  const ldst_shape *shape = NULL;
  for (size_t i = 0; i < sizeof ldst_shapes / sizeof ldst_shapes[0] && !shape; i++) {
    size_t len = strlen(ldst_shapes[i].name);
    if (!strncmp(s, ldst_shapes[i].name, len) && s[len] == '.') shape = &ldst_shapes[i], s += len;
  }
  char *end;
  if (!shape || strncmp(s, ".x", 2)) return NULL;
  unsigned long v = strtoul(s + 2, &end, 10);
  if (end == s + 2 || v == 0 || v > shape->max_num || (v & (v - 1))) return NULL;
  *pack = !strncmp(end, pack_q, strlen(pack_q));
  if (*pack) end += strlen(pack_q);
  *num = (unsigned)v;
  return strcmp(end, ".b32") || (*pack && shape->lanes != 32) ? NULL : shape;
}

/* Registers a thread moves: Table 49. */
static unsigned regs_of(const ldst_shape *s, unsigned num) { return num * s->lanes * s->bits / 1024; }

/* Where thread t's register i lives (lane offset, column offset), from the
 * ISA's fragment figures as CUTLASS's copy traits (SM100_TMEM_LOAD_16dp*)
 * spell them, g = t / 4: 32x32b lane t, column i; 16x64b lane g + 8 (t % 2),
 * column (t / 2) % 2; 16x128b lane g + 8 i, column t % 4; 16x256b lane
 * g + 8 (i / 2), column 2 (t % 4) + i % 2; each .num repeat further along
 * the columns by the shape's width. */
static void ldst_at(const ldst_shape *s, unsigned t, unsigned i, unsigned *lane, unsigned *col) {
  if (s->lanes == 32) {
    *lane = t, *col = i;
    return;
  }
  unsigned per = s->bits / 64, k = i % per, g = t / 4;
  if (s->bits == 64) *lane = g + 8 * (t % 2), *col = (t / 2) % 2;
  else if (s->bits == 128) *lane = g + 8 * k, *col = t % 4;
  else *lane = g + 8 * (k / 2), *col = 2 * (t % 4) + k % 2;
  *col += i / per * (s->bits / 32);
}

/* The warp's lanes of Tensor Memory at taddr: inside its quarter, lanes
 * 32 (warp % 4).. (PTX ISA, "Access restrictions"; a 16-lane shape at the
 * quarter's first or second half), and cols columns inside an allocation. */
static bool quarter(const char *what, int warp, uint32_t taddr, unsigned lanes, unsigned cols) {
  unsigned lane = taddr >> 16, col = taddr & 0xffffu, q = 32u * (unsigned)(warp % 4);
  if (lane != q && !(lanes == 16 && lane == q + 16)) {
    tcmma__sim_fail("%s by warp %d at 0x%08x reaches Tensor Memory lanes %u..%u: warp %d may "
                    "only access lanes %u..%u (warp %% 4 picks the quarter)", what, warp, taddr,
                    lane, lane + lanes - 1, warp, q, q + 31);
    return false;
  }
  return tcmma__sim_tmem_range(what, warp * SIM_LANES, lane, lanes, col, cols);
}

static void exec_ld(const char *opcode, void *const arg[SIM_LANES]) {
  int warp = tcmma__sim_current_warp();
  unsigned num;
  bool pack;
  const ldst_shape *s = parse_ldst(opcode, "tcgen05.ld.sync.aligned", ".pack::16b", &num, &pack);
  if (!s) {
    tcmma__sim_fail("tcgen05.ld by warp %d: unknown opcode '%s' (expected "
                    "tcgen05.ld.sync.aligned.{32x32b,16x64b,16x128b,16x256b}.x<num>.b32, "
                    ".pack::16b with 32x32b; 16x32bx2 and .red are not modelled)", warp,
                    name(opcode));
    return;
  }
  if (!uniform(opcode, arg)) return;
  uint32_t taddr = ((const lane_ops *)arg[0])->addr;
  unsigned regs = regs_of(s, num), words = pack ? 2 * regs : regs;
  unsigned lane0 = taddr >> 16, col0 = taddr & 0xffffu;
  if (!quarter("tcgen05.ld", warp, taddr, s->lanes, words * 32 / s->lanes)) return;
  uint32_t values[128], got[256];
  for (int l = 0; l < SIM_LANES; l++) {
    int thread = warp * SIM_LANES + l;
    for (unsigned i = 0; i < words; i++) {
      unsigned lane, col;
      ldst_at(s, (unsigned)l, i, &lane, &col);
      if (!tcmma__sim_tmem_readable("tcgen05.ld", thread, false, lane0 + lane, col0 + col)) return;
      got[i] = *tcmma__sim_tmem_word(lane0 + lane, col0 + col);
    }
    for (unsigned r = 0; r < regs; r++)
      values[r] = pack ? (got[2 * r] & 0xffffu) | (got[2 * r + 1] << 16) : got[r];
    if (!tcmma__sim_tmem_hold(thread, ((lane_ops *)arg[l])->out, values, regs)) return;
  }
}

static void exec_st(const char *opcode, void *const arg[SIM_LANES]) {
  int warp = tcmma__sim_current_warp();
  unsigned num;
  bool unpack;
  const ldst_shape *s = parse_ldst(opcode, "tcgen05.st.sync.aligned", ".unpack::16b", &num, &unpack);
  if (!s) {
    tcmma__sim_fail("tcgen05.st by warp %d: unknown opcode '%s' (expected "
                    "tcgen05.st.sync.aligned.{32x32b,16x64b,16x128b,16x256b}.x<num>.b32, "
                    ".unpack::16b with 32x32b; 16x32bx2 is not modelled)", warp, name(opcode));
    return;
  }
  if (!uniform(opcode, arg)) return;
  uint32_t taddr = ((const lane_ops *)arg[0])->addr;
  unsigned words = regs_of(s, num) * (unpack ? 2 : 1), lane0 = taddr >> 16, col0 = taddr & 0xffffu;
  if (!quarter("tcgen05.st", warp, taddr, s->lanes, words * 32 / s->lanes)) return;
  unsigned ticket = tcmma__sim_tmem_st_ticket(warp);
  for (int l = 0; l < SIM_LANES; l++) {
    const uint32_t *in = ((const lane_ops *)arg[l])->in;
    for (unsigned i = 0; i < words; i++) {
      unsigned lane, col;
      ldst_at(s, (unsigned)l, i, &lane, &col);
      uint32_t v = unpack ? (in[i / 2] >> (16 * (i % 2))) & 0xffffu : in[i];
      *tcmma__sim_tmem_word(lane0 + lane, col0 + col) = v;
      tcmma__sim_tmem_tag(lane0 + lane, col0 + col, ticket);
    }
  }
}

static void exec_wait(const char *opcode, void *const arg[SIM_LANES]) {
  (void)arg;
  int warp = tcmma__sim_current_warp();
  if (is(opcode, op_wait_ld)) {
    for (int l = 0; l < SIM_LANES; l++) tcmma__sim_tmem_land(warp * SIM_LANES + l);
  } else if (is(opcode, op_wait_st)) {
    tcmma__sim_tmem_st_done(warp);
  } else {
    tcmma__sim_fail("tcgen05.wait by warp %d: unknown opcode '%s': expected %s or %s", warp,
                    name(opcode), op_wait_ld, op_wait_st);
  }
}

void tcmma_sim_tcgen05_ld(const char *opcode, uint32_t *regs, unsigned taddr) {
  if (tcmma__sim_current_thread() >= 0 && !regs)
    tcmma__sim_fail_lane("tcgen05.ld: thread %d passes NULL registers", tcmma__sim_current_thread());
  lane_ops mine = {regs, NULL, taddr, 0};
  tcmma__sim_collective(opcode, exec_ld, &mine);
}

void tcmma_sim_tcgen05_st(const char *opcode, unsigned taddr, const uint32_t *regs) {
  if (tcmma__sim_current_thread() >= 0 && !regs)
    tcmma__sim_fail_lane("tcgen05.st: thread %d passes NULL registers", tcmma__sim_current_thread());
  lane_ops mine = {NULL, regs, taddr, 0};
  tcmma__sim_collective(opcode, exec_st, &mine);
}

void tcmma_sim_tcgen05_wait(const char *opcode) {
  lane_ops mine = {NULL, NULL, 0, 0};
  tcmma__sim_collective(opcode, exec_wait, &mine);
}

/* ---- commit, fence (per thread) ---- */

/* Unlocks; stops the calling thread when the run has failed. */
static void leave(void) {
  bool failed = sh.failed;
  tcmma__sim_unlock();
  if (failed) tcmma__sim_stop_thread();
}

void tcmma_sim_tcgen05_commit(const char *opcode, unsigned long long *bar) {
  int tid = tcmma__sim_current_thread();
  if (tid < 0) return;
  tcmma__sim_lock();
  unsigned long complete_at;
  if (!is(opcode, op_commit) && !is(opcode, op_commit_plain))
    tcmma__sim_fail("tcgen05.commit by thread %d: unknown opcode '%s': expected %s", tid,
                    name(opcode), op_commit);
  else if (tcmma__sim_mbar_arrive_async(bar, "tcgen05.commit", &complete_at))
    tcmma__sim_tmem_commit(tid, bar, complete_at);
  leave();
}

/* tcgen05.cp's shapes (PTX ISA "Data Movement Shape"): rows x bytes a row,
 * and the 32-lane quarters each row lands in (.warpx4: all four). */
static const struct {
  const char *suffix;
  unsigned rows, bytes, copies;
} cp_shapes[] = {
    {".128x256b", 128, 32, 1},
    {".128x128b", 128, 16, 1},
    {".32x128b.warpx4", 32, 16, 4},
};

/* Copies the rows of the source (a K-major canonical matrix of rows x bytes
 * through s_desc) to lane base + row (+ 32 q per copy), the row's byte j to
 * column col + j / 4, byte j % 4. */
static void copy_rows(unsigned shape, uint32_t taddr, uint64_t s_desc, int thread) {
  const char *what = "tcgen05.cp";
  unsigned lane = taddr >> 16, col = taddr & 0xffffu, rows = cp_shapes[shape].rows;
  unsigned bytes = cp_shapes[shape].bytes, copies = cp_shapes[shape].copies;
  sim_umma_desc d;
  if (lane) {
    tcmma__sim_fail("%s by thread %d at 0x%08x: lane %u (expected lane 0 for this shape)", what,
                    thread, taddr, lane);
    return;
  }
  if (!tcmma__sim_umma_desc(s_desc, what, &d) ||
      !tcmma__sim_tmem_range(what, thread, 0, rows * copies, col, bytes / 4))
    return;
  unsigned ticket = tcmma__sim_tmem_async_ticket(thread);
  for (unsigned r = 0; r < rows; r++)
    for (unsigned j = 0; j < bytes; j += 4) {
      uint32_t word = 0;
      for (unsigned b = 0; b < 4; b++) {
        int u;
        unsigned char chunk[16];
        long at = tcmma__sim_umma_chunk(&d, false, 16, (int)r, (int)(j + b), &u);
        if (!tcmma__sim_umma_read(at, 16, what, thread / SIM_LANES, chunk)) return;
        word |= (uint32_t)chunk[u] << (8 * b);
      }
      for (unsigned q = 0; q < copies; q++) {
        *tcmma__sim_tmem_word(r + 32 * q, col + j / 4) = word;
        tcmma__sim_tmem_tag(r + 32 * q, col + j / 4, ticket);
      }
    }
}

void tcmma_sim_tcgen05_cp(const char *opcode, unsigned taddr, uint64_t s_desc) {
  int tid = tcmma__sim_current_thread();
  if (tid < 0) return;
  static const char *const head = "tcgen05.cp.cta_group::1";
  size_t n = strlen(head);
  unsigned shape = 0, count = sizeof cp_shapes / sizeof cp_shapes[0];
  while (opcode && !strncmp(opcode, head, n) && shape < count &&
         strcmp(opcode + n, cp_shapes[shape].suffix))
    shape++;
  tcmma__sim_lock();
  tcmma__sim_tmem_touch();
  if (!opcode || strncmp(opcode, head, n) || shape == count)
    tcmma__sim_fail("tcgen05.cp by thread %d: unknown opcode '%s' (expected %s.128x256b, "
                    ".128x128b or .32x128b.warpx4; the 4x256b and 64x128b shapes and the "
                    "decompressing forms are not modelled)", tid, name(opcode), head);
  else
    copy_rows(shape, taddr, s_desc, tid);
  leave();
}

void tcmma_sim_tcgen05_fence(const char *opcode) {
  int tid = tcmma__sim_current_thread();
  if (tid < 0) return;
  if (is(opcode, op_fence_before) || is(opcode, op_fence_after)) {
    tcmma__sim_lock();
    tcmma__sim_tmem_fence(tid, is(opcode, op_fence_after));
    tcmma__sim_unlock();
    return;
  }
  tcmma__sim_fail_lane("tcgen05.fence by thread %d: unknown opcode '%s': expected %s or %s",
                       tcmma__sim_current_thread(), name(opcode), op_fence_before,
                       op_fence_after);
}
