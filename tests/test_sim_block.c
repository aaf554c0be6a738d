/* The block simulator (docs/design.md §11): blocks of up to 1024 threads
 * with __syncthreads, the index words, grids run whole or sampled, dynamic
 * shared memory per block, cp.async groups and the races of a staged
 * pipeline (read before landing, read without a barrier, overwrite while in
 * use) and divergent barriers reported as TCMMA_INVALID, never a hang. */
#include "util.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/sim.h"

#define MAX_T 1024

typedef struct {
  unsigned seen[MAX_T];
  unsigned idx[MAX_T][3];
  unsigned dims[6];
  unsigned phase, phase_errors;
} block_state;

/* Every thread once; nobody passes a barrier before all have reached it. */
static void count_threads(void *arg) {
  block_state *s = arg;
  unsigned t = tcmma_sim_thread_idx(0) +
               tcmma_sim_block_dim(0) * (tcmma_sim_thread_idx(1) +
                                         tcmma_sim_block_dim(1) * tcmma_sim_thread_idx(2));
  unsigned n = tcmma_sim_block_dim(0) * tcmma_sim_block_dim(1) * tcmma_sim_block_dim(2);
  __atomic_add_fetch(&s->seen[t], 1, __ATOMIC_SEQ_CST);
  for (int a = 0; a < 3; a++) s->idx[t][a] = tcmma_sim_thread_idx((unsigned)a);
  __atomic_add_fetch(&s->phase, 1, __ATOMIC_SEQ_CST);
  tcmma_sim_syncthreads();
  if (__atomic_load_n(&s->phase, __ATOMIC_SEQ_CST) != n)
    __atomic_add_fetch(&s->phase_errors, 1, __ATOMIC_SEQ_CST);
  tcmma_sim_syncthreads();
  if (t == 0)
    for (int a = 0; a < 3; a++)
      s->dims[a] = tcmma_sim_block_dim((unsigned)a), s->dims[3 + a] = tcmma_sim_grid_dim((unsigned)a);
}

static void blocks_of_many_threads(void **state) {
  (void)state;
  static const unsigned shapes[][3] = {{1024, 1, 1}, {32, 4, 2}, {48, 1, 1}, {7, 3, 5}};
  for (size_t i = 0; i < 4; i++) {
    block_state *s = calloc(1, sizeof *s);
    assert_non_null(s);
    tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {shapes[i][0], shapes[i][1],
                                                 shapes[i][2]}, 0, NULL, 0);
    tcmma_error err;
    assert_int_equal(tcmma_sim_launch_grid(count_threads, s, &cfg, &err), TCMMA_OK);
    unsigned n = shapes[i][0] * shapes[i][1] * shapes[i][2];
    for (unsigned t = 0; t < n; t++) {
      assert_int_equal(s->seen[t], 1);
      assert_int_equal(s->idx[t][0], t % shapes[i][0]);
      assert_int_equal(s->idx[t][1], t / shapes[i][0] % shapes[i][1]);
      assert_int_equal(s->idx[t][2], t / (shapes[i][0] * shapes[i][1]));
    }
    assert_int_equal(s->phase_errors, 0);
    for (int a = 0; a < 3; a++) assert_int_equal(s->dims[a], shapes[i][a]), assert_int_equal(s->dims[3 + a], 1);
    free(s);
  }
}

typedef struct {
  unsigned runs[24];        /* per linear block: how many threads ran it */
  unsigned order[24], n_order;
  unsigned fresh_errors;    /* dynamic shared not 0xff at a block's start */
  unsigned sum[24];
} grid_state;

/* Each block: checks its dynamic shared memory starts as 0xff, writes it,
 * sums it after a barrier. */
static void grid_block(void *arg) {
  grid_state *s = arg;
  unsigned char *sh = tcmma_sim_dynamic_shared();
  unsigned t = tcmma_sim_lane(), b = tcmma_sim_block_idx(0) +
                                     tcmma_sim_grid_dim(0) * (tcmma_sim_block_idx(1) +
                                                              tcmma_sim_grid_dim(1) * tcmma_sim_block_idx(2));
  if (sh[t] != 0xff) __atomic_add_fetch(&s->fresh_errors, 1, __ATOMIC_SEQ_CST);
  tcmma_sim_syncthreads();
  sh[t] = (unsigned char)(b + 1);
  tcmma_sim_syncthreads();
  __atomic_add_fetch(&s->runs[b], 1, __ATOMIC_SEQ_CST);
  if (t == 0) {
    unsigned sum = 0;
    for (unsigned i = 0; i < tcmma_sim_block_dim(0); i++) sum += sh[i];
    s->sum[b] = sum;
    s->order[s->n_order++] = b;
  }
}

static void grids_whole_and_sampled(void **state) {
  (void)state;
  grid_state *s = calloc(1, sizeof *s);
  assert_non_null(s);
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({2, 3, 4}, {64, 1, 1}, 100, NULL, 0);
  tcmma_error err;
  assert_int_equal(tcmma_sim_launch_grid(grid_block, s, &cfg, &err), TCMMA_OK);
  assert_int_equal(s->fresh_errors, 0);
  assert_int_equal(s->n_order, 24);
  for (unsigned b = 0; b < 24; b++) {
    assert_int_equal(s->runs[b], 64);
    assert_int_equal(s->order[b], b);
    assert_int_equal(s->sum[b], 64 * (b + 1));
  }
  /* a sample, in the caller's order */
  memset(s, 0, sizeof *s);
  static const unsigned pick[3] = {23, 0, 7};
  cfg.blocks = pick, cfg.n_blocks = 3;
  assert_int_equal(tcmma_sim_launch_grid(grid_block, s, &cfg, &err), TCMMA_OK);
  assert_int_equal(s->n_order, 3);
  for (int i = 0; i < 3; i++) assert_int_equal(s->order[i], pick[i]);
  for (unsigned b = 0; b < 24; b++)
    assert_int_equal(s->runs[b], b == 23 || b == 0 || b == 7 ? 64 : 0);
  free(s);
}

static void nothing(void *arg) { (void)arg; }

static void bad_configs(void **state) {
  (void)state;
  tcmma_error err;
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {1025, 1, 1}, 0, NULL, 0);
  assert_int_equal(tcmma_sim_launch_grid(nothing, NULL, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "1025 threads"));
  cfg = (tcmma_sim_config)TCMMA_SIM_CONFIG_INIT({1, 0, 1}, {32, 1, 1}, 0, NULL, 0);
  assert_int_equal(tcmma_sim_launch_grid(nothing, NULL, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "at least 1"));
  static const unsigned far[1] = {6};
  cfg = (tcmma_sim_config)TCMMA_SIM_CONFIG_INIT({2, 3, 1}, {32, 1, 1}, 0, far, 1);
  assert_int_equal(tcmma_sim_launch_grid(nothing, NULL, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "block 6"));
  assert_int_equal(tcmma_sim_launch_grid(NULL, NULL, &cfg, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_sim_launch_grid(nothing, NULL, NULL, &err), TCMMA_INVALID);
  /* dimensions whose product is 2^64: a count that wraps to 0 must not pass */
  cfg = (tcmma_sim_config)TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {1u << 22, 1u << 22, 1u << 20}, 0, NULL,
                                                0);
  assert_int_equal(tcmma_sim_launch_grid(nothing, NULL, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "block 4194304x4194304x1048576"));
  cfg = (tcmma_sim_config)TCMMA_SIM_CONFIG_INIT({1u << 22, 1u << 22, 1u << 20}, {32, 1, 1}, 0, NULL,
                                                0);
  assert_int_equal(tcmma_sim_launch_grid(nothing, NULL, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "grid 4194304x4194304x1048576"));
  /* dynamic shared memory beyond any device's (one whose size rounded up
   * would wrap among them): refused before anything runs */
  cfg = (tcmma_sim_config)TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {32, 1, 1}, SIZE_MAX - 100, NULL, 0);
  assert_int_equal(tcmma_sim_launch_grid(nothing, NULL, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "dynamic_shared"));
  /* outside a launch */
  assert_null(tcmma_sim_dynamic_shared());
  assert_int_equal(tcmma_sim_block_dim(0), 0);
  tcmma_sim_syncthreads();
}

/* ---- divergent barriers ---- */

static void some_exit(void *arg) {
  (void)arg;
  if (tcmma_sim_lane() >= 40) return;
  tcmma_sim_syncthreads();
}

static void barrier_vs_collective(void *arg) {
  (void)arg;
  if (tcmma_sim_lane() < 48) tcmma_sim_syncthreads();
  else tcmma_sim_syncwarp();
}

static void two_barriers(void *arg) {
  (void)arg;
  tcmma_sim_syncthreads();
  if (tcmma_sim_lane() / 32 == 1) tcmma_sim_syncthreads();
}

static int after_runs;
static void count_after(void *arg) {
  (void)arg;
  tcmma_sim_syncthreads();
  __atomic_add_fetch(&after_runs, 1, __ATOMIC_SEQ_CST);
}

static void divergent_barriers_are_invalid(void **state) {
  (void)state;
  tcmma_error err;
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {64, 1, 1}, 0, NULL, 0);
  assert_int_equal(tcmma_sim_launch_grid(some_exit, NULL, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "__syncthreads"));
  assert_non_null(strstr(err.message, "threads 0-39 wait"));
  assert_non_null(strstr(err.message, "40-63 have exited"));

  assert_int_equal(tcmma_sim_launch_grid(barrier_vs_collective, NULL, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "deadlock"));
  assert_non_null(strstr(err.message, "threads 0-47 wait at __syncthreads"));
  assert_non_null(strstr(err.message, "lanes 16-31 of warp 1 wait at 'syncwarp'"));

  /* warp 1 waits at a second barrier the others never reach: they exit */
  assert_int_equal(tcmma_sim_launch_grid(two_barriers, NULL, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "threads 32-63 wait"));
  assert_non_null(strstr(err.message, "0-31 have exited"));

  /* nothing is left behind */
  after_runs = 0;
  cfg.grid[0] = 3;
  assert_int_equal(tcmma_sim_launch_grid(count_after, NULL, &cfg, &err), TCMMA_OK);
  assert_int_equal(after_runs, 3 * 64);
}

static void partial_warp_mma(void *arg) {
  (void)arg;
  uint32_t a[4] = {0}, b[2] = {0};
  float c[4] = {0}, d[4];
  tcmma_sim_syncwarp(); /* fine in a partial warp */
  tcmma_sim_mma("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", d, a, b, c);
}

static void partial_warps(void **state) {
  (void)state;
  tcmma_error err;
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {48, 1, 1}, 0, NULL, 0);
  assert_int_equal(tcmma_sim_launch_grid(partial_warp_mma, NULL, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "warp 1 of 16 lanes"));
}

/* ---- cp.async groups and races ---- */

typedef struct {
  unsigned char src[4096] __attribute__((aligned(16)));
  unsigned char seen[64][16];
  int mode;
  unsigned flag; /* warp 0's lanes that are done: orders the warps without a barrier */
} copy_state;

/* Thread t copies src row t (16 bytes) into dynamic shared row t: group 0
 * for even threads' first copy, group 1 after; the mode picks what follows. */
enum { M_GROUPS, M_READ_EARLY, M_NO_BARRIER, M_WAR, M_RING, M_ZFILL };

static void ldmatrix_rows(unsigned char *sh, unsigned first_row) {
  uint32_t r[4];
  tcmma_sim_ldmatrix("ldmatrix.sync.aligned.m8n8.x4.shared.b16", r,
                     sh + (first_row + tcmma_sim_lane() % 32) * 16);
}

/* Warp 1 waits (outside the simulator) until warp 0's lanes are done, so
 * the race each mode sets up happens in one order. */
static void after_warp0(copy_state *s) {
  while (__atomic_load_n(&s->flag, __ATOMIC_SEQ_CST) < 32) sched_yield();
}

static void copies(void *arg) {
  copy_state *s = arg;
  unsigned char *sh = tcmma_sim_dynamic_shared();
  unsigned t = tcmma_sim_lane(), w = t / 32;
  const char *cg = "cp.async.cg.shared.global";
  switch (s->mode) {
  case M_GROUPS:
    tcmma_sim_cp_async(cg, sh + t * 16, s->src + t * 16, 16);
    tcmma_sim_cp_async_commit();
    tcmma_sim_cp_async(cg, sh + 1024 + t * 16, s->src + 1024 + t * 16, 16);
    tcmma_sim_cp_async_commit();
    tcmma_sim_cp_async_wait_group(1); /* the first group only */
    memcpy(s->seen[t], sh + t * 16, 16);
    if (sh[1024 + t * 16] != 0xff) s->seen[t][0] ^= 1; /* the second must not have landed */
    tcmma_sim_cp_async_wait_group(0);
    tcmma_sim_syncthreads();
    ldmatrix_rows(sh + 1024, w * 32);
    break;
  case M_READ_EARLY: /* warp 1 reads rows warp 0 has not landed */
    if (w == 0) {
      tcmma_sim_cp_async(cg, sh + t * 16, s->src + t * 16, 16);
      __atomic_add_fetch(&s->flag, 1, __ATOMIC_SEQ_CST);
    } else {
      after_warp0(s);
      ldmatrix_rows(sh, 0);
    }
    tcmma_sim_syncthreads(); /* warp 0's copy stays in flight until after the read */
    tcmma_sim_cp_async_wait_all();
    break;
  case M_NO_BARRIER: /* landed by warp 0, read by warp 1 with no barrier */
    if (w == 0) {
      tcmma_sim_cp_async(cg, sh + t * 16, s->src + t * 16, 16);
      tcmma_sim_cp_async_wait_all();
      __atomic_add_fetch(&s->flag, 1, __ATOMIC_SEQ_CST);
    } else {
      after_warp0(s);
      ldmatrix_rows(sh, 0);
    }
    break;
  case M_WAR: /* warp 1 overwrites rows warp 0 read, with no barrier between */
    if (w == 0) {
      ldmatrix_rows(sh, 0);
      __atomic_add_fetch(&s->flag, 1, __ATOMIC_SEQ_CST);
    } else {
      after_warp0(s);
      tcmma_sim_cp_async(cg, sh + (t - 32) * 16, s->src + t * 16, 16);
    }
    tcmma_sim_cp_async_wait_all();
    break;
  case M_RING: /* the same, correctly ordered: copy, wait, barrier, read, barrier, copy */
    for (int step = 0; step < 3; step++) {
      tcmma_sim_cp_async(cg, sh + t * 16, s->src + (t + (unsigned)step * 64) * 16, 16);
      tcmma_sim_cp_async_commit();
      tcmma_sim_cp_async_wait_group(0);
      tcmma_sim_syncthreads();
      ldmatrix_rows(sh, 32 * (1 - w));
      tcmma_sim_syncthreads();
    }
    memcpy(s->seen[t], sh + t * 16, 16);
    break;
  case M_ZFILL: /* t bytes of 16 from src, the rest zero; no source at all for t = 0 */
    tcmma_sim_cp_async_zfill(cg, sh + t * 16, t % 17 ? s->src + t * 16 : NULL, 16, t % 17);
    tcmma_sim_cp_async_wait_all();
    memcpy(s->seen[t], sh + t * 16, 16);
    break;
  }
}

static tcmma_status run_copies(copy_state *s, int mode, tcmma_error *err) {
  s->mode = mode;
  s->flag = 0;
  memset(s->seen, 0, sizeof s->seen);
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {64, 1, 1}, 2048, NULL, 0);
  return tcmma_sim_launch_grid(copies, s, &cfg, err);
}

static void cp_async_groups_and_races(void **state) {
  (void)state;
  copy_state *s = calloc(1, sizeof *s);
  assert_non_null(s);
  for (int i = 0; i < 4096; i++) s->src[i] = (unsigned char)(i * 13 + 5);
  tcmma_error err;
  assert_int_equal(run_copies(s, M_GROUPS, &err), TCMMA_OK);
  for (int t = 0; t < 64; t++) assert_memory_equal(s->seen[t], s->src + t * 16, 16);

  assert_int_equal(run_copies(s, M_READ_EARLY, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "before thread"));
  assert_non_null(strstr(err.message, "landed"));
  assert_non_null(strstr(err.message, "warp 1"));

  assert_int_equal(run_copies(s, M_NO_BARRIER, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "with no __syncthreads since"));

  assert_int_equal(run_copies(s, M_WAR, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "which warp 0 read since the last __syncthreads"));

  assert_int_equal(run_copies(s, M_RING, &err), TCMMA_OK);
  for (int t = 0; t < 64; t++) assert_memory_equal(s->seen[t], s->src + (t + 128) * 16, 16);

  assert_int_equal(run_copies(s, M_ZFILL, &err), TCMMA_OK);
  for (int t = 0; t < 64; t++) {
    unsigned n = (unsigned)t % 17;
    assert_memory_equal(s->seen[t], s->src + t * 16, n);
    for (unsigned b = n; b < 16; b++) assert_int_equal(s->seen[t][b], 0);
  }
  free(s);
}

static void zfill_errors(void *arg) {
  (void)arg;
  static unsigned char src[32] __attribute__((aligned(16)));
  unsigned char *sh = tcmma_sim_dynamic_shared();
  tcmma_sim_cp_async_zfill("cp.async.cg.shared.global", sh, src, 16, 17);
}

static void zfill_bad_size(void **state) {
  (void)state;
  tcmma_error err;
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {32, 1, 1}, 64, NULL, 0);
  assert_int_equal(tcmma_sim_launch_grid(zfill_errors, NULL, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "src-size 17"));
}

/* Two warps land 8-byte halves of one 16-byte row; warp 0 (the last to
 * land) reads it after a __syncwarp (*arg 0: warp 1's half needs a
 * __syncthreads) or a __syncthreads (*arg 1: fine). */
static unsigned halves_flag;
static void halves_of_a_row(void *arg) {
  bool barrier = *(const int *)arg;
  static unsigned char src[16] __attribute__((aligned(16)));
  unsigned char *sh = tcmma_sim_dynamic_shared();
  unsigned t = tcmma_sim_lane();
  const char *ca = "cp.async.ca.shared.global";
  if (t == 32) {
    tcmma_sim_cp_async(ca, sh + 8, src + 8, 8);
    tcmma_sim_cp_async_wait_all();
    __atomic_store_n(&halves_flag, 1, __ATOMIC_SEQ_CST);
  }
  if (t == 0) {
    while (!__atomic_load_n(&halves_flag, __ATOMIC_SEQ_CST)) sched_yield();
    tcmma_sim_cp_async(ca, sh, src, 8);
    tcmma_sim_cp_async_wait_all();
  }
  if (barrier) tcmma_sim_syncthreads();
  else if (t < 32) tcmma_sim_syncwarp();
  if (t < 32) {
    uint32_t r;
    tcmma_sim_ldmatrix("ldmatrix.sync.aligned.m8n8.x1.shared.b16", &r, sh + (t % 8) * 16);
  }
}

static void row_landed_by_two_warps(void **state) {
  (void)state;
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {64, 1, 1}, 128, NULL, 0);
  tcmma_error err;
  int barrier = 0;
  halves_flag = 0;
  assert_int_equal(tcmma_sim_launch_grid(halves_of_a_row, &barrier, &cfg, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "more than one warp"));
  assert_non_null(strstr(err.message, "no __syncthreads since"));
  barrier = 1;
  halves_flag = 0;
  assert_int_equal(tcmma_sim_launch_grid(halves_of_a_row, &barrier, &cfg, &err), TCMMA_OK);
}

/* ---- dynamic shared memory is bounded ---- */

enum { OOB_LDMATRIX, OOB_CP_ASYNC, OOB_WMMA_STORE, OOB_PLAIN_WRITE, OOB_NONE };
static int oob_mode;

/* 256 bytes of dynamic shared memory (16 rows of 16 bytes); each mode
 * touches the bytes after them, except OOB_NONE, which uses all 256. */
static void past_the_end(void *arg) {
  (void)arg;
  unsigned char *sh = tcmma_sim_dynamic_shared();
  unsigned l = tcmma_sim_lane();
  static unsigned char src[32 * 16] __attribute__((aligned(16)));
  uint32_t r[4];
  tcmma_sim_fragment f;
  switch (oob_mode) {
  case OOB_LDMATRIX: /* x4: 32 rows, the last 16 past the end */
    tcmma_sim_ldmatrix("ldmatrix.sync.aligned.m8n8.x4.shared.b16", r, sh + l * 16);
    break;
  case OOB_CP_ASYNC: /* lane 16 copies into the first row after the end */
    tcmma_sim_cp_async("cp.async.cg.shared.global", sh + l * 16, src + l * 16, 16);
    tcmma_sim_cp_async_wait_all();
    break;
  case OOB_WMMA_STORE: /* a 16x16 f32 tile: 1024 bytes */
    tcmma_sim_wmma_fill(&f, "c.m16n16k16.f32", 1.0f);
    tcmma_sim_wmma_store(sh, &f, 16, 0);
    break;
  case OOB_PLAIN_WRITE:
    if (l == 3) sh[256 + 5] = 0;
    break;
  case OOB_NONE:
    if (l < 16) tcmma_sim_cp_async("cp.async.cg.shared.global", sh + l * 16, src + l * 16, 16);
    tcmma_sim_cp_async_wait_all();
    tcmma_sim_syncthreads();
    tcmma_sim_ldmatrix("ldmatrix.sync.aligned.m8n8.x2.shared.b16", r, sh + (l % 16) * 16);
    sh[l * 8] = (unsigned char)l;
    break;
  }
}

static void dynamic_shared_out_of_bounds(void **state) {
  (void)state;
  static const char *const want[] = {"ldmatrix", "cp.async", "wmma store", "wrote past the end"};
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {32, 1, 1}, 256, NULL, 0);
  tcmma_error err;
  for (int m = OOB_LDMATRIX; m <= OOB_PLAIN_WRITE; m++) {
    oob_mode = m;
    assert_int_equal(tcmma_sim_launch_grid(past_the_end, NULL, &cfg, &err), TCMMA_INVALID);
    assert_non_null(strstr(err.message, want[m]));
    assert_non_null(strstr(err.message, "256 bytes of dynamic shared memory"));
  }
  oob_mode = OOB_NONE;
  assert_int_equal(tcmma_sim_launch_grid(past_the_end, NULL, &cfg, &err), TCMMA_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(blocks_of_many_threads),
      cmocka_unit_test(grids_whole_and_sampled),
      cmocka_unit_test(bad_configs),
      cmocka_unit_test(divergent_barriers_are_invalid),
      cmocka_unit_test(partial_warps),
      cmocka_unit_test(cp_async_groups_and_races),
      cmocka_unit_test(zfill_bad_size),
      cmocka_unit_test(dynamic_shared_out_of_bounds),
      cmocka_unit_test(row_landed_by_two_warps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
