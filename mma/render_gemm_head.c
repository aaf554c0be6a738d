/* What every GEMM kernel's text begins and ends with, whichever kind
 * (docs/emit.md, GEMM): the headers and the epilogue's hooks before the
 * kernel, its signature (d, a, b, c, alpha, beta, the options' arguments,
 * the epilogue's, then for the wgmma kernel its two tensor maps), and the
 * host dialect's entry for the simulator. The kinds' renderers
 * (mma/render_gemm.c, mma/render_gemm_wgmma.c) call down into this file. */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "gemm_epilogue.h"
#include "gemm_rules.h"

void tcmma__emit_gemm_prelude(const tcmma__emit_gemm_form *f, tcmma_dialect dl, tcmma_buf *out) {
  const tcmma_gemm_call *c = &f->g->call;
  tcmma_prec precs[3] = {c->d.prec, c->a.prec, c->b.prec};
  tcmma__emit_includes(precs, f->g->arm, dl, true, out);
  tcmma__emit_gemm_epilogue_prelude(f, dl, out);
}

/* The element types of d as stored, c, a and b in dialect dl. */
static void types(const tcmma__emit_gemm_form *f, tcmma_dialect dl, const char *t[4]) {
  const tcmma_gemm_call *c = &f->g->call;
  tcmma__gemm_epi e = tcmma__emit_gemm_epi_of(&f->o);
  t[0] = tcmma__table_spell_type(dl, tcmma__emit_gemm_out_prec(c, &e));
  t[1] = tcmma__table_spell_type(dl, c->d.prec);
  t[2] = tcmma__table_spell_type(dl, c->a.prec);
  t[3] = tcmma__table_spell_type(dl, c->b.prec);
}

void tcmma__emit_gemm_signature(const tcmma__emit_gemm_form *f, tcmma_dialect dl, const char *name,
                                const tcmma_kernel_attrs *attrs, bool maps, tcmma_buf *out) {
  const char *t[4];
  types(f, dl, t);
  const char *arr = f->o.pointer_array ? "const *" : "", *sfx = *arr ? "_batch" : "";
  tcmma_buf_printf(out, "\n");
  tcmma__emit_kernel_signature(dl, attrs, name, out);
  tcmma_buf_printf(out,
                   "%s *%sd%s, const %s *%sa%s, const %s *%sb%s, const %s *%sc%s, "
                   "float alpha, float beta",
                   t[0], arr, sfx, t[2], arr, sfx, t[3], arr, sfx, t[1], arr, sfx);
  tcmma__emit_gemm_param ps[12];
  int n = tcmma__emit_gemm_params(f, ps);
  for (int p = 0; p < n; p++)
    tcmma_buf_printf(out, "%s%s%s%s", p % 4 == 0 ? ",\n    " : ", ", ps[p].type,
                     ps[p].type[strlen(ps[p].type) - 1] == '*' ? "" : " ", ps[p].name);
  tcmma__emit_gemm_epilogue_params(f, dl, out);
  if (maps) {
    const char *gc = tcmma__emit_grid_constant(dl),
               *tm = tcmma__table_spell(dl, TCMMA__SPELL_CU_TENSOR_MAP);
    tcmma_buf_printf(out, ",\n    %s %s " TCMMA__GEMM_MAP_A ", %s %s " TCMMA__GEMM_MAP_B, gc, tm,
                     gc, tm);
  }
  tcmma_buf_printf(out, ")\n{\n");
}

void tcmma__emit_gemm_entry(const tcmma__emit_gemm_form *f, tcmma_dialect dl, const char *name,
                            bool maps, tcmma_buf *out) {
  const char *t[4];
  types(f, dl, t);
  tcmma__emit_gemm_param ps[12];
  int n = tcmma__emit_gemm_params(f, ps), ne = tcmma__emit_gemm_epilogue_param_count(f);
  const char *arr = f->o.pointer_array ? "const *" : "";
  tcmma_buf_printf(out,
                   "\n/* The simulator's entry: args is a void *[%d], a pointer to each of the "
                   "kernel's arguments in order (d, a, b, c%s, the workspace themselves%s%s). */\n"
                   "void %s_entry(void *args)\n{\n"
                   "  void **p = (void **)args;\n"
                   "  %s((%s *%s)p[0], (const %s *%s)p[1], (const %s *%s)p[2], (const %s *%s)p[3],\n"
                   "      *(const float *)p[4], *(const float *)p[5]",
                   6 + n + ne + (maps ? 2 : 0), *arr ? ": the pointer arrays" : "",
                   ne ? "; the epilogue's pointers" : "",
                   maps ? "; the two tensor maps last" : ne ? " last" : "",
                   name, name, t[0], arr, t[2], arr, t[3], arr, t[1], arr);
  for (int p = 0; p < n; p++) {
    /* a pointer (the workspace) is passed itself, as d, a, b and c are */
    bool ptr = ps[p].type[strlen(ps[p].type) - 1] == '*';
    if (ptr)
      tcmma_buf_printf(out, ",%s(void *)p[%d]", p % 3 == 0 ? "\n      " : " ", 6 + p);
    else
      tcmma_buf_printf(out, ",%s*(const %s *)p[%d]", p % 3 == 0 ? "\n      " : " ", ps[p].type,
                       6 + p);
  }
  tcmma__emit_gemm_epilogue_entry_args(f, dl, 6 + n, out);
  if (maps) {
    const char *tm = tcmma__table_spell(dl, TCMMA__SPELL_CU_TENSOR_MAP);
    tcmma_buf_printf(out, ",\n      *(const %s *)p[%d], *(const %s *)p[%d]", tm, 6 + n + ne, tm,
                     7 + n + ne);
  }
  tcmma_buf_printf(out, ");\n}\n");
}
