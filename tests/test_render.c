/* Rendering: structure (marker comment, prefixes, nesting and repeating
 * blocks, ldmatrix exactly when the census says), both dialects, the
 * swizzled_b128 map against its formula, and host-dialect text compiled as C. */
#include "util.h"
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tcmma/tcmma.h"
#include "tools/cli_parse.h"
#include "tools/verify/verify.h"

static tcmma_plan plan_of(const char *d, const char *a, const char *b, int m, int n, int k,
                          tcmma_scope scope, const char *arm) {
  return test_plan(d, a, b, m, n, k, scope, arm);
}

static int count(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

/* Compiles C text with the host compiler; returns its exit status. */
static int compile_c(const char *text, const char *extra) {
  char src[] = "/tmp/tcmma-render-XXXXXX.c";
  int fd = mkstemps(src, 2);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  char inc[1024], cmd[4096];
  snprintf(inc, sizeof inc, "%s", src_path("include"));
  snprintf(cmd, sizeof cmd,
           "${CC:-cc} -std=c11 -Wall -Wextra -Wshadow -Werror -fno-strict-aliasing -I%s -I%s/.. "
           "%s -o /tmp/tcmma-render-%d.out %s 2>&1", inc, inc, extra, (int)getpid(), src);
  int rc = system(cmd);
  unlink(src);
  if (strcmp(extra, "-c") == 0) { /* an object nobody runs */
    snprintf(cmd, sizeof cmd, "/tmp/tcmma-render-%d.out", (int)getpid());
    unlink(cmd);
  }
  return rc;
}

static void test_title_and_prefix(void **s) {
  (void)s;
  tcmma_names nm = {NULL, 0};
  tcmma_plan p = plan_of("bf16", "bf16", "bf16", 32, 16, 32, TCMMA_SCOPE_STATEMENT, NULL);
  tcmma_buf out = {0};
  assert_int_equal(tcmma_render_statement(RCTX(&p, TCMMA_DIALECT_CUDA, &nm, &out), "d", "a", "b",
                                          NULL),
                   TCMMA_OK);
  const char *t = tcmma_buf_str(&out);
  const char *title = "/* tile-mma 32x16x32 (mma-bf16) */\n{\n";
  assert_memory_equal(t, title, strlen(title));
  assert_int_equal(count(t, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"), 1);
  assert_int_equal(count(t, "#pragma unroll"), count(t, "for ("));
  /* every declaration in the block carries the reserved prefix */
  const char *decl[] = {"const int ", "float ", "unsigned ", "const unsigned char *",
                        "unsigned char *", "const float2 ", NULL};
  for (int i = 0; decl[i]; i++)
    for (const char *q = t; (q = strstr(q, decl[i])); q += strlen(decl[i])) {
      const char *name = q + strlen(decl[i]);
      const char *b = q;
      while (b > t && b[-1] == ' ') b--;
      if (b > t && b[-1] != '\n') continue; /* not a declaration: a cast or a type's tail */
      if (strncmp(name, "char *", 6) == 0) continue; /* "unsigned char *": its own entry */
      if (strncmp(name, "__tcmma_0_", 10) != 0) fail_msg("unprefixed local: %.40s", name);
    }
  /* dense bf16 d: its register pairs move as __nv_bfloat162 */
  assert_non_null(strstr(t, "__bfloat1622float2("));
  assert_non_null(strstr(t, "__floats2bfloat162_rn("));
  tcmma_buf_free(&out);
}

/* Blocks nest and repeat: a fragment scope whose updates run in a caller's
 * loop around a nested statement of another arm, then the same statement
 * again, compiled with -Wshadow -Werror. */
static void test_nest_repeat_compiles(void **s) {
  (void)s;
  tcmma_names nm = {NULL, 0};
  tcmma_plan f = plan_of("f32", "f16,shared", "f16,t", 32, 16, 32, TCMMA_SCOPE_FRAGMENT, NULL);
  tcmma_plan st = plan_of("bf16", "bf16", "bf16,t", 16, 8, 16, TCMMA_SCOPE_STATEMENT, NULL);
  tcmma_plan w = plan_of("f32", "f16", "f16", 16, 16, 16, TCMMA_SCOPE_FRAGMENT, "wmma-f16f32");
  tcmma_buf out = {0};
  tcmma_buf_printf(&out, "#include \"tcmma/sim.h\"\n"
                         "void f(float *d, const tcmma_sim_half *a, const tcmma_sim_half *b,\n"
                         "       tcmma_sim_bfloat16 *e, const tcmma_sim_bfloat16 *x) {\n");
  tcmma_dialect dl = TCMMA_DIALECT_HOST;
  assert_int_equal(tcmma_render_fragment_open(RCTX(&f, dl, &nm, &out), "acc", "d", NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_fragment_open(RCTX(&w, dl, &nm, &out), "wacc", "d", NULL),
                   TCMMA_OK);
  tcmma_buf_printf(&out, "for (int r = 0; r < 4; ++r) {\n");
  assert_int_equal(tcmma_render_fragment_update(RCTX(&f, dl, &nm, &out), "acc", "a + r * 1024",
                                                "b + r * 512", NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_statement(RCTX(&st, dl, &nm, &out), "e", "x", "x", NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_fragment_update(RCTX(&w, dl, &nm, &out), "wacc", "a", "b", NULL),
                   TCMMA_OK);
  tcmma_buf_printf(&out, "}\n");
  assert_int_equal(tcmma_render_statement(RCTX(&st, dl, &nm, &out), "e", "x", "x", NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_fragment_close(RCTX(&f, dl, &nm, &out), "acc", "d", NULL),
                   TCMMA_OK);
  assert_int_equal(tcmma_render_fragment_close(RCTX(&w, dl, &nm, &out), "wacc", "d", NULL),
                   TCMMA_OK);
  tcmma_buf_printf(&out, "}\n");
  const char *t = tcmma_buf_str(&out);
  for (int i = 0; i < 8; i++) {
    char want[32];
    snprintf(want, sizeof want, "__tcmma_%d_", i);
    if (i != 2 && i != 4 && !strstr(t, want)) fail_msg("block %d has no locals", i);
  }
  assert_null(strstr(t, "__tcmma_8_"));
  assert_int_equal(count(t, "/* tile-mma "), 8);
  if (compile_c(t, "-c") != 0) fail_msg("host text does not compile:\n%s", t);
  tcmma_buf_free(&out);
}

/* ldmatrix exactly where the census says; .trans where the stored
 * orientation is not the fragment's register orientation (PTX ISA: a row-major
 * A and an n-major B load without .trans). */
static void test_ldmatrix_census(void **s) {
  (void)s;
  tcmma_names nm = {NULL, 0};
  /* ldmatrix moves at most four 8x8 matrices, one per fragment register: one
   * A tile (4 registers) per .x4, two B tiles (2 registers each) per .x4, a
   * last odd B tile by .x2; m16n8k8 (A 2 registers, B 1): two A tiles or four
   * B tiles per .x4, the rest by .x2 and .x1. The text holds one instruction
   * per loop (x4, x2, x1: the loops and blocks) */
  struct {
    const char *a, *b;
    int m, n, k;
    int x4, x2, trans;                    /* instructions in the text */
    int a_x4, b_x4, b_x2;                 /* census, per k step */
    const char *arm;
    int x1, a_x2, b_x1;                   /* text; census */
  } cases[] = {
      {"f16,shared,swizzled,ld=64", "f16,t,shared,swizzled,ld=64", 32, 16, 32, 2, 0, 0, 2, 1, 0},
      {"f16,t,shared,swizzled,ld=64", "f16,shared,swizzled,ld=64", 32, 16, 32, 2, 0, 2, 2, 1, 0},
      {"f16,shared,swizzled,ld=64", "f16,t,shared,swizzled,ld=64", 16, 24, 16, 2, 1, 0, 1, 1, 1},
      {"f16,shared", "f16,shared,swizzled,ld=64", 16, 8, 16, 0, 1, 1, 0, 0, 1},
      {"f16,shared", "f16,t", 16, 8, 16, 0, 0, 0, 0, 0, 0},
      {"e4m3,shared,swizzled,ld=128", "e5m2,t,shared,swizzled,ld=128", 16, 8, 32, 1, 1, 0, 1, 0, 1},
      {"e4m3,t,shared,swizzled,ld=128", "e5m2,shared,swizzled,ld=128", 16, 8, 32, 0, 0, 0, 0, 0, 0},
      {"f16,shared,swizzled,ld=64", "f16,t,shared,swizzled,ld=64", 32, 40, 8, 2, 0, 0, 1, 1, 0,
       "mma-f16-k8", 1, 0, 1},
      {"f16,shared,swizzled,ld=64", "f16,shared,swizzled,ld=64", 48, 24, 16, 1, 2, 2, 1, 0, 1,
       "mma-f16-k8", 1, 1, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tcmma_plan p = plan_of("f32", cases[i].a, cases[i].b, cases[i].m, cases[i].n, cases[i].k,
                           TCMMA_SCOPE_STATEMENT, cases[i].arm);
    tcmma_census c;
    assert_int_equal(tcmma_plan_census(&p, &c, NULL), TCMMA_OK);
    assert_int_equal(c.a_ldmatrix, cases[i].a_x4 + cases[i].a_x2 > 0);
    assert_int_equal(c.b_ldmatrix, cases[i].b_x4 + cases[i].b_x2 + cases[i].b_x1 > 0);
    assert_int_equal(c.a_ldmatrix_x4, cases[i].a_x4);
    assert_int_equal(c.a_ldmatrix_x2, cases[i].a_x2), assert_int_equal(c.a_ldmatrix_x1, 0);
    assert_int_equal(c.b_ldmatrix_x4, cases[i].b_x4);
    assert_int_equal(c.b_ldmatrix_x2, cases[i].b_x2);
    assert_int_equal(c.b_ldmatrix_x1, cases[i].b_x1);
    for (int dl = 0; dl < 2; dl++) {
      tcmma_buf out = {0};
      assert_int_equal(tcmma_render_statement(RCTX(&p, (tcmma_dialect)dl, &nm, &out), "d", "a", "b",
                                              NULL),
                       TCMMA_OK);
      const char *t = tcmma_buf_str(&out);
      int all = cases[i].x4 + cases[i].x2 + cases[i].x1;
      assert_int_equal(count(t, "ldmatrix.sync"), all);
      assert_int_equal(count(t, ".x4"), cases[i].x4);
      assert_int_equal(count(t, ".x2"), cases[i].x2);
      assert_int_equal(count(t, ".x1"), cases[i].x1);
      assert_int_equal(count(t, ".trans"), cases[i].trans);
      if (dl == TCMMA_DIALECT_HOST) {
        assert_null(strstr(t, "asm"));
        assert_null(strstr(t, "threadIdx"));
        assert_int_equal(count(t, "tcmma_sim_ldmatrix("), all);
        assert_int_equal(count(t, "tcmma_sim_mma("), 1);
      } else {
        assert_null(strstr(t, "tcmma_sim"));
      }
      tcmma_buf_free(&out);
    }
  }
}

/* The d boundary moves each register pair as one access of the pair type
 * exactly when the census says d_vector, and each register alone otherwise:
 * m16n8's C fragment has 4 registers, so 2 pair accesses or 4 scalar ones
 * per load and per store, in both dialects and both scopes. */
static void test_d_vector_census(void **s) {
  (void)s;
  tcmma_names nm = {NULL, 0};
  const struct {
    const char *d, *ab;
    const char *elem[2], *pair[2]; /* [CUDA, host] spellings */
  } precs[] = {
      {"f32", "f16", {"float", "float"}, {"float2", "tcmma_sim_float2"}},
      {"f16", "f16", {"__half", "tcmma_sim_half"}, {"__half2", "tcmma_sim_half2"}},
      {"bf16", "bf16", {"__nv_bfloat16", "tcmma_sim_bfloat16"},
       {"__nv_bfloat162", "tcmma_sim_bfloat162"}},
  };
  const char *lds[] = {"", ",ld=17", ",ld=18", ",t"};
  int seen[2] = {0, 0};
  for (size_t i = 0; i < sizeof precs / sizeof precs[0]; i++)
    for (size_t j = 0; j < sizeof lds / sizeof lds[0]; j++)
      for (int sc = 0; sc < 2; sc++) {
        char d[48], b[32];
        snprintf(d, sizeof d, "%s%s", precs[i].d, lds[j]);
        snprintf(b, sizeof b, "%s,t", precs[i].ab);
        tcmma_plan p = plan_of(d, precs[i].ab, b, 32, 16, 16, (tcmma_scope)sc, NULL);
        tcmma_census c;
        assert_int_equal(tcmma_plan_census(&p, &c, NULL), TCMMA_OK);
        seen[c.d_vector]++;
        for (int dl = 0; dl < 2; dl++) {
          tcmma_buf out = {0};
          tcmma_dialect dia = (tcmma_dialect)dl;
          if (sc == TCMMA_SCOPE_STATEMENT) {
            assert_int_equal(tcmma_render_statement(RCTX(&p, dia, &nm, &out), "d", "a", "b", NULL),
                             TCMMA_OK);
          } else {
            assert_int_equal(tcmma_render_fragment_open(RCTX(&p, dia, &nm, &out), "f", "d", NULL),
                             TCMMA_OK);
            assert_int_equal(tcmma_render_fragment_close(RCTX(&p, dia, &nm, &out), "f", "d", NULL),
                             TCMMA_OK);
          }
          const char *t = tcmma_buf_str(&out);
          /* pairs move through a pointer of the pair type, indexed in pairs */
          char ld_pair[64], st_pair[64], ld_elem[64], st_elem[64];
          snprintf(ld_pair, sizeof ld_pair, "_dl[(");
          snprintf(st_pair, sizeof st_pair, "_ds[(");
          snprintf(ld_elem, sizeof ld_elem, "*(const %s *)", precs[i].elem[dl]);
          snprintf(st_elem, sizeof st_elem, "*(%s *)", precs[i].elem[dl]);
          int pairs = c.d_vector ? 2 : 0, elems = c.d_vector ? 0 : 4;
          if (count(t, ld_pair) != pairs || count(t, st_pair) != pairs ||
              count(t, ld_elem) != elems || count(t, st_elem) != elems)
            fail_msg("d %s (%s): d_vector %d, but the text has %d/%d pair and %d/%d element "
                     "loads/stores:\n%s", d, dl ? "host" : "cuda", c.d_vector, count(t, ld_pair),
                     count(t, st_pair), count(t, ld_elem), count(t, st_elem), t);
          tcmma_buf_free(&out);
        }
      }
  assert_true(seen[0] > 0 && seen[1] > 0);
}

static void test_wmma_text(void **s) {
  (void)s;
  tcmma_names nm = {NULL, 0};
  tcmma_plan p = plan_of("f32", "f32,t", "f32", 32, 16, 16, TCMMA_SCOPE_STATEMENT, "wmma-tf32");
  tcmma_buf out = {0};
  assert_int_equal(tcmma_render_statement(RCTX(&p, TCMMA_DIALECT_CUDA, &nm, &out), "d", "a", "b",
                                          NULL),
                   TCMMA_OK);
  const char *t = tcmma_buf_str(&out);
  assert_non_null(strstr(t, "/* tile-mma 32x16x16 (wmma-tf32) */"));
  assert_non_null(strstr(t, "nvcuda::wmma::matrix_a, 16, 16, 8, "
                            "nvcuda::wmma::precision::tf32, nvcuda::wmma::col_major"));
  assert_non_null(strstr(t, "nvcuda::wmma::matrix_b, 16, 16, 8, "
                            "nvcuda::wmma::precision::tf32, nvcuda::wmma::row_major"));
  assert_int_equal(count(t, "nvcuda::wmma::__float_to_tf32"), 2);
  assert_int_equal(count(t, "mma_sync("), 1);
  assert_non_null(strstr(t, "fragment<nvcuda::wmma::accumulator, 16, 16, 8, float> "
                            "__tcmma_0_acc[2][1]"));
  tcmma_buf_free(&out);
  assert_int_equal(tcmma_render_statement(RCTX(&p, TCMMA_DIALECT_HOST, &nm, &out), "d", "a", "b",
                                          NULL),
                   TCMMA_OK);
  t = tcmma_buf_str(&out);
  assert_non_null(strstr(t, "\"a.m16n16k8.tf32.col\""));
  assert_non_null(strstr(t, "\"b.m16n16k8.tf32.row\""));
  assert_non_null(strstr(t, "\"c.m16n16k8.f32\""));
  assert_null(strstr(t, "nvcuda"));
  tcmma_buf_free(&out);
}

/* docs/design.md §5: byte c of row r of a swizzle-B tile sits at
 * r*ld + (c ^ (((r >> (3 - B)) & (2^B - 1)) << 4)); with rows of one span
 * this is CuTe's Swizzle<B,4,3> of the byte offset o = r*ld + c:
 * o ^ ((o & ((2^B - 1) << 7)) >> 3). */
static void test_swizzle_formula(void **s) {
  (void)s;
  const tcmma_swizzle atoms[4] = {TCMMA_SWIZZLE_NONE, TCMMA_SWIZZLE_B32, TCMMA_SWIZZLE_B64,
                                  TCMMA_SWIZZLE_B128};
  const int bits[4] = {0, 1, 2, 3};
  for (int a = 0; a < 4; a++) {
    const tcmma_swizzle_info *info = tcmma_swizzle_get(atoms[a]);
    assert_non_null(info);
    assert_int_equal(info->bits, bits[a]);
    assert_int_equal(info->bytes, bits[a] ? 16 << bits[a] : 0);
    long span = bits[a] ? 16L << bits[a] : 16;
    for (long ld = span; ld <= 4 * span; ld += span)
      for (long r = 0; r < 20; r++) {
        char seen[512] = {0};
        for (long c = 0; c < ld; c++) {
          long mask = ((r >> (3 - bits[a])) & ((1 << bits[a]) - 1)) << 4;
          long got = tcmma_swizzle_offset(atoms[a], r, c, ld);
          assert_int_equal(got, r * ld + (c ^ mask));
          if (ld == span && bits[a]) {
            long o = r * ld + c;
            assert_int_equal(got, o ^ ((o & (((1L << bits[a]) - 1) << 7)) >> 3));
          }
          if (a == 3) /* the former swizzled_b128 map */
            assert_int_equal(got, r * ld + ((((c / 16) ^ (r % 8)) * 16) + c % 16));
          long in_row = got - r * ld; /* a permutation of the row's bytes */
          assert_true(in_row >= 0 && in_row < ld);
          assert_int_equal(seen[in_row], 0);
          seen[in_row] = 1;
        }
      }
  }
  /* rows that are not whole spans */
  assert_int_equal(tcmma_swizzle_offset(TCMMA_SWIZZLE_B64, 0, 0, 96), -1);
  assert_int_equal(tcmma_swizzle_offset(TCMMA_SWIZZLE_B32, -1, 0, 32), -1);
  assert_int_equal(tcmma_swizzle_offset((tcmma_swizzle)9, 0, 0, 32), -1);
  /* ldmatrix's eight 16-byte rows in distinct bank groups (bits 4-6) */
  const struct { tcmma_swizzle sw; long ld; bool free; } banks[] = {
      {TCMMA_SWIZZLE_B32, 32, true},   {TCMMA_SWIZZLE_B32, 64, false},
      {TCMMA_SWIZZLE_B32, 96, true},   {TCMMA_SWIZZLE_B64, 64, true},
      {TCMMA_SWIZZLE_B64, 128, false}, {TCMMA_SWIZZLE_B64, 192, true},
      {TCMMA_SWIZZLE_B128, 128, true}, {TCMMA_SWIZZLE_B128, 256, true},
      {TCMMA_SWIZZLE_NONE, 48, true},  {TCMMA_SWIZZLE_NONE, 144, true},
      {TCMMA_SWIZZLE_NONE, 64, false}, {TCMMA_SWIZZLE_NONE, 40, false},
  };
  for (size_t i = 0; i < sizeof banks / sizeof banks[0]; i++)
    if (tcmma_swizzle_conflict_free(banks[i].sw, banks[i].ld) != banks[i].free)
      fail_msg("swizzle %s, rows of %ld bytes: conflict-free should be %d",
               tcmma_swizzle_name(banks[i].sw), banks[i].ld, banks[i].free);
  tcmma_swizzle sw;
  assert_int_equal(tcmma_swizzle_parse("64", &sw, NULL), TCMMA_OK);
  assert_int_equal(sw, TCMMA_SWIZZLE_B64);
  tcmma_error err = {0};
  assert_int_equal(tcmma_swizzle_parse("256", &sw, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "'256'"));
}

/* The emitted expression computes what the C function does. */
static void test_swizzle_expression(void **s) {
  (void)s;
  tcmma_buf prog = {0};
  tcmma_buf_printf(&prog, "#include <stdio.h>\nint main(void) {\n  long sum = 0;\n");
  long want = 0;
  for (int a = 0; a < TCMMA_SWIZZLE_COUNT; a++) {
    long ld = 384; /* whole spans of every atom */
    tcmma_buf_printf(&prog, "  for (int r = 0; r < 11; r++) for (int c = 0; c < %ld; c++)\n"
                            "    sum = sum * 31 %% 1000000007 + ", ld);
    assert_int_equal(tcmma_render_swizzle_offset((tcmma_swizzle)a, "r", "c", ld, &prog, NULL),
                     TCMMA_OK);
    tcmma_buf_printf(&prog, ";\n");
    for (long r = 0; r < 11; r++)
      for (long c = 0; c < ld; c++)
        want = want * 31 % 1000000007 + tcmma_swizzle_offset((tcmma_swizzle)a, r, c, ld);
  }
  tcmma_buf_printf(&prog, "  printf(\"%%ld\\n\", sum);\n  return 0;\n}\n");
  assert_int_equal(compile_c(tcmma_buf_str(&prog), ""), 0);
  char cmd[128], line[64] = "";
  snprintf(cmd, sizeof cmd, "/tmp/tcmma-render-%d.out", (int)getpid());
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  assert_non_null(fgets(line, sizeof line, f));
  pclose(f);
  unlink(cmd);
  assert_int_equal(atol(line), want);
  tcmma_buf_free(&prog);
  assert_int_equal(tcmma_render_swizzle_offset(TCMMA_SWIZZLE_B128, "r", "c", 80, &prog, NULL),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_render_swizzle_offset(TCMMA_SWIZZLE_B64, "", "c", 64, &prog, NULL),
                   TCMMA_INVALID);
}

/* Host kernels of every rendered arm compile as C. */
static void test_host_kernels_compile(void **s) {
  (void)s;
  struct {
    const char *d, *a, *b, *arm;
    int m, n, k;
    tcmma_scope scope;
    int outer;
  } cases[] = {
      {"f32", "f16,shared,swizzled,ld=64", "f16,t", "mma-f16", 32, 16, 32, TCMMA_SCOPE_FRAGMENT, 2},
      {"bf16,shared", "bf16,t,shared,swizzled,ld=64", "bf16", "mma-bf16", 16, 16, 16,
       TCMMA_SCOPE_STATEMENT, 1},
      {"f16", "e4m3,t,shared,swizzled,ld=128", "e5m2,t", "mma-fp8", 16, 8, 32,
       TCMMA_SCOPE_FRAGMENT, 3},
      {"f16", "f16", "f16,t", "wmma-f16", 32, 16, 16, TCMMA_SCOPE_STATEMENT, 2},
      {"f32,t", "f16,shared", "f16", "wmma-f16f32", 16, 16, 32, TCMMA_SCOPE_FRAGMENT, 2},
      {"f16,shared,t", "f16", "f16", "wmma-f16-wide", 16, 32, 16, TCMMA_SCOPE_FRAGMENT, 2},
      {"f32", "bf16,t", "bf16,shared", "wmma-bf16", 16, 16, 16, TCMMA_SCOPE_STATEMENT, 1},
      {"f32", "f32", "f32,t", "wmma-tf32", 16, 16, 16, TCMMA_SCOPE_FRAGMENT, 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tcmma_plan p = plan_of(cases[i].d, cases[i].a, cases[i].b, cases[i].m, cases[i].n,
                           cases[i].k, cases[i].scope, cases[i].arm);
    tcmma_buf out = {0};
    tcmma_error err = {0};
    tcmma_kernel_opts ko = TCMMA_KERNEL_OPTS_INIT(cases[i].outer, i % 2 == 1);
    if (tcmma_render_kernel(RCTX(&p, TCMMA_DIALECT_HOST, NULL, &out), &ko, &err) != TCMMA_OK)
      fail_msg("%s: %s", cases[i].arm, err.message);
    const char *t = tcmma_buf_str(&out);
    assert_non_null(strstr(t, "void tcmma_kernel_entry(void *args)"));
    assert_null(strstr(t, "__shared__"));
    if (compile_c(t, "-c") != 0) fail_msg("%s: host kernel does not compile", cases[i].arm);
    tcmma_buf_free(&out);
    assert_int_equal(tcmma_render_kernel(RCTX(&p, TCMMA_DIALECT_CUDA, NULL, &out), &ko, &err),
                     TCMMA_OK);
    t = tcmma_buf_str(&out);
    assert_non_null(strstr(t, "extern \"C\" __global__ void tcmma_kernel("));
    char marker[64];
    snprintf(marker, sizeof marker, "(%s)", cases[i].arm);
    assert_non_null(strstr(t, marker));
    /* cp.async only where the arm's floor already reaches its floor (80) */
    bool low = tcmma_arm_get(p.arm)->floor < 80;
    if (low) assert_null(strstr(t, "cp.async"));
    tcmma_buf_free(&out);
  }
}

static void test_prologue(void **s) {
  (void)s;
  tcmma_names nm = {NULL, 0};
  tcmma_plan plans[2];
  plans[0] = plan_of("f32", "f16", "f16", 16, 8, 16, TCMMA_SCOPE_STATEMENT, NULL);
  plans[1] = plan_of("f16", "f16", "f16", 16, 16, 16, TCMMA_SCOPE_FRAGMENT, "wmma-f16-wide");
  tcmma_buf out = {0};
  assert_int_equal(tcmma_kernel_prologue(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &out), plans, 1, NULL), TCMMA_OK);
  assert_string_equal(tcmma_buf_str(&out), "");
  assert_int_equal(tcmma_kernel_shared_bytes(plans, 1), 0);
  assert_int_equal(tcmma_kernel_prologue(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &out), plans, 2, NULL), TCMMA_OK);
  assert_non_null(strstr(tcmma_buf_str(&out), "__shared__ __align__(128) float __tcmma_stage[256]"));
  assert_int_equal(tcmma_kernel_shared_bytes(plans, 2), 256 * sizeof(float));
  tcmma_buf_free(&out);
  /* four warps: one stage tile each, the warp's slot picked in the text */
  plans[1].call.warps = 4;
  assert_int_equal(tcmma_kernel_shared_bytes(plans, 2), 4 * 256 * sizeof(float));
  tcmma_buf_free(&out);
  tcmma_buf_printf(&out, "#include \"tcmma/sim.h\"\nvoid f(tcmma_sim_half *d) {\n");
  assert_int_equal(tcmma_kernel_prologue(RCTX(NULL, TCMMA_DIALECT_HOST, NULL, &out), plans, 2, NULL), TCMMA_OK);
  assert_non_null(strstr(tcmma_buf_str(&out), "float __tcmma_stage[1024]"));
  assert_int_equal(tcmma_render_fragment_open(RCTX(&plans[1], TCMMA_DIALECT_HOST, &nm, &out), "fr",
                                              "d", NULL), TCMMA_OK);
  plans[1].call.warp = "threadIdx.x >> 5";
  assert_int_equal(tcmma_render_fragment_close(RCTX(&plans[1], TCMMA_DIALECT_HOST, &nm, &out), "fr",
                                               "d", NULL), TCMMA_OK);
  tcmma_buf_printf(&out, "}\n");
  const char *t = tcmma_buf_str(&out);
  assert_non_null(strstr(t, "__tcmma_stage + (tcmma_sim_lane() / 32) * 256"));
  assert_non_null(strstr(t, "__tcmma_stage + (tcmma_sim_lane() >> 5) * 256"));
  if (compile_c(t, "-c") != 0) fail_msg("multi-warp stage text does not compile:\n%s", t);
  tcmma_buf_free(&out);
  plans[1].call.warps = 1;
  /* statement rendering of a converted destination is refused */
  assert_int_equal(tcmma_render_statement(RCTX(&plans[1], TCMMA_DIALECT_CUDA, &nm, &out), "d", "a",
                                          "b", NULL), TCMMA_INVALID);
  tcmma_buf_free(&out);
}

static void test_stage(void **s) {
  (void)s;
  tcmma_names nm = {NULL, 0};
  tcmma_buf out = {0};
  /* 16 x 32 halves, ld 64: 16-byte chunks, swizzled */
  assert_int_equal(tcmma_render_stage(RCTX(NULL, TCMMA_DIALECT_CUDA, &nm, &out),
                                      STAGE_OPTS(true, "sa", "ga", 16, 32, 64, 32, 2,
                                                 TCMMA_SWIZZLE_B128, NULL),
                                      NULL), TCMMA_OK);
  const char *t = tcmma_buf_str(&out);
  assert_non_null(strstr(t, "(cp.async.)"));
  assert_non_null(strstr(t, "cp.async.cg.shared.global [%0], [%1], 16;"));
  assert_non_null(strstr(t, "cp.async.commit_group"));
  assert_non_null(strstr(t, "cp.async.wait_all"));
  assert_non_null(strstr(t, "__tcmma_0_"));
  /* a global stride of 18 halves: 4-byte .ca copies */
  assert_int_equal(tcmma_render_stage(RCTX(NULL, TCMMA_DIALECT_HOST, &nm, &out),
                                      STAGE_OPTS(true, "sb", "gb", 8, 16, 16, 18, 2,
                                                 TCMMA_SWIZZLE_NONE, NULL),
                                      NULL), TCMMA_OK);
  t = tcmma_buf_str(&out);
  assert_non_null(strstr(t, "tcmma_sim_cp_async(\"cp.async.ca.shared.global\""));
  assert_non_null(strstr(t, ", 4);"));
  assert_non_null(strstr(t, "__tcmma_1_"));
  assert_int_equal(nm.next, 2);
  tcmma_buf_free(&out);
  assert_int_equal(tcmma_render_stage(RCTX(NULL, TCMMA_DIALECT_CUDA, &nm, &out),
                                      STAGE_OPTS(false, "sa", "ga", 16, 32, 32, 32, 2,
                                                 TCMMA_SWIZZLE_NONE, NULL),
                                      NULL), TCMMA_OK);
  assert_null(strstr(tcmma_buf_str(&out), "cp.async"));
  tcmma_buf_free(&out);
  assert_int_equal(tcmma_render_stage(RCTX(NULL, TCMMA_DIALECT_CUDA, &nm, &out),
                                      STAGE_OPTS(true, "sa", "ga", 16, 32, 40, 32, 2,
                                                 TCMMA_SWIZZLE_B128, NULL),
                                      NULL),
                   TCMMA_INVALID);
  /* 48 halves are 96 bytes: whole 32-byte spans, not 64-byte ones */
  assert_int_equal(tcmma_render_stage(RCTX(NULL, TCMMA_DIALECT_CUDA, &nm, &out),
                                      STAGE_OPTS(true, "sa", "ga", 16, 32, 48, 32, 2,
                                                 TCMMA_SWIZZLE_B32, NULL),
                                      NULL), TCMMA_OK);
  assert_int_equal(tcmma_render_stage(RCTX(NULL, TCMMA_DIALECT_CUDA, &nm, &out),
                                      STAGE_OPTS(true, "sa", "ga", 16, 32, 48, 32, 2,
                                                 TCMMA_SWIZZLE_B64, NULL),
                                      NULL), TCMMA_INVALID);
  assert_int_equal(tcmma_render_stage(RCTX(NULL, TCMMA_DIALECT_CUDA, &nm, &out),
                                      STAGE_OPTS(true, "sa", "ga", 0, 32, 40, 32, 2,
                                                 TCMMA_SWIZZLE_NONE, NULL),
                                      NULL), TCMMA_INVALID);
  assert_int_equal(tcmma_render_stage(RCTX(NULL, TCMMA_DIALECT_CUDA, NULL, &out),
                                      STAGE_OPTS(true, "sa", "ga", 16, 32, 32, 32, 2,
                                                 TCMMA_SWIZZLE_NONE, NULL),
                                      NULL),
                   TCMMA_INVALID);
  tcmma_buf_free(&out);
}

/* 8-byte elements (f64) copied without cp.async: each copy moves one
 * whole element, the column advancing one element per copy (a 4-byte copy
 * advanced the column by 4 / 8 = 0 elements and moved half of each). */
static void test_stage_f64_plain(void **s) {
  (void)s;
  tcmma_names nm = {NULL, 0};
  tcmma_buf out = {0};
  assert_int_equal(tcmma_render_stage(RCTX(NULL, TCMMA_DIALECT_CUDA, &nm, &out),
                                      STAGE_OPTS(false, "sa", "ga", 8, 16, 16, 16, 8,
                                                 TCMMA_SWIZZLE_B128, NULL),
                                      NULL), TCMMA_OK);
  const char *t = tcmma_buf_str(&out);
  assert_non_null(strstr(t, "__tcmma_0_i < 128;"));
  assert_non_null(strstr(t, "__tcmma_0_c = __tcmma_0_i % 16 * 1;"));
  assert_non_null(strstr(t, "*(unsigned long long *)(__tcmma_0_dst + "));
  tcmma_buf_free(&out);
}

/* An f64 d in shared memory (plain and swizzled) round-trips through the
 * kernel's shared copy: the write-back copied 4 of each element's 8 bytes. */
static void test_f64_shared_d_on_the_simulator(void **s) {
  (void)s;
  static const char *const specs[2] = {"f64,shared", "f64,shared,swizzle=128,ld=16"};
  for (int i = 0; i < 2; i++) {
    verify_case c;
    memset(&c, 0, sizeof c);
    c.call = tcmma_call_default();
    assert_int_equal(cli_parse_operand_spec(specs[i], &c.call.d, NULL), TCMMA_OK);
    assert_int_equal(cli_parse_operand_spec("f64", &c.call.a, NULL), TCMMA_OK);
    assert_int_equal(cli_parse_operand_spec("f64", &c.call.b, NULL), TCMMA_OK);
    c.call.m = 16, c.call.n = 16, c.call.k = 8;
    c.outer = 1;
    c.expect = TCMMA_DECLINE_NONE, c.expect_arm = TCMMA_ARM_MMA_F64;
    snprintf(c.name, sizeof c.name, "mma-f64/d=%s", specs[i]);
    verify_case_result r;
    verify_exec_sim(&c, &r);
    if (r.outcome != VERIFY_CASE_PASSED) fail_msg("%s: %s", c.name, r.reason);
  }
}

/* The largest integer literal in text (0 when none). */
static long long largest_literal(const char *text) {
  long long most = 0;
  for (const char *p = text; *p; p++) {
    if (*p < '0' || *p > '9' || (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
      continue;
    long long v = strtoll(p, NULL, 10);
    if (v > most) most = v;
    while (p[1] >= '0' && p[1] <= '9') p++;
  }
  return most;
}

/* Every constant the stage helper writes is an int, as its offsets are; a
 * tile whose offsets would not fit is refused, never emitted. */
static void test_stage_offsets_fit(void **s) {
  (void)s;
  tcmma_buf out = {0};
  tcmma_error err = {0};
  tcmma_names nm = {NULL, 0};
  /* 2^24 x 2^24 of 8 bytes: 2^51 bytes */
  assert_int_equal(tcmma_render_stage(RCTX(NULL, TCMMA_DIALECT_CUDA, &nm, &out),
                                      STAGE_OPTS(false, "sa", "ga", 1L << 24, 1L << 24, 1L << 24,
                                                 1L << 24, 8, TCMMA_SWIZZLE_NONE, NULL),
                                      &err),
                   TCMMA_OVERFLOW);
  assert_non_null(strstr(err.message, "16777216"));
  assert_int_equal(out.len, 0);
  /* one byte past INT_MAX in the source, then in the destination */
  const long rows[2] = {65536, 32768}, ld[2][2] = {{16384, 16384}, {16384, 65536}};
  for (int i = 0; i < 2; i++)
    assert_int_equal(tcmma_render_stage(RCTX(NULL, TCMMA_DIALECT_CUDA, &nm, &out),
                                        STAGE_OPTS(true, "sa", "ga", rows[i], 128, ld[i][0],
                                                   ld[i][1], 2, TCMMA_SWIZZLE_NONE, NULL),
                                        NULL), TCMMA_OVERFLOW);
  /* just inside: 2^30 bytes each way, every literal an int, in every atom */
  const int ebs[4] = {1, 2, 4, 8};
  for (int e = 0; e < 4; e++)
    for (int sw = 0; sw < TCMMA_SWIZZLE_COUNT; sw++) {
      long n = (1L << 15) / ebs[e];
      tcmma_buf_free(&out);
      tcmma_status st = tcmma_render_stage(RCTX(NULL, TCMMA_DIALECT_CUDA, &nm, &out),
                                           STAGE_OPTS(e % 2 == 0, "sa", "ga", 1L << 15, n, n, n,
                                                      ebs[e], (tcmma_swizzle)sw, NULL),
                                           &err);
      if (st != TCMMA_OK) fail_msg("%d-byte elements, swizzle %d: %s", ebs[e], sw, err.message);
      assert_true(largest_literal(tcmma_buf_str(&out)) <= INT_MAX);
    }
  tcmma_buf_free(&out);
}

/* The swizzle map takes any input without undefined behaviour: -1 for
 * negative or zero sizes and for offsets past a long. */
static void test_swizzle_offset_range(void **s) {
  (void)s;
  const tcmma_swizzle b128 = TCMMA_SWIZZLE_B128;
  assert_int_equal(tcmma_swizzle_offset(b128, LONG_MAX, 0, 128), -1);
  assert_int_equal(tcmma_swizzle_offset(b128, 1, LONG_MAX, 128), -1);
  assert_int_equal(tcmma_swizzle_offset(b128, 2, 0, (LONG_MAX / 2) & ~127L), -1);
  assert_int_equal(tcmma_swizzle_offset(b128, (1L << 40), 0, 1L << 30), -1);
  assert_int_equal(tcmma_swizzle_offset(b128, -1, 0, 128), -1);
  assert_int_equal(tcmma_swizzle_offset(b128, 0, -1, 128), -1);
  assert_int_equal(tcmma_swizzle_offset(b128, 0, 0, 0), -1);
  assert_int_equal(tcmma_swizzle_offset((tcmma_swizzle)99, 0, 0, 128), -1);
  assert_int_equal(tcmma_swizzle_offset(b128, 9, 6, 128), 9 * 128 + ((0 ^ 1) * 16) + 6);
  /* rows whose byte size is past the int the expression computes in */
  tcmma_buf out = {0};
  assert_int_equal(tcmma_render_swizzle_offset(b128, "r", "c", LONG_MAX & ~127L, &out, NULL),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_render_swizzle_offset(b128, "r", "c", 1L << 32, &out, NULL),
                   TCMMA_INVALID);
  assert_int_equal(out.len, 0);
}

static void test_kernel_index(void **s) {
  (void)s;
  /* a stored transposed (k x m), ld 40: tile r at r*k*ld, (i, j) at j*ld + i */
  tcmma_plan p = plan_of("f32", "f16,t,ld=40", "f16", 32, 8, 16, TCMMA_SCOPE_FRAGMENT, NULL);
  assert_int_equal(tcmma_kernel_operand_elems(&p, 3, TCMMA_OPERAND_A), 3 * 16 * 40);
  assert_int_equal(tcmma_kernel_operand_index(&p, TCMMA_OPERAND_A, 2, 5, 7), 2 * 16 * 40 + 7 * 40 + 5);
  assert_int_equal(tcmma_kernel_operand_index(&p, TCMMA_OPERAND_B, 1, 3, 4), 1 * 16 * 8 + 3 * 8 + 4);
  assert_int_equal(tcmma_kernel_operand_elems(&p, 3, TCMMA_OPERAND_C), 32 * 8);
  assert_int_equal(tcmma_kernel_operand_index(&p, TCMMA_OPERAND_C, 1, 0, 0), -1);
  assert_int_equal(tcmma_kernel_operand_index(&p, TCMMA_OPERAND_A, 0, 32, 0), -1);
}

/* Every renderer checks its context first: NULL, a size below the
 * struct's (a caller built against no size), no out, no plan; nothing is
 * appended. tcmma_render_stage checks its copy options the same way. */
static void test_ctx_errors(void **s) {
  (void)s;
  tcmma_names nm = {NULL, 0};
  tcmma_buf out = {0};
  tcmma_error err = {0};
  tcmma_plan p = plan_of("f32", "f16", "f16", 16, 8, 16, TCMMA_SCOPE_FRAGMENT, NULL);
  tcmma_render_ctx good = tcmma_render_ctx_make(&p, TCMMA_DIALECT_CUDA, &nm, &out);
  assert_int_equal(good.size, sizeof(tcmma_render_ctx));
  tcmma_render_ctx small = good, no_out = good, no_plan = good;
  small.size = 0, no_out.out = NULL, no_plan.plan = NULL;
  const struct {
    const tcmma_render_ctx *ctx;
    const char *says;
  } bad[4] = {{NULL, "context is NULL"}, {&small, "context size 0"},
              {&no_out, "out is NULL"}, {&no_plan, "plan is NULL"}};
  for (int i = 0; i < 4; i++) {
    const tcmma_render_ctx *c = bad[i].ctx;
    tcmma_status st[10] = {
        tcmma_render_statement(c, "d", "a", "b", &err),
        tcmma_render_fragment_open(c, "f", "d", &err),
        tcmma_render_fragment_update(c, "f", "a", "b", &err),
        tcmma_render_fragment_close(c, "f", "d", &err),
        tcmma_render_frag_decl(c, TCMMA_OPERAND_A, "af", 0, &err),
        tcmma_render_frag_load(c, TCMMA_OPERAND_A, "af", "a", "0", &err),
        tcmma_render_frag_mma(c, "acc", "af", "bf", &err),
        tcmma_render_acc_init(c, "acc", "d", &err),
        tcmma_render_acc_store(c, "acc", "d", &err),
        tcmma_render_kernel(c, NULL, &err)};
    for (int j = 0; j < 10; j++) assert_int_equal(st[j], TCMMA_INVALID);
    assert_int_equal(tcmma_render_includes(c, false, &err), TCMMA_INVALID);
    assert_non_null(strstr(err.message, bad[i].says));
    tcmma_stage_opts so = tcmma_stage_opts_default();
    so.dst = "s", so.src = "g", so.rows = 8, so.cols = 8, so.dst_ld = so.src_ld = 8;
    so.elem_bytes = 2;
    /* the stage takes no plan: a context without one is fine */
    assert_int_equal(tcmma_render_stage(c, &so, &err), i == 3 ? TCMMA_OK : TCMMA_INVALID);
    if (i < 3) assert_non_null(strstr(err.message, bad[i].says));
    /* the GEMM renderer takes its own plan, and checks the context first */
    assert_int_equal(tcmma_render_gemm(c, NULL, &err), TCMMA_INVALID);
    assert_non_null(strstr(err.message, i < 3 ? bad[i].says : "accepted plan is required"));
  }
  size_t len = out.len; /* the one good stage above */
  assert_int_equal(len > 0, true);
  assert_int_equal(tcmma_render_stage(&good, NULL, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "opts must not be NULL"));
  tcmma_stage_opts old = tcmma_stage_opts_default();
  old.size = sizeof old - 1;
  assert_int_equal(tcmma_render_stage(&good, &old, &err), TCMMA_INVALID);
  assert_non_null(strstr(err.message, "opts size"));
  assert_int_equal(out.len, len);
  tcmma_buf_free(&out);
}

/* The plan carries each operand's stored shape, the one the call implies. */
static void test_plan_stored_shape(void **s) {
  (void)s;
  tcmma_call c = tcmma_call_default();
  c.m = 32, c.n = 16, c.k = 32;
  c.a.transposed = true, c.b.ld = 40;
  tcmma_plan p;
  assert_int_equal(tcmma_plan_call(&c, &p, NULL), TCMMA_OK);
  const tcmma_operand op[3] = {TCMMA_OPERAND_A, TCMMA_OPERAND_B, TCMMA_OPERAND_C};
  const long want[3][3] = {{32, 32, 32}, {32, 16, 40}, {32, 16, 16}};
  for (int i = 0; i < 3; i++) {
    long rows, cols, ld;
    tcmma_operand_stored_shape(&p.call, op[i], &rows, &cols, &ld);
    assert_int_equal(p.stored[op[i]].rows, want[i][0]);
    assert_int_equal(p.stored[op[i]].cols, want[i][1]);
    assert_int_equal(p.stored[op[i]].ld, want[i][2]);
    assert_int_equal(rows, p.stored[op[i]].rows);
    assert_int_equal(cols, p.stored[op[i]].cols);
    assert_int_equal(ld, p.stored[op[i]].ld);
  }
}

static void test_errors(void **s) {
  (void)s;
  tcmma_names nm = {NULL, 0};
  tcmma_call c = tcmma_call_default();
  c.m = 24, c.n = 8, c.k = 16;
  tcmma_plan bad;
  assert_int_equal(tcmma_plan_call(&c, &bad, NULL), TCMMA_DECLINED);
  tcmma_buf out = {0};
  tcmma_error err = {0};
  assert_int_equal(tcmma_render_statement(RCTX(&bad, TCMMA_DIALECT_CUDA, &nm, &out), "d", "a", "b",
                                          &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "extents"));
  tcmma_plan p = plan_of("f32", "f16", "f16", 16, 8, 16, TCMMA_SCOPE_FRAGMENT, NULL);
  assert_int_equal(tcmma_render_statement(RCTX(&p, TCMMA_DIALECT_CUDA, &nm, &out), "d", "", "b",
                                          &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_render_statement(RCTX(&p, TCMMA_DIALECT_CUDA, &nm, &out), "d", NULL, "b",
                                          &err),
                   TCMMA_INVALID);
  assert_int_equal(tcmma_render_fragment_open(RCTX(&p, TCMMA_DIALECT_CUDA, &nm, &out), "1x", "d",
                                              &err),
                   TCMMA_INVALID);
  assert_non_null(strstr(err.message, "1x"));
  /* fragment names are bounded (never truncated), for both forms of arm */
  char name[TCMMA_FRAG_NAME_MAX + 2];
  memset(name, 'f', sizeof name - 1);
  name[sizeof name - 1] = '\0';
  tcmma_plan wp = plan_of("f32", "f16", "f16", 16, 16, 16, TCMMA_SCOPE_FRAGMENT, "wmma-f16f32");
  const tcmma_plan *both[2] = {&p, &wp};
  for (int i = 0; i < 2; i++) {
    name[TCMMA_FRAG_NAME_MAX] = 'f';
    assert_int_equal(tcmma_render_fragment_open(RCTX(both[i], TCMMA_DIALECT_CUDA, &nm, &out), name,
                                                "d", &err), TCMMA_INVALID);
    assert_non_null(strstr(err.message, "at most"));
    name[TCMMA_FRAG_NAME_MAX] = '\0';
    tcmma_buf ok = {0};
    assert_int_equal(tcmma_render_fragment_close(RCTX(both[i], TCMMA_DIALECT_CUDA, &nm, &ok), name,
                                                 "d", &err), TCMMA_OK);
    char indexed[TCMMA_FRAG_NAME_MAX + 8];
    snprintf(indexed, sizeof indexed, "%s[", name);
    assert_non_null(strstr(tcmma_buf_str(&ok), indexed));
    tcmma_buf_free(&ok);
  }
  assert_int_equal(tcmma_render_statement(RCTX(&p, (tcmma_dialect)7, &nm, &out), "d", "a", "b",
                                          &err),
                   TCMMA_INVALID);
  tcmma_kernel_opts bad_outer = TCMMA_KERNEL_OPTS_INIT(-1, false);
  assert_int_equal(tcmma_render_kernel(RCTX(&p, TCMMA_DIALECT_CUDA, NULL, &out), &bad_outer, &err),
                   TCMMA_INVALID);
  assert_string_equal(tcmma_buf_str(&out), "");
  /* 64 x 64 halves staged twice fit; 64 rows of 512 halves (64 KiB) do not */
  tcmma_plan big = plan_of("f32", "f16,shared", "f16,t,shared", 64, 64, 64,
                           TCMMA_SCOPE_STATEMENT, NULL);
  assert_int_equal(tcmma_render_kernel(RCTX(&big, TCMMA_DIALECT_CUDA, NULL, &out), NULL, &err),
                   TCMMA_OK);
  tcmma_buf_free(&out);
  big = plan_of("f32", "f16,shared,ld=512", "f16,t,shared", 64, 64, 64,
                TCMMA_SCOPE_STATEMENT, NULL);
  assert_int_equal(tcmma_render_kernel(RCTX(&big, TCMMA_DIALECT_CUDA, NULL, &out), NULL, &err),
                   TCMMA_OVERFLOW);
  assert_non_null(strstr(err.message, "49152"));
  tcmma_buf_free(&out);
}

/* A length that would wrap len + n + 1 marks the buffer failed instead of
 * passing the capacity test with no storage (found by fuzz_arch). */
static void test_buf_wrapping_length(void **state) {
  (void)state;
  tcmma_buf b = {0};
  tcmma_buf_append(&b, "", (size_t)-1);
  assert_true(b.failed);
  assert_null(b.data);
  tcmma_buf c = {0};
  tcmma_buf_append(&c, "ab", 2);
  tcmma_buf_append(&c, "x", (size_t)-2);
  assert_true(c.failed);
  assert_int_equal(c.len, 2);
  assert_string_equal(c.data, "ab");
  tcmma_buf_free(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_title_and_prefix),  cmocka_unit_test(test_nest_repeat_compiles),
      cmocka_unit_test(test_ldmatrix_census),
      cmocka_unit_test(test_ctx_errors), cmocka_unit_test(test_plan_stored_shape),
      cmocka_unit_test(test_d_vector_census),   cmocka_unit_test(test_wmma_text),
      cmocka_unit_test(test_swizzle_formula),   cmocka_unit_test(test_swizzle_expression),
      cmocka_unit_test(test_host_kernels_compile), cmocka_unit_test(test_prologue),
      cmocka_unit_test(test_stage),             cmocka_unit_test(test_kernel_index),
      cmocka_unit_test(test_stage_f64_plain),
      cmocka_unit_test(test_f64_shared_d_on_the_simulator),
      cmocka_unit_test(test_stage_offsets_fit), cmocka_unit_test(test_swizzle_offset_range),
      cmocka_unit_test(test_errors),            cmocka_unit_test(test_buf_wrapping_length),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
