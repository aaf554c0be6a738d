/* TMA and mbarrier pieces (include/tcmma/tma.h): one helper function per
 * PTX instruction of tables/collectives.def, in CUDA as inline asm and in
 * the host dialect as the simulator's call with the same opcode; and a
 * one-box test kernel of them. */
#include <stdio.h>
#include <string.h>
#include "tcmma/tma.h"
#include "emit.h"

#define SPELL(dl, id) tcmma__table_spell(dl, TCMMA__SPELL_##id)
#define OPCODE(id) tcmma__emit_collective_opcode(TCMMA__COLL_##id)
#define helper(dl, out, name, params, op, asm_fmt, host_fmt) \
  tcmma__emit_asm_helper(dl, out, name, params, tcmma__emit_collective_opcode(op), asm_fmt, host_fmt)
#define BAR_PARAM "unsigned long long *bar"
#define SMEM(p) "(unsigned)__cvta_generic_to_shared(" p ")"

/* The try_wait loop: PTX's try_wait returns after a bounded wait either
 * way, so the C loop retries until the phase of that parity completed. */
static void wait_helper(tcmma_dialect dl, tcmma_buf *out) {
  tcmma_buf_printf(out, "%s void tcmma_mbar_wait(" BAR_PARAM ", unsigned parity) {\n",
                   SPELL(dl, DEVICE_FN));
  if (dl == TCMMA_DIALECT_HOST) {
    tcmma_buf_printf(out, "  tcmma_sim_mbar_wait(\"%s\", bar, parity);\n}\n", OPCODE(MBAR_TRY_WAIT));
    return;
  }
  tcmma_buf_printf(out,
                   "  unsigned done;\n"
                   "  do {\n"
                   "    asm volatile(\"{\\n .reg .pred p;\\n %s p, [%%1], %%2;\\n"
                   " selp.u32 %%0, 1, 0, p;\\n}\\n\"\n"
                   "                 : \"=r\"(done) : \"r\"(" SMEM("bar") "), \"r\"(parity)"
                   " : \"memory\");\n"
                   "  } while (!done);\n}\n",
                   OPCODE(MBAR_TRY_WAIT));
}

/* tcmma_elect_one: elect.sync over the whole warp, true in the one lane
 * elected (called by every lane of a warp-uniform branch). */
static void elect_helper(tcmma_dialect dl, tcmma_buf *out) {
  tcmma_buf_printf(out, "%s %s tcmma_elect_one(void) {\n", SPELL(dl, DEVICE_FN), SPELL(dl, BOOL));
  if (dl == TCMMA_DIALECT_HOST) {
    tcmma_buf_printf(out, "  return tcmma_sim_elect_sync(\"%s\", 0xffffffffu, NULL);\n}\n",
                     OPCODE(ELECT_SYNC));
    return;
  }
  tcmma_buf_printf(out,
                   "  unsigned elected;\n"
                   "  asm volatile(\"{\\n .reg .pred p;\\n %s _|p, 0xffffffff;\\n"
                   " selp.u32 %%0, 1, 0, p;\\n}\\n\" : \"=r\"(elected));\n"
                   "  return elected != 0;\n}\n",
                   OPCODE(ELECT_SYNC));
}

/* tcmma_tma_load_<rank>d. */
static void load_helper(tcmma_dialect dl, int rank, tcmma_buf *out) {
  char opcode[160], coords[64] = "", operands[96] = "", params[96] = "";
  snprintf(opcode, sizeof opcode, OPCODE(TMA_LOAD), rank);
  for (int i = 0; i < rank; i++) {
    size_t n = strlen(coords), o = strlen(operands), p = strlen(params);
    snprintf(coords + n, sizeof coords - n, "%sc%d", i ? ", " : "", i);
    snprintf(operands + o, sizeof operands - o, "%s%%%d", i ? ", " : "", i + 3);
    snprintf(params + p, sizeof params - p, ", int c%d", i);
  }
  tcmma_buf_printf(out, "%s void tcmma_tma_load_%dd(void *dst, const %s *map, " BAR_PARAM "%s) {\n",
                   SPELL(dl, DEVICE_FN), rank, SPELL(dl, CU_TENSOR_MAP), params);
  if (dl == TCMMA_DIALECT_HOST) {
    tcmma_buf_printf(out, "  const int c[%d] = {%s};\n  tcmma_sim_tma_load(\"%s\", dst, map, bar, c);\n}\n",
                     rank, coords, opcode);
    return;
  }
  tcmma_buf_printf(out, "  asm volatile(\"%s [%%0], [%%1, {%s}], [%%2];\\n\"\n", opcode, operands);
  tcmma_buf_printf(out, "               :: \"r\"(" SMEM("dst") "), \"l\"(map), \"r\"(" SMEM("bar")
                        ")");
  for (int i = 0; i < rank; i++) tcmma_buf_printf(out, ", \"r\"(c%d)", i);
  tcmma_buf_printf(out, " : \"memory\");\n}\n");
}

tcmma_status tcmma_render_tma_helpers(tcmma_dialect dl, tcmma_buf *out, tcmma_error *err) {
  if (dl != TCMMA_DIALECT_CUDA && dl != TCMMA_DIALECT_HOST)
    return tcmma_fail(err, TCMMA_INVALID, "tma helpers: dialect %d: expected cuda or host", (int)dl);
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "tma helpers: out must not be NULL");
  tcmma_buf_printf(out, "#ifndef TCMMA_TMA_HELPERS\n#define TCMMA_TMA_HELPERS\n"
                        "/* tcmma: TMA and mbarrier helpers (sm_90: tables/collectives.def) */\n");
  if (dl == TCMMA_DIALECT_CUDA) tcmma__emit_cuda_word(TCMMA__SPELL_CU_TENSOR_MAP, out);
  helper(dl, out, "tcmma_mbar_init", BAR_PARAM ", unsigned arrivals", TCMMA__COLL_MBAR_INIT,
         "asm volatile(\"%s [%%0], %%1;\\n\" :: \"r\"(" SMEM("bar") "), \"r\"(arrivals) : \"memory\");",
         "tcmma_sim_mbar_init(\"%s\", bar, arrivals);");
  helper(dl, out, "tcmma_mbar_init_fence", "void", TCMMA__COLL_MBAR_INIT_FENCE,
         "asm volatile(\"%s;\\n\" ::: \"memory\");", "tcmma_sim_fence(\"%s\");");
  helper(dl, out, "tcmma_mbar_arrive", BAR_PARAM, TCMMA__COLL_MBAR_ARRIVE,
         "asm volatile(\"%s _, [%%0];\\n\" :: \"r\"(" SMEM("bar") ") : \"memory\");",
         "tcmma_sim_mbar_arrive(\"%s\", bar, 0);");
  helper(dl, out, "tcmma_mbar_arrive_expect_tx", BAR_PARAM ", unsigned bytes",
         TCMMA__COLL_MBAR_EXPECT_TX,
         "asm volatile(\"%s _, [%%0], %%1;\\n\" :: \"r\"(" SMEM("bar") "), \"r\"(bytes) : \"memory\");",
         "tcmma_sim_mbar_arrive(\"%s\", bar, bytes);");
  wait_helper(dl, out);
  helper(dl, out, "tcmma_fence_proxy_async", "void", TCMMA__COLL_FENCE_PROXY_ASYNC,
         "asm volatile(\"%s;\\n\" ::: \"memory\");", "tcmma_sim_fence(\"%s\");");
  elect_helper(dl, out);
  for (int rank = 1; rank <= TCMMA_TMAP_RANK_MAX; rank++) load_helper(dl, rank, out);
  tcmma_buf_printf(out, "#endif\n");
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "tma helpers: out of memory") : TCMMA_OK;
}

/* The kernel's body: init, expect and load, wait, copy out. */
static void kernel_body(tcmma_dialect dl, const tcmma_tensor_map *map, long long bytes,
                        tcmma_buf *out) {
  bool host = dl == TCMMA_DIALECT_HOST;
  tcmma__emit_line(out, 1, "%s unsigned char tcmma_tile[%lld];", SPELL(dl, SHARED_1024), bytes);
  tcmma__emit_line(out, 1, "%s unsigned long long tcmma_bar;", SPELL(dl, SHARED));
  tcmma__emit_line(out, 1, "const unsigned tcmma_tid = %s;", SPELL(dl, THREAD_IDX));
  tcmma__emit_line(out, 1, "if (tcmma_tid == 0) {");
  tcmma__emit_line(out, 2, "tcmma_mbar_init(&tcmma_bar, 1);");
  tcmma__emit_line(out, 2, "tcmma_mbar_init_fence(); /* the barrier, seen by the async proxy */");
  tcmma__emit_line(out, 1, "}");
  tcmma__emit_line(out, 1, "%s;", SPELL(dl, SYNCTHREADS));
  tcmma__emit_line(out, 1, "if (tcmma_tid == 0) {");
  tcmma__emit_line(out, 2, "tcmma_mbar_arrive_expect_tx(&tcmma_bar, %lld);", bytes);
  char coords[64] = "";
  for (int i = 0; i < map->rank; i++) {
    size_t n = strlen(coords);
    snprintf(coords + n, sizeof coords - n, ", c%d", i);
  }
  tcmma__emit_line(out, 2, "tcmma_tma_load_%dd(tcmma_tile, &map, &tcmma_bar%s);", map->rank,
                   coords);
  tcmma__emit_line(out, 1, "}");
  tcmma__emit_line(out, 1, "tcmma_mbar_wait(&tcmma_bar, 0);");
  tcmma__emit_line(out, 1, "for (unsigned tcmma_i = tcmma_tid * 16; tcmma_i < %lld; tcmma_i += "
                   "%s * 16)", bytes, SPELL(dl, BLOCK_DIM_X));
  if (host)
    tcmma__emit_line(out, 2, "tcmma_sim_ld_shared(out + tcmma_i, tcmma_tile + tcmma_i, 16);");
  else
    tcmma__emit_line(out, 2, "*(uint4 *)(out + tcmma_i) = *(const uint4 *)(tcmma_tile + tcmma_i);");
}

tcmma_status tcmma_render_tma_kernel(tcmma_dialect dl, const tcmma_tensor_map *map,
                                     const char *name, tcmma_buf *out, tcmma_error *err) {
  if (dl != TCMMA_DIALECT_CUDA && dl != TCMMA_DIALECT_HOST)
    return tcmma_fail(err, TCMMA_INVALID, "tma kernel: dialect %d: expected cuda or host", (int)dl);
  if (!out) return tcmma_fail(err, TCMMA_INVALID, "tma kernel: out must not be NULL");
  if (!name) name = "tcmma_tma_kernel";
  if (!tcmma__emit_is_ident(name, 64))
    return tcmma_fail(err, TCMMA_INVALID, "tma kernel: name '%s' is not a C identifier of at "
                      "most 64 characters", name);
  tcmma_status s = tcmma_tensor_map_check(map, NULL, err);
  if (s != TCMMA_OK) return s;
  long long bytes = tcmma_tensor_map_box_bytes(map);
  if (bytes > 48 * 1024)
    return tcmma_fail(err, TCMMA_INVALID, "tma kernel: a box of %lld bytes: the test kernel "
                      "holds at most 49152 (static shared memory)", bytes);
  if (dl == TCMMA_DIALECT_HOST) tcmma_buf_printf(out, "#include \"tcmma/sim.h\"\n");
  if (s = tcmma_render_tma_helpers(dl, out, err), s != TCMMA_OK) return s;
  tcmma_buf_printf(out, "/* tcmma: one TMA box of a rank-%d %s tensor map, %lld bytes, swizzle %s "
                        "(cp.async.bulk.tensor) */\n",
                   map->rank, tcmma_prec_name(map->prec), bytes, tcmma_swizzle_name(map->swizzle));
  tcmma__emit_kernel_signature(dl, NULL, name, out);
  tcmma_buf_printf(out, "%s %s map, unsigned char *out, int c0, int c1, int c2, int c3, int c4) {\n",
                   tcmma__emit_grid_constant(dl), SPELL(dl, CU_TENSOR_MAP));
  for (int i = map->rank; i < TCMMA_TMAP_RANK_MAX; i++) /* the coordinates past the rank */
    tcmma__emit_line(out, 1, "(void)c%d;", i);
  kernel_body(dl, map, bytes, out);
  tcmma_buf_printf(out, "}\n");
  if (dl == TCMMA_DIALECT_HOST)
    tcmma_buf_printf(out, "void %s_entry(void *args) {\n  void **a = (void **)args;\n"
                          "  %s(*(const tcmma_tensor_map *)a[0], (unsigned char *)a[1], *(int *)a[2], "
                          "*(int *)a[3],\n      *(int *)a[4], *(int *)a[5], *(int *)a[6]);\n}\n",
                     name, name);
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "tma kernel: out of memory") : TCMMA_OK;
}
