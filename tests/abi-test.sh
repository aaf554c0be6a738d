#!/bin/sh
# The ABI is exactly the public headers. The functions include/tcmma/*.h
# declare (read from the preprocessed headers: no comments, tables expanded)
# are checked against what the build exports:
#   libtcmma.so    exports every function tcmma.h declares and nothing else;
#   libtcmma_sim.a its default-visibility symbols are the functions sim.h
#                  declares, all tcmma_sim_* (internals are hidden tcmma__sim_*);
#   libtcmma_sim.so exports exactly those (linked against libtcmma.so);
#   tcmma (CLI)    exports exactly those tcmma_sim_* for the modules it dlopens.
# A control run first: a copy of libtcmma.so that exports one undeclared
# symbol must fail the same check, or the check proves nothing.
# Environment (set by `make check`): TCMMA_SRCDIR, TCMMA_BUILD, TCMMA_SANFLAGS.
set -eu
export LC_ALL=C # one collation for sort, comm and cmp
src=${TCMMA_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${TCMMA_BUILD:-$src/build}
tmp=$(mktemp -d /tmp/tcmma-abi-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# The names declared as functions (followed by '('), less the typedef names
# (followed by ';' somewhere: `} tcmma_status;`), sorted.
declared() {
  ${CC:-cc} -E -P -I"$src/include" -I"$src" -x c "$1" >"$tmp/pp.c" ||
    { echo "abi-test: cannot preprocess $1"; exit 1; }
  grep -o 'tcmma_[A-Za-z0-9_]*[[:space:]]*(' "$tmp/pp.c" | sed 's/[[:space:]]*($//' | sort -u >"$tmp/fn"
  grep -o 'tcmma_[A-Za-z0-9_]*[[:space:]]*;' "$tmp/pp.c" | sed 's/[[:space:]]*;$//' | sort -u >"$tmp/ty"
  comm -23 "$tmp/fn" "$tmp/ty"
}
declared "$src/include/tcmma/tcmma.h" >"$tmp/lib.decl"
declared "$src/include/tcmma/sim.h" | comm -23 - "$tmp/lib.decl" >"$tmp/sim.decl"
if [ ! -s "$tmp/lib.decl" ] || [ ! -s "$tmp/sim.decl" ]; then
  echo "abi-test: found no declarations in include/tcmma"; exit 1
fi

# Dynamic symbols a shared object or program defines, less what the linker
# and the sanitizer runtimes add (_init, _end, __asan_*, ...).
exported() {
  nm -D --defined-only "$1" | awk '{print $NF}' | sed 's/@.*//' |
    grep -v -e '^__' -e '^_init$' -e '^_fini$' -e '^_edata$' -e '^_end$' | sort -u
}

# Fails (listing them) unless the exports of lib ($1) equal the declarations
# in file $2; $3 names the library in messages.
same_as_declared() {
  exported "$1" >"$tmp/exp"
  comm -23 "$tmp/exp" "$2" >"$tmp/extra"
  comm -13 "$tmp/exp" "$2" >"$tmp/missing"
  ok=0
  if [ -s "$tmp/extra" ]; then
    echo "abi-test: $3 exports symbols no public header declares:"; sed 's/^/  /' "$tmp/extra"; ok=1
  fi
  if [ -s "$tmp/missing" ]; then
    echo "abi-test: $3 does not export declared functions:"; sed 's/^/  /' "$tmp/missing"; ok=1
  fi
  return $ok
}

# The control: the library's own objects plus one undeclared exported symbol.
printf '__attribute__((visibility("default"))) int tcmma_not_declared(void) { return 0; }\n' \
  >"$tmp/extra.c"
# shellcheck disable=SC2086
${CC:-cc} ${TCMMA_SANFLAGS:-} -shared -fPIC -o "$tmp/control.so" "$tmp/extra.c" \
  -Wl,--whole-archive "$build/libtcmma.a" -Wl,--no-whole-archive -ldl -lpthread -lm ||
  { echo "abi-test: cannot link the control library"; exit 1; }
if same_as_declared "$tmp/control.so" "$tmp/lib.decl" control.so >"$tmp/control.log"; then
  echo "abi-test: the check passed a library exporting tcmma_not_declared"; exit 1
fi
grep -q '^  tcmma_not_declared$' "$tmp/control.log" ||
  { cat "$tmp/control.log"; echo "abi-test: the control failed without naming tcmma_not_declared"; exit 1; }

status=0
same_as_declared "$build/libtcmma.so" "$tmp/lib.decl" libtcmma.so || status=1

# libtcmma_sim.a: defined global or weak symbols of default visibility.
readelf -sW "$build/libtcmma_sim.a" |
  awk '($5 == "GLOBAL" || $5 == "WEAK") && $6 == "DEFAULT" && $7 != "UND" {print $8}' |
  sort -u >"$tmp/sim.exp"
if grep -v '^tcmma_sim_' "$tmp/sim.decl" >"$tmp/sim.bad"; then
  echo "abi-test: sim.h declares functions outside tcmma_sim_:"; sed 's/^/  /' "$tmp/sim.bad"
  status=1
fi
if ! cmp -s "$tmp/sim.exp" "$tmp/sim.decl"; then
  echo "abi-test: libtcmma_sim.a's public symbols differ from sim.h's functions (< archive, > header):"
  diff "$tmp/sim.exp" "$tmp/sim.decl" | grep '^[<>]' | sed 's/^/  /'
  status=1
fi

# libtcmma_sim.so (for programs that load the simulator, the Python package):
# exactly sim.h's functions.
same_as_declared "$build/libtcmma_sim.so" "$tmp/sim.decl" libtcmma_sim.so || status=1

# The CLI: the simulator's entry points, nothing else of tcmma.
exported "$build/tcmma" | grep '^tcmma' >"$tmp/cli.exp" || true
if ! cmp -s "$tmp/cli.exp" "$tmp/sim.decl"; then
  echo "abi-test: the tcmma program's tcmma exports differ from sim.h's functions (< program, > header):"
  diff "$tmp/cli.exp" "$tmp/sim.decl" | grep '^[<>]' | sed 's/^/  /'
  status=1
fi

[ $status = 0 ] || exit 1
echo "abi-test: libtcmma.so exports $(wc -l <"$tmp/lib.decl") functions, libtcmma_sim.a," \
  "libtcmma_sim.so and the CLI $(wc -l <"$tmp/sim.decl"), each exactly what include/tcmma declares"
