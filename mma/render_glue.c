/* The dialect-neutral glue macros (tables/glue.def; include/tcmma/ring.h):
 * each row's body composed in the context's dialect from the words of
 * tables/dialect.def and the opcodes of tables/collectives.def, so that one
 * hand-written text compiles under NVRTC and on the simulator. */
#include <stdio.h>
#include "emit.h"
#include "tcmma/ring.h"

typedef enum {
#define TCMMA_GLUE(ID, params, what) GLUE_##ID,
#include "tables/glue.def"
#undef TCMMA_GLUE
  GLUE_COUNT
} glue_id;

static const struct {
  const char *name, *params, *what;
} glue_rows[] = {
#define TCMMA_GLUE(ID, params, what) {"TCMMA_" #ID, params, what},
#include "tables/glue.def"
#undef TCMMA_GLUE
};

/* The cp.async macros' bodies: an asm statement in CUDA, the simulator's
 * call in the host dialect (tcmma/sim.h, CONTRACT). */
static void cp_async_body(tcmma_dialect dl, glue_id id, char *buf, size_t cap) {
  bool host = dl == TCMMA_DIALECT_HOST;
  const char *commit = tcmma__emit_collective_opcode(TCMMA__COLL_CP_COMMIT),
             *wait = tcmma__emit_collective_opcode(TCMMA__COLL_CP_WAIT_GROUP),
             *ca = tcmma__emit_collective_opcode(TCMMA__COLL_CP_CA);
  if (id == GLUE_CP_ASYNC_COMMIT)
    snprintf(buf, cap, host ? "tcmma_sim_cp_async_commit()" : "asm volatile(\"%s;\\n\" ::)",
             commit);
  else if (id == GLUE_CP_ASYNC_WAIT)
    snprintf(buf, cap, host ? "tcmma_sim_cp_async_wait_group(n)"
                            : "asm volatile(\"%s %%0;\\n\" :: \"n\"(n) : \"memory\")", wait);
  else if (host)
    snprintf(buf, cap, "tcmma_sim_cp_async_zfill(\"%s\", (dst), (src), (bytes), "
             "(unsigned)(src_bytes))", ca);
  else
    snprintf(buf, cap, "asm volatile(\"%s [%%0], [%%1], %%2, %%3;\\n\" :: "
             "\"r\"((unsigned)__cvta_generic_to_shared(dst)), \"l\"(src), \"n\"(bytes), "
             "\"r\"((unsigned)(src_bytes)) : \"memory\")", ca);
}

/* Row id's body in dialect dl. */
static void body(tcmma_dialect dl, glue_id id, char *buf, size_t cap) {
#define W(word) tcmma__table_spell(dl, TCMMA__SPELL_##word)
  switch (id) {
  case GLUE_KERNEL: snprintf(buf, cap, "%s", W(KERNEL)); break;
  case GLUE_DYN_SHARED: snprintf(buf, cap, "%s name%s", W(DYN_SHARED), W(DYN_SHARED_END)); break;
  case GLUE_SYNC: snprintf(buf, cap, "%s", W(SYNCTHREADS)); break;
  case GLUE_SYNCWARP: snprintf(buf, cap, "%s", W(SYNCWARP)); break;
  case GLUE_TID: snprintf(buf, cap, "((int)%s)", W(THREAD_IDX)); break;
  case GLUE_BID:
    snprintf(buf, cap, "((int)((axis) == 0 ? %s : (axis) == 1 ? %s : %s))", W(BLOCK_IDX),
             W(BLOCK_IDX_Y), W(BLOCK_IDX_Z));
    break;
  default: cp_async_body(dl, id, buf, cap); break;
  }
#undef W
}

tcmma_status tcmma_render_glue(const tcmma_render_ctx *ctx, tcmma_error *err) {
  tcmma_status st = tcmma__emit_ctx_check(ctx, err);
  if (st != TCMMA_OK) return st;
  tcmma_buf *out = ctx->out;
  tcmma_buf_printf(out, "/* dialect-neutral glue (tcmma/ring.h, tcmma_render_glue) */\n"
                        "#ifndef TCMMA_GLUE_DEFINED\n#define TCMMA_GLUE_DEFINED 1\n");
  for (int i = 0; i < GLUE_COUNT; i++) {
    char b[512];
    body(ctx->dialect, (glue_id)i, b, sizeof b);
    tcmma_buf_printf(out, "/* %s */\n#define %s%s %s\n", glue_rows[i].what, glue_rows[i].name,
                     glue_rows[i].params, b);
  }
  tcmma_buf_printf(out, "#endif\n");
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "out of memory") : TCMMA_OK;
}
