/* The warp scheduler: lane numbering, lockstep at collectives, divergence
 * reported as TCMMA_INVALID (never a hang), cp.async queued until waited,
 * elect.sync electing one lane per warp. */
#include "util.h"
#include <stdlib.h>
#include <string.h>
#include "tcmma/sim.h"

typedef struct {
  int seen[32];
  int order[64];
  int phase_errors;
  volatile int phase;
} lanes_state;

static void lane_ids(void *arg) {
  lanes_state *s = arg;
  unsigned l = tcmma_sim_lane();
  __atomic_add_fetch(&s->seen[l], 1, __ATOMIC_SEQ_CST);
  /* Lockstep: nobody passes the barrier before every lane has reached it. */
  __atomic_add_fetch(&s->phase, 1, __ATOMIC_SEQ_CST);
  tcmma_sim_syncwarp();
  if (__atomic_load_n(&s->phase, __ATOMIC_SEQ_CST) != 32)
    __atomic_add_fetch(&s->phase_errors, 1, __ATOMIC_SEQ_CST);
  tcmma_sim_syncwarp();
}

static void every_lane_once_in_lockstep(void **state) {
  (void)state;
  lanes_state *s = calloc(1, sizeof *s);
  assert_non_null(s);
  tcmma_error err;
  assert_int_equal(tcmma_sim_launch(lane_ids, s, &err), TCMMA_OK);
  for (int l = 0; l < 32; l++) assert_int_equal(s->seen[l], 1);
  assert_int_equal(s->phase_errors, 0);
  free(s);
}

static void lane_disagree(void *arg) {
  (void)arg;
  uint32_t a[4] = {0}, b[2] = {0};
  float c[4] = {0}, d[4];
  if (tcmma_sim_lane() % 2) tcmma_sim_syncwarp();
  else tcmma_sim_mma("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", d, a, b, c);
}

static void lane_exits_early(void *arg) {
  (void)arg;
  if (tcmma_sim_lane() == 7) return;
  tcmma_sim_syncwarp();
}

static void lane_extra_collective(void *arg) {
  (void)arg;
  tcmma_sim_syncwarp();
  if (tcmma_sim_lane() == 5) tcmma_sim_syncwarp();
}

static int after_failure_runs;
static void lane_count_after(void *arg) {
  (void)arg;
  tcmma_sim_syncwarp();
  __atomic_add_fetch(&after_failure_runs, 1, __ATOMIC_SEQ_CST);
}

static void divergence_is_invalid(void **state) {
  (void)state;
  tcmma_error err;
  assert_int_equal(tcmma_sim_launch(lane_disagree, NULL, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "divergence"));
  assert_non_null(strstr(err.message, "syncwarp"));
  assert_non_null(strstr(err.message, "mma.sync"));

  assert_int_equal(tcmma_sim_launch(lane_exits_early, NULL, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "exited"));
  assert_non_null(strstr(err.message, "lanes 7 "));

  assert_int_equal(tcmma_sim_launch(lane_extra_collective, NULL, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "lanes 5 wait"));

  /* A failed run leaves nothing behind: the next one runs normally. */
  after_failure_runs = 0;
  assert_int_equal(tcmma_sim_launch(lane_count_after, NULL, &err), TCMMA_OK);
  assert_int_equal(after_failure_runs, 32);
}

static void nothing(void *arg) { (void)arg; }
static int nested_status[32];
static void lane_nested(void *arg) {
  (void)arg;
  tcmma_error err;
  nested_status[tcmma_sim_lane()] = tcmma_sim_launch(nothing, NULL, &err);
}

static void bad_launches(void **state) {
  (void)state;
  tcmma_error err;
  assert_int_equal(tcmma_sim_launch(NULL, NULL, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_sim_launch(lane_nested, NULL, &err), TCMMA_OK);
  for (int l = 0; l < 32; l++) assert_int_equal(nested_status[l], TCMMA_INVALID);
  /* outside a launch the collectives do nothing (and do not hang) */
  float d[4] = {7, 7, 7, 7}, c[4] = {0};
  uint32_t a[4] = {0}, b[2] = {0};
  tcmma_sim_mma("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", d, a, b, c);
  tcmma_sim_syncwarp();
  assert_true(d[0] == 7);
  assert_int_equal(tcmma_sim_lane(), 0);
}

typedef struct {
  unsigned char src[32 * 16] __attribute__((aligned(16)));
  unsigned char dst[32 * 16] __attribute__((aligned(16)));
  unsigned char before_wait[32 * 16];
  const char *opcode;
  unsigned bytes;
  bool wait;
} copy_state;

static void lane_copy(void *arg) {
  copy_state *s = arg;
  unsigned l = tcmma_sim_lane();
  for (unsigned off = 0; off < 16; off += s->bytes)
    tcmma_sim_cp_async(s->opcode, s->dst + l * 16 + off, s->src + l * 16 + off, s->bytes);
  tcmma_sim_cp_async_commit();
  memcpy(s->before_wait + l * 16, s->dst + l * 16, 16);
  if (s->wait) tcmma_sim_cp_async_wait_all();
  tcmma_sim_syncwarp();
}

static void cp_async_copies_on_wait(void **state) {
  (void)state;
  static const struct { const char *op; unsigned bytes; } ok[] = {
      {"cp.async.cg.shared.global", 16}, {"cp.async.ca.shared.global", 16},
      {"cp.async.ca.shared.global", 8},  {"cp.async.ca.shared.global", 4}};
  for (size_t i = 0; i < 4; i++) {
    copy_state *s = calloc(1, sizeof *s);
    assert_non_null(s);
    for (int j = 0; j < 32 * 16; j++) s->src[j] = (unsigned char)(j * 7 + 1);
    s->opcode = ok[i].op, s->bytes = ok[i].bytes, s->wait = true;
    tcmma_error err;
    assert_int_equal(tcmma_sim_launch(lane_copy, s, &err), TCMMA_OK);
    assert_memory_equal(s->dst, s->src, sizeof s->src);
    for (int j = 0; j < 32 * 16; j++) assert_int_equal(s->before_wait[j], 0); /* not yet */
    free(s);
  }
}

static void cp_async_errors(void **state) {
  (void)state;
  copy_state *s = calloc(1, sizeof *s);
  assert_non_null(s);
  tcmma_error err;
  s->opcode = "cp.async.cg.shared.global", s->bytes = 8, s->wait = true; /* .cg: 16 only */
  assert_int_equal(tcmma_sim_launch(lane_copy, s, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "8 bytes"));
  s->opcode = "cp.async.xx.shared.global", s->bytes = 16;
  assert_int_equal(tcmma_sim_launch(lane_copy, s, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "cp.async.xx.shared.global"));
  s->opcode = "cp.async.cg.shared.global", s->wait = false;
  assert_int_equal(tcmma_sim_launch(lane_copy, s, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "never waited"));
  free(s);
}

/* elect.sync: each thread's p and d over two calls; the mask per lane. */
enum { ELECT_THREADS = 96 };
typedef struct {
  const char *opcode;
  unsigned mask, odd_mask; /* odd lanes pass odd_mask */
  int p[2][ELECT_THREADS];
  unsigned d[2][ELECT_THREADS];
} elect_state;

static void lane_elect(void *arg) {
  elect_state *s = arg;
  unsigned t = tcmma_sim_thread_idx(0), mask = t % 2 ? s->odd_mask : s->mask;
  for (int call = 0; call < 2; call++) {
    s->d[call][t] = 99;
    s->p[call][t] = tcmma_sim_elect_sync(s->opcode, mask, &s->d[call][t]);
  }
  (void)tcmma_sim_elect_sync(s->opcode, mask, NULL); /* the sink '_' */
}

static tcmma_status run_elect(elect_state *s, tcmma_error *err) {
  tcmma_sim_config cfg = TCMMA_SIM_CONFIG_INIT({1, 1, 1}, {ELECT_THREADS, 1, 1});
  return tcmma_sim_launch_grid(lane_elect, s, &cfg, err);
}

static void elect_sync_elects_one_lane(void **state) {
  (void)state;
  elect_state *s = calloc(1, sizeof *s);
  assert_non_null(s);
  s->opcode = "elect.sync", s->mask = s->odd_mask = 0xffffffffu;
  tcmma_error err;
  assert_int_equal(run_elect(s, &err), TCMMA_OK);
  for (int call = 0; call < 2; call++)
    for (int w = 0; w < ELECT_THREADS / 32; w++) {
      int elected = 0;
      unsigned leader = s->d[call][w * 32];
      for (int l = 0; l < 32; l++) {
        int t = w * 32 + l;
        elected += s->p[call][t] == 1;
        assert_true(s->p[call][t] == 0 || s->p[call][t] == 1);
        assert_int_equal(s->d[call][t], leader);          /* d: the same in every lane */
        assert_int_equal(s->p[call][t], (unsigned)l == leader); /* p: the leader's own */
      }
      assert_int_equal(elected, 1);
      assert_int_equal(leader, 31);                   /* the simulator's choice (sim.h) */
      assert_int_equal(s->d[1][w * 32], s->d[0][w * 32]); /* the same every time */
    }
  /* outside a launch: no warp, no lane elected */
  unsigned d = 7;
  assert_int_equal(tcmma_sim_elect_sync("elect.sync", 0xffffffffu, &d), 0);
  assert_int_equal(d, 7);
  free(s);
}

static void elect_sync_errors(void **state) {
  (void)state;
  elect_state *s = calloc(1, sizeof *s);
  assert_non_null(s);
  tcmma_error err;
  s->opcode = "elect.sync", s->mask = s->odd_mask = 0x7fffffffu; /* lane 31 outside */
  assert_int_equal(run_elect(s, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "lane 31 executes it outside its membermask 0x7fffffff"));
  s->odd_mask = 0xfffffffeu; /* the lanes disagree */
  s->mask = 0xffffffffu;
  assert_int_equal(run_elect(s, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "lane 1's membermask 0xfffffffe is not lane 0's 0xffffffff"));
  s->opcode = "elect.one", s->odd_mask = 0xffffffffu;
  assert_int_equal(run_elect(s, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "unknown opcode 'elect.one': expected elect.sync"));
  s->opcode = "elect.sync"; /* and then a good run */
  assert_int_equal(run_elect(s, &err), TCMMA_OK);
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_lane_once_in_lockstep),
      cmocka_unit_test(divergence_is_invalid),
      cmocka_unit_test(bad_launches),
      cmocka_unit_test(cp_async_copies_on_wait),
      cmocka_unit_test(cp_async_errors),
      cmocka_unit_test(elect_sync_elects_one_lane),
      cmocka_unit_test(elect_sync_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
