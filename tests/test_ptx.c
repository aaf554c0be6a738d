/* The PTX reader: hand-written awkward PTX, broken input, what the feature
 * table gives the cases that once came out wrong (ptxas proves every row:
 * tests/test_ptx_probe.c), target checks, and real nvcc output (independent
 * line-based count). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util.h"
#include "tcmma/tcmma.h"

static size_t op_count(const tcmma_ptx_info *info, const char *opcode) {
  for (size_t i = 0; i < info->census_count; i++)
    if (strcmp(info->census[i].opcode, opcode) == 0) return info->census[i].count;
  return 0;
}

static tcmma_status parse_str(const char *text, tcmma_ptx_info *info, tcmma_error *err) {
  return tcmma_ptx_parse(text, strlen(text), info, err);
}

/* ---- hand-written PTX ---- */

static void awkward_fixture(void **state) {
  (void)state;
  size_t len;
  char *text = read_file(src_path("tests/data/awkward.ptx"), &len);
  assert_non_null(text);
  tcmma_ptx_info info;
  tcmma_error err;
  assert_int_equal(tcmma_ptx_parse(text, len, &info, &err), TCMMA_OK);
  assert_int_equal(info.version_major, 8);
  assert_int_equal(info.version_minor, 7);
  assert_string_equal(info.target, "sm_90a");
  assert_int_equal(info.target_sm, 90);
  assert_int_equal(info.target_suffix, 'a');
  assert_int_equal(info.modifier_count, 1);
  assert_string_equal(info.modifiers[0], "texmode_independent");
  assert_int_equal(info.address_size, 64);
  assert_int_equal(info.entry_count, 2);
  assert_string_equal(info.entries[0], "first");
  assert_string_equal(info.entries[1], "second");
  /* counted by reading the file: 2 mov, setp, bra, add, mma, ldmatrix, ret,
   * wgmma, ret; nothing from comments, initializers, labels or prototypes */
  assert_int_equal(op_count(&info, "mov.u32"), 2);
  assert_int_equal(op_count(&info, "setp.lt.u32"), 1);
  assert_int_equal(op_count(&info, "bra"), 1);
  assert_int_equal(op_count(&info, "add.s32"), 1);
  assert_int_equal(op_count(&info, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"), 1);
  assert_int_equal(op_count(&info, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"), 1);
  assert_int_equal(op_count(&info, "ret"), 2);
  assert_int_equal(op_count(&info, "wgmma.fence.sync.aligned"), 1);
  assert_int_equal(info.census_count, 8);
  assert_int_equal(info.instruction_count, 10);
  for (size_t i = 1; i < info.census_count; i++)
    assert_true(strcmp(info.census[i - 1].opcode, info.census[i].opcode) < 0);
  /* wgmma: sm_90a only (PTX ISA) */
  assert_int_equal(info.required_sm, 90);
  assert_int_equal(info.required_suffix, TCMMA_PTX_SUFFIX_A);
  assert_string_equal(info.required_by, "wgmma.fence.sync.aligned");
  assert_int_equal(tcmma_ptx_check_target(&info, &err), TCMMA_OK);
  assert_int_equal(tcmma_ptx_count(&info, "mma"), 1);
  assert_int_equal(tcmma_ptx_count(&info, "mov"), 2);
  assert_int_equal(tcmma_ptx_count(&info, "mo"), 0); /* whole parts only */
  tcmma_ptx_info_free(&info);
  free(text);
}

static void comments_inside_lines(void **state) {
  (void)state;
  const char *ptx =
      "/*x*/.version/*y*/7.0/*z*/\n"
      ".target/**/sm_80/**/,/**/debug // .target sm_90\n"
      "// .entry not_me\n"
      ".entry /* name: */ k ( ) { /* } */ add.s32 /* ; */ %r1, %r2, 1; // ret;\n"
      "/* mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {}; */ }\n";
  tcmma_ptx_info info;
  tcmma_error err;
  assert_int_equal(parse_str(ptx, &info, &err), TCMMA_OK);
  assert_int_equal(info.version_major, 7);
  assert_string_equal(info.target, "sm_80");
  assert_int_equal(info.modifier_count, 1);
  assert_string_equal(info.modifiers[0], "debug");
  assert_int_equal(info.address_size, 0);
  assert_int_equal(info.entry_count, 1);
  assert_string_equal(info.entries[0], "k");
  assert_int_equal(info.instruction_count, 1);
  assert_int_equal(op_count(&info, "add.s32"), 1);
  assert_int_equal(info.required_sm, 0);
  assert_null(info.required_by);
  tcmma_ptx_info_free(&info);
}

/* A block comment that spans lines ends a line directive (it counts as the
 * line break) and the statement after it is still read. */
static void block_comment_ends_line_directive(void **state) {
  (void)state;
  static const char *const texts[] = {
      ".version 8.0 /* a\n b */ .target sm_80\n",
      ".version 8.0 /* a\n b */.target sm_80\n",
      ".version 8.0\n.target sm_80 /* x\n */ .address_size 64\n",
      ".version /* x\n */ 8.0\n.target sm_80\n",
  };
  const int address_size[] = {0, 0, 64, -1};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    tcmma_ptx_info info;
    tcmma_error err;
    tcmma_status st = parse_str(texts[i], &info, &err);
    if (address_size[i] < 0) { /* the version's number is on the next line: malformed */
      assert_int_equal(st, TCMMA_PARSE);
      assert_non_null(strstr(err.message, "malformed .version at line 1"));
      tcmma_ptx_info_free(&info);
      continue;
    }
    if (st != TCMMA_OK) fail_msg("text %zu: %s", i, err.message);
    assert_int_equal(info.version_major, 8);
    assert_string_equal(info.target, "sm_80");
    assert_int_equal(info.address_size, address_size[i]);
    /* the modifier after a comment that breaks the line is not the target's */
    assert_int_equal(info.modifier_count, 0);
    tcmma_ptx_info_free(&info);
  }
}

static void strings_and_line_directives(void **state) {
  (void)state;
  /* .loc/.file/.maxnreg end at the line's end, without ';' (as nvcc -G writes) */
  const char *ptx =
      ".version 8.0\n.target sm_75\n.address_size 32\n"
      ".file 1 \"/tmp/a;b{c}.cu\"\n"
      ".visible .entry k()\n.maxnreg 32\n{\n"
      ".loc 1 5 3\n"
      "mov.u32 %r1, 0;\n"
      ".loc 1 6 3\n"
      "cp.async.ca.shared.global [%r1], [%rd1], 4;\n"
      ".pragma \"nounroll;\";\n"
      "ret;\n}\n";
  tcmma_ptx_info info;
  tcmma_error err;
  assert_int_equal(parse_str(ptx, &info, &err), TCMMA_OK);
  assert_int_equal(info.address_size, 32);
  assert_int_equal(info.instruction_count, 3);
  assert_int_equal(op_count(&info, "cp.async.ca.shared.global"), 1);
  /* cp.async needs sm_80: the module's sm_75 target cannot hold it */
  assert_int_equal(info.required_sm, 80);
  assert_int_equal(tcmma_ptx_check_target(&info, &err), TCMMA_FLOOR);
  assert_non_null(strstr(err.message, "sm_75"));
  assert_non_null(strstr(err.message, "cp.async.ca.shared.global"));
  assert_non_null(strstr(err.message, "sm_80"));
  tcmma_ptx_info_free(&info);
}

static void huge_line(void **state) {
  (void)state;
  enum { N = 100000 };
  const char *head = ".version 7.0\n.target sm_80\n.entry k() {";
  const char *ins = " add.s32 %r1, %r1, 1; /* c */";
  size_t cap = strlen(head) + N * strlen(ins) + 8;
  char *ptx = malloc(cap);
  assert_non_null(ptx);
  char *p = ptx + sprintf(ptx, "%s", head);
  for (int i = 0; i < N; i++) p += sprintf(p, "%s", ins);
  sprintf(p, " }");
  tcmma_ptx_info info;
  tcmma_error err;
  assert_int_equal(parse_str(ptx, &info, &err), TCMMA_OK);
  assert_int_equal(op_count(&info, "add.s32"), N);
  assert_int_equal(info.census_count, 1);
  tcmma_ptx_info_free(&info);
  free(ptx);
}

static void many_distinct_opcodes(void **state) {
  (void)state;
  /* 5000 distinct opcodes, opcode i written (i % 7) + 1 times: the hash grows */
  enum { N = 5000 };
  size_t cap = 64 + (size_t)N * 7 * 32;
  char *ptx = malloc(cap);
  assert_non_null(ptx);
  char *p = ptx + sprintf(ptx, ".version 7.0\n.target sm_80\n");
  size_t total = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i % 7; j++, total++) p += sprintf(p, "op%d.x;\n", i);
  tcmma_ptx_info info;
  tcmma_error err;
  assert_int_equal(parse_str(ptx, &info, &err), TCMMA_OK);
  assert_int_equal(info.census_count, N);
  assert_int_equal(info.instruction_count, total);
  assert_int_equal(op_count(&info, "op4999.x"), 4999 % 7 + 1);
  assert_int_equal(op_count(&info, "op13.x"), 13 % 7 + 1);
  tcmma_ptx_info_free(&info);
  free(ptx);
}

/* ---- input that is not (complete) PTX ---- */

static void expect_parse_error(const char *text, size_t len, const char *needle) {
  tcmma_ptx_info info;
  tcmma_error err;
  tcmma_error_clear(&err);
  tcmma_status s = tcmma_ptx_parse(text, len, &info, &err);
  if (s != TCMMA_PARSE || !strstr(err.message, needle))
    fail_msg("expected parse error with '%s', got %s: %s", needle, tcmma_status_name(s),
             err.message);
  assert_int_equal(err.status, TCMMA_PARSE);
  tcmma_ptx_info_free(&info);
}

static void not_ptx(void **state) {
  (void)state;
  expect_parse_error("", 0, "empty input");
  expect_parse_error(" \n\t\n", 4, "empty input");
  const char *text = "The quick brown fox jumps over the lazy dog.\nIt is not PTX.\n";
  expect_parse_error(text, strlen(text), "no .version or .target");
  text = ".version 8.0\n.address_size 64\n.entry k() { ret; }\n";
  expect_parse_error(text, strlen(text), "no .target");
  text = ".target sm_80\n.entry k() { ret; }\n";
  expect_parse_error(text, strlen(text), "no .version");
  text = "// .version 8.0\n/* .target sm_80 */\n";
  expect_parse_error(text, strlen(text), "no .version or .target");
  text = ".version eight\n.target sm_80\n";
  expect_parse_error(text, strlen(text), ".version at line 1");
  /* a version with more digits than PTX has, or junk after it, is malformed:
   * not read as a shorter version that a check would pass */
  static const char *const bad_versions[] = {
      ".version 12345.6\n.target sm_80\n", ".version 8.12345\n.target sm_80\n",
      ".version 8.0x\n.target sm_80\n",    ".version 8.0 junk\n.target sm_80\n",
      ".version 8\n.target sm_80\n",       ".version 8.\n.target sm_80\n",
      ".version 8,0\n.target sm_80\n"};
  for (size_t i = 0; i < sizeof bad_versions / sizeof bad_versions[0]; i++)
    expect_parse_error(bad_versions[i], strlen(bad_versions[i]), "malformed .version at line 1");
  text = ".version 8.0\n.target sm_80\n.target sm_90\n";
  expect_parse_error(text, strlen(text), "second .target at line 3");
  text = ".version 8.0\n.target\n";
  expect_parse_error(text, strlen(text), "malformed .target at line 2");
  text = ".version 8.0\n.target sm_80\n}\n";
  expect_parse_error(text, strlen(text), "unbalanced '}' at line 3");
}

static void binary_garbage(void **state) {
  (void)state;
  unsigned char bytes[4096];
  unsigned x = 12345;
  for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 16);
  expect_parse_error((const char *)bytes, sizeof bytes, "not PTX text");
  const char with_nul[] = ".version 8.0\n.target sm_80\0\n";
  expect_parse_error(with_nul, sizeof with_nul - 1, "control byte 0x00 at offset 26");
}

static void truncated(void **state) {
  (void)state;
  size_t len;
  char *text = read_file(src_path("tests/data/awkward.ptx"), &len);
  assert_non_null(text);
  /* every cut inside the first entry's body leaves something open */
  const char *body = strstr(text, "\t.reg .pred");
  const char *end = strstr(text, "\n}\n");
  assert_non_null(body);
  assert_non_null(end);
  for (size_t cut = (size_t)(body - text); cut < (size_t)(end - text); cut += 7) {
    tcmma_ptx_info info;
    tcmma_error err;
    tcmma_status s = tcmma_ptx_parse(text, cut, &info, &err);
    if (s != TCMMA_PARSE || !strstr(err.message, "truncated"))
      fail_msg("cut at %zu: %s: %s", cut, tcmma_status_name(s), err.message);
    tcmma_ptx_info_free(&info);
  }
  free(text);
  const char *t = ".version 8.0\n.target sm_80\n.entry k() { ret; /* open";
  expect_parse_error(t, strlen(t), "a /* comment at line 3");
  t = ".version 8.0\n.target sm_80\n.pragma \"open;\n";
  expect_parse_error(t, strlen(t), "a string at line 3");
  t = ".version 8.0\n.target sm_80\n.entry k() {\n{ ret; }\n";
  expect_parse_error(t, strlen(t), "1 block(s) still open");
  t = ".version 8.0\n.target sm_80\n.entry k() { mov.u32 %r1,";
  expect_parse_error(t, strlen(t), "instruction without its ';' at line 3");
}

static void null_arguments(void **state) {
  (void)state;
  tcmma_ptx_info info;
  tcmma_error err;
  assert_int_equal(tcmma_ptx_parse(NULL, 5, &info, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_ptx_parse("x", 1, NULL, &err), TCMMA_INVALID);
  assert_int_equal(tcmma_ptx_parse(NULL, 0, &info, NULL), TCMMA_PARSE);
  tcmma_ptx_info_free(&info);
  tcmma_ptx_info_free(NULL);
  assert_null(tcmma_ptx_feature_for(NULL));
  assert_int_equal(tcmma_ptx_count(NULL, "mma"), 0);
  assert_int_equal(tcmma_ptx_check_target(NULL, &err), TCMMA_INVALID);
}

/* Mutated PTX (bytes replaced by PTX punctuation, spans deleted) is read or
 * refused with TCMMA_PARSE, never anything else (ASan watches the rest). */
static void mutations(void **state) {
  (void)state;
  size_t len;
  char *text = read_file(src_path("tests/data/awkward.ptx"), &len);
  assert_non_null(text);
  char *buf = malloc(len);
  assert_non_null(buf);
  static const char punct[] = "{};:.@/*\"\n %,()[]=x";
  unsigned x = 2026;
  size_t ok = 0, refused = 0;
  for (int iter = 0; iter < 3000; iter++) {
    memcpy(buf, text, len);
    size_t n = len;
    for (int k = 0; k < 1 + iter % 4; k++) {
      x = x * 1103515245u + 12345u;
      size_t at = (x >> 8) % n;
      if (iter % 3 == 0) { /* delete a span */
        size_t span = 1 + (x >> 20) % 40;
        if (span > n - at) span = n - at;
        memmove(buf + at, buf + at + span, n - at - span);
        n -= span;
        if (n == 0) break;
      } else {
        buf[at] = punct[(x >> 16) % (sizeof punct - 1)];
      }
    }
    tcmma_ptx_info info;
    tcmma_error err;
    tcmma_status st = tcmma_ptx_parse(buf, n, &info, &err);
    if (st != TCMMA_OK && st != TCMMA_PARSE) fail_msg("iteration %d: %s", iter, err.message);
    if (st == TCMMA_OK) {
      ok++;
      size_t sum = 0;
      for (size_t i = 0; i < info.census_count; i++) sum += info.census[i].count;
      assert_int_equal(sum, info.instruction_count);
    } else {
      refused++;
    }
    tcmma_ptx_info_free(&info);
  }
  /* both outcomes occur: the mutations reach past the header */
  assert_true(ok > 0);
  assert_true(refused > 0);
  free(buf);
  free(text);
}

/* ---- the feature table (ptxas proves every row: tests/test_ptx_probe.c) ---- */

/* What opcodes need, one line each; suffix as the table's text ("", "a",
 * "a|f"); ptx as major*10+minor. The cases that once came out wrong. */
static const struct {
  const char *opcode;
  int sm;
  const char *suffix;
  int ptx;
} needs[] = {
    {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 80, "", 70},
    {"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", 75, "", 65},
    {"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", 89, "", 84},
    {"mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16", 89, "", 87},
    {"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", 80, "", 70},
    {"mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64", 90, "", 78},
    {"mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64", 90, "", 78},
    {"mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64", 90, "", 78},
    {"mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32", 75, "", 65},
    {"mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc", 75, "", 70},
    {"mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", 80, "", 70},
    {"mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc", 80, "", 71},
    {"mma.sp.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32", 80, "", 71},
    {"mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 80, "", 85},
    /* kind:: before or after the shape: the same instruction */
    {"mma.sync.aligned.kind::f8f6f4.m16n8k32.row.col.f32.e4m3.e4m3.f32", 100, "a|f", 86},
    {"mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32", 100, "a|f", 86},
    {"mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32", 120, "a|f", 87},
    {"mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e4m3.f32.ue8m0",
     120, "a|f", 87},
    {"mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
     120, "a|f", 87},
    {"mma.sync.aligned.kind::mxf4.block_scale.scale_vec::2X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue8m0",
     120, "a|f", 87},
    {"ldmatrix.sync.aligned.m8n8.x4.shared.b16", 75, "", 65},
    {"ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8", 100, "a|f", 86},
    {"ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32", 100, "a|f", 86},
    {"stmatrix.sync.aligned.m8n8.x4.shared.b16", 90, "", 78},
    {"stmatrix.sync.aligned.m16n8.x1.trans.shared.b8", 100, "a|f", 86},
    {"wmma.load.a.sync.aligned.row.m16n16k16.global.f16", 70, "", 63},
    {"wmma.load.a.sync.aligned.row.m16n16k16.global.s8", 72, "", 63},
    {"wmma.load.a.sync.aligned.row.m16n16k8.global.tf32", 80, "", 70},
    {"wmma.load.a.sync.aligned.row.m8n8k4.global.f64", 80, "", 70},
    {"cp.async.cg.shared.global", 80, "", 70},
    {"cp.async.cg.shared.global.L2::128B", 80, "", 74},
    {"cp.async.bulk.commit_group", 90, "", 80},
    {"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", 90, "", 80},
    {"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2",
     100, "a|f", 86},
    {"cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32", 90, "", 80},
    {"mbarrier.try_wait.parity.shared::cta.b64", 90, "", 78},
    {"wgmma.fence.sync.aligned", 90, "a", 80},
    {"wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", 90, "a", 80},
    {"tcgen05.mma.cta_group::1.kind::f16", 100, "a|f", 86},
    {"tcgen05.mma.cta_group::1.kind::i8", 100, "a", 86},
    {"setmaxnreg.inc.sync.aligned.u32", 90, "a", 80},
    {"elect.sync", 90, "", 80},
    {"griddepcontrol.launch_dependents", 90, "", 78},
};

static void table_needs(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++) {
    int sm, ptx;
    tcmma_ptx_suffix suffix;
    assert_true(tcmma_ptx_opcode_need(needs[i].opcode, &sm, &suffix, &ptx));
    if (sm != needs[i].sm || strcmp(tcmma_ptx_suffix_text(suffix), needs[i].suffix) ||
        ptx != needs[i].ptx)
      fail_msg("%s: the table says sm_%d%s PTX %d, expected sm_%d%s PTX %d", needs[i].opcode, sm,
               tcmma_ptx_suffix_text(suffix), ptx, needs[i].sm, needs[i].suffix, needs[i].ptx);
  }
}

static void matching_rule(void **state) {
  (void)state;
  /* whole parts: bf16 is not f16, cp.asyncx is not cp.async */
  assert_null(tcmma_ptx_feature_for("cp.asyncx.foo"));
  assert_null(tcmma_ptx_feature_for("mma"));
  assert_null(tcmma_ptx_feature_for("add.f32"));
  assert_null(tcmma_ptx_feature_for("wmmax.load"));
  assert_null(tcmma_ptx_feature_for(NULL));
  const tcmma_ptx_feature *f = tcmma_ptx_feature_for("wmma.load.c.sync.aligned.row.m16n16k16.global.bf16x");
  assert_non_null(f);
  assert_string_equal(f->id, "WMMA_ALIGNED"); /* "bf16x" is not the part "bf16" */
  /* the first part is the instruction: tcgen05.mma is not mma, wgmma not mma */
  f = tcmma_ptx_feature_for("tcgen05.mma.cta_group::1.kind::f16");
  assert_string_equal(f->id, "TCGEN05");
  assert_false(tcmma_ptx_feature_matches(tcmma_ptx_feature_get(TCMMA_PTX_F_MMA_M16N8K16),
                                         "wgmma.mma_async.m16n8k16"));
  /* any order: cp.reduce.async.bulk has the parts cp, async and bulk */
  f = tcmma_ptx_feature_for("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32");
  assert_string_equal(f->id, "CP_ASYNC_BULK");
  /* rows need no order: f64 m16n8k16 needs the stricter of its two rows */
  f = tcmma_ptx_feature_for("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64");
  assert_string_equal(f->id, "MMA_M16N8K16_F64");
  assert_false(tcmma_ptx_opcode_holds("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64", 89, 0));
  assert_true(tcmma_ptx_opcode_holds("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64", 90, 0));
  /* a listed target set with a gap: kind::i8 holds on 100a and 110a, not 103a */
  assert_true(tcmma_ptx_opcode_holds("tcgen05.mma.cta_group::1.kind::i8", 110, 'a'));
  assert_false(tcmma_ptx_opcode_holds("tcgen05.mma.cta_group::1.kind::i8", 103, 'a'));
  assert_false(tcmma_ptx_opcode_holds("tcgen05.mma.cta_group::1.kind::i8", 100, 'f'));
  /* no family target below sm_100 */
  assert_false(tcmma_ptx_opcode_holds("setmaxnreg.inc.sync.aligned.u32", 90, 'f'));
  assert_true(tcmma_ptx_opcode_holds("setmaxnreg.inc.sync.aligned.u32", 90, 'a'));
  char text[96];
  tcmma_ptx_feature_text(tcmma_ptx_feature_get(TCMMA_PTX_F_TCGEN05), text, sizeof text);
  assert_string_equal(text, "sm_100a|f, sm_103a|f, sm_110a|f");
  tcmma_ptx_feature_text(tcmma_ptx_feature_get(TCMMA_PTX_F_CP_ASYNC), text, sizeof text);
  assert_string_equal(text, "sm_80+");
  assert_null(tcmma_ptx_feature_get(tcmma_ptx_feature_count()));
}

static void targets_parse(void **state) {
  (void)state;
  int sm;
  char suffix;
  tcmma_error err;
  assert_int_equal(tcmma_ptx_target_parse("sm_90a", &sm, &suffix, &err), TCMMA_OK);
  assert_int_equal(sm, 90);
  assert_int_equal(suffix, 'a');
  assert_int_equal(tcmma_ptx_target_parse("sm_120f", &sm, &suffix, &err), TCMMA_OK);
  assert_int_equal(suffix, 'f');
  assert_int_equal(tcmma_ptx_target_parse("sm_80", &sm, &suffix, &err), TCMMA_OK);
  assert_int_equal(suffix, 0);
  static const char *const bad[] = {"", "sm_", "sm_80x", "compute_80", "sm_90f", "sm_0", "90"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(tcmma_ptx_target_parse(bad[i], &sm, &suffix, &err), TCMMA_INVALID);
    assert_non_null(strstr(err.message, bad[i]));
  }
  assert_int_equal(tcmma_ptx_target_parse(NULL, &sm, &suffix, &err), TCMMA_INVALID);
}

/* A module loads on a GPU target as ptxas -arch decides it. */
static void loads_on(void **state) {
  (void)state;
  static const struct {
    const char *target, *ins, *on;
    tcmma_status want;
  } cases[] = {
      {"sm_80", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "sm_90a", TCMMA_OK},
      {"sm_80", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "sm_75", TCMMA_FLOOR},
      {"sm_75", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "sm_90", TCMMA_FLOOR},
      {"sm_90a", "wgmma.fence.sync.aligned", "sm_90a", TCMMA_OK},
      {"sm_90a", "wgmma.fence.sync.aligned", "sm_100a", TCMMA_FLOOR},
      {"sm_100f", "tcgen05.fence::before_thread_sync", "sm_103", TCMMA_OK},
      {"sm_100f", "tcgen05.fence::before_thread_sync", "sm_110f", TCMMA_FLOOR},
      {"sm_90", "tcgen05.fence::before_thread_sync", "sm_100a", TCMMA_FLOOR},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char ptx[512];
    snprintf(ptx, sizeof ptx, ".version 8.8\n.target %s\n.entry k() { %s; }\n", cases[i].target,
             cases[i].ins);
    tcmma_ptx_info info;
    tcmma_error err;
    assert_int_equal(parse_str(ptx, &info, &err), TCMMA_OK);
    int sm;
    char suffix;
    assert_int_equal(tcmma_ptx_target_parse(cases[i].on, &sm, &suffix, &err), TCMMA_OK);
    tcmma_status s = tcmma_ptx_check_on(&info, sm, suffix, &err);
    if (s != cases[i].want)
      fail_msg("%s on %s: %s (%s)", cases[i].target, cases[i].on, tcmma_status_name(s), err.message);
    tcmma_ptx_info_free(&info);
  }
}

/* wgmma with tcgen05: no target holds both */
static void no_target(void **state) {
  (void)state;
  const char *ptx = ".version 8.8\n.target sm_100a\n.entry k() { wgmma.fence.sync.aligned; "
                    "tcgen05.fence::before_thread_sync; }";
  tcmma_ptx_info info;
  tcmma_error err;
  assert_int_equal(parse_str(ptx, &info, &err), TCMMA_OK);
  assert_true(info.no_target);
  char text[64];
  tcmma_ptx_required_text(&info, text, sizeof text);
  assert_string_equal(text, "no target");
  assert_int_equal(tcmma_ptx_check_target(&info, &err), TCMMA_FLOOR);
  assert_non_null(strstr(err.message, "wgmma.fence.sync.aligned"));
  tcmma_ptx_info_free(&info);
}

static void family_targets(void **state) {
  (void)state;
  static const struct {
    const char *target;
    tcmma_status want;
  } cases[] = {
      {"sm_120a", TCMMA_OK},    {"sm_120f", TCMMA_OK},    {"sm_121a", TCMMA_OK},
      {"sm_121f", TCMMA_OK},    {"sm_120", TCMMA_FLOOR},  {"sm_100a", TCMMA_FLOOR},
      {"sm_90a", TCMMA_FLOOR},  {"compute_120a", TCMMA_INVALID},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char ptx[512];
    snprintf(ptx, sizeof ptx,
             ".version 8.8\n.target %s\n.entry k() {\n"
             "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32."
             "e4m3.e4m3.f32.ue8m0 {%%f0,%%f1,%%f2,%%f3}, {%%r0,%%r1,%%r2,%%r3}, {%%r4,%%r5}, "
             "{%%f0,%%f1,%%f2,%%f3}, %%r6, {0, 0}, %%r7, {0, 0};\n}\n",
             cases[i].target);
    tcmma_ptx_info info;
    tcmma_error err;
    assert_int_equal(parse_str(ptx, &info, &err), TCMMA_OK);
    assert_int_equal(info.required_sm, 120);
    assert_int_equal(info.required_suffix, TCMMA_PTX_SUFFIX_A_OR_F);
    char text[64];
    tcmma_ptx_required_text(&info, text, sizeof text);
    assert_string_equal(text, "sm_120a|sm_120f");
    tcmma_status s = tcmma_ptx_check_target(&info, &err);
    if (s != cases[i].want)
      fail_msg("%s: %s (%s), expected %s", cases[i].target, tcmma_status_name(s), err.message,
               tcmma_status_name(cases[i].want));
    tcmma_ptx_info_free(&info);
  }
  /* a plain sm_90 target cannot hold wgmma; PTX 7.8 cannot either */
  const char *ptx = ".version 7.8\n.target sm_90a\n.entry k() { wgmma.fence.sync.aligned; }";
  tcmma_ptx_info info;
  tcmma_error err;
  assert_int_equal(parse_str(ptx, &info, &err), TCMMA_OK);
  assert_int_equal(tcmma_ptx_check_target(&info, &err), TCMMA_FLOOR);
  assert_non_null(strstr(err.message, "PTX ISA 8.0"));
  tcmma_ptx_info_free(&info);
}

/* ---- real nvcc output ---- */

static const char *nvcc_path(void) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/bin/nvcc", cuda_home());
  return access(path, X_OK) == 0 ? path : NULL;
}

/* Compiles source with nvcc -ptx and the flags; the PTX text (owned) or a
 * failed test. */
static char *nvcc_ptx(const char *source, const char *flags, size_t *len) {
  const char *nvcc = nvcc_path();
  if (!nvcc) {
    print_message("nvcc not found under CUDA_HOME or " TCMMA_CUDA_HOME ": skipped\n");
    skip();
  }
  char dir[] = "/tmp/tcmma-ptx-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char cu[256], ptx[256], cmd[2048];
  snprintf(cu, sizeof cu, "%s/k.cu", dir);
  snprintf(ptx, sizeof ptx, "%s/k.ptx", dir);
  FILE *f = fopen(cu, "w");
  assert_non_null(f);
  fputs(source, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "'%s' -ptx %s '%s' -o '%s' 2>&1", nvcc, flags, cu, ptx);
  int rc = system(cmd);
  if (rc != 0) fail_msg("nvcc failed (%d): %s", rc, cmd);
  char *text = read_file(ptx, len);
  unlink(cu), unlink(ptx), rmdir(dir);
  assert_non_null(text);
  return text;
}

/* An independent count of instructions by lines: drop comments, then in each
 * ';'-terminated chunk drop the lines that are directives, braces, parentheses or
 * labels; the first remaining word (after a guard) is the opcode. */
static size_t line_count(const char *ptx, const char *opcode) {
  char *copy = strdup(ptx);
  for (char *c = strstr(copy, "//"); c; c = strstr(c, "//"))
    while (*c && *c != '\n') *c++ = ' ';
  size_t n = 0;
  for (char *save = NULL, *chunk = strtok_r(copy, ";", &save); chunk;
       chunk = strtok_r(NULL, ";", &save)) {
    for (char *s2 = NULL, *line = strtok_r(chunk, "\n", &s2); line; line = strtok_r(NULL, "\n", &s2)) {
      while (*line == ' ' || *line == '\t') line++;
      size_t ll = strlen(line);
      while (ll && (line[ll - 1] == ' ' || line[ll - 1] == '\t')) line[--ll] = '\0';
      if (!ll || strchr(".{}()", line[0]) || line[ll - 1] == ':') continue;
      if (line[0] == '@') line = strpbrk(line, " \t") + 1;
      while (*line == ' ' || *line == '\t') line++;
      size_t w = strcspn(line, " \t,");
      if (!opcode || (strlen(opcode) == w && strncmp(line, opcode, w) == 0)) n++;
      break;
    }
  }
  free(copy);
  return n;
}

static const char tensor_source[] =
    "#include <mma.h>\n#include <cuda_bf16.h>\nusing namespace nvcuda;\n"
    "__global__ void mmak(const unsigned *a, const unsigned *b, float *d) {\n"
    "  float c[4] = {0, 0, 0, 0}; unsigned r[4];\n"
    "  __shared__ unsigned short sm[256];\n"
    "  sm[threadIdx.x] = a[threadIdx.x]; __syncthreads();\n"
    "  unsigned p = (unsigned)__cvta_generic_to_shared(sm + (threadIdx.x % 16) * 16);\n"
    "  asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\"\n"
    "    : \"=r\"(r[0]), \"=r\"(r[1]), \"=r\"(r[2]), \"=r\"(r[3]) : \"r\"(p));\n"
    "  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3},\"\n"
    "    \" {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\" : \"+f\"(c[0]), \"+f\"(c[1]), \"+f\"(c[2]),\n"
    "    \"+f\"(c[3]) : \"r\"(r[0]), \"r\"(r[1]), \"r\"(r[2]), \"r\"(r[3]), \"r\"(b[0]), \"r\"(b[1]));\n"
    "  if (threadIdx.x < 3) d[threadIdx.x] = c[0] + c[1] + c[2] + c[3];\n"
    "}\n"
    "__global__ void wm(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *d) {\n"
    "  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;\n"
    "  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;\n"
    "  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;\n"
    "  wmma::fill_fragment(fc, 0.f);\n"
    "  wmma::load_matrix_sync(fa, a, 16); wmma::load_matrix_sync(fb, b, 16);\n"
    "  wmma::mma_sync(fc, fa, fb, fc);\n"
    "  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);\n"
    "}\n"
    "__global__ void cpa(const float4 *g) {\n"
    "  __shared__ float4 s[32];\n"
    "  unsigned sa = (unsigned)__cvta_generic_to_shared(s + threadIdx.x);\n"
    "  asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" :: \"r\"(sa), \"l\"(g + threadIdx.x));\n"
    "  asm volatile(\"cp.async.commit_group;\");\n"
    "  asm volatile(\"cp.async.wait_group 0;\");\n"
    "}\n";

static void census_matches_lines(const char *ptx, const tcmma_ptx_info *info) {
  assert_int_equal(info->instruction_count, line_count(ptx, NULL));
  for (size_t i = 0; i < info->census_count; i++)
    if (info->census[i].count != line_count(ptx, info->census[i].opcode))
      fail_msg("%s: census %zu, lines %zu", info->census[i].opcode, info->census[i].count,
               line_count(ptx, info->census[i].opcode));
}

static void nvcc_sm80(void **state) {
  (void)state;
  size_t len;
  char *ptx = nvcc_ptx(tensor_source, "-arch=sm_80 -O3", &len);
  tcmma_ptx_info info;
  tcmma_error err;
  assert_int_equal(tcmma_ptx_parse(ptx, len, &info, &err), TCMMA_OK);
  assert_string_equal(info.target, "sm_80");
  assert_int_equal(info.modifier_count, 0);
  assert_int_equal(info.address_size, 64);
  assert_int_equal(info.entry_count, 3);
  /* each asm statement and wmma call is written once in the source */
  assert_int_equal(op_count(&info, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"), 1);
  assert_int_equal(op_count(&info, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"), 1);
  assert_int_equal(op_count(&info, "cp.async.cg.shared.global"), 1);
  assert_int_equal(op_count(&info, "cp.async.commit_group"), 1);
  assert_int_equal(op_count(&info, "cp.async.wait_group"), 1);
  assert_int_equal(tcmma_ptx_count(&info, "cp.async"), 3);
  assert_int_equal(tcmma_ptx_count(&info, "wmma.load"), 2);
  assert_int_equal(tcmma_ptx_count(&info, "wmma.mma"), 1);
  assert_int_equal(tcmma_ptx_count(&info, "wmma.store"), 1);
  census_matches_lines(ptx, &info);
  assert_int_equal(info.required_sm, 80);
  assert_int_equal(info.required_suffix, TCMMA_PTX_SUFFIX_ANY);
  assert_int_equal(tcmma_ptx_check_target(&info, &err), TCMMA_OK);
  tcmma_ptx_info_free(&info);
  free(ptx);
}

static void nvcc_debug_sm89(void **state) {
  (void)state;
  static const char fp8[] =
      "__global__ void k(const unsigned *a, float *d) {\n"
      "  float c[4] = {0, 0, 0, 0};\n"
      "  asm volatile(\"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%0,%1,%2,%3},\"\n"
      "    \" {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\" : \"+f\"(c[0]), \"+f\"(c[1]), \"+f\"(c[2]),\n"
      "    \"+f\"(c[3]) : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(a[4]), \"r\"(a[5]));\n"
      "  d[threadIdx.x] = c[0] + c[1] + c[2] + c[3];\n"
      "}\n";
  size_t len;
  char *ptx = nvcc_ptx(fp8, "-arch=sm_89 -G", &len);
  tcmma_ptx_info info;
  tcmma_error err;
  assert_int_equal(tcmma_ptx_parse(ptx, len, &info, &err), TCMMA_OK);
  assert_string_equal(info.target, "sm_89");
  assert_int_equal(info.modifier_count, 1);
  assert_string_equal(info.modifiers[0], "debug");
  assert_int_equal(info.entry_count, 1);
  assert_int_equal(op_count(&info, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32"), 1);
  census_matches_lines(ptx, &info);
  assert_int_equal(info.required_sm, 89);
  assert_int_equal(tcmma_ptx_check_target(&info, &err), TCMMA_OK);
  tcmma_ptx_info_free(&info);
  free(ptx);
  /* the bf16/wmma/cp.async source under -G: .loc lines, debug sections */
  ptx = nvcc_ptx(tensor_source, "-arch=sm_80 -G", &len);
  assert_int_equal(tcmma_ptx_parse(ptx, len, &info, &err), TCMMA_OK);
  assert_string_equal(info.modifiers[0], "debug");
  census_matches_lines(ptx, &info);
  assert_int_equal(info.required_sm, 80);
  tcmma_ptx_info_free(&info);
  free(ptx);
}

/* ---- the CLI ---- */

static void cli_stdin_and_errors(void **state) {
  (void)state;
  cli_result r = run_cli((const char *const[]){"ptx", "-", "--json", NULL},
                         ".version 8.0\n.target sm_80\n.entry k() { @%p1 ret; ret; }\n");
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "\"ret\": 2"));
  assert_non_null(strstr(r.out, "\"required_sm\": null"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"ptx", "-", NULL}, "not ptx at all");
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "no .version or .target"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"ptx", "/nonexistent/x.ptx", NULL}, NULL);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.err, "/nonexistent/x.ptx"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"ptx", NULL}, NULL);
  assert_int_equal(r.exit_code, 2);
  cli_result_free(&r);
}

/* A census opcode no feature row matches needs nothing (-) when it is a PTX
 * instruction (tables/ptx_instructions.def), and is unknown when it is not:
 * the census is matched after the read, once per distinct opcode. */
static void cli_unknown_opcodes(void **state) {
  (void)state;
  const char *ptx = ".version 8.0\n.target sm_80\n.entry k() { mov.b32 %r1, 1; "
                    "movv.b32 %r1, 2; redux.sync.add.u32 %r1, %r2, 1; ret; }\n";
  cli_result r = run_cli((const char *const[]){"ptx", "-", NULL}, ptx);
  assert_int_equal(r.exit_code, 0);
  if (!strstr(r.out, "1      -        mov.b32") || !strstr(r.out, "1      unknown  movv.b32") ||
      !strstr(r.out, "1      sm_80    redux.sync.add.u32"))
    fail_msg("census needs: %s", r.out);
  cli_result_free(&r);
  r = run_cli((const char *const[]){"ptx", "-", "--json", NULL}, ptx);
  assert_int_equal(r.exit_code, 0);
  const char *unknown = strstr(r.out, "\"unknown\": [");
  assert_non_null(unknown);
  assert_non_null(strstr(unknown, "\"movv.b32\""));
  assert_null(strstr(unknown, "mov.b32"));
  cli_result_free(&r);
}

/* Runs `tcmma ptx -` with standard input a pipe that holds one NUL byte and
 * stays open: the CLI must decide from that byte, not wait for the end of
 * input. Returns its exit status; a CLI still waiting after a minute is
 * killed and the test fails (a guard against hanging, not a time limit). */
static int ptx_on_open_pipe(void) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  const char *bin = getenv("TCMMA_BIN");
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[0], 0);
    close(fds[0]), close(fds[1]);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1), dup2(null, 2);
    execl(bin && *bin ? bin : "build/tcmma", "tcmma", "ptx", "-", (char *)NULL);
    _exit(127);
  }
  close(fds[0]);
  assert_int_equal(write(fds[1], "\0", 1), 1);
  int status = 0;
  pid_t done = 0;
  for (int tenths = 0; tenths < 600 && (done = waitpid(pid, &status, WNOHANG)) == 0; tenths++)
    usleep(100000);
  if (done != pid) kill(pid, SIGKILL), waitpid(pid, &status, 0);
  close(fds[1]);
  if (done != pid) fail_msg("tcmma ptx - still reading after a NUL byte on an open pipe");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A named input that is no regular file (/dev/zero is endless; before, the
 * CLI read 1 GiB of it) is refused before a byte is read; binary input from
 * standard input is rejected at its first NUL byte (ptx_on_open_pipe); a
 * path is always named, quoted, even when empty. */
static void cli_binary_and_empty_path(void **state) {
  (void)state;
  static const char *const commands[] = {"ptx", "options", "compile"};
  for (size_t i = 0; i < 3; i++) {
    cli_result r = run_cli((const char *const[]){commands[i], "/dev/zero", NULL}, NULL);
    assert_int_equal(r.exit_code, 1);
    assert_non_null(
        strstr(r.err, "'/dev/zero': /dev/zero is a character device, not a regular file"));
    cli_result_free(&r);
    r = run_cli((const char *const[]){commands[i], "", NULL}, NULL);
    assert_int_equal(r.exit_code, 1);
    assert_non_null(strstr(r.err, "cannot read '': No such file or directory"));
    cli_result_free(&r);
  }
  assert_int_equal(ptx_on_open_pipe(), 1);
}


/* A regular file of 1 MiB or more is mapped rather than read (tools/
 * cli_input.c): what tcmma ptx says of it is what it says of the same bytes
 * on standard input, and a NUL byte in it is reported at its offset. */
static void cli_large_file_mapped(void **state) {
  (void)state;
  tcmma_buf b = {0};
  tcmma_buf_printf(&b, ".version 8.0\n.target sm_80\n.address_size 64\n\n"
                       ".visible .entry big()\n{\n  .reg .b32 %%r<4>;\n");
  for (int i = 0; b.len < (3u << 20) / 2; i++)
    tcmma_buf_printf(&b, "  add.s32 %%r1, %%r2, %d; // a / and a ; in a comment\n"
                         "  mov.b32 %%r3, %%r1;\n", i);
  tcmma_buf_printf(&b, "  ret;\n}\n");
  assert_false(b.failed);
  char path[] = "/tmp/tcmma-test-bigptx-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, b.data, b.len), (ssize_t)b.len);
  close(fd);
  cli_result file = run_cli((const char *const[]){"ptx", path, "--json", NULL}, NULL);
  cli_result in = run_cli((const char *const[]){"ptx", "-", "--json", NULL}, tcmma_buf_str(&b));
  assert_int_equal(file.exit_code, 0);
  assert_int_equal(in.exit_code, 0);
  assert_string_equal(file.out, in.out);
  assert_non_null(strstr(file.out, "\"mov.b32\""));
  cli_result_free(&file), cli_result_free(&in);
  /* a NUL byte well inside the mapped file */
  size_t at = b.len - 100;
  fd = open(path, O_WRONLY);
  assert_true(fd >= 0);
  assert_int_equal(pwrite(fd, "", 1, (off_t)at), 1);
  close(fd);
  cli_result bad = run_cli((const char *const[]){"ptx", path, NULL}, NULL);
  assert_int_equal(bad.exit_code, 1);
  char want[64];
  snprintf(want, sizeof want, "not text: a NUL byte at offset %zu", at);
  assert_non_null(strstr(bad.err, want));
  cli_result_free(&bad);
  unlink(path);
  tcmma_buf_free(&b);
}

/* Targets older than the toolkit's ptxas has are refused by check_on, and
 * TCMMA_PTXAS_SM_MIN is the oldest target `ptxas --help` lists. */
static void targets_ptxas_lacks(void **state) {
  (void)state;
  char targets[64][16];
  size_t nt = ptxas_targets(targets, 64);
  if (!nt) skip(); /* no ptxas: the fact cannot be proven here */
  char want[16];
  snprintf(want, sizeof want, "sm_%d", TCMMA_PTXAS_SM_MIN);
  assert_string_equal(targets[0], want);
  tcmma_ptx_info info;
  tcmma_error err;
  const char *text = ".version 7.0\n.target sm_70\n.address_size 64\n";
  assert_int_equal(tcmma_ptx_parse(text, strlen(text), &info, &err), TCMMA_OK);
  assert_int_equal(tcmma_ptx_check_on(&info, 70, 0, &err), TCMMA_FLOOR);
  assert_non_null(strstr(err.message, "no such target"));
  assert_int_equal(tcmma_ptx_check_on(&info, 60, 0, &err), TCMMA_FLOOR);
  assert_int_equal(tcmma_ptx_check_on(&info, TCMMA_PTXAS_SM_MIN, 0, &err), TCMMA_OK);
  tcmma_ptx_info_free(&info);
}

/* The checks of one module's text: check_target's status, and its message
 * must hold want (NULL: no message asked). */
static void target_check_is(const char *text, tcmma_status st, const char *want) {
  tcmma_ptx_info info;
  tcmma_error err;
  assert_int_equal(tcmma_ptx_parse(text, strlen(text), &info, &err), TCMMA_OK);
  tcmma_status got = tcmma_ptx_check_target(&info, &err);
  if (got != st) fail_msg("%s: status %d, expected %d (%s)", text, got, st, err.message);
  if (want && !strstr(err.message, want)) fail_msg("%s: '%s' lacks '%s'", text, err.message, want);
  tcmma_ptx_info_free(&info);
}

/* A .version below the first one that can write the module's .target is
 * reported (tables/ptx_targets.def, proven by test_ptx_probe), and an
 * instruction on a target needs the later of its own version and the
 * target's. */
static void version_per_target(void **state) {
  (void)state;
  target_check_is(".version 7.0\n.target sm_90\n", TCMMA_FLOOR,
                  ".version 7.0 cannot write .target sm_90: that target needs PTX ISA 7.8");
  target_check_is(".version 7.8\n.target sm_90a\n", TCMMA_FLOOR, "needs PTX ISA 8.0");
  target_check_is(".version 8.6\n.target sm_100f\n", TCMMA_FLOOR, "needs PTX ISA 8.8");
  target_check_is(".version 7.8\n.target sm_90\n", TCMMA_OK, NULL);
  /* bf16 addition: sm_90 at 7.8, which sm_90 needs anyway */
  target_check_is(".version 7.8\n.target sm_90\n.entry k() { add.rn.bf16 %h0, %h1, %h2; }\n",
                  TCMMA_OK, NULL);
  target_check_is(".version 7.8\n.target sm_80\n.entry k() { add.rn.bf16 %h0, %h1, %h2; }\n",
                  TCMMA_FLOOR, "it needs sm_90");
  /* the relaxed cluster barrier needs 8.0 on sm_90, above sm_90's 7.8 */
  target_check_is(".version 7.8\n.target sm_90\n.entry k() { barrier.cluster.arrive.relaxed; }\n",
                  TCMMA_FLOOR, "it needs PTX ISA 8.0");
  target_check_is(".version 7.0\n.target sm_80\n.entry k() { redux.sync.add.u32 %r0, %r1, -1; }\n",
                  TCMMA_OK, NULL);
  target_check_is(".version 7.0\n.target sm_75\n.entry k() { redux.sync.add.u32 %r0, %r1, -1; }\n",
                  TCMMA_FLOOR, "it needs sm_80");
  assert_int_equal(tcmma_ptx_target_ptx(TCMMA_PTXAS_SM_MIN, 0), 63);
  assert_int_equal(tcmma_ptx_target_ptx(70, 0), 0);
  assert_int_equal(tcmma_ptx_target_ptx(90, 'x'), 0);
}

/* tcmma ptx --check below the toolkit's oldest target says ptxas has no such
 * target, in text and JSON, and exits 1; the module loads at the oldest. */
static void cli_check_target_ptxas_lacks(void **state) {
  (void)state;
  const char *text = ".version 6.3\n.target sm_75\n.address_size 64\n.entry k() { ret; }\n";
  cli_result r = run_cli((const char *const[]){"ptx", "-", "--check", "sm_70", NULL}, text);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.out, "check sm_70    does not load: sm_70: the CUDA 13 toolkit's ptxas "
                                "has no such target"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"ptx", "-", "--check", "sm_72", "--json", NULL}, text);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.out, "\"ok\": false"));
  assert_non_null(strstr(r.out, "has no such target"));
  cli_result_free(&r);
  r = run_cli((const char *const[]){"ptx", "-", "--check", "sm_75", NULL}, text);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.out, "check sm_75    loads"));
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(awkward_fixture),
      cmocka_unit_test(targets_ptxas_lacks),
      cmocka_unit_test(version_per_target),
      cmocka_unit_test(cli_check_target_ptxas_lacks),
      cmocka_unit_test(comments_inside_lines),
      cmocka_unit_test(block_comment_ends_line_directive),
      cmocka_unit_test(strings_and_line_directives),
      cmocka_unit_test(huge_line),
      cmocka_unit_test(many_distinct_opcodes),
      cmocka_unit_test(not_ptx),
      cmocka_unit_test(binary_garbage),
      cmocka_unit_test(truncated),
      cmocka_unit_test(null_arguments),
      cmocka_unit_test(mutations),
      cmocka_unit_test(table_needs),
      cmocka_unit_test(matching_rule),
      cmocka_unit_test(targets_parse),
      cmocka_unit_test(loads_on),
      cmocka_unit_test(no_target),
      cmocka_unit_test(family_targets),
      cmocka_unit_test(nvcc_sm80),
      cmocka_unit_test(nvcc_debug_sm89),
      cmocka_unit_test(cli_stdin_and_errors),
      cmocka_unit_test(cli_unknown_opcodes),
      cmocka_unit_test(cli_binary_and_empty_path),
      cmocka_unit_test(cli_large_file_mapped),
  };
  return cmocka_run_group_tests_name("ptx", tests, NULL, NULL);
}
