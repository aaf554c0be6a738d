/* Tensor Memory and tcgen05 pieces (include/tcmma/tcgen05.h,
 * docs/tcgen05.md): one helper function per PTX instruction of
 * tables/collectives.def, in CUDA as inline asm and in the host dialect as
 * the simulator's call with the same opcode; and the tcgen05.ld/st helpers
 * of the epilogue. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "tcmma/tcgen05.h"
#include "emit.h"

#define SPELL(dl, id) tcmma__table_spell(dl, TCMMA__SPELL_##id)
#define OPCODE(id) tcmma__emit_collective_opcode(TCMMA__COLL_##id)
#define SMEM(p) "(unsigned)__cvta_generic_to_shared(" p ")"
#define HOST_SMEM(p) "tcmma_sim_cvta_shared(" p ")"
#define PLAIN_ASM "asm volatile(\"%s;\\n\" ::: \"memory\");"

tcmma_status tcmma_render_tcgen05_helpers(tcmma_dialect dl, tcmma_buf *out, tcmma_error *err) {
  if (dl != TCMMA_DIALECT_CUDA && dl != TCMMA_DIALECT_HOST)
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 helpers: dialect %d: expected cuda or host",
                      (int)dl);
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "tcgen05 helpers: out must not be NULL");
  tcmma_buf_printf(out, "#ifndef TCMMA_TCGEN05_HELPERS\n#define TCMMA_TCGEN05_HELPERS\n"
                        "/* tcmma: Tensor Memory and tcgen05 helpers (sm_100a, sm_100f: "
                        "tables/collectives.def) */\n");
  tcmma__emit_asm_helper(dl, out, "tcmma_tmem_alloc", "unsigned *dst, unsigned ncols",
                         OPCODE(TMEM_ALLOC),
                         "asm volatile(\"%s [%%0], %%1;\\n\" :: \"r\"(" SMEM("dst")
                         "), \"r\"(ncols) : \"memory\");",
                         "tcmma_sim_tcgen05_alloc(\"%s\", " HOST_SMEM("dst") ", ncols);");
  tcmma__emit_asm_helper(dl, out, "tcmma_tmem_relinquish", "void", OPCODE(TMEM_RELINQUISH),
                         PLAIN_ASM, "tcmma_sim_tcgen05_relinquish(\"%s\");");
  tcmma__emit_asm_helper(dl, out, "tcmma_tmem_dealloc", "unsigned taddr, unsigned ncols",
                         OPCODE(TMEM_DEALLOC),
                         "asm volatile(\"%s %%0, %%1;\\n\" :: \"r\"(taddr), \"r\"(ncols) : "
                         "\"memory\");",
                         "tcmma_sim_tcgen05_dealloc(\"%s\", taddr, ncols);");
  tcmma__emit_asm_helper(dl, out, "tcmma_tcgen05_commit", "unsigned long long *bar",
                         OPCODE(TCGEN05_COMMIT),
                         "asm volatile(\"%s [%%0];\\n\" :: \"r\"(" SMEM("bar") ") : \"memory\");",
                         "tcmma_sim_tcgen05_commit(\"%s\", bar);");
  tcmma__emit_asm_helper(dl, out, "tcmma_tcgen05_fence_before", "void",
                         OPCODE(TCGEN05_FENCE_BEFORE), PLAIN_ASM, "tcmma_sim_tcgen05_fence(\"%s\");");
  tcmma__emit_asm_helper(dl, out, "tcmma_tcgen05_fence_after", "void", OPCODE(TCGEN05_FENCE_AFTER),
                         PLAIN_ASM, "tcmma_sim_tcgen05_fence(\"%s\");");
  tcmma__emit_asm_helper(dl, out, "tcmma_tcgen05_wait_ld", "void", OPCODE(TCGEN05_WAIT_LD),
                         PLAIN_ASM, "tcmma_sim_tcgen05_wait(\"%s\");");
  tcmma__emit_asm_helper(dl, out, "tcmma_tcgen05_wait_st", "void", OPCODE(TCGEN05_WAIT_ST),
                         PLAIN_ASM, "tcmma_sim_tcgen05_wait(\"%s\");");
  tcmma_buf_printf(out, "#endif\n");
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "tcgen05 helpers: out of memory")
                     : TCMMA_OK;
}

/* The register list "{%o, %o+1, ...}" of regs operands from o. */
static void reg_list(tcmma_buf *out, int o, int regs) {
  tcmma_buf_printf(out, "{");
  for (int r = 0; r < regs; r++)
    tcmma_buf_printf(out, "%s%%%d", r ? (r % 8 ? ", " : ",\"\n               \" ") : "", o + r);
  tcmma_buf_printf(out, "}");
}

/* The constraints of regs registers r[0..]: "=r"(r[0]), ... or "r"(r[0]). */
static void reg_operands(tcmma_buf *out, const char *c, int regs) {
  for (int r = 0; r < regs; r++)
    tcmma_buf_printf(out, "%s\"%s\"(tcmma_r[%d])", r ? (r % 4 ? ", " : ",\n               ") : "",
                     c, r);
}

/* The CUDA body: the instruction and its wait in one asm statement, so that
 * a load's registers are defined (and a store's values in Tensor Memory)
 * when it returns. */
static void ldst_asm(const char *op, const char *wait, bool store, int regs, tcmma_buf *out) {
  tcmma_buf_printf(out, "  asm volatile(\"%s ", op);
  if (store) {
    tcmma_buf_printf(out, "[%%0], ");
    reg_list(out, 1, regs);
  } else {
    reg_list(out, 0, regs);
    tcmma_buf_printf(out, ", [%%%d]", regs);
  }
  tcmma_buf_printf(out, ";\\n\"\n               \"%s;\\n\"\n               : ", wait);
  if (store) {
    tcmma_buf_printf(out, ": \"r\"(tcmma_taddr),\n               ");
    reg_operands(out, "r", regs);
  } else {
    reg_operands(out, "=r", regs);
    tcmma_buf_printf(out, "\n               : \"r\"(tcmma_taddr)");
  }
  tcmma_buf_printf(out, "\n               : \"memory\");\n");
}

tcmma_status tcmma_render_tcgen05_ldst(tcmma_dialect dl, tcmma_tcgen05_ldst shape, int num,
                                       bool store, tcmma_buf *out, tcmma_error *err) {
  if (dl != TCMMA_DIALECT_CUDA && dl != TCMMA_DIALECT_HOST)
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 ld/st: dialect %d: expected cuda or host",
                      (int)dl);
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "tcgen05 ld/st: out must not be NULL");
  int regs = tcmma_tcgen05_ldst_regs(shape, num);
  if (!regs)
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 ld/st: shape %d at .x%d: expected a shape of "
                      "tables/tcgen05_desc.def and a power of two num of at most 128 registers",
                      (int)shape, num);
  const char *name = tcmma_tcgen05_ldst_name(shape), *verb = store ? "st" : "ld";
  char op[96], guard[64], fn[64];
  snprintf(op, sizeof op, store ? OPCODE(TCGEN05_ST) : OPCODE(TCGEN05_LD), name, num);
  snprintf(fn, sizeof fn, "tcmma_tcgen05_%s_%s_x%d", verb, name, num);
  snprintf(guard, sizeof guard, "TCMMA_TCGEN05_%s_%s_X%d", store ? "ST" : "LD", name, num);
  for (char *g = guard; *g; g++) *g = (char)toupper((unsigned char)*g);
  bool host = dl == TCMMA_DIALECT_HOST;
  tcmma_buf_printf(out, "#ifndef %s\n#define %s\n", guard, guard);
  tcmma_buf_printf(out, "/* tcmma: a warp's %s of %d register%s per thread, then its wait */\n",
                   op, regs, regs == 1 ? "" : "s");
  tcmma_buf_printf(out, "%s void %s(unsigned tcmma_taddr, %sunsigned %stcmma_r%s[%d]) {\n",
                   SPELL(dl, DEVICE_FN), fn, store ? "const " : "", host ? "" : "(&",
                   host ? "" : ")", regs);
  const char *wait = store ? OPCODE(TCGEN05_WAIT_ST) : OPCODE(TCGEN05_WAIT_LD);
  if (host)
    tcmma_buf_printf(out, "  tcmma_sim_tcgen05_%s(\"%s\", %s);\n  tcmma_sim_tcgen05_wait(\"%s\");\n",
                     verb, op, store ? "tcmma_taddr, tcmma_r" : "tcmma_r, tcmma_taddr", wait);
  else ldst_asm(op, wait, store, regs, out);
  tcmma_buf_printf(out, "}\n#endif\n");
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "tcgen05 ld/st: out of memory") : TCMMA_OK;
}

/* The scale atoms' descriptor: K-major rows of 16 bytes, no swizzle, 8-row
 * groups ATOM_SBO apart (the start address added by the helper). */
static tcmma_status atom_desc(uint64_t *desc, tcmma_error *err) {
  return tcmma_tcgen05_desc_encode(0, 16, TCMMA_TCGEN05_SCALE_ATOM_SBO, 0, TCMMA_SWIZZLE_NONE, desc,
                                   err);
}

tcmma_status tcmma_render_tcgen05_cp(tcmma_dialect dl, tcmma_buf *out, tcmma_error *err) {
  if (dl != TCMMA_DIALECT_CUDA && dl != TCMMA_DIALECT_HOST)
    return tcmma_fail(err, TCMMA_INVALID, "tcgen05 cp: dialect %d: expected cuda or host", (int)dl);
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "tcgen05 cp: out must not be NULL");
  uint64_t desc;
  tcmma_status st = atom_desc(&desc, err);
  if (st != TCMMA_OK) return st;
  const char *op = OPCODE(TCGEN05_CP_SCALES);
  tcmma_buf_printf(out, "#ifndef TCMMA_TCGEN05_CP_SCALES\n#define TCMMA_TCGEN05_CP_SCALES\n"
                        "/* tcmma: a block-scaled product's scales from shared memory to Tensor "
                        "Memory,\n * called by the thread that issues the product, before it (its "
                        "tcgen05.mma\n * reads them in order): atom j of %d bytes at src (16-byte "
                        "aligned) to\n * columns taddr + %d j (%s) */\n",
                   TCMMA_TCGEN05_SCALE_ATOM_BYTES,
                   TCMMA_TCGEN05_SCALE_ATOM_ROWS / TCMMA_TCGEN05_SCALE_LANES, op);
  tcmma_buf_printf(out, "%s void tcmma_tcgen05_cp_scales(unsigned tcmma_taddr, const void *tcmma_src, "
                        "int tcmma_atoms) {\n"
                        "  const unsigned long long tcmma_d0 = 0x%016llxull |\n"
                        "      (((unsigned)%s(tcmma_src) & 0x3FFFFu) >> 4);\n"
                        "  for (int tcmma_j = 0; tcmma_j < tcmma_atoms; tcmma_j++) {\n"
                        "    const unsigned tcmma_t = tcmma_taddr + (unsigned)tcmma_j * %du;\n"
                        "    const unsigned long long tcmma_d = tcmma_d0 + (unsigned long long)"
                        "tcmma_j * %du;\n",
                   SPELL(dl, DEVICE_FN), (unsigned long long)desc, SPELL(dl, CVTA_SHARED),
                   TCMMA_TCGEN05_SCALE_ATOM_ROWS / TCMMA_TCGEN05_SCALE_LANES,
                   TCMMA_TCGEN05_SCALE_ATOM_BYTES >> 4);
  if (dl == TCMMA_DIALECT_HOST)
    tcmma_buf_printf(out, "    tcmma_sim_tcgen05_cp(\"%s\", tcmma_t, tcmma_d);\n", op);
  else
    tcmma_buf_printf(out, "    asm volatile(\"%s [%%0], %%1;\\n\" :: \"r\"(tcmma_t), \"l\"(tcmma_d) : "
                          "\"memory\");\n", op);
  tcmma_buf_printf(out, "  }\n}\n#endif\n");
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "tcgen05 cp: out of memory") : TCMMA_OK;
}
