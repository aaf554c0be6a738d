/* The compile executor (docs/design.md §12.3): plan; render the one-warp kernel;
 * compile it with NVRTC to a CUBIN at the arm's floor (raised to NVRTC's
 * lowest arch) with no warnings; read the PTX census; and, for inline-PTX
 * arms, have ptxas reject the same source at the supported arch just below
 * the floor (an explicit arch in the compile options, which replaces the one
 * the markers ask for).
 *
 * Expected counts, from the kernel's structure (tcmma_render_kernel): a
 * fragment-scope kernel opens the fragment, runs one rendered update
 * statement inside a loop over the `outer` steps of the outer reduction and
 * closes it (a statement-scope kernel likewise, outer 1 in the matrix).
 * Every statement is mt*nt*kt fragment products under `#pragma unroll`
 * loops, each one instruction (mma.sync for inline arms, wmma.mma.sync for
 * wmma arms). The outer loop carries `#pragma unroll 1`, so the PTX holds
 * exactly one statement's worth, mt*nt*kt products, whatever `outer` is,
 * and, per k step of that statement, the census's ldmatrix instructions
 * per operand: A through .x4 (mt of them) when the census says A loads
 * through ldmatrix, B through one .x4 per pair of tiles and one .x2 for an
 * odd one (nt tiles), .trans exactly where the operand's
 * storage is the transpose of the register layout (A stored transposed, B
 * not stored transposed: PTX ISA ldmatrix and m16n8k16 fragment layouts). */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcmma/compile.h"
#include "tcmma/ptx.h"
#include "tools/verify/compile.h"

static bool has_warning(const char *log) {
  for (const char *p = log; p && *p; p++)
    if (strncasecmp(p, "warning", 7) == 0) return true;
  return false;
}

/* The first line of a log, for a one-line reason. */
static void first_line(const char *log, char *buf, size_t cap) {
  while (log && (*log == '\n' || *log == ' ')) log++;
  size_t n = log ? strcspn(log, "\n") : 0;
  snprintf(buf, cap, "%.*s", (int)(n < cap ? n : cap - 1), log ? log : "");
}

/* NVRTC's lowest arch, and its highest arch below floor (0: none). */
static tcmma_status arch_bounds(int floor, int *lowest, int *below, tcmma_error *err) {
  tcmma_arch_support s;
  tcmma_status st = tcmma_nvrtc_support(&s, err);
  if (st != TCMMA_OK) return st;
  *lowest = tcmma_arch_support_lowest(&s);
  *below = 0;
  for (size_t i = 0; i < s.count; i++)
    if (s.archs[i] < floor && s.archs[i] > *below) *below = s.archs[i];
  return TCMMA_OK;
}

/* Counts of the census opcodes that start with prefix and contain each of
 * the given pieces (NULL-terminated) and, when `without` is set, not it. */
static size_t count_ops(const tcmma_ptx_info *info, const char *prefix, const char *with,
                        const char *without) {
  size_t n = 0;
  for (size_t i = 0; i < info->census_count; i++) {
    const char *op = info->census[i].opcode;
    if (strncmp(op, prefix, strlen(prefix)) != 0) continue;
    if (with && !strstr(op, with)) continue;
    if (without && strstr(op, without)) continue;
    n += info->census[i].count;
  }
  return n;
}

/* The stores of d in the PTX (inline arms, d in global memory, where
 * nothing else writes global memory): one store of d's pair (st.global.v2
 * of 32- or 64-bit elements; 4 bytes for 16-bit elements: st.global.u32/b32)
 * per pair of accumulator elements when the census says d_vector, else one
 * element store (st.global.f32, .u16/.b16) per element. */
static bool d_stores_match(const tcmma_plan *plan, const tcmma_census *cen,
                           const tcmma_ptx_info *px, verify_case_result *r) {
  const tcmma_arm_info *info = tcmma_arm_get(plan->arm);
  if (info->form != TCMMA_FORM_PTX || plan->call.d.space != TCMMA_SPACE_GLOBAL) return true;
  /* the store opcodes' suffixes by d's element size: a pair of 16-bit
   * elements is one 32-bit word; 32- and 64-bit pairs are .v2 vectors */
  int eb = tcmma_prec_bytes(plan->call.d.prec);
  static const char *const pair_16[] = {".u32", ".b32", NULL}, *const elem_16[] = {".u16", ".b16", NULL};
  static const char *const pair_32[] = {".v2.f32", ".v2.u32", ".v2.b32", ".v2.s32", NULL},
                           *const elem_32[] = {".f32", ".u32", ".b32", ".s32", NULL};
  static const char *const pair_64[] = {".v2.f64", ".v2.u64", ".v2.b64", NULL},
                           *const elem_64[] = {".f64", ".u64", ".b64", NULL};
  const char *const *pair = eb == 2 ? pair_16 : eb == 4 ? pair_32 : pair_64;
  const char *const *elem = eb == 2 ? elem_16 : eb == 4 ? elem_32 : elem_64;
  /* the accumulator's elements: c_regs registers of one (f32) or two (f16
   * pairs) elements per tile */
  size_t pairs = 0, elems = 0,
         regs = (size_t)plan->mt * plan->nt * info->c_regs *
                (size_t)tcmma_fragment_elems_per_reg(plan->arm, TCMMA_OPERAND_C);
  for (size_t i = 0; i < px->census_count; i++) {
    const char *op = px->census[i].opcode;
    if (strncmp(op, "st.global", 9) != 0) continue;
    for (int j = 0; pair[j]; j++) pairs += strcmp(op + 9, pair[j]) == 0 ? px->census[i].count : 0;
    for (int j = 0; elem[j]; j++) elems += strcmp(op + 9, elem[j]) == 0 ? px->census[i].count : 0;
  }
  size_t want_pairs = cen->d_vector ? regs / 2 : 0, want_elems = cen->d_vector ? 0 : regs;
  if (pairs != want_pairs || elems != want_elems)
    return verify_case_set(r, VERIFY_CASE_FAILED,
                           "PTX stores d with %zu pair and %zu element stores; the census "
                           "(d_vector=%d) says %zu and %zu",
                           pairs, elems, cen->d_vector, want_pairs, want_elems);
  return true;
}

/* The PTX holds one statement's worth of the kernel: its outer steps stay
 * a loop (`#pragma unroll 1`). */
enum { CENSUS_STATEMENTS = 1 };

/* The census's own figures agree with the plan it was taken of: products,
 * ldmatrix use, and loads per k step. */
static bool census_matches_plan(const tcmma_plan *plan, const tcmma_census *cen,
                                verify_case_result *r) {
  size_t per = (size_t)plan->mt * (size_t)plan->nt * (size_t)plan->kt;
  if (cen->mma_per_statement != (int)per)
    return verify_case_set(r, VERIFY_CASE_FAILED,
                           "census mma_per_statement %d, plan tiles %dx%dx%d",
                           cen->mma_per_statement, plan->mt, plan->nt, plan->kt);
  if (cen->a_ldmatrix != plan->a_ldmatrix || cen->b_ldmatrix != plan->b_ldmatrix)
    return verify_case_set(r, VERIFY_CASE_FAILED,
                           "census ldmatrix a=%d b=%d differs from the plan's a=%d b=%d",
                           cen->a_ldmatrix, cen->b_ldmatrix, plan->a_ldmatrix, plan->b_ldmatrix);
  /* loads per k step: one per tile of the operand's own axis, times the
   * other operand's tiles where fragments reload */
  int want_a = plan->mt * (cen->reloads ? plan->nt : 1);
  int want_b = plan->nt * (cen->reloads ? plan->mt : 1);
  if (cen->a_loads_per_k != want_a || cen->b_loads_per_k != want_b)
    return verify_case_set(
        r, VERIFY_CASE_FAILED,
        "census loads per k a=%d b=%d; reloads=%d over %dx%d tiles means %d and %d",
        cen->a_loads_per_k, cen->b_loads_per_k, cen->reloads, plan->mt, plan->nt, want_a, want_b);
  return true;
}

/* The products in the PTX: the arm's exact instruction (inline) or
 * wmma.mma of its shape, one per tile, and no other mma. */
static bool products_match(const verify_case *c, const tcmma_plan *plan,
                           const tcmma_ptx_info *px, verify_case_result *r, size_t *statements) {
  const tcmma_arm_info *info = tcmma_arm_get(plan->arm);
  size_t per = (size_t)plan->mt * (size_t)plan->nt * (size_t)plan->kt;
  char want[160];
  if (info->form == TCMMA_FORM_PTX) {
    tcmma_error err;
    if (tcmma_arm_instruction(plan->arm, c->call.a.prec, c->call.b.prec, want, sizeof want,
                              &err) != TCMMA_OK)
      return verify_case_set(r, VERIFY_CASE_FAILED, "no instruction for the arm: %s", err.message);
  } else {
    snprintf(want, sizeof want, "wmma.mma");
  }
  char shape[32];
  snprintf(shape, sizeof shape, ".m%dn%dk%d", info->m, info->n, info->k);
  size_t exact = count_ops(px, want, info->form == TCMMA_FORM_PTX ? NULL : shape, NULL);
  size_t any = count_ops(px, "mma.", NULL, NULL) + count_ops(px, "wmma.mma", NULL, NULL);
  size_t stmts = CENSUS_STATEMENTS;
  *statements = stmts;
  if (exact != stmts * per || any != exact)
    return verify_case_set(r, VERIFY_CASE_FAILED,
                           "PTX has %zu x %s%s and %zu mma in all; expected %zu (%dx%dx%d tiles)",
                           exact, want, info->form == TCMMA_FORM_PTX ? "" : shape, any, per,
                           plan->mt, plan->nt, plan->kt);
  return true;
}

/* An inline kernel's ldmatrix instructions per k step are the census's
 * (one 8x8 matrix per fragment register: .x4 for four, the rest in a .x2
 * and a .x1; .trans where the storage is the transpose of the register
 * layout), and the counts cover the fragments each k step loads. */
static bool ldmatrix_match(const verify_case *c, const tcmma_plan *plan, const tcmma_census *cen,
                           const tcmma_ptx_info *px, verify_case_result *r) {
  const tcmma_arm_info *info = tcmma_arm_get(plan->arm);
  bool at = c->call.a.transposed, bt = !c->call.b.transposed;
  size_t steps = CENSUS_STATEMENTS * (size_t)plan->kt,
         need[3][2] = {{0}}; /* [x4, x2, x1][all, .trans] */
  const int a_n[3] = {cen->a_ldmatrix_x4, cen->a_ldmatrix_x2, cen->a_ldmatrix_x1};
  const int b_n[3] = {cen->b_ldmatrix_x4, cen->b_ldmatrix_x2, cen->b_ldmatrix_x1};
  static const char *const width[3] = {".x4", ".x2", ".x1"}, *const trans[3] = {
      ".x4.trans", ".x2.trans", ".x1.trans"};
  for (int w = 0; w < 3; w++) {
    need[w][0] = steps * (size_t)(a_n[w] + b_n[w]);
    need[w][1] = steps * (size_t)((at ? a_n[w] : 0) + (bt ? b_n[w] : 0));
  }
  const bool ldm[2] = {cen->a_ldmatrix, cen->b_ldmatrix};
  const int loads[2] = {cen->a_loads_per_k, cen->b_loads_per_k};
  const int regs[2] = {info->a_regs, info->b_regs};
  for (int o = 0; o < 2; o++) {
    const int *n = o ? b_n : a_n;
    int matrices = 4 * n[0] + 2 * n[1] + n[2];
    if (ldm[o] && matrices != regs[o] * loads[o])
      return verify_case_set(r, VERIFY_CASE_FAILED,
                             "census: %d .x4, %d .x2 and %d .x1 per k "
                             "step do not load %s's %d tiles of %d registers",
                             n[0], n[1], n[2], o ? "b" : "a", loads[o], regs[o]);
  }
  size_t got[3][2], all = count_ops(px, "ldmatrix.", NULL, NULL), total = 0;
  bool same = true;
  for (int w = 0; w < 3; w++) {
    got[w][0] = count_ops(px, "ldmatrix.", width[w], NULL);
    got[w][1] = count_ops(px, "ldmatrix.", trans[w], NULL);
    same = same && got[w][0] == need[w][0] && got[w][1] == need[w][1];
    total += need[w][0];
  }
  if (!same || all != total)
    return verify_case_set(
        r, VERIFY_CASE_FAILED,
        "ldmatrix in PTX: %zu .x4 (%zu .trans), %zu .x2 (%zu), %zu .x1 (%zu), %zu in all; "
        "expected %zu (%zu), %zu (%zu), %zu (%zu) from census a=%d b=%d",
        got[0][0], got[0][1], got[1][0], got[1][1], got[2][0], got[2][1], all, need[0][0],
        need[0][1], need[1][0], need[1][1], need[2][0], need[2][1], cen->a_ldmatrix,
        cen->b_ldmatrix);
  return true;
}

/* A tf32 arm rounds every register it loads, once; no other arm rounds. */
static bool tf32_rounding_matches(const tcmma_plan *plan, const tcmma_census *cen,
                                  const tcmma_ptx_info *px, verify_case_result *r) {
  const tcmma_arm_info *info = tcmma_arm_get(plan->arm);
  size_t steps = CENSUS_STATEMENTS * (size_t)plan->kt;
  size_t cvt = count_ops(px, "cvt.rna.tf32.f32", NULL, NULL);
  size_t want_cvt = info->tf32 ? steps * (size_t)(info->a_regs * cen->a_loads_per_k +
                                                  info->b_regs * cen->b_loads_per_k)
                               : 0;
  if (cvt != want_cvt)
    return verify_case_set(r, VERIFY_CASE_FAILED, "PTX has %zu cvt.rna.tf32.f32; expected %zu",
                           cvt, want_cvt);
  return true;
}

/* A wmma kernel loads its fragments with wmma.load, as many as the census
 * says per k step, and never with ldmatrix. */
static bool wmma_loads_match(const tcmma_plan *plan, const tcmma_census *cen,
                             const tcmma_ptx_info *px, verify_case_result *r) {
  size_t steps = CENSUS_STATEMENTS * (size_t)plan->kt;
  size_t la = count_ops(px, "wmma.load.a", NULL, NULL),
         lb = count_ops(px, "wmma.load.b", NULL, NULL);
  size_t wa = steps * (size_t)cen->a_loads_per_k, wb = steps * (size_t)cen->b_loads_per_k;
  if (la != wa || lb != wb)
    return verify_case_set(
        r, VERIFY_CASE_FAILED,
        "PTX has %zu wmma.load.a and %zu wmma.load.b; the census says %zu and %zu", la, lb, wa,
        wb);
  if (count_ops(px, "ldmatrix.", NULL, NULL))
    return verify_case_set(r, VERIFY_CASE_FAILED, "a wmma kernel has ldmatrix instructions");
  return true;
}

bool verify_exec_compile_census(const verify_case *c, const tcmma_plan *plan,
                                const tcmma_census *cen, const tcmma_ptx_info *px,
                                verify_case_result *r, size_t *statements) {
  if (!census_matches_plan(plan, cen, r) || !products_match(c, plan, px, r, statements))
    return false;
  if (tcmma_arm_get(plan->arm)->form != TCMMA_FORM_PTX) return wmma_loads_match(plan, cen, px, r);
  if (count_ops(px, "wmma.", NULL, NULL))
    return verify_case_set(r, VERIFY_CASE_FAILED, "an inline-PTX kernel has wmma instructions");
  return ldmatrix_match(c, plan, cen, px, r) && tf32_rounding_matches(plan, cen, px, r) &&
         d_stores_match(plan, cen, px, r);
}

/* The case's kernel (CUDA dialect) into src, with its plan and census;
 * false with r final when any step fails or the arm marker is missing. */
static bool render_case(const verify_case *c, tcmma_plan *plan, tcmma_census *cen, tcmma_buf *src,
                        verify_case_result *r) {
  if (!verify_case_check_plan(c, plan, r)) return false;
  tcmma_error err;
  tcmma_error_clear(&err);
  if (tcmma_plan_census(plan, cen, &err) != TCMMA_OK)
    return verify_case_set(r, VERIFY_CASE_FAILED, "census of an accepted plan failed: %s",
                           err.message);
  tcmma_kernel_opts opts = verify_case_kernel_opts(c);
  tcmma_render_ctx rc = tcmma_render_ctx_make(plan, TCMMA_DIALECT_CUDA, NULL, src);
  tcmma_status st = tcmma_render_kernel(&rc, &opts, &err);
  if (st != TCMMA_OK || src->failed)
    return verify_case_set(r, VERIFY_CASE_FAILED, "render_kernel: %s: %s", tcmma_status_name(st),
                           err.message);
  char marker[48];
  snprintf(marker, sizeof marker, "(%s)", tcmma_arm_marker(plan->arm));
  if (!strstr(tcmma_buf_str(src), marker))
    return verify_case_set(r, VERIFY_CASE_FAILED, "the kernel does not carry the arm marker %s",
                           marker);
  return true;
}

/* The expected target: the arm's floor, raised to NVRTC's lowest arch and
 * to cp.async's floor (tables/markers.def) when the kernel stages with it. */
static int expected_target(const tcmma_buf *src, int floor, int lowest) {
  int want = floor > lowest ? floor : lowest;
  int cp_async = tcmma_marker_floor(TCMMA_MARKER_CP_ASYNC);
  if (strstr(tcmma_buf_str(src), tcmma_marker_text(TCMMA_MARKER_CP_ASYNC)) && want < cp_async)
    want = cp_async;
  return want;
}

/* The floor compile's outcome: a CUBIN at want (with the f suffix for a
 * family arm: its floor is its family target, sm_120f for every 12.x
 * device) with no warning, and the PTX census the plan promises; r PASSED
 * with *stmts set, or final. */
static void check_floor(const compile_case *k, const verify_job *j, size_t *stmts,
                        verify_case_result *r) {
  char line[200];
  tcmma_error err;
  bool family = k->info->family;
  char suffix = family ? 'f' : 0;
  const char *suffix_text = family ? "f" : "";
  if (j->status == TCMMA_UNAVAILABLE) {
    verify_case_set(r, VERIFY_CASE_SKIPPED, "NVRTC unavailable: %s", j->err.message);
  } else if (j->status != TCMMA_OK) {
    first_line(j->prog.log, line, sizeof line);
    verify_case_set(r, VERIFY_CASE_FAILED, "compile failed (%s): %s | %s",
                    tcmma_status_name(j->status), j->err.message, line);
  } else if (!j->prog.cubin_len) {
    verify_case_set(r, VERIFY_CASE_FAILED, "no CUBIN from a compile for sm_XX");
  } else if (has_warning(j->prog.log)) {
    first_line(j->prog.log, line, sizeof line);
    verify_case_set(r, VERIFY_CASE_FAILED, "compile warned: %s", line);
  } else {
    tcmma_ptx_info px;
    memset(&px, 0, sizeof px);
    tcmma_error_clear(&err);
    if (tcmma_ptx_parse(j->prog.ptx, j->prog.ptx_len, &px, &err) != TCMMA_OK) {
      verify_case_set(r, VERIFY_CASE_FAILED, "PTX reader: %s", err.message);
    } else if (px.target_sm != k->want || px.target_suffix != suffix) {
      verify_case_set(r, VERIFY_CASE_FAILED, "compiled for .target %s, expected sm_%d%s",
                      px.target ? px.target : "?", k->want, suffix_text);
    } else if (verify_exec_compile_census(k->c, &k->plan, &k->cen, &px, r, stmts)) {
      verify_case_set(r, VERIFY_CASE_PASSED, "sm_%d%s, %zu statement%s in PTX", k->want,
                      suffix_text, *stmts, *stmts == 1 ? "" : "s");
    }
    tcmma_ptx_info_free(&px);
  }
}

/* What ptxas says when it refuses an arm's instruction below the floor: a
 * family arm's instruction is "not supported" on the target, any other
 * "requires" the floor's. */
static void refusal_text(const tcmma_arm_info *info, int below, char *buf, size_t cap) {
  if (info->family) snprintf(buf, cap, "not supported on .target 'sm_%d'", below);
  else snprintf(buf, cap, "requires .target sm_%d", info->floor);
}

/* Inline PTX below its floor: ptxas must have refused the very same source
 * at the arch below, naming the floor's target (or, for a family arm, the
 * target below). */
static void check_below(const compile_case *k, const verify_job *j, size_t stmts,
                        verify_case_result *r) {
  char needs[64];
  refusal_text(k->info, k->below, needs, sizeof needs);
  if (j->status == TCMMA_OK)
    verify_case_set(r, VERIFY_CASE_FAILED,
                    "ptxas accepted the kernel at sm_%d, below the arm's floor %d", k->below,
                    k->info->floor);
  else if (j->status != TCMMA_COMPILE || !j->prog.log || !strstr(j->prog.log, needs))
    verify_case_set(r, VERIFY_CASE_FAILED, "at sm_%d: expected a ptxas error '%s', got %s: %s",
                    k->below, needs, tcmma_status_name(j->status), j->err.message);
  else
    verify_case_set(r, VERIFY_CASE_PASSED, "sm_%d, %zu statement%s in PTX; rejected at sm_%d",
                    k->want, stmts, stmts == 1 ? "" : "s", k->below);
}

void compile_case_start(const verify_case *c, compile_case *k) {
  memset(k, 0, sizeof *k);
  k->c = c;
  if (!render_case(c, &k->plan, &k->cen, &k->src, &k->r)) return;
  k->info = tcmma_arm_get(k->plan.arm);
  tcmma_error err;
  tcmma_error_clear(&err);
  int lowest;
  tcmma_status st = arch_bounds(k->info->floor, &lowest, &k->below, &err);
  if (st == TCMMA_UNAVAILABLE)
    verify_case_set(&k->r, VERIFY_CASE_SKIPPED, "NVRTC unavailable: %s", err.message);
  else if (st != TCMMA_OK)
    verify_case_set(&k->r, VERIFY_CASE_FAILED, "NVRTC's supported archs: %s", err.message);
  if (st != TCMMA_OK) return;
  k->want = expected_target(&k->src, k->info->floor, lowest);
  if (k->info->form != TCMMA_FORM_PTX) k->below = 0;
  k->ready = true;
}

void compile_case_jobs(const compile_case *k, verify_job *floor, verify_job *below) {
  /* --minimal: tcmma's kernels use nothing it leaves out */
  *floor = (verify_job){.source = tcmma_buf_str(&k->src), .len = k->src.len,
                        .opts = TCMMA_COMPILE_OPTS_INIT(.name = "verify.cu",
                                                        .target = TCMMA_TARGET_FLOOR, .sass = true,
                                                        .minimal = true)};
  *below = *floor;
  below->opts = (tcmma_compile_opts)TCMMA_COMPILE_OPTS_INIT(.name = "verify-below.cu", .sass = true,
                                                            .arch = k->below, .minimal = true);
}

void compile_case_finish(const compile_case *k, const verify_job *floor, const verify_job *below,
                         verify_case_result *r) {
  if (!k->ready) {
    *r = k->r;
    return;
  }
  size_t stmts = 0;
  check_floor(k, floor, &stmts, r);
  if (r->outcome == VERIFY_CASE_PASSED && k->below) check_below(k, below, stmts, r);
}

void compile_case_free(compile_case *k) { tcmma_buf_free(&k->src); }
