/* A reproducible random sample of GEMM configurations (tools/verify/gemm.h):
 * a fixed-seed generator draws calls over the planner's whole space —
 * precisions (tf32 and s8, which it declines, too), orientations, block tiles, warp grids,
 * stages, budgets, devices, ragged and aligned sizes, alpha/beta — and keeps
 * the ones the plan accepts, so that the compile executor can check the
 * plan's figures beyond the matrix's configurations. */
#include <stdint.h>
#include <stdio.h>
#include "tools/verify/gemm.h"

/* splitmix64: one state word, the same sequence on every host. */
static uint64_t next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}
static int pick(uint64_t *s, int n) { return (int)(next(s) % (uint64_t)n); }
#define PICK(s, arr) (arr[pick(s, (int)(sizeof arr / sizeof arr[0]))])

/* An extent: a whole number of block tiles, or a ragged one. */
static int extent(uint64_t *s, int block) {
  int tiles = 1 + pick(s, 3);
  return pick(s, 2) ? tiles * block : tiles * block - 1 - pick(s, block);
}

/* The smallest ld >= cols whose rows are whole 16-byte units. */
static long padded_ld(long cols, tcmma_prec p) {
  long unit = 16 / tcmma_prec_bytes(p);
  return (cols + unit - 1) / unit * unit;
}

static void draw(uint64_t *s, verify_gemm_case *c) {
  static const tcmma_prec ops[] = {TCMMA_PREC_BF16, TCMMA_PREC_F16, TCMMA_PREC_E4M3,
                                   TCMMA_PREC_E5M2, TCMMA_PREC_BF16, TCMMA_PREC_F16,
                                   TCMMA_PREC_F32, TCMMA_PREC_S8};
  static const tcmma_prec ds[] = {TCMMA_PREC_F32, TCMMA_PREC_F16, TCMMA_PREC_BF16};
  static const int tiles[] = {16, 32, 48, 64, 64, 96, 128, 128, 256};
  static const int ks[] = {16, 32, 32, 64, 64, 128};
  static const int warps[] = {1, 1, 2, 2, 4};
  static const int ccs[] = {0, 75, 80, 80, 86, 89, 89, 90};
  static const int budgets[] = {0, 0, 0, 128, 168, 192, 232, 255};
  static const double ab[][2] = {{1, 0}, {2, -1}, {-1, 2}, {0.5, 0}, {1, 1}};
  tcmma_gemm_call *g = &c->call;
  *g = tcmma_gemm_call_default();
  g->a.prec = PICK(s, ops);
  /* fp8 operands pair with fp8, the 2-byte ones with their own kind */
  g->b.prec = tcmma_prec_bytes(g->a.prec) == 1 && g->a.prec != TCMMA_PREC_S8
                  ? (pick(s, 2) ? TCMMA_PREC_E4M3 : TCMMA_PREC_E5M2) : g->a.prec;
  g->d.prec = PICK(s, ds);
  g->a.transposed = pick(s, 2), g->b.transposed = pick(s, 2);
  g->block_m = PICK(s, tiles), g->block_n = PICK(s, tiles), g->block_k = PICK(s, ks);
  g->warps_m = PICK(s, warps), g->warps_n = PICK(s, warps);
  g->stages = 1 + pick(s, TCMMA_GEMM_STAGES_MAX);
  g->cc = PICK(s, ccs), g->registers = PICK(s, budgets);
  g->m = extent(s, g->block_m), g->n = extent(s, g->block_n), g->k = extent(s, g->block_k);
  g->a.ld = padded_ld(g->a.transposed ? g->m : g->k, g->a.prec);
  g->b.ld = padded_ld(g->b.transposed ? g->k : g->n, g->b.prec);
  g->d.ld = padded_ld(g->n, g->d.prec);
  g->numerics.tf32 = g->a.prec == TCMMA_PREC_F32; /* tf32: f32 operands */
  g->name = "tcmma_kernel";
  const double *x = PICK(s, ab);
  c->alpha = x[0], c->beta = x[1], c->c_is_d = pick(s, 2);
  c->expect = TCMMA_GEMM_DECLINE_NONE;
}

size_t verify_gemm_sample(uint64_t seed, size_t want, size_t tries, verify_gemm_case *out,
                          size_t *drawn) {
  uint64_t s = seed;
  size_t kept = 0, t = 0;
  for (; t < tries && kept < want; t++) {
    verify_gemm_case *c = &out[kept];
    draw(&s, c);
    c->opts = tcmma_gemm_opts_default();
    c->epilogue_count = 0; /* no list: the sample draws the GEMM itself */
    tcmma_gemm_plan p;
    if (tcmma_gemm_plan_call(&c->call, &p, NULL) != TCMMA_OK) continue;
    const tcmma_gemm_call *g = &p.call;
    snprintf(c->name, sizeof c->name, "gemm-sample/%s/%dx%dx%d/w%dx%d/s%d/cc%d/r%d/%s%s.%s%s/"
             "%dx%dx%d", tcmma_arm_marker(p.arm), g->block_m, g->block_n, g->block_k,
             g->warps_m, g->warps_n, g->stages, g->cc, g->registers, tcmma_prec_name(g->a.prec),
             g->a.transposed ? ",t" : "", tcmma_prec_name(g->b.prec), g->b.transposed ? ",t" : "",
             g->m, g->n, g->k);
    kept++;
  }
  if (drawn) *drawn = t;
  return kept;
}
