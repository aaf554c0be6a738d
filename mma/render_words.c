/* What a source around a plan's blocks includes: the simulator's header (host
 * dialect), the vendor headers (wmma arms; or when asked), or for
 * inline-PTX arms the few words of those headers the blocks use, declared
 * from tables/cuda_words.def. NVRTC spends longer parsing cuda_fp16.h,
 * cuda_bf16.h and cuda_fp8.h than compiling a tile's kernel. */
#include <stdio.h>
#include <string.h>
#include "emit.h"

static const struct {
  tcmma__table_spelling id;
  const char *guard, *definition;
} words[] = {
#define TCMMA_CUDA_WORD(ID, guard, definition) {TCMMA__SPELL_##ID, guard, definition},
#include "tables/cuda_words.def"
#undef TCMMA_CUDA_WORD
};

#define N_WORDS (sizeof words / sizeof words[0])

static const tcmma_operand ops[3] = {TCMMA_OPERAND_C, TCMMA_OPERAND_A, TCMMA_OPERAND_B};

/* Marks in need[] the rows of every word of the operands' precisions; false
 * when one has no row (the vendor header is then needed). */
static bool needed_words(const tcmma_prec precs[3], bool need[N_WORDS]) {
  memset(need, 0, N_WORDS * sizeof *need);
  for (int i = 0; i < 3; i++) {
    tcmma_prec p = precs[i];
    if (!*tcmma_prec_header(p)) continue; /* NVRTC's own words (float, float2) */
    const tcmma__table_prec_words *w = tcmma__table_prec_words_of(p);
    const tcmma__table_spelling ids[6] = {w->type, w->to_f32,  w->from_f32,
                                          w->pair, w->pair_to, w->pair_from};
    for (int k = 0; k < 6; k++) {
      if (ids[k] == TCMMA__SPELL_NONE) continue;
      size_t row = 0;
      while (row < N_WORDS && words[row].id != ids[k]) row++;
      if (row == N_WORDS) return false;
      need[row] = true;
    }
  }
  return true;
}

/* Row i of the words, under its guards (the vendor header's, and its own
 * so that two blocks of text declaring it splice together). */
static void emit_word(size_t i, tcmma_buf *out) {
  const char *name = tcmma__table_spell(TCMMA_DIALECT_CUDA, words[i].id);
  tcmma_buf_printf(out, "#if !defined(%s) && !defined(__tcmma_word%s)\n#define __tcmma_word%s\n"
                        "%s\n#endif\n",
                   words[i].guard, name, name, words[i].definition);
}

void tcmma__emit_includes(const tcmma_prec precs[3], tcmma_arm arm, tcmma_dialect dialect,
                          bool vendor_headers_wanted, tcmma_buf *out) {
  if (dialect == TCMMA_DIALECT_HOST) {
    tcmma_buf_printf(out, "#include \"tcmma/sim.h\"\n");
    return;
  }
  bool need[N_WORDS];
  const tcmma_arm_info *info = tcmma_arm_get(arm);
  if (vendor_headers_wanted || *info->header || !needed_words(precs, need)) {
    tcmma__emit_cuda_includes(precs, 3, arm, out);
    return;
  }
  bool any = false;
  for (size_t i = 0; i < N_WORDS; i++) any = any || need[i];
  if (any)
    tcmma_buf_printf(out, "/* tcmma: the words of the vendor headers this kernel uses, "
                          "declared instead of\n * including them "
                          "(tables/cuda_words.def) */\n");
  for (size_t i = 0; i < N_WORDS; i++)
    if (need[i]) emit_word(i, out);
}

void tcmma__emit_cuda_word(tcmma__table_spelling id, tcmma_buf *out) {
  for (size_t i = 0; i < N_WORDS; i++)
    if (words[i].id == id) emit_word(i, out);
}

tcmma_status tcmma_render_includes(const tcmma_render_ctx *ctx, bool vendor_headers_wanted,
                                   tcmma_error *err) {
  tcmma_status st = tcmma__emit_check(ctx, NULL, 0, err);
  if (st != TCMMA_OK) return st;
  const tcmma_plan *plan = ctx->plan;
  tcmma_prec precs[3];
  for (int i = 0; i < 3; i++) precs[i] = tcmma__emit_desc(&plan->call, ops[i])->prec;
  tcmma__emit_includes(precs, plan->arm, ctx->dialect, vendor_headers_wanted, ctx->out);
  return ctx->out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "render_includes: out of memory")
                          : TCMMA_OK;
}
