#!/bin/sh
# Installs tcmma into a scratch DESTDIR with PREFIX=/usr, then builds and runs
# a small program against the installed tree through tcmma.pc (sysroot-aware
# pkg-config), dynamically and statically. Any missing piece fails.
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
for f in include/tcmma/tcmma.h include/tcmma/resolve.h include/tcmma/tables/arms.def \
         include/tcmma/tables/resolve.def include/tcmma/tables/prec.def lib/libtcmma.a \
         lib/libtcmma.so lib/pkgconfig/tcmma.pc bin/tcmma; do
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
# generators written in C++ include the same headers (extern "C")
if command -v "${CXX:-c++}" >/dev/null 2>&1; then
  # shellcheck disable=SC2086
  "${CXX:-c++}" ${TCMMA_SANFLAGS:-} -x c++ -o "$tmp/prog-cxx" "$tmp/prog.c" -x none $flags
  out=$(LD_LIBRARY_PATH="$root/lib" "$tmp/prog-cxx")
  [ "$out" = "mma-f16" ] || { echo "install-test: C++ program printed '$out', expected mma-f16"; exit 1; }
fi
out=$(LD_LIBRARY_PATH="$root/lib" "$root/bin/tcmma" resolve f32 f16 f16 --cc 80 --json)
case $out in *'"arm": "mma-f16"'*) ;; *) echo "install-test: installed CLI printed: $out"; exit 1;; esac
echo "install-test: ok ($flags)"
