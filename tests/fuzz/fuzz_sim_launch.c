/* libFuzzer target: the host simulator's launch inputs (mma/sim/). The
 * input is a launch (block shape, grid, dynamic shared bytes, a registry of
 * global buffers) and a short program every thread of a fixed kernel runs:
 * cp.async, ldmatrix, wmma load/store at fuzzed offsets from the dynamic
 * shared memory or a global buffer, mma/cvt/wmma with NULL registers or
 * fragments, barriers and cp.async waits. Whatever the input, the launch
 * must end with a status (never a crash, a hang or a sanitizer report).
 *   byte 0: flags (bit 0: register buffers; bits 1-2: grid x - 1)
 *   byte 1: block x (from a list), byte 2: block y and z
 *   bytes 3-5: dynamic shared bytes (24 bits, some above the limit)
 *   byte 6: buffers (0..3), then 4 bytes each: offset, length in g (16 bits)
 *   then ops of 8 bytes: kind, base/flags, a 32-bit offset, 2 argument bytes.
 * Addresses the simulator cannot check are kept out: without a registry, a
 * global address stays inside g and a shared one inside the reserved window
 * (docs/sim.md, "what is checked"). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "tcmma/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_OPS = 12, G_BYTES = 1 << 16 };

typedef struct {
  uint8_t kind, flags, a, b;
  int32_t offset;
} op;

static struct {
  op ops[MAX_OPS];
  size_t n_ops;
  bool registry;
  size_t dyn;
} prog;

static _Alignas(128) unsigned char g[G_BYTES];

static const char *const descs[] = {"a.m16n16k16.f16.row", "b.m16n16k16.f16.col",
                                    "c.m16n16k16.f32", "a.m16n16k8.tf32.row", "c.m32n8k16.f16",
                                    "a.m16n16k16.f64.row", ""};
static const char *const mmas[] = {
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", "mma.sync.bogus"};
static const char *const ldms[] = {"ldmatrix.sync.aligned.m8n8.x1.shared.b16",
                                   "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
                                   "ldmatrix.sync.aligned.m8n8.x4.shared.b16", "ldmatrix.x8"};

/* The address of op o for lane l: shared or global base, the fuzzed offset
 * (plus 16 bytes a lane when flags bit 1), kept where the simulator can
 * check it when no buffers are registered. */
static unsigned char *address(const op *o, unsigned l) {
  unsigned char *sh = tcmma_sim_dynamic_shared();
  int64_t off = (int64_t)o->offset + ((o->flags & 2) ? 16 * (int64_t)l : 0);
  bool shared = o->flags & 1;
  if (!prog.registry) {
    if (!shared) off = (off % (G_BYTES - 4096) + (G_BYTES - 4096)) % (G_BYTES - 4096);
    else if (!sh) off = (off % (1 << 19) + (1 << 19)) % (1 << 19); /* NULL-based */
    else if (off < -65536 || off > (15 << 20)) off %= 65536;
  }
  uintptr_t base = (uintptr_t)(shared ? sh : g);
  return (unsigned char *)(base + (uintptr_t)off);
}

static void run_op(const op *o, unsigned t) {
  unsigned l = t % 32;
  uint64_t a[8] = {0}, b[8] = {0}, c[8] = {0}, d[8];
  uint32_t r[4];
  tcmma_sim_fragment f, fa, fb, fc;
  bool null_here = (o->b >> (l % 8)) & 1;
  switch (o->kind % 10) {
  case 0:
  case 1: { /* cp.async (.cg 16 / .ca 4, 8, 16), maybe zfill */
    static const unsigned sizes[] = {16, 4, 8, 16};
    unsigned bytes = sizes[o->a % 4];
    const char *opc = o->a & 4 ? "cp.async.ca.shared.global" : "cp.async.cg.shared.global";
    op src = *o;
    src.flags ^= 1, src.offset = (int32_t)((uint32_t)o->offset * 2654435761u);
    if (o->kind % 10 == 1)
      tcmma_sim_cp_async_zfill(opc, address(o, l), address(&src, l), bytes, (o->a >> 3) % 20);
    else tcmma_sim_cp_async(opc, address(o, l), address(&src, l), bytes);
    break;
  }
  case 2: tcmma_sim_ldmatrix(ldms[o->a % 4], null_here && (o->a & 8) ? NULL : r, address(o, l));
    break;
  case 3:
    tcmma_sim_wmma_load(null_here && (o->a & 64) ? NULL : &f, descs[o->a % 7], address(o, 0),
                        (unsigned)o->b & 63, (o->a >> 3) % 3);
    break;
  case 4:
    tcmma_sim_wmma_fill(&f, "c.m16n16k16.f32", 1.0f);
    tcmma_sim_wmma_store(address(o, 0), null_here && (o->a & 64) ? NULL : &f,
                         (unsigned)o->a & 63, (o->a >> 6) % 3);
    break;
  case 5: /* mma: NULL registers in the lanes b picks */
    tcmma_sim_mma(mmas[o->a % 5], null_here && (o->a & 8) ? NULL : d,
                  null_here && (o->a & 16) ? NULL : a, null_here && (o->a & 32) ? NULL : b,
                  null_here && (o->a & 64) ? NULL : c);
    break;
  case 6:
    tcmma_sim_mma_scaled("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X."
                         "m16n8k32.row.col.f32.e4m3.e4m3.f32.ue8m0",
                         d, null_here ? NULL : a, b, c, o->a, o->a & 3, (o->a >> 2) & 1,
                         o->b, o->b & 3, (o->b >> 2) & 3);
    break;
  case 7: tcmma_sim_cvt("cvt.rna.tf32.f32", null_here ? NULL : (uint32_t *)a); break;
  case 8:
    tcmma_sim_wmma_fill(&fa, "a.m16n16k16.f16.row", 1.0f);
    tcmma_sim_wmma_fill(&fb, "b.m16n16k16.f16.col", 1.0f);
    tcmma_sim_wmma_fill(&fc, "c.m16n16k16.f32", 0.0f);
    tcmma_sim_wmma_mma(null_here && (o->a & 1) ? NULL : &fc, &fa, null_here ? NULL : &fb, &fc);
    break;
  default: /* waits and barriers */
    if (o->a & 1) tcmma_sim_cp_async_commit();
    if (o->a & 2) tcmma_sim_cp_async_wait_group(o->a >> 4);
    if (o->a & 4) tcmma_sim_cp_async_wait_all();
    if (o->a & 8) tcmma_sim_syncthreads();
    if (o->a & 16) tcmma_sim_syncwarp();
    break;
  }
}

static void kernel(void *arg) {
  (void)arg;
  unsigned t = tcmma_sim_thread_idx(0) +
               tcmma_sim_block_dim(0) * (tcmma_sim_thread_idx(1) +
                                         tcmma_sim_block_dim(1) * tcmma_sim_thread_idx(2));
  for (size_t i = 0; i < prog.n_ops; i++) run_op(&prog.ops[i], t);
  tcmma_sim_cp_async_wait_all();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const unsigned xs[] = {32, 64, 1, 31, 33, 0, 96, 128, 256, 1024, 1025, 4096, 65, 32};
  static const unsigned yz[] = {1, 1, 1, 2, 0, 4, 33};
  if (size < 7) return 0;
  tcmma_sim_config cfg = tcmma_sim_config_default();
  cfg.grid[0] = 1u + ((data[0] >> 1) & 3);
  cfg.block[0] = xs[data[1] % (sizeof xs / sizeof xs[0])];
  cfg.block[1] = yz[data[2] % 7], cfg.block[2] = yz[(data[2] >> 4) % 7];
  cfg.dynamic_shared = ((size_t)data[3] | (size_t)data[4] << 8 | (size_t)data[5] << 16) % 262144;
  prog.dyn = cfg.dynamic_shared;
  prog.registry = data[0] & 1;
  const void *bases[3];
  size_t lens[3];
  size_t n = data[6] % 4, at = 7;
  for (size_t i = 0; i < n && at + 4 <= size; i++, at += 4) {
    size_t off = ((size_t)data[at] | (size_t)data[at + 1] << 8) % G_BYTES;
    size_t len = ((size_t)data[at + 2] | (size_t)data[at + 3] << 8) % (G_BYTES - off + 1);
    bases[i] = g + off, lens[i] = len;
    cfg.n_buffers = i + 1;
  }
  if (prog.registry && cfg.n_buffers) cfg.buffers = bases, cfg.buffer_bytes = lens;
  else if (prog.registry) cfg.n_buffers = 1; /* no arrays: refused */
  else cfg.n_buffers = 0;
  prog.registry = prog.registry && cfg.buffers;
  prog.n_ops = 0;
  for (; at + 8 <= size && prog.n_ops < MAX_OPS; at += 8) {
    op *o = &prog.ops[prog.n_ops++];
    o->kind = data[at], o->flags = data[at + 1], o->a = data[at + 6], o->b = data[at + 7];
    uint32_t v = (uint32_t)data[at + 2] | (uint32_t)data[at + 3] << 8 |
                 (uint32_t)data[at + 4] << 16 | (uint32_t)data[at + 5] << 24;
    memcpy(&o->offset, &v, sizeof v);
  }
  tcmma_error err;
  tcmma_status st = tcmma_sim_launch_grid(kernel, NULL, &cfg, &err);
  if (st != TCMMA_OK && err.message[0] == '\0') __builtin_trap(); /* a failure names itself */
  /* outside a launch the entry points do nothing, whatever they are given */
  tcmma_sim_cvt("cvt.rna.tf32.f32", NULL);
  tcmma_sim_ldmatrix(ldms[0], NULL, NULL);
  tcmma_sim_mma(mmas[0], NULL, NULL, NULL, NULL);
  tcmma_sim_wmma_fill(NULL, NULL, 0.0f);
  tcmma_sim_wmma_store(NULL, NULL, 0, 0);
  tcmma_sim_cp_async("cp.async.cg.shared.global", NULL, NULL, 16);
  return 0;
}
