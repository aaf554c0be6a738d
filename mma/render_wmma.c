/* nvcuda::wmma pieces: fragment declarations, load_matrix_sync (col_major
 * for transposed storage) from a sub-tile of a parent, tf32 conversion of
 * loaded elements, mma_sync into an mt x nt accumulator array, fill or
 * load to start it, store_matrix_sync (scaled element by element for
 * SCALE); a converted destination goes through the kernel's per-warp shared
 * stage tile. Host dialect: the simulator's calls. */
#include <stdio.h>
#include <string.h>
#include "emit.h"

#define STAGE "__tcmma_stage" /* declared by tcmma_kernel_prologue */

typedef tcmma__emit_body ctx;

static bool host(const ctx *x) { return x->dl == TCMMA_DIALECT_HOST; }

/* The element type of op's fragment: the accumulator precision's for c;
 * for a and b the operand's storage type, or tf32 on a tf32 arm. */
static tcmma__table_spelling elem_type(const ctx *x, tcmma_operand op) {
  if (op == TCMMA_OPERAND_C) return tcmma__table_prec_words_of(x->info->acc)->type;
  if (x->info->tf32) return TCMMA__SPELL_TF32;
  return tcmma__table_prec_words_of(tcmma__emit_desc(&x->p->call, op)->prec)->type;
}

/* The fragment type of op (CUDA), or the simulator's fragment struct. */
static void frag_type(const ctx *x, tcmma_operand op, char *buf, size_t cap) {
  const char *frag = tcmma__table_spell(x->dl, TCMMA__SPELL_FRAGMENT);
  if (host(x)) {
    snprintf(buf, cap, "%s", frag);
    return;
  }
  const char *use = op == TCMMA_OPERAND_A ? "matrix_a" : op == TCMMA_OPERAND_B ? "matrix_b"
                  : "accumulator";
  char layout[64] = "";
  if (op != TCMMA_OPERAND_C)
    snprintf(layout, sizeof layout, ", nvcuda::wmma::%s",
             tcmma__emit_desc(&x->p->call, op)->transposed ? "col_major" : "row_major");
  snprintf(buf, cap, "%s<nvcuda::wmma::%s, %d, %d, %d, %s%s>", frag, use, x->info->m, x->info->n,
           x->info->k, tcmma__table_spell(x->dl, elem_type(x, op)), layout);
}

/* The simulator's DESC of op's fragment: "a.m16n16k16.f16.row". */
static void desc(const ctx *x, tcmma_operand op, char *buf, size_t cap) {
  char layout[8] = "";
  if (op != TCMMA_OPERAND_C)
    snprintf(layout, sizeof layout, ".%s",
             tcmma__emit_desc(&x->p->call, op)->transposed ? "col" : "row");
  snprintf(buf, cap, "%s.m%dn%dk%d.%s%s", tcmma_operand_name(op), x->info->m, x->info->n,
           x->info->k, tcmma__table_spell_desc(elem_type(x, op)), layout);
}

/* Element offset, from the parent's base, of op's tile at the tile
 * coordinates (k step kstep) plus its sub-tile origin. */
static void tile_offset(const ctx *x, tcmma_operand op, const char *kstep, char *buf,
                        size_t cap) {
  const tcmma_operand_desc *o = tcmma__emit_desc(&x->p->call, op);
  char rv[TCMMA__EXPR_TEXT], cv[TCMMA__EXPR_TEXT], r0[TCMMA__EXPR_TEXT + 32],
      c0[TCMMA__EXPR_TEXT + 32];
  int rt, ct;
  tcmma__emit_tile_axes(x, op, kstep, rv, &rt, cv, &ct);
  tcmma__emit_coord_expr(x->dl, &o->row0, r0, sizeof r0);
  tcmma__emit_coord_expr(x->dl, &o->col0, c0, sizeof c0);
  if (*r0 || *c0)
    snprintf(buf, cap, "(%s%s%d * %s) * %ld + %s%s%d * %s", r0, *r0 ? " + " : "", rt, rv,
             o->ld, c0, *c0 ? " + " : "", ct, cv);
  else
    snprintf(buf, cap, "%s * %ld + %s * %d", rv, (long)rt * o->ld, cv, ct);
}

static void open_loop(const ctx *x, const char *var, int count, int depth, tcmma_buf *out) {
  tcmma__emit_open_loop(x, var, count, depth, out);
}

static void close_brace(int depth, tcmma_buf *out) { tcmma__emit_close_brace(depth, out); }

static void load(const ctx *x, tcmma_operand op, const char *frag, const char *ptr, long ld,
                 bool col_major, int depth, tcmma_buf *out) {
  if (host(x)) {
    char d[64];
    desc(x, op, d, sizeof d);
    tcmma__emit_line(out, depth, "tcmma_sim_wmma_load(&%s, \"%s\", %s, %ld, %d);", frag, d, ptr, ld,
                     col_major);
  } else if (op == TCMMA_OPERAND_C) {
    tcmma__emit_line(out, depth,
                     "nvcuda::wmma::load_matrix_sync(%s, %s, %ld, nvcuda::wmma::mem_%s);", frag,
                     ptr, ld, col_major ? "col_major" : "row_major");
  } else {
    tcmma__emit_line(out, depth, "nvcuda::wmma::load_matrix_sync(%s, %s, %ld);", frag, ptr, ld);
  }
}

static void store(const ctx *x, const char *frag, const char *ptr, long ld, bool col_major,
                  int depth, tcmma_buf *out) {
  if (host(x))
    tcmma__emit_line(out, depth, "tcmma_sim_wmma_store(%s, &%s, %ld, %d);", ptr, frag, ld,
                     col_major);
  else
    tcmma__emit_line(out, depth,
                     "nvcuda::wmma::store_matrix_sync(%s, %s, %ld, nvcuda::wmma::mem_%s);", ptr,
                     frag, ld, col_major ? "col_major" : "row_major");
}

/* The scale factors of a SCALE store as locals (P_alpha, P_beta). */
static void scale_locals(const ctx *x, int depth, tcmma_buf *out) {
  char al[TCMMA__EXPR_TEXT], be[TCMMA__EXPR_TEXT];
  tcmma__emit_expr(x->dl, x->p->call.alpha, al, sizeof al);
  tcmma__emit_expr(x->dl, x->p->call.beta, be, sizeof be);
  tcmma__emit_line(out, depth, "const float %salpha = (float)(%s), %sbeta = (float)(%s);",
                   x->prefix, al, x->prefix, be);
}

/* A converted destination: each accumulator tile passes through the stage
 * tile (row-major, tile n wide), converted element by element per lane. */
static void staged(const ctx *x, const char *frag, bool to_d, int depth, tcmma_buf *out) {
  const char *P = x->prefix;
  const tcmma_operand_desc *d = &x->p->call.d;
  int tm = x->info->m, tn = x->info->n;
  bool scale = to_d && x->p->call.init == TCMMA_INIT_SCALE;
  const tcmma__table_prec_words *w = tcmma__table_prec_words_of(d->prec);
  const char *from = tcmma__table_spell(x->dl, w->from_f32),
             *to = tcmma__table_spell(x->dl, w->to_f32);
  char sr[128], sc[128], off[TCMMA__ADDR_TEXT], stage[64], r0[TCMMA__EXPR_TEXT + 32],
      c0[TCMMA__EXPR_TEXT + 32], rr[TCMMA__EXPR_TEXT + 200], cc[TCMMA__EXPR_TEXT + 200];
  snprintf(stage, sizeof stage, "%sstage", P);
  if (to_d) store(x, frag, stage, tn, false, depth, out);
  tcmma__emit_line(out, depth, "%s;", tcmma__table_spell(x->dl, TCMMA__SPELL_SYNCWARP));
  tcmma__emit_line(out, depth, "for (int %st = %slane; %st < %d; %st += %d) {", P, P, P, tm * tn, P,
                   TCMMA_WARP_SIZE);
  snprintf(sr, sizeof sr, "%smi * %d + %st / %d", P, tm, P, tn);
  snprintf(sc, sizeof sc, "%sni * %d + %st %% %d", P, tn, P, tn);
  tcmma__emit_coord_expr(x->dl, &d->row0, r0, sizeof r0);
  tcmma__emit_coord_expr(x->dl, &d->col0, c0, sizeof c0);
  /* stored coordinates: transposed d swaps the role's axes */
  snprintf(rr, sizeof rr, "%s%s%s", r0, *r0 ? " + " : "", d->transposed ? sc : sr);
  snprintf(cc, sizeof cc, "%s%s%s", c0, *c0 ? " + " : "", d->transposed ? sr : sc);
  snprintf(off, sizeof off, "(%s) * %ld + (%s)", rr, d->ld, cc);
  if (scale)
    tcmma__emit_line(out, depth + 1, "%sds[%s] = %s(%salpha * %s[%st] + %sbeta * %s(%sds[%s]));", P,
                     off, from, P, stage, P, P, to, P, off);
  else if (to_d)
    tcmma__emit_line(out, depth + 1, "%sds[%s] = %s(%s[%st]);", P, off, from, stage, P);
  else
    tcmma__emit_line(out, depth + 1, "%s[%st] = %s(%sdl[%s]);", stage, P, to, P, off);
  tcmma__emit_line(out, depth, "}");
  tcmma__emit_line(out, depth, "%s;", tcmma__table_spell(x->dl, TCMMA__SPELL_SYNCWARP));
  if (!to_d) {
    load(x, TCMMA_OPERAND_C, frag, stage, tn, false, depth, out);
    tcmma__emit_line(out, depth, "%s;", tcmma__table_spell(x->dl, TCMMA__SPELL_SYNCWARP));
  }
}

/* d's tile (mi, ni) to or from the accumulator; a SCALE store first loads
 * d's tile into a fragment of the accumulator's type and combines the two
 * element by element (fragments of one type share their element order). */
static void d_tile(const ctx *x, const char *frag, bool to_d, int depth, tcmma_buf *out) {
  const char *P = x->prefix, *dn = to_d ? "ds" : "dl";
  const tcmma_operand_desc *d = &x->p->call.d;
  char off[TCMMA__ADDR_TEXT], ptr[TCMMA__ADDR_TEXT + 64];
  tile_offset(x, TCMMA_OPERAND_C, NULL, off, sizeof off);
  snprintf(ptr, sizeof ptr, "%s%s + %s", P, dn, off);
  if (!to_d) {
    load(x, TCMMA_OPERAND_C, frag, ptr, d->ld, d->transposed, depth, out);
    return;
  }
  if (x->p->call.init == TCMMA_INIT_SCALE) {
    char t[256], c[64];
    frag_type(x, TCMMA_OPERAND_C, t, sizeof t);
    snprintf(c, sizeof c, "%sc", P);
    tcmma__emit_line(out, depth, "%s %s;", t, c);
    load(x, TCMMA_OPERAND_C, c, ptr, d->ld, d->transposed, depth, out);
    tcmma__emit_line(out, depth, "%s", tcmma__table_spell(x->dl, TCMMA__SPELL_UNROLL));
    tcmma__emit_line(out, depth, "for (int %st = 0; %st < %s.num_elements; ++%st) {", P, P, c, P);
    tcmma__emit_line(out, depth + 1,
                     "%s.x[%st] = %salpha * (float)%s.x[%st] + %sbeta * (float)%s.x[%st];", frag, P,
                     P, frag, P, P, c, P);
    tcmma__emit_line(out, depth, "}");
  }
  store(x, frag, ptr, d->ld, d->transposed, depth, out);
}

/* The d boundary: load d into acc (init) or store acc to d. */
static void boundary(const ctx *x, const char *acc, const char *dexpr, bool to_d,
                     tcmma_buf *out) {
  const tcmma_plan *p = x->p;
  const char *P = x->prefix;
  const char *type = tcmma__table_spell_type(x->dl, p->call.d.prec);
  int depth = x->depth;
  /* dl loads, ds stores: a statement declares both in one block */
  const char *dn = to_d ? "ds" : "dl", *cst = to_d ? "" : "const ";
  tcmma__emit_line(out, depth, "%s%s *%s%s = (%s%s *)(%s);", cst, type, P, dn, cst, type, dexpr);
  if (to_d && p->call.init == TCMMA_INIT_SCALE) scale_locals(x, depth, out);
  if (x->info->converted_dest) {
    /* this warp's slot of the prologue's stage tiles */
    const char *acc_t = tcmma__table_spell_type(x->dl, x->info->acc);
    if (p->call.warps > 1) {
      char warp[TCMMA__EXPR_TEXT];
      tcmma__emit_warp_expr(x->dl, p->call.warp, '/', warp, sizeof warp);
      tcmma__emit_line(out, depth, "%s *%sstage = %s + (%s) * %d;", acc_t, P, STAGE, warp,
                       x->info->m * x->info->n);
    } else {
      tcmma__emit_line(out, depth, "%s *%sstage = %s;", acc_t, P, STAGE);
    }
  }
  char fc[TCMMA__EXPR_TEXT], frag[TCMMA__EXPR_TEXT + 64];
  tcmma__emit_postfix(acc, fc, sizeof fc);
  snprintf(frag, sizeof frag, "%s[%smi][%sni]", fc, P, P);
  tcmma__emit_open_tiles(x, out);
  if (x->info->converted_dest) staged(x, frag, to_d, depth + 2, out);
  else d_tile(x, frag, to_d, depth + 2, out);
  tcmma__emit_close_tiles(x, out);
}

/* ---- the pieces ---- */

static void decl(const ctx *x, tcmma_operand op, const char *name, int buffers,
                 tcmma_buf *out) {
  char t[256], dims[32] = "";
  frag_type(x, op, t, sizeof t);
  if (buffers > 0) snprintf(dims, sizeof dims, "[%d]", buffers);
  if (op == TCMMA_OPERAND_C)
    tcmma__emit_line(out, x->depth, "%s %s[%d][%d];", t, name, x->p->mt, x->p->nt);
  else
    tcmma__emit_line(out, x->depth, "%s %s%s[%d];", t, name, dims,
                     tcmma__emit_loads_per_k(x->p, op));
}

static tcmma_status load_piece(const ctx *x, tcmma_operand op, const char *frag,
                               const char *base, const char *kstep, tcmma_buf *out,
                               tcmma_error *err) {
  (void)err;
  const char *P = x->prefix, *n = tcmma_operand_name(op);
  const char *var = op == TCMMA_OPERAND_A ? "mi" : "ni";
  const tcmma_operand_desc *o = tcmma__emit_desc(&x->p->call, op);
  const char *type = tcmma__table_spell_type(x->dl, o->prec);
  int depth = x->depth;
  char f[TCMMA__EXPR_TEXT], fr[TCMMA__EXPR_TEXT + 64], off[TCMMA__ADDR_TEXT],
      ptr[TCMMA__ADDR_TEXT + 64];
  tcmma__emit_postfix(frag, f, sizeof f);
  snprintf(fr, sizeof fr, "%s[%s%s]", f, P, var);
  tcmma__emit_line(out, depth, "const %s *%s%sp = (const %s *)(%s);", type, P, n, type, base);
  tile_offset(x, op, kstep, off, sizeof off);
  snprintf(ptr, sizeof ptr, "%s%sp + %s", P, n, off);
  open_loop(x, var, tcmma__emit_loads_per_k(x->p, op), depth, out);
  load(x, op, fr, ptr, o->ld, o->transposed, depth + 1, out);
  if (x->info->tf32) {
    /* tf32 fragments hold f32 storage: round every loaded element */
    tcmma__emit_line(out, depth + 1, "%s", tcmma__table_spell(x->dl, TCMMA__SPELL_UNROLL));
    tcmma__emit_line(out, depth + 1, "for (int %st = 0; %st < %s.num_elements; ++%st) {", P, P, fr,
                     P);
    tcmma__emit_line(out, depth + 2, "%s.x[%st] = %s(%s.x[%st]);", fr, P,
                     tcmma__table_spell(x->dl, TCMMA__SPELL_TO_TF32), fr, P);
    tcmma__emit_line(out, depth + 1, "}");
  }
  close_brace(depth, out);
  return TCMMA_OK;
}

static tcmma_status mma(const ctx *x, const char *acc, const char *a, const char *b,
                        tcmma_buf *out, tcmma_error *err) {
  (void)err;
  const char *P = x->prefix;
  char fa[TCMMA__EXPR_TEXT], fb[TCMMA__EXPR_TEXT], fc[TCMMA__EXPR_TEXT];
  tcmma__emit_postfix(a, fa, sizeof fa);
  tcmma__emit_postfix(b, fb, sizeof fb);
  tcmma__emit_postfix(acc, fc, sizeof fc);
  tcmma__emit_open_tiles(x, out);
  if (host(x))
    tcmma__emit_line(out, x->depth + 2,
                     "tcmma_sim_wmma_mma(&%s[%smi][%sni], &%s[%smi], &%s[%sni], "
                     "&%s[%smi][%sni]);",
                     fc, P, P, fa, P, fb, P, fc, P, P);
  else
    tcmma__emit_line(out, x->depth + 2,
                     "nvcuda::wmma::mma_sync(%s[%smi][%sni], %s[%smi], %s[%sni], "
                     "%s[%smi][%sni]);",
                     fc, P, P, fa, P, fb, P, fc, P, P);
  tcmma__emit_close_tiles(x, out);
  return TCMMA_OK;
}

static tcmma_status init(const ctx *x, const char *acc, const char *d, tcmma_buf *out,
                         tcmma_error *err) {
  (void)err;
  if (x->p->call.init == TCMMA_INIT_LOAD) {
    boundary(x, acc, d, false, out);
    return TCMMA_OK;
  }
  const char *P = x->prefix;
  char fc[TCMMA__EXPR_TEXT], dsc[64];
  tcmma__emit_postfix(acc, fc, sizeof fc);
  desc(x, TCMMA_OPERAND_C, dsc, sizeof dsc);
  tcmma__emit_open_tiles(x, out);
  if (host(x))
    tcmma__emit_line(out, x->depth + 2, "tcmma_sim_wmma_fill(&%s[%smi][%sni], \"%s\", 0.0f);", fc,
                     P, P, dsc);
  else
    tcmma__emit_line(out, x->depth + 2, "nvcuda::wmma::fill_fragment(%s[%smi][%sni], 0.0f);", fc, P,
                     P);
  tcmma__emit_close_tiles(x, out);
  return TCMMA_OK;
}

static tcmma_status store_piece(const ctx *x, const char *acc, const char *d, tcmma_buf *out,
                                tcmma_error *err) {
  (void)err;
  boundary(x, acc, d, true, out);
  return TCMMA_OK;
}

const tcmma__emit_pieces tcmma__emit_wmma_pieces = {decl, load_piece, mma, init, store_piece};
