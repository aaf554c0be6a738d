/* Plans changed by their caller after planning (issue #21): every plan
 * reader (each public renderer, the pieces, the kernel prologue, the census
 * and the kernel layout) refuses an out-of-range precision or arm, another
 * real arm swapped in, changed tiles, a declined plan marked accepted, a
 * bool holding another byte, with TCMMA_INVALID naming the field, and writes
 * nothing; a change that leaves the plan what planning gives renders; the
 * GEMM renderer checks its plan the same way. Also the constant k step rule
 * of tcmma_render_frag_load and the planner's enum messages. */
#include "util.h"
#include <stdio.h>
#include <string.h>
#include "tcmma/tcmma.h"

/* One plan reader, rendering into out with names nm (census, prologue: no
 * text). */
typedef tcmma_status (*reader_fn)(const tcmma_plan *p, tcmma_names *nm, tcmma_buf *out,
                                  tcmma_error *err);

#define CTX(p) RCTX((p), TCMMA_DIALECT_CUDA, nm, out)

static tcmma_status r_statement(const tcmma_plan *p, tcmma_names *nm, tcmma_buf *out,
                                tcmma_error *err) {
  return tcmma_render_statement(CTX(p), "d", "a", "b", err);
}
static tcmma_status r_open(const tcmma_plan *p, tcmma_names *nm, tcmma_buf *out,
                           tcmma_error *err) {
  return tcmma_render_fragment_open(CTX(p), "fr", "d", err);
}
static tcmma_status r_update(const tcmma_plan *p, tcmma_names *nm, tcmma_buf *out,
                             tcmma_error *err) {
  return tcmma_render_fragment_update(CTX(p), "fr", "a", "b", err);
}
static tcmma_status r_close(const tcmma_plan *p, tcmma_names *nm, tcmma_buf *out,
                            tcmma_error *err) {
  return tcmma_render_fragment_close(CTX(p), "fr", "d", err);
}
static tcmma_status r_decl(const tcmma_plan *p, tcmma_names *nm, tcmma_buf *out,
                           tcmma_error *err) {
  return tcmma_render_frag_decl(CTX(p), TCMMA_OPERAND_A, "af", 2, err);
}
static tcmma_status r_load(const tcmma_plan *p, tcmma_names *nm, tcmma_buf *out,
                           tcmma_error *err) {
  return tcmma_render_frag_load(CTX(p), TCMMA_OPERAND_B, "bf[0]", "b", "0", err);
}
static tcmma_status r_mma(const tcmma_plan *p, tcmma_names *nm, tcmma_buf *out,
                          tcmma_error *err) {
  return tcmma_render_frag_mma(CTX(p), "acc", "af[0]", "bf[0]", err);
}
static tcmma_status r_init(const tcmma_plan *p, tcmma_names *nm, tcmma_buf *out,
                           tcmma_error *err) {
  return tcmma_render_acc_init(CTX(p), "acc", "d", err);
}
static tcmma_status r_store(const tcmma_plan *p, tcmma_names *nm, tcmma_buf *out,
                            tcmma_error *err) {
  return tcmma_render_acc_store(CTX(p), "acc", "d", err);
}
static tcmma_status r_includes(const tcmma_plan *p, tcmma_names *nm, tcmma_buf *out,
                               tcmma_error *err) {
  return tcmma_render_includes(CTX(p), false, err);
}
static tcmma_status r_kernel(const tcmma_plan *p, tcmma_names *nm, tcmma_buf *out,
                             tcmma_error *err) {
  tcmma_kernel_opts o = TCMMA_KERNEL_OPTS_INIT(.outer = 2, .pieces = true);
  return tcmma_render_kernel(CTX(p), &o, err);
}
static tcmma_status r_prologue(const tcmma_plan *p, tcmma_names *nm, tcmma_buf *out,
                               tcmma_error *err) {
  return tcmma_kernel_prologue(CTX(NULL), p, 1, err);
}
static tcmma_status r_census(const tcmma_plan *p, tcmma_names *nm, tcmma_buf *out,
                             tcmma_error *err) {
  (void)nm, (void)out;
  tcmma_census c;
  return tcmma_plan_census(p, &c, err);
}

static const struct {
  const char *name;
  reader_fn fn;
} readers[] = {
    {"statement", r_statement}, {"fragment_open", r_open}, {"fragment_update", r_update},
    {"fragment_close", r_close}, {"frag_decl", r_decl},    {"frag_load", r_load},
    {"frag_mma", r_mma},         {"acc_init", r_init},     {"acc_store", r_store},
    {"includes", r_includes},    {"kernel", r_kernel},     {"prologue", r_prologue},
    {"census", r_census},
};
#define N_READERS (sizeof readers / sizeof readers[0])

/* Every reader refuses p with TCMMA_INVALID, a message holding each of
 * want (NULL-terminated), nothing written and no block number taken; the
 * layout functions answer -1 and the shared bytes 0. */
static void refused_everywhere(const tcmma_plan *p, const char *case_name,
                               const char *const *want) {
  for (size_t r = 0; r < N_READERS; r++) {
    tcmma_names nm = {NULL, 0};
    tcmma_buf out = {0};
    tcmma_error err = {0};
    tcmma_status st = readers[r].fn(p, &nm, &out, &err);
    if (st != TCMMA_INVALID)
      fail_msg("%s, %s: status %s, expected invalid (%s)", case_name, readers[r].name,
               tcmma_status_name(st), err.message);
    for (int w = 0; want[w]; w++)
      if (!strstr(err.message, want[w]))
        fail_msg("%s, %s: '%s' lacks '%s'", case_name, readers[r].name, err.message, want[w]);
    assert_string_equal(tcmma_buf_str(&out), "");
    assert_int_equal(nm.next, 0);
    tcmma_buf_free(&out);
  }
  for (int op = 0; op < 3; op++) {
    assert_int_equal(tcmma_kernel_operand_elems(p, 1, (tcmma_operand)op), -1);
    assert_int_equal(tcmma_kernel_operand_index(p, (tcmma_operand)op, 0, 0, 0), -1);
  }
  assert_int_equal(tcmma_kernel_scale_elems(p, 1, TCMMA_OPERAND_A), -1);
  assert_int_equal(tcmma_kernel_scale_index(p, TCMMA_OPERAND_A, 0, 0, 0), -1);
  assert_int_equal(tcmma_kernel_shared_bytes(p, 1), 0);
}

static void renders_everywhere(const tcmma_plan *p, const char *case_name) {
  for (size_t r = 0; r < N_READERS; r++) {
    tcmma_names nm = {NULL, 0};
    tcmma_buf out = {0};
    tcmma_error err = {0};
    if (readers[r].fn(p, &nm, &out, &err) != TCMMA_OK)
      fail_msg("%s, %s: %s", case_name, readers[r].name, err.message);
    tcmma_buf_free(&out);
  }
  assert_true(tcmma_kernel_operand_elems(p, 1, TCMMA_OPERAND_A) > 0);
}

#define CHANGED "the plan was changed after planning"

/* The base plan: 32x16x32 of f32 = f16 x f16 on mma-f16 (2 x 2 x 2 tiles),
 * a and b in shared memory (ldmatrix). */
static tcmma_plan base(void) {
  tcmma_plan p = test_plan("f32", "f16,shared", "f16,shared", 32, 16, 32, TCMMA_SCOPE_FRAGMENT,
                           "mma-f16");
  assert_int_equal(p.mt, 2);
  assert_int_equal(p.kt, 2);
  return p;
}

static void test_untouched_renders(void **s) {
  (void)s;
  tcmma_plan p = base();
  renders_everywhere(&p, "untouched");
  /* a copy is the same plan */
  tcmma_plan copy;
  memcpy(&copy, &p, sizeof copy);
  renders_everywhere(&copy, "copy");
  /* changes that leave the plan what planning gives for its call: another
   * lane expression, a second warp */
  p.call.lane = "threadIdx.x & 31";
  p.call.warps = 2;
  renders_everywhere(&p, "lane and warps");
}

static void test_out_of_range_prec(void **s) {
  (void)s;
  tcmma_plan p = base();
  p.call.a.prec = (tcmma_prec)(TCMMA_PREC_COUNT + 40);
  char v[32];
  snprintf(v, sizeof v, "precision %d", TCMMA_PREC_COUNT + 40);
  refused_everywhere(&p, "a.prec", (const char *[]){CHANGED, v, NULL});
  p = base();
  p.call.d.prec = (tcmma_prec)-3;
  refused_everywhere(&p, "d.prec", (const char *[]){CHANGED, "precision -3", NULL});
  /* a real precision, another one than planned: the arm no longer fits */
  p = base();
  p.call.b.prec = TCMMA_PREC_BF16;
  refused_everywhere(&p, "b.prec bf16", (const char *[]){CHANGED, "accepted is true", NULL});
}

static void test_out_of_range_arm(void **s) {
  (void)s;
  tcmma_plan p = base();
  p.arm = (tcmma_arm)(TCMMA_ARM_COUNT + 7);
  char v[64];
  snprintf(v, sizeof v, "arm is %d (no arm), planning gives %d (mma-f16)", TCMMA_ARM_COUNT + 7,
           (int)TCMMA_ARM_MMA_F16);
  refused_everywhere(&p, "arm past the table", (const char *[]){CHANGED, v, NULL});
  p.arm = (tcmma_arm)-1;
  refused_everywhere(&p, "arm -1", (const char *[]){CHANGED, "arm is -1", NULL});
}

static void test_other_real_arm(void **s) {
  (void)s;
  static const tcmma_arm others[] = {TCMMA_ARM_MMA_BF16, TCMMA_ARM_MMA_F16_K8, TCMMA_ARM_MMA_F64,
                                     TCMMA_ARM_MMA_MXFP8, TCMMA_ARM_WMMA_F16F32,
                                     TCMMA_ARM_WMMA_F16_WIDE};
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
    tcmma_plan p = base();
    p.arm = others[i];
    char v[96];
    snprintf(v, sizeof v, "arm is %d (%s), planning gives", (int)others[i],
             tcmma_arm_marker(others[i]));
    refused_everywhere(&p, tcmma_arm_marker(others[i]), (const char *[]){CHANGED, v, NULL});
  }
}

static void test_tiles_changed(void **s) {
  (void)s;
  tcmma_plan p = base();
  p.mt = 4;
  refused_everywhere(&p, "mt", (const char *[]){CHANGED, "mt is 4, planning gives 2", NULL});
  p = base();
  p.nt = 0;
  refused_everywhere(&p, "nt", (const char *[]){CHANGED, "nt is 0, planning gives 2", NULL});
  p = base();
  p.kt = -1;
  refused_everywhere(&p, "kt", (const char *[]){CHANGED, "kt is -1, planning gives 2", NULL});
  /* the call's extent without the tiles */
  p = base();
  p.call.m = 64;
  refused_everywhere(&p, "m", (const char *[]){CHANGED, "mt is 2, planning gives 4", NULL});
  p = base();
  p.stored[TCMMA_OPERAND_A].ld = 1L << 40;
  refused_everywhere(&p, "stored ld", (const char *[]){CHANGED, "stored[a].ld is", NULL});
  p = base();
  p.call.b.ld = 0;
  refused_everywhere(&p, "b.ld", (const char *[]){CHANGED, "call.b.ld is 0", NULL});
  p = base();
  p.a_ldmatrix = !p.a_ldmatrix;
  refused_everywhere(&p, "a_ldmatrix", (const char *[]){CHANGED, "a_ldmatrix is", NULL});
}

static void test_declined_marked_accepted(void **s) {
  (void)s;
  tcmma_call c = tcmma_call_default();
  c.m = 24, c.n = 8, c.k = 16; /* m is not a multiple of 16 */
  tcmma_plan p;
  assert_int_equal(tcmma_plan_call(&c, &p, NULL), TCMMA_DECLINED);
  refused_everywhere(&p, "declined", (const char *[]){"declined (extents)", NULL});
  p.accepted = true;
  refused_everywhere(&p, "declined marked accepted",
                     (const char *[]){CHANGED, "accepted is true, planning gives false",
                                      "m = 24", NULL});
  /* and with the tiles a caller might guess filled in */
  p.mt = 2, p.nt = 1, p.kt = 1, p.arm = TCMMA_ARM_MMA_F16;
  refused_everywhere(&p, "declined with tiles", (const char *[]){CHANGED, "extents", NULL});
}

static void test_garbage(void **s) {
  (void)s;
  tcmma_plan p = base();
  unsigned char two = 2;
  memcpy(&p.accepted, &two, 1);
  refused_everywhere(&p, "accepted byte", (const char *[]){CHANGED, "accepted holds byte 2", NULL});
  p = base();
  memcpy(&p.call.a.transposed, &two, 1);
  refused_everywhere(&p, "transposed byte",
                     (const char *[]){CHANGED, "call.a.transposed holds byte 2", NULL});
  p = base();
  p.call.size = 8;
  refused_everywhere(&p, "call size", (const char *[]){CHANGED, "call.size is 8", NULL});
  /* accepted set on bytes no planner wrote */
  memset(&p, 0x5a, sizeof p);
  p.accepted = true;
  refused_everywhere(&p, "garbage", (const char *[]){CHANGED, NULL});
}

/* The GEMM plan: tcmma_render_gemm refuses each change naming it. */
static void gemm_refused(const tcmma_gemm_plan *g, const char *want) {
  tcmma_buf out = {0};
  tcmma_error err = {0};
  assert_int_equal(tcmma_render_gemm(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &out), g, &err),
                   TCMMA_INVALID);
  if (!strstr(err.message, want)) fail_msg("gemm: '%s' lacks '%s'", err.message, want);
  assert_string_equal(tcmma_buf_str(&out), "");
  tcmma_buf_free(&out);
}

static void test_gemm_plan_changed(void **s) {
  (void)s;
  tcmma_gemm_call c = tcmma_gemm_call_default();
  tcmma_gemm_plan g0, g;
  tcmma_error err = {0};
  assert_int_equal(tcmma_gemm_plan_call(&c, &g0, &err), TCMMA_OK);
  tcmma_buf out = {0};
  assert_int_equal(tcmma_render_gemm(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &out), &g0, &err),
                   TCMMA_OK);
  tcmma_buf_free(&out);
  g = g0, g.arm = (tcmma_arm)(TCMMA_ARM_COUNT + 3);
  gemm_refused(&g, CHANGED ": arm is");
  g = g0, g.arm = TCMMA_ARM_MMA_F16;
  gemm_refused(&g, CHANGED ": arm is 0 (mma-f16), planning gives");
  g = g0, g.call.a.prec = (tcmma_prec)(TCMMA_PREC_COUNT + 1);
  gemm_refused(&g, CHANGED ": its call does not plan");
  g = g0, g.warp_m *= 2;
  gemm_refused(&g, CHANGED ": warp_m is");
  g = g0, g.census.mt += 1;
  gemm_refused(&g, CHANGED ": census.mt is");
  g = g0, g.threads = 0;
  gemm_refused(&g, CHANGED ": threads is 0");
  g = g0, g.grid[0] = 0;
  gemm_refused(&g, CHANGED ": grid[0] is 0");
  g = g0, g.call.block_k = 0;
  gemm_refused(&g, CHANGED ": call.block_k is 0");
  g = g0, g.k_tiles = 1000;
  gemm_refused(&g, CHANGED ": k_tiles is 1000");
  c.m = 100, c.unpredicated = true;
  assert_int_equal(tcmma_gemm_plan_call(&c, &g, NULL), TCMMA_DECLINED);
  gemm_refused(&g, "an accepted plan is required");
  g.accepted = true;
  gemm_refused(&g, CHANGED ": accepted is true, planning gives false");
}

/* A constant k step must be one of the plan's kt steps; an expression
 * cannot be checked. */
static void test_constant_kstep(void **s) {
  (void)s;
  tcmma_plan p = base();
  static const char *const bad[] = {"2", "-1", " 7 ", "0x10", "99999999999999999999999"};
  static const char *const good[] = {"0", "1", " 1 ", "0x1", "ks", "ks + 1", "(2)", "2 - 1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tcmma_names nm = {NULL, 0};
    tcmma_buf out = {0};
    tcmma_error err = {0};
    assert_int_equal(tcmma_render_frag_load(RCTX(&p, TCMMA_DIALECT_CUDA, &nm, &out),
                                            TCMMA_OPERAND_A, "af", "a", bad[i], &err),
                     TCMMA_INVALID);
    char want[64];
    snprintf(want, sizeof want, "k step '%s'", bad[i]);
    if (!strstr(err.message, want) || !strstr(err.message, "expected 0 to 1"))
      fail_msg("k step %s: %s", bad[i], err.message);
    assert_string_equal(tcmma_buf_str(&out), "");
    assert_int_equal(nm.next, 0);
    tcmma_buf_free(&out);
  }
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    tcmma_names nm = {NULL, 0};
    tcmma_buf out = {0};
    tcmma_error err = {0};
    if (tcmma_render_frag_load(RCTX(&p, TCMMA_DIALECT_CUDA, &nm, &out), TCMMA_OPERAND_A, "af",
                               "a", good[i], &err) != TCMMA_OK)
      fail_msg("k step %s: %s", good[i], err.message);
    tcmma_buf_free(&out);
  }
}

/* The planner's enum messages name the tables' values. */
static void test_enum_messages(void **s) {
  (void)s;
  tcmma_call c = tcmma_call_default();
  c.m = c.n = c.k = 16;
  tcmma_plan p;
  tcmma_error err = {0};
  c.a.space = (tcmma_space)7;
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
  assert_string_equal(err.message, "a: space 7: expected global, shared or thread");
  c = tcmma_call_default(), c.m = c.n = c.k = 16;
  c.b.swizzle = (tcmma_swizzle)9;
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
  assert_string_equal(err.message, "b: swizzle 9: expected none, 32, 64 or 128");
  c = tcmma_call_default(), c.m = c.n = c.k = 16;
  c.init = (tcmma_init)5;
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
  assert_string_equal(err.message, "init 5: expected load, zero or scale");
  /* a forced arm skips resolution, which checks the scope */
  c = tcmma_call_default(), c.m = c.n = c.k = 16;
  c.arm = "mma-f16", c.scope = (tcmma_scope)5;
  assert_int_equal(tcmma_plan_call(&c, &p, &err), TCMMA_INVALID);
  assert_string_equal(err.message, "scope 5: expected statement or fragment");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_untouched_renders),
      cmocka_unit_test(test_out_of_range_prec),
      cmocka_unit_test(test_out_of_range_arm),
      cmocka_unit_test(test_other_real_arm),
      cmocka_unit_test(test_tiles_changed),
      cmocka_unit_test(test_declined_marked_accepted),
      cmocka_unit_test(test_garbage),
      cmocka_unit_test(test_gemm_plan_changed),
      cmocka_unit_test(test_constant_kstep),
      cmocka_unit_test(test_enum_messages),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
