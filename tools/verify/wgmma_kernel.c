/* The wgmma case's kernel (tools/verify/wgmma.h), in both dialects: the
 * rendered tile product (tcmma_wgmma_render) and an entry run by one
 * warpgroup that copies the operand images into dynamic shared memory with
 * ordinary stores, publishes them (fence.proxy.async and a barrier: the
 * tile's own _publish), loads its accumulators, multiplies and stores them. */
#include <stdio.h>
#include "tools/verify/wgmma.h"

#define TILE "tcmma_wg_tile"

tcmma_status verify_wgmma_kernel(const verify_wgmma_data *x, tcmma_dialect dl, const char *after,
                                 tcmma_buf *out, tcmma_error *err) {
  const verify_wgmma_case *c = &x->c;
  bool host = dl == TCMMA_DIALECT_HOST;
  tcmma_wgmma_call call = verify_wgmma_call(c, dl, TILE);
  tcmma_status st = tcmma_wgmma_render(&call, out, err);
  if (st != TCMMA_OK) return st;
  const char *acc = x->info->acc == TCMMA_PREC_F32   ? "float"
                    : x->info->acc == TCMMA_PREC_S32 ? "int"
                                                     : "unsigned";
  char ta[64], tb[64];
  snprintf(ta, sizeof ta, "(const %s *)", host ? "void" : tcmma_prec_cuda_type(c->a));
  snprintf(tb, sizeof tb, "(const %s *)", host ? "void" : tcmma_prec_cuda_type(c->b));
  tcmma_buf_printf(out, "/* tcmma verify: %s */\n", c->name);
  tcmma_buf_printf(out, "%s tcmma_kernel(%s *d, const unsigned char *ga, const unsigned char *gb,\n"
                        "    const %s *c0, const unsigned *ra) {\n",
                   host ? "void" : "extern \"C\" __global__ void __launch_bounds__(128, 1)", acc, acc);
  if (host) tcmma_buf_printf(out, "  unsigned char *tcmma_s = (unsigned char *)tcmma_sim_dynamic_shared();\n"
                                  "  const unsigned tcmma_t = tcmma_sim_lane();\n");
  else tcmma_buf_printf(out, "  extern __shared__ __align__(1024) unsigned char tcmma_s[];\n"
                             "  const unsigned tcmma_t = threadIdx.x;\n");
  tcmma_buf_printf(out, "  (void)ga, (void)ra;\n"
                        "  for (long tcmma_i = tcmma_t; tcmma_i < %ld; tcmma_i += %d) tcmma_s[tcmma_i] = ga[tcmma_i];\n"
                        "  for (long tcmma_i = tcmma_t; tcmma_i < %ld; tcmma_i += %d) tcmma_s[%ld + tcmma_i] = gb[tcmma_i];\n"
                        "  " TILE "_publish();\n"
                        "  %s tcmma_acc[%d];\n"
                        "  for (int tcmma_i = 0; tcmma_i < %d; tcmma_i++) tcmma_acc[tcmma_i] = c0[tcmma_t * %d + tcmma_i];\n",
                   x->a_bytes, VERIFY_WGMMA_THREADS, x->b_bytes, VERIFY_WGMMA_THREADS, x->b_at, acc,
                   x->regs, x->regs, x->regs);
  if (c->a_regs)
    tcmma_buf_printf(out, "  unsigned tcmma_a[%d][4];\n"
                          "  for (int tcmma_i = 0; tcmma_i < %d; tcmma_i++)\n"
                          "    tcmma_a[tcmma_i / 4][tcmma_i %% 4] = ra[tcmma_t * %d + tcmma_i];\n",
                     x->steps, 4 * x->steps, 4 * x->steps);
  char a_arg[96]; /* registers, or the shared tile at offset 0 */
  snprintf(a_arg, sizeof a_arg, "%stcmma_s", ta);
  tcmma_buf_printf(out, "  " TILE "(tcmma_acc, %s, %s(tcmma_s + %ld), %s);\n",
                   c->a_regs ? "tcmma_a" : a_arg, tb, x->b_at, host ? "1" : "true");
  tcmma_buf_printf(out, "  %s\n"
                        "  for (int tcmma_i = 0; tcmma_i < %d; tcmma_i++) d[tcmma_t * %d + tcmma_i] = tcmma_acc[tcmma_i];\n"
                        "}\n",
                   after ? after : "", x->regs, x->regs);
  if (host)
    tcmma_buf_printf(out, "void tcmma_kernel_entry(void *args) {\n"
                          "  void **p = (void **)args;\n"
                          "  tcmma_kernel(p[0], p[1], p[2], p[3], p[4]);\n}\n");
  return out->failed ? tcmma_fail(err, TCMMA_NO_MEMORY, "wgmma kernel: out of memory") : TCMMA_OK;
}
