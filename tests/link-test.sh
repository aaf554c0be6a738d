#!/bin/sh
# Data flows one way: a static program that calls only a pure stage of the
# pipeline must not pull in the stages after it. Links two programs against
# the build's libtcmma.a with the linker's --trace (it names every archive
# member it takes) and fails if either takes NVRTC, the driver API, the
# cache or the compile driver. Prints what each took.
# Environment (set by `make check`): TCMMA_SRCDIR, TCMMA_BUILD, TCMMA_SANFLAGS.
set -eu
src=${TCMMA_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${TCMMA_BUILD:-$src/build}
tmp=$(mktemp -d /tmp/tcmma-link-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
forbidden='nvrtc.o driver.o cache.o compile.o arch_options.o target.o sha256.o program.o
           includes.o library_id.o cache_dir.o cache_upkeep.o'

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
status=0
for prog in arch resolve; do
  # shellcheck disable=SC2086
  ${CC:-cc} -std=c11 ${TCMMA_SANFLAGS:-} -I"$src/include" -I"$src" -o "$tmp/$prog" "$tmp/$prog.c" \
    "$build/libtcmma.a" -ldl -lpthread -lm -Wl,-Map="$tmp/$prog.map" >"$tmp/$prog.log" 2>&1 ||
    { cat "$tmp/$prog.log"; echo "link-test: $prog did not link"; exit 1; }
  "$tmp/$prog" || { echo "link-test: $prog ran and failed"; exit 1; }
  took=$(sed -n 's/^[^ ]*libtcmma\.a(\([a-z_0-9]*\.o\)).*/\1/p' "$tmp/$prog.map" | sort -u | tr '\n' ' ')
  echo "link-test: $prog took ${took:-nothing}"
  [ -n "$took" ] || { echo "link-test: the link map names no member of libtcmma.a"; status=1; }
  for f in $forbidden; do
    case " $took " in *" $f "*) echo "link-test: $prog pulled in $f"; status=1;; esac
  done
done
exit $status
