#!/bin/sh
# Data flows one way: a static program that calls only a pure stage of the
# pipeline must not pull in the stages after it. Links four programs with
# the linker's map (it names every archive member it takes) and fails when
#   arch           (tcmma_arch_decide: arch targeting, itself in nvrtc/) takes
#                  NVRTC, the driver API, the cache or the compile driver;
#   resolve        (tcmma_resolve) takes any nvrtc/ object;
#   render         (tcmma_plan_call + tcmma_render_statement) takes any nvrtc/
#                  object;
#   sim            (tcmma_sim_launch, libtcmma_sim.a) takes any nvrtc/ object
#                  or any mma/ emission object.
# The nvrtc/ and mma/ lists are derived from the build's objects (every .o
# under obj/nvrtc/, obj/mma/ less mma/sim/), not written by hand. Prints
# what each program took.
# Environment (set by `make check`): TCMMA_SRCDIR, TCMMA_BUILD, TCMMA_SANFLAGS.
set -eu
src=${TCMMA_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${TCMMA_BUILD:-$src/build}
tmp=$(mktemp -d /tmp/tcmma-link-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
members() {
  (cd "$build/obj" && find "$@" -name '*.o' -exec basename {} \; | sort -u | tr '\n' ' ')
}
nvrtc_objs=$(members nvrtc)
emit_objs=$(cd "$build/obj" && find mma -path mma/sim -prune -o -name '*.o' -print |
            xargs -n1 basename | sort -u | tr '\n' ' ')
# The stages after arch targeting inside nvrtc/.
after_arch='nvrtc.o driver.o cache.o cache_blob.o compile.o arch_options.o target.o sha256.o
            program.o includes.o library_id.o cache_dir.o cache_upkeep.o batch.o'
[ -n "$nvrtc_objs" ] && [ -n "$emit_objs" ] ||
  { echo "link-test: no nvrtc/ or mma/ objects under $build/obj"; exit 1; }

cat >"$tmp/arch.c" <<'C'
#include <tcmma/arch.h>
int main(void) {
  tcmma_arch_support s = {.archs = {75, 80, 90}, .count = 3};
  tcmma_arch_options o;
  static const char src[] = "/* tile-mma (mma-bf16) */";
  return tcmma_arch_decide(src, sizeof src - 1, 0, TCMMA_TARGET_FLOOR, &s, &o, NULL) != TCMMA_OK
         || o.arch != 80;
}
C
cat >"$tmp/resolve.c" <<'C'
#include <tcmma/resolve.h>
int main(void) {
  tcmma_triple t = {TCMMA_PREC_F32, TCMMA_PREC_BF16, TCMMA_PREC_BF16};
  tcmma_arm arm;
  return tcmma_resolve(t, NULL, TCMMA_SCOPE_STATEMENT, 80, &arm, NULL) != TCMMA_OK;
}
C
cat >"$tmp/render.c" <<'C'
#include <string.h>
#include <tcmma/plan.h>
#include <tcmma/render.h>
int main(void) {
  tcmma_call c = tcmma_call_default();
  c.d.prec = TCMMA_PREC_F32, c.a.prec = TCMMA_PREC_F16, c.b.prec = TCMMA_PREC_F16;
  c.m = 16, c.n = 8, c.k = 16, c.cc = 80;
  tcmma_plan p;
  tcmma_names names = {NULL, 0};
  tcmma_buf out = {0};
  int bad = tcmma_plan_call(&c, &p, NULL) != TCMMA_OK;
  tcmma_render_ctx ctx = tcmma_render_ctx_make(&p, TCMMA_DIALECT_CUDA, &names, &out);
  bad = bad || tcmma_render_statement(&ctx, "d", "a", "b", NULL) != TCMMA_OK ||
            !strstr(tcmma_buf_str(&out), "mma.sync");
  tcmma_buf_free(&out);
  return bad;
}
C
cat >"$tmp/sim.c" <<'C'
#include <tcmma/sim.h>
static int seen[32];
static void lane(void *arg) {
  (void)arg;
  seen[tcmma_sim_lane()] = 1;
  tcmma_sim_syncwarp();
}
int main(void) {
  if (tcmma_sim_launch(lane, NULL, NULL) != TCMMA_OK) return 1;
  for (int i = 0; i < 32; i++) if (!seen[i]) return 1;
  return 0;
}
C
status=0
for prog in arch resolve render sim; do
  libs="$build/libtcmma.a"
  forbidden=$nvrtc_objs
  [ "$prog" = arch ] && forbidden=$after_arch
  if [ "$prog" = sim ]; then
    libs="$build/libtcmma_sim.a $build/libtcmma.a"
    forbidden="$nvrtc_objs $emit_objs"
  fi
  # shellcheck disable=SC2086
  ${CC:-cc} -std=c11 ${TCMMA_SANFLAGS:-} -I"$src/include" -I"$src" -o "$tmp/$prog" "$tmp/$prog.c" \
    $libs -ldl -lpthread -lm -Wl,-Map="$tmp/$prog.map" >"$tmp/$prog.log" 2>&1 ||
    { cat "$tmp/$prog.log"; echo "link-test: $prog did not link"; exit 1; }
  "$tmp/$prog" || { echo "link-test: $prog ran and failed"; exit 1; }
  took=$(sed -n 's/^[^ ]*\(libtcmma[a-z_]*\.a\)(\([a-z_0-9]*\.o\)).*/\1(\2)/p' "$tmp/$prog.map" |
         sort -u | tr '\n' ' ')
  echo "link-test: $prog took ${took:-nothing}"
  [ -n "$took" ] || { echo "link-test: the link map names no member of libtcmma*.a"; status=1; }
  for m in $took; do
    case $m in libtcmma.a\(*) ;; *) continue ;; esac
    o=${m#libtcmma.a(}
    o=${o%)}
    case " $forbidden " in *" $o "*) echo "link-test: $prog pulled in $o"; status=1;; esac
  done
done
exit $status
