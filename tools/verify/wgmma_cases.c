/* The wgmma cases (tools/verify/wgmma.h): for every row of tables/wgmma.def
 * and each precision pair it takes, the three swizzles (32 bytes at n 8,
 * 64 at a middle n, 128 at n 256), A from registers, and, where the row has
 * imm-trans, M/N-major operands; names unique by construction. Everything
 * is derived from the rows (ops, n list, trans): nothing here names an arm. */
#include <stdio.h>
#include <string.h>
#include "tools/verify/wgmma.h"

enum { CASES_MAX = 128 };

static verify_wgmma_case cases[CASES_MAX];
static size_t n_cases;

/* The largest instruction n of w that is at most want. */
static int n_at_most(tcmma_wgmma w, int want) {
  for (int n = want; n >= 8; n -= 8)
    if (tcmma_wgmma_n_ok(w, n)) return n;
  return 0;
}

static void add(tcmma_wgmma w, tcmma_prec a, tcmma_prec b, int n, tcmma_swizzle sw, bool a_m_major,
                bool b_n_major, bool a_regs) {
  if (n_cases == CASES_MAX) return; /* tests/test_verify_wgmma.c counts them */
  verify_wgmma_case *c = &cases[n_cases++];
  memset(c, 0, sizeof *c);
  c->arm = w, c->a = a, c->b = b, c->sw = sw;
  c->a_m_major = a_m_major, c->b_n_major = b_n_major, c->a_regs = a_regs;
  int eb = tcmma_prec_bits(a) / 8;
  c->ld = tcmma_swizzle_get(sw)->bytes / eb;
  c->k = (int)c->ld;                   /* K-major: a whole stored row of k */
  /* M/N-major: the extent along m or n fits one span */
  if (b_n_major && n * eb > tcmma_swizzle_get(sw)->bytes) n = n_at_most(w, (int)c->ld);
  c->n = n;
  snprintf(c->name, sizeof c->name, "wgmma/%s/%s.%s/n%dk%d/a=%s/b=%s/sw%s", tcmma_wgmma_marker(w),
           tcmma_prec_name(a), tcmma_prec_name(b), c->n, c->k,
           a_regs ? "regs" : a_m_major ? "m" : "k", b_n_major ? "n" : "k",
           tcmma_swizzle_name(sw));
}

static void build(void) {
  for (int wi = 0; wi < TCMMA_WGMMA_COUNT; wi++) {
    tcmma_wgmma w = (tcmma_wgmma)wi;
    const tcmma_wgmma_info *i = tcmma_wgmma_get(w);
    bool first = true;
    for (int pa = 0; pa < TCMMA_PREC_COUNT; pa++)
      for (int pb = 0; pb < TCMMA_PREC_COUNT; pb++) {
        tcmma_prec a = (tcmma_prec)pa, b = (tcmma_prec)pb;
        if (!tcmma_wgmma_takes(w, a, b)) continue;
        if (!first) { /* another pair: once */
          add(w, a, b, n_at_most(w, 16), TCMMA_SWIZZLE_B64, false, false, false);
          continue;
        }
        first = false;
        add(w, a, b, n_at_most(w, 8), TCMMA_SWIZZLE_B32, false, false, false);
        add(w, a, b, n_at_most(w, 64), TCMMA_SWIZZLE_B64, false, false, false);
        add(w, a, b, TCMMA_WGMMA_N_MAX, TCMMA_SWIZZLE_B128, false, false, false);
        add(w, a, b, n_at_most(w, 128), TCMMA_SWIZZLE_B128, false, false, true);
        if (!i->trans) continue;
        add(w, a, b, 64, TCMMA_SWIZZLE_B128, true, true, false);
        add(w, a, b, 32, TCMMA_SWIZZLE_B64, false, true, false);
        add(w, a, b, 64, TCMMA_SWIZZLE_B128, false, true, true);
      }
  }
}

size_t verify_wgmma_matrix(const verify_wgmma_case **out) {
  if (!n_cases) build();
  *out = cases;
  return n_cases;
}

tcmma_wgmma_call verify_wgmma_call(const verify_wgmma_case *c, tcmma_dialect dl, const char *name) {
  tcmma_wgmma_call call = TCMMA_WGMMA_CALL_INIT(.arm = c->arm, .n = c->n, .k = c->k, .name = name,
                                                .dialect = dl);
  call.a.prec = c->a, call.b.prec = c->b;
  call.a.ld = call.b.ld = c->ld;
  call.a.swizzle = call.b.swizzle = c->sw;
  call.a.space = c->a_regs ? TCMMA_SPACE_THREAD : TCMMA_SPACE_SHARED;
  call.b.space = TCMMA_SPACE_SHARED;
  call.a.transposed = c->a_m_major, call.b.transposed = !c->b_n_major;
  return call;
}
