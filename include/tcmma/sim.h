/* The host warp simulator: runs host-dialect emissions as one warp of 32
 * lanes on the CPU, in lockstep through each collective operation, against a
 * reference model of each instruction built from the PTX ISA (docs/design.md
 * §7, §11).
 *
 * The host dialect of the renderer differs from the CUDA text only in how
 * collective instructions and vendor types are spelled; this header is what
 * that text calls. Collectives pass the very PTX opcode string the CUDA text
 * would carry, so the simulator models exactly the instruction emitted.
 *
 * The simulator is not in libtcmma.so: it is the static archive
 * libtcmma_sim.a, installed next to libtcmma.a (link -ltcmma_sim before
 * -ltcmma). A program that dlopens host-dialect modules must export these
 * functions for them (-Wl,--export-dynamic-symbol='tcmma_sim_*'), as the
 * tcmma CLI does (docs/sim.md), or load build/libtcmma_sim.so (linked
 * against libtcmma.so) with RTLD_GLOBAL first, as the Python package does.
 *
 * CONTRACT (renderer <-> simulator; change both sides together):
 *   CUDA                               host dialect
 *   __half / __nv_bfloat16             tcmma_sim_half / tcmma_sim_bfloat16
 *   __nv_fp8_e4m3 / __nv_fp8_e5m2      tcmma_sim_fp8_e4m3 / tcmma_sim_fp8_e5m2
 *   __nv_fp4_e2m1, __nv_fp6_e2m3/e3m2  tcmma_sim_fp4_e2m1, tcmma_sim_fp6_e2m3/e3m2
 *   __half2float, __float2half_rn      tcmma_sim_half2float, tcmma_sim_float2half_rn
 *   __bfloat162float, __float2bfloat16_rn  tcmma_sim_bfloat162float, tcmma_sim_float2bfloat16_rn
 *   float2, __half2, __nv_bfloat162    tcmma_sim_float2, tcmma_sim_half2, tcmma_sim_bfloat162
 *   int2, make_int2                    tcmma_sim_int2, tcmma_sim_make_int2
 *   double2, make_double2              tcmma_sim_double2, tcmma_sim_make_double2
 *   make_float2                        tcmma_sim_make_float2
 *   __half22float2, __floats2half2_rn  tcmma_sim_half22float2, tcmma_sim_floats2half2_rn
 *   __bfloat1622float2, __floats2bfloat162_rn
 *                                      tcmma_sim_bfloat1622float2, tcmma_sim_floats2bfloat162_rn
 *   threadIdx.x                        tcmma_sim_lane()
 *   blockIdx.x                         tcmma_sim_block()
 *   threadIdx.y/.z, blockIdx.y/.z      tcmma_sim_thread_idx(1/2), tcmma_sim_block_idx(1/2)
 *   blockDim.x/.y/.z, gridDim.x/.y/.z  tcmma_sim_block_dim(0/1/2), tcmma_sim_grid_dim(0/1/2)
 *   __syncthreads()                    tcmma_sim_syncthreads()
 *   extern __shared__ __align__(128) unsigned char s[];
 *                                      unsigned char *const s = tcmma_sim_dynamic_shared();
 *   asm volatile("mma.sync… {…}" …)     tcmma_sim_mma("mma.sync…", d, a, b, c)
 *   asm volatile("mma.sync.aligned.kind::mxf8f6f4.block_scale… {…}, sa, {0, 0}, sb, {0, 0}")
 *                                      tcmma_sim_mma_scaled("mma.sync…", d, a, b, c, sa, 0, 0,
 *                                                           sb, 0, 0)
 *   asm("cvt.rna.tf32.f32 %0, %0;" : "+r"(x))
 *                                      tcmma_sim_cvt("cvt.rna.tf32.f32", &x)
 *   asm volatile("ldmatrix.sync…" …)   tcmma_sim_ldmatrix("ldmatrix.sync…", regs, row_ptr)
 *   asm volatile("cp.async.cg…" …)     tcmma_sim_cp_async("cp.async.cg.shared.global", dst, src, 16)
 *   asm volatile("cp.async.cg… [%0], [%1], 16, %2;" …) (src-size: zero fill)
 *                                      tcmma_sim_cp_async_zfill("cp.async.cg.shared.global", dst, src, 16, n)
 *   cp.async.commit_group / wait_all   tcmma_sim_cp_async_commit() / tcmma_sim_cp_async_wait_all()
 *   cp.async.wait_group N              tcmma_sim_cp_async_wait_group(N)
 *   __nv_fp8_e4m3(x) / __nv_fp8_e5m2(x) tcmma_sim_float2fp8_e4m3(x) / _e5m2(x)
 *   __float_as_uint, atomicMax(unsigned *, unsigned)
 *                                      tcmma_sim_float_as_uint, tcmma_sim_atomic_max
 *   tanhf, erff, expf, fabsf           the same (the host text includes <math.h>)
 *   __syncwarp()                       tcmma_sim_syncwarp()
 *   asm volatile("elect.sync _|p, 0xffffffff;" …) (p to a bool)
 *                                      tcmma_sim_elect_sync("elect.sync", 0xffffffffu, NULL)
 *   atomicAdd, __threadfence(), __ldcg tcmma_sim_atomic_add, tcmma_sim_threadfence(),
 *                                      tcmma_sim_ldcg
 *   nvcuda::wmma::fragment<…> f        tcmma_sim_fragment f
 *   nvcuda::wmma::fill_fragment(f, v)  tcmma_sim_wmma_fill(&f, DESC, v)
 *   nvcuda::wmma::load_matrix_sync     tcmma_sim_wmma_load(&f, DESC, ptr, ldm, layout)
 *   nvcuda::wmma::mma_sync             tcmma_sim_wmma_mma(&d, &a, &b, &c)
 *   nvcuda::wmma::store_matrix_sync    tcmma_sim_wmma_store(ptr, &f, ldm, layout)
 *   nvcuda::wmma::__float_to_tf32      tcmma_sim_float_to_tf32
 *   f.num_elements, f.x[t]             the same fields
 *   #pragma unroll                     #pragma GCC unroll 16
 *   __shared__ __align__(128) T x[N]   static _Alignas(128) T x[N]  (inside the
 *                                      kernel: one copy all lanes share)
 *   extern "C" __global__ void         void
 *   __launch_bounds__(T, B[, C])       TCMMA_SIM_LAUNCH_BOUNDS(T, B[, C]) (expands to nothing)
 *   __maxnreg__(R), __cluster_dims__(X, Y, Z)  TCMMA_SIM_MAXNREG(R), TCMMA_SIM_CLUSTER_DIMS(X, Y, Z)
 *                                      (nothing)
 *   asm volatile("setmaxnreg.inc.sync.aligned.u32 N;\n" ::)
 *                                      TCMMA_SIM_SETMAXNREG("setmaxnreg.inc…", N) (no effect)
 *   const __grid_constant__            TCMMA_SIM_GRID_CONSTANT (const)
 *   __device__ __forceinline__         TCMMA_SIM_DEVICE_FN (static inline, unused allowed)
 *   CUtensorMap                        tcmma_tensor_map (include/tcmma/tensor_map.h)
 *   __shared__ __align__(1024) T x[N]  static _Alignas(1024) T x[N]
 *   asm volatile("mbarrier.init…" …), ("mbarrier.arrive[.expect_tx]…"), the try_wait loop
 *                                      tcmma_sim_mbar_init / _arrive / _wait (opcode, bar, …)
 *   asm volatile("fence.mbarrier_init…"), ("fence.proxy.async…")  tcmma_sim_fence(opcode)
 *   asm volatile("cp.async.bulk.tensor.Nd…" …)
 *                                      tcmma_sim_tma_load(opcode, dst, &map, bar, coords)
 *   a plain read of a TMA tile's bytes tcmma_sim_ld_shared(dst, src, bytes)
 *   uint4, __align__(16)               tcmma_sim_uint4, _Alignas(16)
 *   asm volatile("wgmma.fence…"), ("wgmma.commit_group…"), ("wgmma.wait_group… N")
 *                                      tcmma_sim_wgmma_fence / _commit / _wait(opcode)
 *   asm volatile("wgmma.mma_async… {acc…}, da|{a…}, db, p, …" …)
 *                                      tcmma_sim_wgmma_mma(opcode, acc, a|NULL, da, db,
 *                                                          scale_d, trans_a, trans_b)
 *   asm volatile("" : "+f"(acc[i])) for each i  tcmma_sim_wgmma_hold(acc, regs)
 *   __cvta_generic_to_shared(p)        tcmma_sim_cvta_shared(p)
 *   bool                               _Bool
 *   asm volatile("tcgen05.<op>… …" …)  tcmma_sim_tcgen05_<op>(opcode, the PTX operands in
 *                                      PTX order): alloc, dealloc, relinquish, mma,
 *                                      mma_tmem_a, mma_scaled, mma_scaled_tmem_a, commit,
 *                                      ld, st, wait, cp, fence
 *   asm volatile("cp.async.commit_group…") / ("cp.async.wait_all…")
 *                                      tcmma_sim_cp_async_commit() / _wait_all()
 * The spellings are the rows of tables/dialect.def; the opcodes passed to the
 * collectives are those of tables/arms.def and tables/collectives.def.
 * Operand registers are `unsigned` arrays (uint32_t here), accumulators
 * `float` arrays; operand gathers read storage through `unsigned char`,
 * `unsigned short` and `unsigned` lvalues at byte offsets, so compile the
 * host text with -fno-strict-aliasing.
 *
 * A host kernel (tcmma_render_kernel, HOST dialect) is one C file:
 *   #include "tcmma/sim.h"
 *   void tcmma_kernel(D *d, const A *a, const B *b) { ... }
 *   void tcmma_kernel_entry(void *args);  args: a void *[3] of d, a, b
 * Run it with tcmma_sim_launch(tcmma_kernel_entry, args, &err). Its buffers
 * are laid out as tcmma_kernel_operand_index (include/tcmma/render.h) says.
 * DESC names a fragment: "<use>.m<M>n<N>k<K>.<elem>[.<row|col>]" with use
 * a|b|c, elem f16|bf16|tf32|f32, and the layout for a and b only, e.g.
 * "a.m16n16k16.f16.row", "b.m16n16k8.tf32.col", "c.m16n16k16.f32". The
 * fragment remembers its DESC from fill/load, so mma and store take none.
 * layout for accumulators: 0 = mem_row_major, 1 = mem_col_major (ignored
 * for a and b, whose DESC carries it). */
#ifndef TCMMA_SIM_H
#define TCMMA_SIM_H

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdalign.h> /* alignas: a keyword in C++ */
#endif
#include "tcmma/status.h"
#include "tcmma/tensor_map.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public: the library builds with -fvisibility=hidden */

/* A kernel's attributes (tables/kernel_attrs.def) mean nothing on the host:
 * one block runs its threads one after another, with no register file. */
#define TCMMA_SIM_LAUNCH_BOUNDS(...)
#define TCMMA_SIM_MAXNREG(regs)
#define TCMMA_SIM_CLUSTER_DIMS(x, y, z)
#define TCMMA_SIM_SETMAXNREG(opcode, regs) ((void)0)
/* A kernel's by-value parameter (__grid_constant__) and a device helper
 * (unused allowed: clang warns of an unused static inline function in the
 * kernel's own file, and a kernel need not call every helper). */
#define TCMMA_SIM_GRID_CONSTANT const
#define TCMMA_SIM_DEVICE_FN static inline __attribute__((unused))

/* Storage types of the host dialect: the raw bits, as the GPU stores them. */
typedef struct { uint16_t bits; } tcmma_sim_half;
typedef struct { uint16_t bits; } tcmma_sim_bfloat16;
typedef struct { uint8_t bits; } tcmma_sim_fp8_e4m3;
typedef struct { uint8_t bits; } tcmma_sim_fp8_e5m2;
/* fp4/fp6: one element per byte, the value in the low 4 / 6 bits. */
typedef struct { uint8_t bits; } tcmma_sim_fp4_e2m1;
typedef struct { uint8_t bits; } tcmma_sim_fp6_e2m3;
typedef struct { uint8_t bits; } tcmma_sim_fp6_e3m2;
/* Pairs of adjacent elements, x at the lower address, aligned to their size
 * as CUDA's float2, __half2 and __nv_bfloat162 are. */
typedef struct { alignas(8) float x; float y; } tcmma_sim_float2;
typedef struct { alignas(4) tcmma_sim_half x; tcmma_sim_half y; } tcmma_sim_half2;
typedef struct { alignas(4) tcmma_sim_bfloat16 x; tcmma_sim_bfloat16 y; } tcmma_sim_bfloat162;
/* CUDA's uint4: 16 bytes moved as one aligned access. */
typedef struct { alignas(16) uint32_t x; uint32_t y, z, w; } tcmma_sim_uint4;
typedef struct { alignas(8) int x; int y; } tcmma_sim_int2;
typedef struct { alignas(16) double x; double y; } tcmma_sim_double2;

/* ---- running a warp, a block, a grid ---- */

/* Runs entry(arg) as the 32 lanes of one warp: one block of 32 threads
 * (tcmma_sim_launch_grid with grid 1x1x1, block 32x1x1, no dynamic shared
 * memory). TCMMA_INVALID (naming the collective and the lanes) when the lanes
 * disagree at a collective (different opcodes, some lanes gone), for an
 * opcode or fragment DESC the models do not know, for misaligned or
 * non-uniform wmma/ldmatrix/cp.async arguments, for cp.async copies never
 * waited for, and for a launch from inside a lane; TCMMA_NO_MEMORY when the
 * lanes cannot be started. Runs are serialized. Outside a launch the
 * collectives below do nothing. */
tcmma_status tcmma_sim_launch(void (*entry)(void *arg), void *arg, tcmma_error *err);

/* The most threads one simulated block holds, as on every CUDA device. */
#define TCMMA_SIM_BLOCK_THREADS_MAX 1024

/* The shape of a grid launch. Start one with tcmma_sim_config_default() or
 * TCMMA_SIM_CONFIG_INIT: a size of 0 is TCMMA_INVALID. */
typedef struct {
  size_t size;            /* sizeof(tcmma_sim_config) where the caller was built: the
                             simulator reads the fields it covers, defaults the rest
                             (docs/design.md §15) */
  unsigned grid[3];       /* blocks along x, y, z (each at least 1) */
  unsigned block[3];      /* threads along x, y, z (each at least 1; at most
                             TCMMA_SIM_BLOCK_THREADS_MAX in all) */
  size_t dynamic_shared;  /* bytes of dynamic shared memory per block (0: none) */
  const unsigned *blocks; /* NULL: every block in order; else the linear block
                             indices (x + y*gx + z*gx*gy) to run, in this order:
                             a sample of a large grid */
  size_t n_blocks;        /* entries in blocks */
  /* Optional registry of the global memory the kernel may reach through the
   * simulator: n_buffers ranges [buffers[i], buffers[i] + buffer_bytes[i]).
   * 0 (the default): addresses outside the dynamic shared memory's window
   * are not checked. Otherwise every cp.async source and destination,
   * ldmatrix row and wmma load/store span outside that window must lie
   * inside one registered range (register static __shared__ arrays too). */
  const void *const *buffers;
  const size_t *buffer_bytes;
  size_t n_buffers;
} tcmma_sim_config;

/* An initializer (C): the size, then the fields in order or designated:
 * tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {64, 1, 1}, 0, NULL, 0); */
#define TCMMA_SIM_CONFIG_INIT(...) {.size = sizeof(tcmma_sim_config), __VA_ARGS__}

/* Fills the first `size` bytes of *out (the caller's sizeof(tcmma_sim_config))
 * with one block of one warp (grid 1x1x1, block 32x1x1, no dynamic shared
 * memory, every block); out->size = size. For bindings; NULL or a size too
 * small to hold the size field does nothing. */
void tcmma_sim_config_init(tcmma_sim_config *out, size_t size);

/* The same as a value; inline, so that the size is the caller's own sizeof. */
static inline tcmma_sim_config tcmma_sim_config_default(void) {
  tcmma_sim_config c;
  tcmma_sim_config_init(&c, sizeof c);
  return c;
}

/* Runs entry(arg) as every thread of each block of cfg, one block after
 * another: threads are numbered x fastest, warps are 32 consecutive threads
 * (the last may be partial), and each block gets fresh dynamic shared memory
 * (filled with 0xff) of cfg->dynamic_shared bytes. Besides the failures of
 * tcmma_sim_launch, TCMMA_INVALID names: a __syncthreads() not reached by
 * every thread of the block (some exited, or wait at another barrier or
 * collective: a deadlock is reported, never waited on), a warp collective
 * of a partial warp, and shared memory that ldmatrix or wmma reads while a
 * cp.async into it has not landed (issued, not yet waited for with
 * cp.async.wait_group/wait_all) or landed by another warp without a
 * __syncthreads() since, and a cp.async into bytes another warp read since
 * the last __syncthreads(). So are an ldmatrix row, a cp.async source or
 * destination and a wmma load/store span outside the exact extent of the
 * dynamic shared memory while inside the window reserved around it (64 KiB
 * before, 16 MiB after; without dynamic shared memory, the first MiB of
 * addresses: offsets from a NULL base), or, with buffers registered
 * (cfg->buffers), outside both that extent and every buffer; the message
 * names the instruction, lane, address and extent. Plain C loads and stores
 * are not seen: only writes found in the 4 KiB after the extent when the
 * block ends are reported (further ones fault in the reserved window).
 * TCMMA_INVALID also, before anything runs, for a bad cfg (zero or
 * oversized dimensions, more than TCMMA_SIM_BLOCK_THREADS_MAX threads, a
 * sampled block outside the grid, dynamic_shared above the largest device's
 * shared memory, a registry without its arrays or with a range that wraps);
 * TCMMA_NO_MEMORY when the threads or the shared memory cannot be had. */
tcmma_status tcmma_sim_launch_grid(void (*entry)(void *arg), void *arg,
                                   const tcmma_sim_config *cfg, tcmma_error *err);

/* The calling thread's threadIdx.x (the lane in a one-warp launch; 0 outside
 * a launch). */
unsigned tcmma_sim_lane(void);

/* The block's blockIdx.x (0 outside a launch). Origin expressions of
 * sub-tiles may read it. */
unsigned tcmma_sim_block(void);

/* threadIdx, blockIdx, blockDim and gridDim along axis 0 (x), 1 (y) or 2 (z);
 * 0 for another axis or outside a launch. */
unsigned tcmma_sim_thread_idx(unsigned axis);
unsigned tcmma_sim_block_idx(unsigned axis);
unsigned tcmma_sim_block_dim(unsigned axis);
unsigned tcmma_sim_grid_dim(unsigned axis);

/* The block's dynamic shared memory (extern __shared__), 128-byte aligned;
 * NULL when the launch asked for none or outside a launch. */
void *tcmma_sim_dynamic_shared(void);

/* __syncthreads(): every thread of the block arrives before any leaves. */
void tcmma_sim_syncthreads(void);

/* ---- collectives (called by all 32 lanes) ---- */

/* Every collective and per-thread call below fails the run (TCMMA_INVALID
 * naming the call and the lane) for a NULL register or fragment pointer. */

/* mma.sync per the PTX ISA fragment layouts: a, b: this lane's registers
 * (a_regs, b_regs of the arm: uint32_t, or double for f64 elements), c, d:
 * its accumulator registers (float, int32_t, double, or uint32_t holding two
 * f16). d may alias c. The opcode says the types. */
void tcmma_sim_mma(const char *opcode, void *d, const void *a, const void *b, const void *c);

/* Block-scaled mma.sync (kind::mxf8f6f4.block_scale.scale_vec::1X): as
 * tcmma_sim_mma, plus this lane's scale-a-data and scale-b-data (ue8m0
 * bytes) and the selectors {byte-id, thread-id} of each, which pick the
 * bytes and lanes that hold the row and column scales (PTX ISA, "Block
 * Scaling for mma.sync"); selectors must be the same in every lane.
 * Eleven parameters on purpose: they are the PTX instruction's operands
 * 1:1 (d, a, b, c, scale-a-data, {byte-id-a, thread-id-a}, scale-b-data,
 * {byte-id-b, thread-id-b}), so the host dialect's call reads as the asm
 * statement it stands for; a scale struct would be a new public struct
 * (a size field first, by the ABI rule) spelled as a compound literal in
 * every emitted call, for no check the simulator does not already make. */
void tcmma_sim_mma_scaled(const char *opcode, void *d, const void *a, const void *b,
                          const void *c, uint32_t scale_a, unsigned byte_a, unsigned thread_a,
                          uint32_t scale_b, unsigned byte_b, unsigned thread_b);

/* A per-lane conversion instruction on a 32-bit register, in place (the
 * CUDA text's "+r" operand): only "cvt.rna.tf32.f32" (f32 bits in, tf32 bits
 * out, cvt.rna); another opcode fails the launch (outside a launch: *x is
 * left alone). */
void tcmma_sim_cvt(const char *opcode, uint32_t *x);

/* ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16: row is this lane's
 * row address (16 bytes); regs receives 1, 2 or 4 registers. */
void tcmma_sim_ldmatrix(const char *opcode, uint32_t *regs, const void *row);

/* cp.async.{ca,cg}.shared.global: copies bytes (4, 8 or 16; .cg: 16 only)
 * from src to dst when its group completes (per thread, not a collective).
 * zfill: the src-size form: copies the first src_bytes (0..bytes) and
 * zeroes the rest; src is not read when src_bytes is 0. commit closes the
 * thread's current group; wait_group N lands every committed group but the
 * N most recent; wait_all lands every copy, committed or not. */
void tcmma_sim_cp_async(const char *opcode, void *dst, const void *src, unsigned bytes);
void tcmma_sim_cp_async_zfill(const char *opcode, void *dst, const void *src, unsigned bytes,
                              unsigned src_bytes);
void tcmma_sim_cp_async_commit(void);
void tcmma_sim_cp_async_wait_group(unsigned n);
void tcmma_sim_cp_async_wait_all(void);

/* __syncwarp(): every lane of the warp arrives before any leaves. */
void tcmma_sim_syncwarp(void);

/* elect.sync d|p, membermask (PTX ISA 8.0, sm_90): every lane of the warp
 * arrives before any leaves; returns p, 1 in the one lane elected and 0 in
 * the others, and stores d, the elected lane's laneid, to *leader in every
 * lane (leader NULL: the sink '_'). The ISA elects one lane of membermask,
 * the same one for the same mask every time, but names no lane: the
 * simulator elects the highest-numbered, so that a kernel assuming lane 0
 * fails here. TCMMA_INVALID for another opcode, lanes whose membermask
 * differs, or a lane outside its own membermask (undefined in the ISA: with
 * every lane arriving, as at each collective here, the mask is the whole
 * warp's). 0 outside a launch. */
int tcmma_sim_elect_sync(const char *opcode, unsigned membermask, unsigned *leader);

/* Global memory shared between blocks (a split-K GEMM's workspace):
 * atomicAdd on an unsigned (returns the old value; sequentially
 * consistent), __threadfence() and __ldcg (a load that bypasses L1: here a
 * plain load, the blocks of a grid running one after another). */
unsigned tcmma_sim_atomic_add(unsigned *p, unsigned v);
void tcmma_sim_threadfence(void);
float tcmma_sim_ldcg(const float *p);
/* ---- TMA and mbarrier (per thread; include/tcmma/tma.h's helpers) ----
 * Modelled from the PTX ISA: a barrier (8 bytes of shared memory, set up by
 * mbarrier_init with its expected arrivals) completes its current phase
 * when every arrival is in and its transaction count (the bytes expected by
 * arrive.expect_tx, less those complete_tx delivered) is zero; then the
 * next phase starts with the same arrivals expected. A TMA copy lands its
 * bytes, each delivered to its barrier, once the phase's arrivals are in
 * and a thread waits on it. wait(parity) returns once the phase of that
 * parity completed (at once for the parity of the phase before the first);
 * a wait that nothing can complete ends the run as a deadlock naming the
 * barrier and what it still expects, never a hang. The launch fails
 * (TCMMA_INVALID, naming it) for: an opcode other than the helpers', a
 * barrier used before init or misaligned, more arrivals than expected, more
 * bytes delivered than expected, a map failing tcmma_tensor_map_check (its
 * rule named) or one the model does not cover (interleave, NaN fill), a
 * destination not 128-byte aligned (the swizzle's repeat, 256 to 1024 bytes,
 * when swizzled) or outside memory the launch knows, a read through
 * tcmma_sim_ld_shared of bytes a copy has not landed in, and a block ending
 * with copies never landed. */
void tcmma_sim_mbar_init(const char *opcode, unsigned long long *bar, unsigned arrivals);
/* mbarrier.arrive (tx_bytes 0) or mbarrier.arrive.expect_tx (tx_bytes expected first). */
void tcmma_sim_mbar_arrive(const char *opcode, unsigned long long *bar, unsigned tx_bytes);
void tcmma_sim_mbar_wait(const char *opcode, unsigned long long *bar, unsigned parity);
/* fence.mbarrier_init.release.cluster (the opcode checked) and
 * fence.proxy.async.shared::cta: the async proxy's view of the dynamic
 * shared memory, which wgmma reads through, becomes what it holds now. */
void tcmma_sim_fence(const char *opcode);
/* cp.async.bulk.tensor.<rank>d...: the box of map at element coordinates
 * coords[0..rank-1] into shared dst (landed as tcmma_tensor_map_shared_offset
 * says; elements outside map's dims land as zeros), its bytes completing on bar. */
void tcmma_sim_tma_load(const char *opcode, void *dst, const tcmma_tensor_map *map,
                        unsigned long long *bar, const int *coords);
/* A generic read of bytes of shared memory src into dst, checked against
 * the TMA copies not yet landed there (the host spelling of a kernel's
 * plain read of a TMA tile). */
void tcmma_sim_ld_shared(void *dst, const void *src, size_t bytes);

/* ---- wgmma (Hopper's warpgroup MMA; mma/sim/wgmma.c, docs/sim.md "wgmma") ----
 * wgmma.mma_async is a rendezvous of a warpgroup: the 128 threads of four
 * consecutive warps (the first warp's index a multiple of 4). Its shared
 * operands are read through 64-bit matrix descriptors whose start address is
 * a byte offset into the block's dynamic shared memory (tcmma_sim_cvta_shared,
 * >> 4); the accumulators' results land only at the wgmma.wait_group that
 * completes their group: until then the thread's accumulator registers hold
 * TCMMA_SIM_WGMMA_POISON (a read before the wait sees it), and a write to them
 * while in flight, a thread ending with groups in flight, an mma_async before
 * the thread's first wgmma.fence, and a shared byte a generic (ordinary) store
 * changed after the block's last fence.proxy.async fail the run. */

/* The bits of every in-flight accumulator register (an f32 and an f16 pair
 * NaN, an s32 no product of the verify inputs reaches). */
#define TCMMA_SIM_WGMMA_POISON 0x7fc0ffeeu

/* __cvta_generic_to_shared(p): p's byte offset in the block's dynamic shared
 * memory (the address space wgmma descriptors and the simulator's shared
 * window share); a p outside it fails the run. */
unsigned tcmma_sim_cvta_shared(const void *p);
/* wgmma.fence.sync.aligned (per thread): the thread's registers are ordered
 * before its following wgmma.mma_async. */
void tcmma_sim_wgmma_fence(const char *opcode);
/* wgmma.mma_async.sync.aligned.m64nNkK.D.A.B[.satfinite] (the row's opcode of
 * tables/wgmma.def; a warpgroup collective): acc this thread's n/2 (f32, s32)
 * or n/4 (f16 pairs) accumulator registers; a this thread's 4 registers of A
 * (tcmma_wgmma_a_layout) or NULL for A through desc_a; scale_d 0: acc = A B,
 * else acc += A B; trans_a/trans_b the imm-trans values (0 when the row has
 * none). desc_a, desc_b, scale_d and the trans values must be warpgroup-uniform. */
void tcmma_sim_wgmma_mma(const char *opcode, void *acc, const uint32_t *a,
                         unsigned long long desc_a, unsigned long long desc_b, int scale_d,
                         int trans_a, int trans_b);
/* wgmma.commit_group.sync.aligned and "wgmma.wait_group.sync.aligned N" (per
 * thread): commit closes the thread's open group; wait lands every committed
 * group but the N most recent (N read from the opcode text, 0..7). */
void tcmma_sim_wgmma_commit(const char *opcode);
void tcmma_sim_wgmma_wait(const char *opcode);
/* The register hold (CUDA: an empty asm with "+f"/"+r" on each of acc's regs
 * registers): checks that none of them in flight was written since its issue. */
void tcmma_sim_wgmma_hold(const void *acc, unsigned regs);

/* ---- tcgen05 and Tensor Memory (Blackwell cc 10.x; mma/sim/tcgen05*.c and
 * tmem.c, docs/sim.md "tcgen05") ----
 * Each block has a Tensor Memory of 128 lanes x 512 columns of 32 bits,
 * addressed (lane << 16) | column (a scale-factor address's bits 30-31, where
 * CUTLASS carries the SF ID, are ignored: the ID is the instruction
 * descriptor's). Each function takes the exact PTX opcode (kind,
 * shape, num parsed from it; an opcode the model does not know fails the run
 * naming it) and the PTX operands in PTX order: TMEM addresses as unsigned,
 * shared addresses from tcmma_sim_cvta_shared, descriptors as uint64_t, the
 * instruction descriptor as unsigned, the mbarrier as the TMA functions take
 * it. Collectives of a warp (alloc, dealloc, relinquish, ld, st, wait) are
 * called by all 32 lanes with the same operands; mma, cp and commit are
 * issued by ONE thread (single-thread semantics: a warp calling them issues
 * 32 instructions); fence by any thread. The run fails (TCMMA_INVALID, naming
 * thread, address and columns) for: Tensor Memory still allocated when the
 * block ends, a dealloc of no allocation or of another size, an alloc after
 * relinquish_alloc_permit (or when the columns are not free), an mma, ld, st
 * or cp outside the allocated columns, a warp whose ld/st reaches lanes
 * outside its quarter (warp w reaches lanes 32 (w % 4) .. + 31), a tcgen05.ld
 * of columns an mma or cp wrote before the thread observed the completion of
 * the tcgen05.commit covering it (an mbarrier wait on its phase, or a
 * __syncthreads() after some thread's wait) or without the tcgen05 fences
 * the ISA's synchronization patterns place, and a thread ending with
 * tcgen05.ld results never waited for. */

/* The bits of every tcgen05.ld destination register until tcgen05.wait::ld
 * (an f32 NaN): a register used before the wait reads it. */
#define TCMMA_SIM_TCGEN05_POISON 0x7fc0dead

/* tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [dst], ncols
 * (warp): ncols (32..512, a power of two) columns of every lane; the TMEM
 * address is written to the 4 shared bytes at dst. */
void tcmma_sim_tcgen05_alloc(const char *opcode, unsigned dst, unsigned ncols);
/* tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, ncols (warp): frees
 * the allocation at taddr (its exact size). */
void tcmma_sim_tcgen05_dealloc(const char *opcode, unsigned taddr, unsigned ncols);
/* tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned (warp): no alloc
 * in the block after it. */
void tcmma_sim_tcgen05_relinquish(const char *opcode);
/* tcgen05.mma.cta_group::1.kind::{f16,tf32,f8f6f4,i8} [d_tmem], a_desc,
 * b_desc, idesc, enable_input_d (one thread): D (M x N at d_tmem, M 64 or 128
 * per idesc) = A B (+ D when enable_input_d), A and B through sm_100 shared
 * memory descriptors; _tmem_a: [a_tmem] instead of a_desc (A in TMEM). */
void tcmma_sim_tcgen05_mma(const char *opcode, unsigned d_tmem, uint64_t a_desc,
                           uint64_t b_desc, unsigned idesc, int enable_input_d);
void tcmma_sim_tcgen05_mma_tmem_a(const char *opcode, unsigned d_tmem, unsigned a_tmem,
                                  uint64_t b_desc, unsigned idesc, int enable_input_d);
/* tcgen05.mma.cta_group::1.kind::{mxf8f6f4,mxf4,mxf4nvf4}.block_scale[.scale_vec::NX]
 * [d_tmem], a_desc|[a_tmem], b_desc, idesc, [sfa_tmem], [sfb_tmem],
 * enable_input_d (one thread): as above, each product scaled by the A and B
 * block scales read from TMEM at sfa_tmem and sfb_tmem. */
void tcmma_sim_tcgen05_mma_scaled(const char *opcode, unsigned d_tmem, uint64_t a_desc,
                                  uint64_t b_desc, unsigned idesc, unsigned sfa_tmem,
                                  unsigned sfb_tmem, int enable_input_d);
void tcmma_sim_tcgen05_mma_scaled_tmem_a(const char *opcode, unsigned d_tmem, unsigned a_tmem,
                                         uint64_t b_desc, unsigned idesc, unsigned sfa_tmem,
                                         unsigned sfb_tmem, int enable_input_d);
/* tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar]
 * (one thread): one arrival on bar once the thread's mma and cp issued since
 * its last commit complete; their results are visible once a wait observes
 * that phase. */
void tcmma_sim_tcgen05_commit(const char *opcode, unsigned long long *bar);
/* tcgen05.ld.sync.aligned.<shape>.x<num>[.pack::16b].b32 regs, [taddr] (warp;
 * shape 32x32b, 16x64b, 16x128b or 16x256b, pack with 32x32b only): regs
 * receives this thread's registers, TCMMA_SIM_TCGEN05_POISON until the
 * thread's tcgen05.wait::ld. tcgen05.st...[.unpack::16b].b32 [taddr], regs
 * (warp): the registers into TMEM, readable after the warp's wait::st. */
void tcmma_sim_tcgen05_ld(const char *opcode, uint32_t *regs, unsigned taddr);
void tcmma_sim_tcgen05_st(const char *opcode, unsigned taddr, const uint32_t *regs);
/* tcgen05.wait::ld.sync.aligned / tcgen05.wait::st.sync.aligned (warp). */
void tcmma_sim_tcgen05_wait(const char *opcode);
/* tcgen05.cp.cta_group::1.<shape>[.<multicast>] [taddr], s_desc (one thread):
 * shared memory (a matrix descriptor) into TMEM, completed by commit as mma. */
void tcmma_sim_tcgen05_cp(const char *opcode, unsigned taddr, uint64_t s_desc);
/* tcgen05.fence::before_thread_sync / ::after_thread_sync (any thread): a
 * tcgen05.ld of mma results needs the reader's after_thread_sync following
 * the commit (after its wait); another warp's tcgen05.st needs the storing
 * warp's before_thread_sync, a __syncthreads() and the reader's after. */
void tcmma_sim_tcgen05_fence(const char *opcode);

/* ---- wmma ---- */

#define TCMMA_SIM_FRAGMENT_MAX 16

typedef struct {
  char desc[32];    /* set by fill/load (see DESC above) */
  int num_elements; /* elements this lane holds */
  float x[TCMMA_SIM_FRAGMENT_MAX];
} tcmma_sim_fragment;

/* wmma fill/load/mma/store (collectives): the CUDA calls of the same names,
 * with DESC naming the fragment (see the CONTRACT above). A bad DESC, ldm or
 * fragment mismatch makes the launch fail with TCMMA_INVALID naming it. */
void tcmma_sim_wmma_fill(tcmma_sim_fragment *f, const char *desc, float value);
void tcmma_sim_wmma_load(tcmma_sim_fragment *f, const char *desc, const void *ptr,
                         unsigned ldm, int layout);
void tcmma_sim_wmma_mma(tcmma_sim_fragment *d, const tcmma_sim_fragment *a,
                        const tcmma_sim_fragment *b, const tcmma_sim_fragment *c);
void tcmma_sim_wmma_store(void *ptr, const tcmma_sim_fragment *f, unsigned ldm, int layout);

/* ---- conversions (exact, as the GPU rounds) ---- */

/* f16/bf16 <-> float: widening is exact; narrowing rounds to nearest even. */
float tcmma_sim_half2float(tcmma_sim_half h);
tcmma_sim_half tcmma_sim_float2half_rn(float f);
float tcmma_sim_bfloat162float(tcmma_sim_bfloat16 h);
tcmma_sim_bfloat16 tcmma_sim_float2bfloat16_rn(float f);
float tcmma_sim_float_to_tf32(float f); /* cvt.rna.tf32.f32 */
/* Pairs: make_float2, and each half of a pair converted as the scalar
 * functions above convert it (x: the first argument, the lower address). */
tcmma_sim_float2 tcmma_sim_make_float2(float x, float y);
tcmma_sim_int2 tcmma_sim_make_int2(int x, int y);
tcmma_sim_double2 tcmma_sim_make_double2(double x, double y);
tcmma_sim_float2 tcmma_sim_half22float2(tcmma_sim_half2 h);
tcmma_sim_half2 tcmma_sim_floats2half2_rn(float x, float y);
tcmma_sim_float2 tcmma_sim_bfloat1622float2(tcmma_sim_bfloat162 h);
tcmma_sim_bfloat162 tcmma_sim_floats2bfloat162_rn(float x, float y);
/* fp8: round to nearest even, saturating to the largest finite (satfinite). */
uint8_t tcmma_sim_float_to_e4m3(float f);
uint8_t tcmma_sim_float_to_e5m2(float f);
float tcmma_sim_e4m3_to_float(uint8_t v);
float tcmma_sim_e5m2_to_float(uint8_t v);
/* fp4 (e2m1) and fp6 (e2m3, e3m2), OCP MX: round to nearest even,
 * saturating to the largest finite (no Inf, no NaN: NaN becomes the positive
 * largest finite); the value in the low 4 / 6 bits, higher bits 0 (ignored
 * by the widening). ue4m3 (NVFP4's block scale, unsigned e4m3): likewise,
 * negative values 0, NaN 0x7f; the top bit ignored. Widening is exact. */
uint8_t tcmma_sim_float_to_e2m1(float f);
uint8_t tcmma_sim_float_to_e2m3(float f);
uint8_t tcmma_sim_float_to_e3m2(float f);
uint8_t tcmma_sim_float_to_ue4m3(float f);
float tcmma_sim_e2m1_to_float(uint8_t v);
float tcmma_sim_e2m3_to_float(uint8_t v);
float tcmma_sim_e3m2_to_float(uint8_t v);
float tcmma_sim_ue4m3_to_float(uint8_t v);
/* The CUDA constructors __nv_fp8_e4m3(float) / __nv_fp8_e5m2(float) (the
 * GEMM epilogue's cvt): the conversions above, as storage values. */
tcmma_sim_fp8_e4m3 tcmma_sim_float2fp8_e4m3(float f);
tcmma_sim_fp8_e5m2 tcmma_sim_float2fp8_e5m2(float f);
/* __float_as_uint: a float's bits. */
unsigned tcmma_sim_float_as_uint(float f);
/* atomicMax(unsigned *, unsigned): raises *p to v atomically (the block's
 * warps may run at once); returns the old value. */
unsigned tcmma_sim_atomic_max(unsigned *p, unsigned v);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
