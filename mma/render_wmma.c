/* nvcuda::wmma bodies: load_matrix_sync (col_major for transposed storage),
 * tf32 conversion of loaded elements, mma_sync into an mt x nt accumulator
 * array, store_matrix_sync; a converted destination goes through the
 * kernel's per-warp shared stage tile. Host dialect: the simulator's calls. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "emit.h"

#define STAGE "__tcmma_stage" /* declared by tcmma_kernel_prologue */

typedef tcmma__body ctx;

static bool host(const ctx *x) { return x->dl == TCMMA_DIALECT_HOST; }

/* The element type of op's fragment: the accumulator precision's for c;
 * for a and b the operand's storage type, or tf32 on a tf32 arm. */
static tcmma__spelling elem_type(const ctx *x, tcmma_operand op) {
  if (op == TCMMA_OPERAND_C) return tcmma__prec_words_of(x->info->acc)->type;
  if (x->info->tf32) return TCMMA__SPELL_TF32;
  return tcmma__prec_words_of(tcmma__desc(&x->p->call, op)->prec)->type;
}

/* The fragment type of op (CUDA), or the simulator's fragment struct. */
static void frag_type(const ctx *x, tcmma_operand op, char *buf, size_t cap) {
  const char *frag = tcmma__spell(x->dl, TCMMA__SPELL_FRAGMENT);
  if (host(x)) {
    snprintf(buf, cap, "%s", frag);
    return;
  }
  const char *use = op == TCMMA_OPERAND_A ? "matrix_a" : op == TCMMA_OPERAND_B ? "matrix_b"
                  : "accumulator";
  char layout[64] = "";
  if (op != TCMMA_OPERAND_C)
    snprintf(layout, sizeof layout, ", nvcuda::wmma::%s",
             tcmma__desc(&x->p->call, op)->transposed ? "col_major" : "row_major");
  snprintf(buf, cap, "%s<nvcuda::wmma::%s, %d, %d, %d, %s%s>", frag, use, x->info->m,
           x->info->n, x->info->k, tcmma__spell(x->dl, elem_type(x, op)), layout);
}

/* The simulator's DESC of op's fragment: "a.m16n16k16.f16.row". */
static void desc(const ctx *x, tcmma_operand op, char *buf, size_t cap) {
  char layout[8] = "";
  if (op != TCMMA_OPERAND_C)
    snprintf(layout, sizeof layout, ".%s",
             tcmma__desc(&x->p->call, op)->transposed ? "col" : "row");
  snprintf(buf, cap, "%s.m%dn%dk%d.%s%s", tcmma_operand_name(op), x->info->m, x->info->n,
           x->info->k, tcmma__spell_desc(elem_type(x, op)), layout);
}

/* Element offset of the tile at (role row var*tile, role col var*tile). */
static void tile_offset(const ctx *x, tcmma_operand op, char *buf, size_t cap) {
  const tcmma_operand_desc *o = tcmma__desc(&x->p->call, op);
  const char *rv, *cv;
  int rt, ct;
  tcmma__tile_axes(x, op, &rv, &rt, &cv, &ct);
  snprintf(buf, cap, "%s%s * %ld + %s%s * %d", x->prefix, rv, (long)rt * o->ld, x->prefix, cv,
           ct);
}

static void open_loop(const ctx *x, const char *var, int count, int depth, tcmma_buf *out) {
  tcmma__open_loop(x->dl, x->prefix, var, count, depth, out);
}

static void close_brace(int depth, tcmma_buf *out) { tcmma__close_brace(depth, out); }

static void line(tcmma_buf *out, int depth, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void line(tcmma_buf *out, int depth, const char *fmt, ...) {
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  tcmma__indent(out, depth);
  tcmma_buf_printf(out, "%s\n", text);
}

static void load(const ctx *x, tcmma_operand op, const char *frag, const char *ptr, long ld,
                 bool col_major, int depth, tcmma_buf *out) {
  if (host(x)) {
    char d[64];
    desc(x, op, d, sizeof d);
    line(out, depth, "tcmma_sim_wmma_load(&%s, \"%s\", %s, %ld, %d);", frag, d, ptr, ld,
         col_major);
  } else if (op == TCMMA_OPERAND_C) {
    line(out, depth, "nvcuda::wmma::load_matrix_sync(%s, %s, %ld, nvcuda::wmma::mem_%s);", frag,
         ptr, ld, col_major ? "col_major" : "row_major");
  } else {
    line(out, depth, "nvcuda::wmma::load_matrix_sync(%s, %s, %ld);", frag, ptr, ld);
  }
}

static void store(const ctx *x, const char *frag, const char *ptr, long ld, bool col_major,
                  int depth, tcmma_buf *out) {
  if (host(x))
    line(out, depth, "tcmma_sim_wmma_store(%s, &%s, %ld, %d);", ptr, frag, ld, col_major);
  else
    line(out, depth, "nvcuda::wmma::store_matrix_sync(%s, %s, %ld, nvcuda::wmma::mem_%s);", ptr,
         frag, ld, col_major ? "col_major" : "row_major");
}

void tcmma__acc_decl(const tcmma_plan *p, tcmma_dialect dl, const char *acc, int depth,
                     tcmma_buf *out) {
  const tcmma_arm_info *info = tcmma_arm_get(p->arm);
  ctx x = {p, info, dl, ""};
  if (info->form == TCMMA_FORM_PTX) {
    line(out, depth, "float %s[%d][%d][%d];", acc, p->mt, p->nt, info->c_regs);
    return;
  }
  char t[256];
  frag_type(&x, TCMMA_OPERAND_C, t, sizeof t);
  line(out, depth, "%s %s[%d][%d];", t, acc, p->mt, p->nt);
}

/* A converted destination: each accumulator tile passes through the stage
 * tile (row-major, tile n wide), converted element by element per lane. */
static void staged(const ctx *x, const char *acc, bool to_d, int depth, tcmma_buf *out) {
  const char *P = x->prefix;
  const tcmma_operand_desc *d = &x->p->call.d;
  int tm = x->info->m, tn = x->info->n;
  const tcmma__prec_words *w = tcmma__prec_words_of(d->prec);
  const char *conv = tcmma__spell(x->dl, to_d ? w->from_f32 : w->to_f32);
  char frag[128], sr[128], sc[128], off[600], stage[64];
  snprintf(frag, sizeof frag, "%s[%smi][%sni]", acc, P, P);
  snprintf(stage, sizeof stage, "%sstage", P);
  if (to_d) store(x, frag, stage, tn, false, depth, out);
  line(out, depth, "%s;", tcmma__spell(x->dl, TCMMA__SPELL_SYNCWARP));
  line(out, depth, "for (int %st = %slane; %st < %d; %st += %d) {", P, P, P, tm * tn, P,
       TCMMA_WARP_SIZE);
  snprintf(sr, sizeof sr, "%smi * %d + %st / %d", P, tm, P, tn);
  snprintf(sc, sizeof sc, "%sni * %d + %st %% %d", P, tn, P, tn);
  if (d->transposed) snprintf(off, sizeof off, "(%s) * %ld + (%s)", sc, d->ld, sr);
  else snprintf(off, sizeof off, "(%s) * %ld + (%s)", sr, d->ld, sc);
  if (to_d) line(out, depth + 1, "%sds[%s] = %s(%s[%st]);", P, off, conv, stage, P);
  else line(out, depth + 1, "%s[%st] = %s(%sdl[%s]);", stage, P, conv, P, off);
  line(out, depth, "}");
  line(out, depth, "%s;", tcmma__spell(x->dl, TCMMA__SPELL_SYNCWARP));
  if (!to_d) {
    load(x, TCMMA_OPERAND_C, frag, stage, tn, false, depth, out);
    line(out, depth, "%s;", tcmma__spell(x->dl, TCMMA__SPELL_SYNCWARP));
  }
}

tcmma_status tcmma__wmma_boundary(const tcmma_plan *p, tcmma_dialect dl, const char *acc,
                                  const char *dexpr, bool to_d, int depth, const char *prefix,
                                  tcmma_buf *out, tcmma_error *err) {
  (void)err;
  ctx x = {p, tcmma_arm_get(p->arm), dl, prefix};
  const char *P = prefix;
  const tcmma_operand_desc *d = &p->call.d;
  const char *type = tcmma__spell_type(dl, d->prec);
  /* dl loads, ds stores: a statement declares both in one block */
  const char *dn = to_d ? "ds" : "dl";
  line(out, depth, "%s%s *%s%s = (%s%s *)(%s);", to_d ? "" : "const ", type, P, dn,
       to_d ? "" : "const ", type, dexpr);
  if (x.info->converted_dest) {
    /* this warp's slot of the prologue's stage tiles */
    const char *acc_t = tcmma__spell_type(dl, x.info->acc);
    if (p->call.warps > 1) {
      char warp[300];
      tcmma__warp_expr(dl, p->call.warp, '/', warp, sizeof warp);
      line(out, depth, "%s *%sstage = %s + (%s) * %d;", acc_t, P, STAGE, warp,
           x.info->m * x.info->n);
    } else {
      line(out, depth, "%s *%sstage = %s;", acc_t, P, STAGE);
    }
  }
  open_loop(&x, "mi", p->mt, depth, out);
  open_loop(&x, "ni", p->nt, depth + 1, out);
  if (x.info->converted_dest) {
    staged(&x, acc, to_d, depth + 2, out);
  } else {
    char frag[128], off[160], ptr[256];
    snprintf(frag, sizeof frag, "%s[%smi][%sni]", acc, P, P);
    tile_offset(&x, TCMMA_OPERAND_C, off, sizeof off);
    snprintf(ptr, sizeof ptr, "%s%s + %s", P, dn, off);
    if (to_d) store(&x, frag, ptr, d->ld, d->transposed, depth + 2, out);
    else load(&x, TCMMA_OPERAND_C, frag, ptr, d->ld, d->transposed, depth + 2, out);
  }
  close_brace(depth + 1, out);
  close_brace(depth, out);
  return TCMMA_OK;
}

static void load_operand(const ctx *x, tcmma_operand op, int depth, tcmma_buf *out) {
  const char *P = x->prefix, *n = tcmma_operand_name(op);
  const char *var = op == TCMMA_OPERAND_A ? "mi" : "ni";
  const tcmma_operand_desc *o = tcmma__desc(&x->p->call, op);
  char frag[96], off[160], ptr[256];
  snprintf(frag, sizeof frag, "%s%sf[%s%s]", P, n, P, var);
  tile_offset(x, op, off, sizeof off);
  snprintf(ptr, sizeof ptr, "%s%sp + %s", P, n, off);
  open_loop(x, var, tcmma__loads_per_k(x->p, op), depth, out);
  load(x, op, frag, ptr, o->ld, o->transposed, depth + 1, out);
  if (x->info->tf32) {
    /* tf32 fragments hold f32 storage: round every loaded element */
    line(out, depth + 1, "%s", tcmma__spell(x->dl, TCMMA__SPELL_UNROLL));
    line(out, depth + 1, "for (int %st = 0; %st < %s.num_elements; ++%st) {", P, P, frag, P);
    line(out, depth + 2, "%s.x[%st] = %s(%s.x[%st]);", frag, P,
         tcmma__spell(x->dl, TCMMA__SPELL_TO_TF32), frag, P);
    line(out, depth + 1, "}");
  }
  close_brace(depth, out);
}

tcmma_status tcmma__wmma_update(const tcmma_plan *p, tcmma_dialect dl, const char *acc,
                                const char *a, const char *b, int depth, const char *prefix,
                                tcmma_buf *out, tcmma_error *err) {
  (void)err;
  ctx x = {p, tcmma_arm_get(p->arm), dl, prefix};
  const char *P = prefix;
  const char *ta = tcmma__spell_type(dl, p->call.a.prec);
  const char *tb = tcmma__spell_type(dl, p->call.b.prec);
  char fa[256], fb[256];
  frag_type(&x, TCMMA_OPERAND_A, fa, sizeof fa);
  frag_type(&x, TCMMA_OPERAND_B, fb, sizeof fb);
  line(out, depth, "const %s *%sap = (const %s *)(%s);", ta, P, ta, a);
  line(out, depth, "const %s *%sbp = (const %s *)(%s);", tb, P, tb, b);
  open_loop(&x, "ki", p->kt, depth, out);
  line(out, depth + 1, "%s %saf[%d];", fa, P, tcmma__loads_per_k(p, TCMMA_OPERAND_A));
  line(out, depth + 1, "%s %sbf[%d];", fb, P, tcmma__loads_per_k(p, TCMMA_OPERAND_B));
  load_operand(&x, TCMMA_OPERAND_A, depth + 1, out);
  load_operand(&x, TCMMA_OPERAND_B, depth + 1, out);
  open_loop(&x, "mi", p->mt, depth + 1, out);
  open_loop(&x, "ni", p->nt, depth + 2, out);
  if (host(&x))
    line(out, depth + 3, "tcmma_sim_wmma_mma(&%s[%smi][%sni], &%saf[%smi], &%sbf[%sni], "
         "&%s[%smi][%sni]);", acc, P, P, P, P, P, P, acc, P, P);
  else
    line(out, depth + 3, "nvcuda::wmma::mma_sync(%s[%smi][%sni], %saf[%smi], %sbf[%sni], "
         "%s[%smi][%sni]);", acc, P, P, P, P, P, P, acc, P, P);
  close_brace(depth + 2, out);
  close_brace(depth + 1, out);
  close_brace(depth, out);
  return TCMMA_OK;
}
