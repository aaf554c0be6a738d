/* The GEMM's epilogue as values (docs/emit.md, GEMM epilogues): each
 * element's x = alpha * acc + beta * c, then the caller's ops in order, each
 * the C statement of its row of tables/epilogues.def with its words spelled
 * for the dialect, then the conversion to d's storage (cvt's when the list
 * ends with one, saturated). Also what the ops need around the element: the
 * kernel's arguments, the hook functions, the running amax of each thread
 * and its one atomicMax. */
#include <stdio.h>
#include <string.h>
#include "emit.h"
#include "gemm_epilogue.h"
#include "gemm_rules.h"

#define P TCMMA__GEMM_P

static const char *const axis_index[TCMMA_EPILOGUE_AXIS_COUNT] = {
#define TCMMA_EPILOGUE_AXIS(ID, value, name, index) [value] = index,
#include "tables/epilogue_axes.def"
#undef TCMMA_EPILOGUE_AXIS
};

static const struct {
  tcmma_prec prec;
  tcmma__table_spelling narrow;
} narrows[] = {
#define TCMMA__SPELL_NONE TCMMA__SPELL_COUNT
#define TCMMA_EPILOGUE_TARGET(PREC, max, narrow) {TCMMA_PREC_##PREC, TCMMA__SPELL_##narrow},
#include "tables/epilogues.def"
#undef TCMMA_EPILOGUE_TARGET
#undef TCMMA__SPELL_NONE
};

static const char *kernel_name(const tcmma_gemm_plan *g) {
  return g->call.name ? g->call.name : "tcmma_gemm";
}

/* The float narrowing to d's stored precision in dialect dl. */
static const char *narrow(const tcmma_gemm_plan *g, const tcmma__gemm_epi *e, tcmma_dialect dl) {
  tcmma_prec p = tcmma__emit_gemm_out_prec(&g->call, e);
  for (size_t i = 0; i < sizeof narrows / sizeof narrows[0]; i++)
    if (narrows[i].prec == p && narrows[i].narrow != TCMMA__SPELL_COUNT)
      return tcmma__table_spell(dl, narrows[i].narrow);
  return tcmma__table_spell(dl, tcmma__table_prec_words_of(p)->from_f32);
}

/* A float constant as C text: %.9g round-trips a float; a bare integer
 * gets ".0" so that the f suffix makes a float literal. */
static void float_text(float v, char *out, size_t cap) {
  char t[48];
  snprintf(t, sizeof t, "%.9g", v);
  snprintf(out, cap, "%s%sf", t, strpbrk(t, ".e") ? "" : ".0");
}

/* What op i's words spell (the $ words of tables/epilogues.def). */
typedef struct {
  const tcmma_gemm_plan *g;
  const tcmma__gemm_epi *e;
  bool oc; /* c (and a residual) has its own offset: ldc of a shape-argument kernel */
  tcmma_dialect dl;
  int i;
  tcmma_epilogue_op op;
} word_ctx;

static void word(const word_ctx *w, const char *name, size_t n, tcmma_buf *out) {
  const tcmma_epilogue_op *o = &w->op;
  char t[96];
#define IS(s) (n == strlen(s) && strncmp(name, s, n) == 0)
  if (IS("x"))
    tcmma_buf_printf(out, "%sx", P);
  else if (IS("p"))
    tcmma_buf_printf(out, "%s%d", tcmma_epilogue_name(o->kind), w->i);
  else if (IS("i")) {
    const char *ix = axis_index[o->axis];
    tcmma_buf_printf(out, "%s", ix[0] == 'r' ? P "gr" : ix[0] == 'j' ? "(" P "gc + " P "j)" : "0");
  } else if (IS("o"))
    tcmma_buf_printf(out, "(%so%s + %sj)", P, w->oc ? "c" : "", P);
  else if (IS("r"))
    tcmma_buf_printf(out, "%sgr", P);
  else if (IS("c"))
    tcmma_buf_printf(out, "%sgc + %sj", P, P);
  else if (IS("to"))
    tcmma_buf_printf(
        out, "%s",
        tcmma__table_spell(w->dl, tcmma__table_prec_words_of(w->g->call.d.prec)->to_f32));
  else if (IS("lo") || IS("hi"))
    float_text(IS("lo") ? o->lo : o->hi, t, sizeof t), tcmma_buf_printf(out, "%s", t);
  else if (IS("max"))
    tcmma_buf_printf(out, "%s", tcmma__emit_epilogue_target_max(o->prec));
  else if (IS("bits"))
    tcmma_buf_printf(out, "%s", tcmma__table_spell(w->dl, TCMMA__SPELL_FLOAT_BITS));
  else if (IS("u"))
    tcmma_buf_printf(out, "%su", P);
  else if (IS("a"))
    tcmma_buf_printf(out, "%samax%d", P, w->i);
  else if (IS("f"))
    tcmma_buf_printf(out, "%s_hook%d", kernel_name(w->g), w->i);
  else
    tcmma_buf_printf(out, "$%.*s", (int)n, name); /* not a word: the table's own text */
#undef IS
}

/* Op i's statement at depth. */
static void render_op(const tcmma__emit_gemm_form *f, const tcmma__gemm_epi *e, tcmma_dialect dl,
                      int i, int depth, tcmma_buf *out) {
  word_ctx w = {f->g, e, f->i.shape_args, dl, i, tcmma__emit_gemm_epilogue_op(e, i)};
  const char *s = tcmma__emit_epilogue_row(w.op.kind)->render;
  tcmma_buf line = {0};
  while (*s) {
    const char *d = strchr(s, '$');
    if (!d) {
      tcmma_buf_printf(&line, "%s", s);
      break;
    }
    tcmma_buf_printf(&line, "%.*s", (int)(d - s), s);
    size_t n = strspn(d + 1, "abcdefghijklmnopqrstuvwxyz");
    word(&w, d + 1, n, &line);
    s = d + 1 + n;
  }
  tcmma__emit_line(out, depth, "%s /* %s */", tcmma_buf_str(&line), tcmma_epilogue_name(w.op.kind));
  tcmma_buf_free(&line);
}

void tcmma__emit_gemm_epilogue_element(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int depth,
                                       const char *acc, const char *cval, const char *dst,
                                       tcmma_buf *out) {
  const tcmma_gemm_plan *g = f->g;
  tcmma__gemm_epi e0 = tcmma__emit_gemm_epi_of(&f->o), *e = &e0;
  const char *to = tcmma__table_spell(dl, tcmma__table_prec_words_of(g->call.d.prec)->to_f32);
  tcmma__emit_line(out, depth, "float %sx = alpha * %s;", P, acc);
  tcmma__emit_line(out, depth, "if (beta != 0.0f) %sx += beta * %s(%s);", P, to, cval);
  for (int i = 0; i < e->count; i++) render_op(f, e, dl, i, depth, out);
  tcmma__emit_line(out, depth, "%s = %s(%sx);", dst, narrow(g, e, dl), P);
}

/* The C type of op o's kernel argument into buf (tc: c's element type);
 * NULL for an op without one. */
static const char *param_type(const tcmma_epilogue_op *o, const char *tc, char *buf, size_t cap) {
  switch (tcmma__emit_epilogue_row(o->kind)->param) {
    case TCMMA__EPI_PARAM_F32: return "const float *";
    case TCMMA__EPI_PARAM_C: return snprintf(buf, cap, "const %s *", tc), buf;
    case TCMMA__EPI_PARAM_AMAX: return "float *";
    default: return NULL;
  }
}

int tcmma__emit_gemm_epilogue_param_count(const tcmma__emit_gemm_form *f) {
  tcmma__gemm_epi e = tcmma__emit_gemm_epi_of(&f->o);
  int n = 0;
  char t[64];
  for (int i = 0; i < e.count; i++) {
    tcmma_epilogue_op o = tcmma__emit_gemm_epilogue_op(&e, i);
    n += param_type(&o, "", t, sizeof t) != NULL;
  }
  return n;
}

/* The arguments ops read or write, after the others, one per op that has
 * one; with first >= 0, the host entry's casts of args[first..] to them. */
static void each_param(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int first,
                       tcmma_buf *out) {
  tcmma__gemm_epi e = tcmma__emit_gemm_epi_of(&f->o);
  const char *tc = tcmma__table_spell_type(dl, f->g->call.d.prec);
  char t[64];
  for (int i = 0; i < e.count; i++) {
    tcmma_epilogue_op o = tcmma__emit_gemm_epilogue_op(&e, i);
    const char *type = param_type(&o, tc, t, sizeof t);
    if (!type) continue;
    if (first < 0)
      tcmma_buf_printf(out, ", %s%s%d", type, tcmma_epilogue_name(o.kind), i);
    else
      tcmma_buf_printf(out, ", (%s)p[%d]", type, first++);
  }
}

void tcmma__emit_gemm_epilogue_params(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                      tcmma_buf *out) {
  each_param(f, dl, -1, out);
}

void tcmma__emit_gemm_epilogue_entry_args(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                          int first, tcmma_buf *out) {
  each_param(f, dl, first, out);
}

/* Before the kernel: the host text's <math.h> (the ops' tanhf, erff, expf,
 * fabsf; CUDA has them built in) and each hook as a function. */
void tcmma__emit_gemm_epilogue_prelude(const tcmma__emit_gemm_form *f, tcmma_dialect dl,
                                       tcmma_buf *out) {
  const tcmma_gemm_plan *g = f->g;
  tcmma__gemm_epi e0 = tcmma__emit_gemm_epi_of(&f->o), *e = &e0;
  if (e->count == 0) return;
  const tcmma_gemm_call *c = &g->call;
  tcmma_prec outp = tcmma__emit_gemm_out_prec(c, e);
  const char *h = tcmma_prec_header(outp);
  /* cvt's storage, when no operand brought its header */
  if (dl == TCMMA_DIALECT_CUDA && h[0] && strcmp(h, tcmma_prec_header(c->d.prec)) &&
      strcmp(h, tcmma_prec_header(c->a.prec)) && strcmp(h, tcmma_prec_header(c->b.prec)))
    tcmma_buf_printf(out, "#include <%s>\n", h);
  const char *math = tcmma__table_spell(dl, TCMMA__SPELL_MATH_H);
  if (math[0]) tcmma_buf_printf(out, "%s\n", math);
  for (int i = 0; i < e->count; i++) {
    tcmma_epilogue_op o = tcmma__emit_gemm_epilogue_op(e, i);
    if (o.kind != TCMMA_EPILOGUE_HOOK) continue;
    tcmma_buf_printf(out,
                     "\n/* epilogue op %d: the caller's hook */\n%s float %s_hook%d(float x, "
                     "int row, int col)\n{\n",
                     i, tcmma__table_spell(dl, TCMMA__SPELL_STATIC_DEVICE_FN), kernel_name(g), i);
    tcmma__emit_append_indented(out, o.body, 1);
    tcmma_buf_printf(out, "%s}\n", o.body[strlen(o.body) - 1] == '\n' ? "" : "\n");
  }
}

/* Each thread's running max |x| of each amax op, as float bits (ordered as
 * the floats are for x >= 0; NaN's above all), before the element loop... */
void tcmma__emit_gemm_epilogue_begin(const tcmma__emit_gemm_form *f, int depth, tcmma_buf *out) {
  tcmma__gemm_epi e0 = tcmma__emit_gemm_epi_of(&f->o), *e = &e0;
  for (int i = 0; i < e->count; i++)
    if (tcmma__emit_gemm_epilogue_op(e, i).kind == TCMMA_EPILOGUE_AMAX)
      tcmma__emit_line(out, depth, "unsigned %samax%d = 0u; /* amax: |x| as ordered bits */", P, i);
}

/* ...and after it, one atomicMax per thread into the caller's float (which
 * the caller zeroes before the launch). */
void tcmma__emit_gemm_epilogue_end(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int depth,
                                   tcmma_buf *out) {
  tcmma__gemm_epi e0 = tcmma__emit_gemm_epi_of(&f->o), *e = &e0;
  for (int i = 0; i < e->count; i++)
    if (tcmma__emit_gemm_epilogue_op(e, i).kind == TCMMA_EPILOGUE_AMAX)
      tcmma__emit_line(out, depth, "if (%samax%d) %s((unsigned *)amax%d, %samax%d);", P, i,
                       tcmma__table_spell(dl, TCMMA__SPELL_ATOMIC_MAX), i, P, i);
}

/* The store vector v of d's stored type and cv of c's (one declaration when
 * they are one type), vec elements each. */
void tcmma__emit_gemm_epilogue_vectors(const tcmma__emit_gemm_form *f, tcmma_dialect dl, int vec,
                                       int depth, tcmma_buf *out) {
  const tcmma_gemm_plan *g = f->g;
  tcmma__gemm_epi e0 = tcmma__emit_gemm_epi_of(&f->o), *e = &e0;
  const char *al = tcmma__table_spell(dl, TCMMA__SPELL_ALIGN16),
             *td = tcmma__table_spell_type(dl, tcmma__emit_gemm_out_prec(&g->call, e)),
             *tc = tcmma__table_spell_type(dl, g->call.d.prec);
  if (strcmp(td, tc) == 0)
    tcmma__emit_line(out, depth, "%s %s %sv[%d], %scv[%d];", al, td, P, vec, P, vec);
  else
    tcmma__emit_line(out, depth, "%s %s %sv[%d];", al, td, P, vec),
        tcmma__emit_line(out, depth, "%s %s %scv[%d];", al, tc, P, vec);
}

/* c's vec elements at offset off into cv when beta is not 0: one 16-byte
 * load when they fill one, else element by element (cvt narrower or wider
 * than c). */
void tcmma__emit_gemm_epilogue_load_c(const tcmma_gemm_plan *g, tcmma_dialect dl, int vec,
                                      const char *off, int depth, tcmma_buf *out) {
  const char *u4 = tcmma__table_spell(dl, TCMMA__SPELL_VEC16);
  if (vec * tcmma_prec_bytes(g->call.d.prec) == TCMMA__GEMM_COPY_BYTES)
    tcmma__emit_line(out, depth, "if (beta != 0.0f) *(%s *)%scv = *(const %s *)(c + %s);", u4, P,
                     u4, off);
  else
    tcmma__emit_line(out, depth,
                     "if (beta != 0.0f) for (int %sj = 0; %sj < %d; ++%sj) %scv[%sj] = "
                     "c[%s + %sj];",
                     P, P, vec, P, P, P, off, P);
}

/* A strided batch moves each residual to the block's matrix as it moves c
 * (bias and scale vectors are one for the whole batch). */
void tcmma__emit_gemm_epilogue_residual_base(const tcmma__emit_gemm_form *f, const char *stride,
                                             int depth, tcmma_buf *out) {
  tcmma__gemm_epi e0 = tcmma__emit_gemm_epi_of(&f->o), *e = &e0;
  for (int i = 0; i < e->count; i++) {
    tcmma_epilogue_op o = tcmma__emit_gemm_epilogue_op(e, i);
    if (tcmma__emit_epilogue_row(o.kind)->param == TCMMA__EPI_PARAM_C)
      tcmma__emit_line(out, depth, "%s%d += (size_t)%sbz * %s;", tcmma_epilogue_name(o.kind), i, P,
                       stride);
  }
}
