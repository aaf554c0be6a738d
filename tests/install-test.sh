#!/bin/sh
# Installs tcmma into a scratch DESTDIR with PREFIX=/usr, then builds and runs
# against the installed tree through tcmma.pc (sysroot-aware pkg-config): a
# small C program, dynamically and statically; a C++ generator that plans,
# renders, compiles (NVRTC) and reads the PTX back; a program running a warp
# on the simulator of libtcmma_sim.a. Any missing piece fails.
# Environment (set by `make check`): TCMMA_SRCDIR, TCMMA_BUILD, TCMMA_SAN,
# TCMMA_SANFLAGS (the sanitizer flags the library was built with).
set -eu
src=${TCMMA_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${TCMMA_BUILD:-$src/build}
tmp=$(mktemp -d /tmp/tcmma-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
unset MAKEFLAGS MFLAGS MAKELEVEL   # a fresh make, not a child of make check's jobserver
make -s -C "$src" install DESTDIR="$tmp/root" PREFIX=/usr BUILD="$build" SAN="${TCMMA_SAN:-}" \
  >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; echo "install-test: make install failed"; exit 1; }

root=$tmp/root/usr
soname=$(sed -n 's/^SONAME *:= *//p' "$src/Makefile")
for f in include/tcmma/tcmma.h include/tcmma/resolve.h include/tcmma/sim.h \
         include/tcmma/tables/arms.def include/tcmma/tables/resolve.def \
         include/tcmma/tables/prec.def lib/libtcmma.a lib/libtcmma_sim.a lib/libtcmma.so \
         "lib/$soname" lib/pkgconfig/tcmma.pc bin/tcmma; do
  [ -e "$root/$f" ] || { echo "install-test: $f was not installed"; exit 1; }
done
grep -q '^prefix=/usr$' "$root/lib/pkgconfig/tcmma.pc" ||
  { echo "install-test: tcmma.pc does not say prefix=/usr"; cat "$root/lib/pkgconfig/tcmma.pc"; exit 1; }

cat >"$tmp/prog.c" <<'C'
#include <stdio.h>
#include <tcmma/tcmma.h>
int main(void) {
  tcmma_triple t = {TCMMA_PREC_F32, TCMMA_PREC_F16, TCMMA_PREC_F16};
  tcmma_arm arm;
  tcmma_error err;
  if (tcmma_resolve(t, NULL, TCMMA_SCOPE_STATEMENT, 80, &arm, &err) != TCMMA_OK)
    return fprintf(stderr, "%s\n", err.message), 1;
  return printf("%s\n", tcmma_arm_marker(arm)) < 0;
}
C
pc() { PKG_CONFIG_SYSROOT_DIR="$tmp/root" PKG_CONFIG_LIBDIR="$root/lib/pkgconfig" pkg-config "$@" tcmma; }
flags=$(pc --cflags --libs) || { echo "install-test: pkg-config cannot read tcmma.pc"; exit 1; }
case $flags in *"$tmp/root/usr/include"*) ;; *) echo "install-test: pkg-config flags do not name the installed $tmp/root/usr/include: $flags"; exit 1;; esac
# Only the installed tree is on the include path. Both orders: the README's
# (flags before the program) and the conventional one (libraries last).
# shellcheck disable=SC2086
for order in first last; do
  if [ $order = first ]; then
    ${CC:-cc} ${TCMMA_SANFLAGS:-} $flags "$tmp/prog.c" -o "$tmp/prog"
  else
    ${CC:-cc} -std=c11 ${TCMMA_SANFLAGS:-} -o "$tmp/prog" "$tmp/prog.c" $flags
  fi
  out=$(LD_LIBRARY_PATH="$root/lib" "$tmp/prog")
  [ "$out" = "mma-f16" ] ||
    { echo "install-test: dynamic program (flags $order) printed '$out', expected mma-f16"; exit 1; }
done
# shellcheck disable=SC2086,SC2046
${CC:-cc} -std=c11 ${TCMMA_SANFLAGS:-} -o "$tmp/prog-static" "$tmp/prog.c" $(pc --cflags) \
  "$root/lib/libtcmma.a" $(pc --static --libs-only-l | sed 's/-ltcmma//')
out=$("$tmp/prog-static")
[ "$out" = "mma-f16" ] || { echo "install-test: static program printed '$out', expected mma-f16"; exit 1; }
needed=$(readelf -d "$tmp/prog" | sed -n 's/.*(NEEDED).*\[\(libtcmma[^]]*\)\]/\1/p')
[ "$needed" = "$soname" ] ||
  { echo "install-test: the program needs '$needed', expected the soname $soname"; exit 1; }

# A generator written in C++ (extern "C" headers): plan a 32x16x32 f16 call
# for cc 80, render its kernel, compile it with NVRTC at its floor and read
# the PTX back: 2*2*2 m16n8k16 tiles are 8 mma.sync at sm_80.
cat >"$tmp/gen.cc" <<'CXX'
#include <cstdio>
#include <cstring>
#include <tcmma/tcmma.h>
static int fail(const char *what, const tcmma_error &err) {
  std::fprintf(stderr, "%s: %s\n", what, err.message);
  return 1;
}
int main() {
  tcmma_call call = tcmma_call_default();
  call.m = 32, call.n = 16, call.k = 32, call.cc = 80;
  tcmma_plan plan;
  tcmma_error err;
  if (tcmma_plan_call(&call, &plan, &err) != TCMMA_OK) return fail("plan", err);
  tcmma_buf src = {};
  tcmma_render_ctx ctx = tcmma_render_ctx_make(&plan, TCMMA_DIALECT_CUDA, NULL, &src);
  if (tcmma_render_kernel(&ctx, NULL, &err) != TCMMA_OK)
    return fail("render", err);
  tcmma_compile_opts opts = tcmma_compile_opts_default();
  tcmma_program prog;
  if (tcmma_compile(src.data, src.len, &opts, &prog, &err) != TCMMA_OK) return fail("compile", err);
  tcmma_ptx_info info = {};
  if (tcmma_ptx_parse(prog.ptx, prog.ptx_len, &info, &err) != TCMMA_OK) return fail("ptx", err);
  if (tcmma_ptx_check_target(&info, &err) != TCMMA_OK) return fail("target", err);
  std::printf("%s %s %zu %s\n", tcmma_arm_marker(plan.arm), info.target,
              tcmma_ptx_count(&info, "mma.sync"), std::strstr(src.data, "(mma-f16)") ? "marked" : "-");
  tcmma_ptx_info_free(&info), tcmma_program_free(&prog), tcmma_buf_free(&src);
  return 0;
}
CXX
# shellcheck disable=SC2086
"${CXX:-c++}" ${TCMMA_SANFLAGS:-} -o "$tmp/gen" "$tmp/gen.cc" $flags ||
  { echo "install-test: the C++ generator did not build with ${CXX:-c++}"; exit 1; }
out=$(TCMMA_CACHE=0 LD_LIBRARY_PATH="$root/lib" "$tmp/gen") ||
  { echo "install-test: the C++ generator failed: $out"; exit 1; }
[ "$out" = "mma-f16 sm_80 8 marked" ] ||
  { echo "install-test: the C++ generator printed '$out', expected 'mma-f16 sm_80 8 marked'"; exit 1; }

# The simulator from libtcmma_sim.a over the installed libtcmma.so: a warp
# whose lanes meet at __syncwarp, then one whose lanes disagree (an error
# built by the shared library).
cat >"$tmp/sim.c" <<'C'
#include <stdio.h>
#include <tcmma/sim.h>
static unsigned seen[32];
static void warp(void *arg) {
  (void)arg;
  seen[tcmma_sim_lane()] = tcmma_sim_lane() + 1;
  tcmma_sim_syncwarp();
}
static void diverge(void *arg) {
  (void)arg;
  if (tcmma_sim_lane() == 3) tcmma_sim_syncwarp();
}
int main(void) {
  tcmma_error err;
  if (tcmma_sim_launch(warp, NULL, &err) != TCMMA_OK) return fprintf(stderr, "%s\n", err.message), 1;
  unsigned sum = 0;
  for (int l = 0; l < 32; l++) sum += seen[l];
  tcmma_status st = tcmma_sim_launch(diverge, NULL, &err);
  return printf("%u %s %s\n", sum, tcmma_status_name(st), err.message[0] ? "named" : "-") < 0;
}
C
# shellcheck disable=SC2086
${CC:-cc} -std=c11 ${TCMMA_SANFLAGS:-} -o "$tmp/sim" "$tmp/sim.c" "$root/lib/libtcmma_sim.a" $flags \
  -lpthread -lm || { echo "install-test: the simulator program did not link"; exit 1; }
out=$(LD_LIBRARY_PATH="$root/lib" "$tmp/sim")
[ "$out" = "528 invalid named" ] ||
  { echo "install-test: the simulator program printed '$out', expected '528 invalid named'"; exit 1; }
out=$(LD_LIBRARY_PATH="$root/lib" "$root/bin/tcmma" resolve f32 f16 f16 --cc 80 --json)
case $out in *'"arm": "mma-f16"'*) ;; *) echo "install-test: installed CLI printed: $out"; exit 1;; esac
echo "install-test: ok ($flags)"
