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
# Then the values and layouts (tests/abi/abi-layout.sh): every public enum
# constant, enum type and struct, each field's offset and size, against the
# committed tests/abi/baseline.txt, after controls proving that the
# comparison fails on a shifted enum value, a moved field and a grown struct
# without a size field, and notices a field appended to a sized struct.
# Environment (set by `make check`): TCMMA_SRCDIR, TCMMA_BUILD, TCMMA_SANFLAGS.
set -eu
export LC_ALL=C # one collation for sort, comm and cmp
src=${TCMMA_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${TCMMA_BUILD:-$src/build}
tmp=$(mktemp -d /tmp/tcmma-abi-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# The names declared as functions (followed by '('), less the typedef names
# (followed by ';' somewhere: `} tcmma_status;`) and the static inline
# functions the headers define (the *_default() of size-carrying structs:
# compiled into the caller, never exported), sorted.
declared() {
  ${CC:-cc} -E -P -I"$src/include" -I"$src" -x c "$1" >"$tmp/pp.c" ||
    { echo "abi-test: cannot preprocess $1"; exit 1; }
  grep -o 'tcmma_[A-Za-z0-9_]*[[:space:]]*(' "$tmp/pp.c" | sed 's/[[:space:]]*($//' | sort -u >"$tmp/fn"
  grep -o 'tcmma_[A-Za-z0-9_]*[[:space:]]*;' "$tmp/pp.c" | sed 's/[[:space:]]*;$//' | sort -u >"$tmp/ty"
  { grep -o 'static inline [^(;{]*(' "$tmp/pp.c" || true; } |
    sed -n 's/.*[^A-Za-z0-9_]\(tcmma_[A-Za-z0-9_]*\)[[:space:]]*($/\1/p' | sort -u >"$tmp/inline"
  comm -23 "$tmp/fn" "$tmp/ty" | comm -23 - "$tmp/inline"
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

# ---- values and layouts ----
layout=$src/tests/abi/abi-layout.sh
base=$src/tests/abi/baseline.txt
[ -f "$base" ] || { echo "abi-test: no $base: run make abi-baseline"; exit 1; }
# The controls: a copy of the headers with one change each, dumped and
# compared with the baseline. $1 names the control, $2 the exit status
# compare must give (2: incompatible, 1: an addition), $3 a line it must
# print, $4 the file to edit and $5 the perl edit.
control() {
  rm -rf "$tmp/ctl" && mkdir -p "$tmp/ctl" && cp -R "$src/include" "$src/tables" "$tmp/ctl/"
  perl -0 -i -pe "$5" "$tmp/ctl/$4"
  cmp -s "$src/$4" "$tmp/ctl/$4" && { echo "abi-test: control '$1' did not edit $4"; exit 1; }
  TCMMA_SRCDIR=$src sh "$layout" dump "$tmp/ctl" >"$tmp/ctl.dump" ||
    { echo "abi-test: control '$1' did not dump"; exit 1; }
  set +e
  sh "$layout" compare "$base" "$tmp/ctl.dump" >"$tmp/ctl.diff"
  got=$?
  set -e
  if [ $got != "$2" ] || ! grep -qF "$3" "$tmp/ctl.diff"; then
    sed 's/^/  /' "$tmp/ctl.diff"
    echo "abi-test: control '$1': compare gave $got, expected $2 with '$3'"; exit 1
  fi
}
if [ "$(sed -n 's/^target //p' "$base")" = "$(${CC:-cc} -dumpmachine)" ]; then
  control "shifted enum value" 2 "changed: enum TCMMA_ARM_MMA_BF16 3 -> enum TCMMA_ARM_MMA_BF16 4" \
    tables/arms.def 's/^TCMMA_ARM\(MMA_BF16, 3,/TCMMA_ARM(MMA_BF16, 4,/m'
  control "moved field" 2 "changed: field tcmma_census.tile_m 4 4" \
    include/tcmma/plan.h 's/(typedef struct \{\n)(  bool a_ldmatrix, b_ldmatrix;\n  int tile_m)/$1  int abi_control;\n$2/'
  control "grown struct without a size" 2 "changed: struct tcmma_census" \
    include/tcmma/plan.h 's/\n\} tcmma_census;/\n  long long abi_control[2];\n} tcmma_census;/'
  control "field appended to a sized struct" 1 "added: field tcmma_kernel_opts.abi_control" \
    include/tcmma/render.h 's/\n\} tcmma_kernel_opts;/\n  int abi_control;\n} tcmma_kernel_opts;/'
fi
TCMMA_SRCDIR=$src sh "$layout" check || status=1

# The facts a binding checks at import (tables/abi.def, tcmma_abi_fact) name
# every public struct the baseline records: a struct added to a header and
# not to the table would go unchecked by the bindings.
# Left out, on purpose: the host dialect's aligned vector words (what
# emitted host kernels use, never a caller of the library or a binding).
vector_words='tcmma_sim_half2 tcmma_sim_bfloat162 tcmma_sim_float2 tcmma_sim_double2 tcmma_sim_int2
              tcmma_sim_uint4'
awk '$1 == "struct" {print $2}' "$base" | sort -u >"$tmp/structs.all"
printf '%s\n' $vector_words | sort -u | comm -23 "$tmp/structs.all" - >"$tmp/structs.base"
sed -n 's/^TCMMA_ABI_SIZE(\(.*\))$/\1/p' "$src/tables/abi.def" | sort -u >"$tmp/structs.facts"
if ! cmp -s "$tmp/structs.base" "$tmp/structs.facts"; then
  echo "abi-test: tables/abi.def's structs differ from the baseline's (< baseline, > tables/abi.def):"
  diff "$tmp/structs.base" "$tmp/structs.facts" | grep '^[<>]' | sed 's/^/  /'
  status=1
fi

[ $status = 0 ] || exit 1
echo "abi-test: libtcmma.so exports $(wc -l <"$tmp/lib.decl") functions, libtcmma_sim.a," \
  "libtcmma_sim.so and the CLI $(wc -l <"$tmp/sim.decl"), each exactly what include/tcmma declares;" \
  "values and layouts are tests/abi/baseline.txt's ($(sed -n 's/^soname //p' "$base"))"
