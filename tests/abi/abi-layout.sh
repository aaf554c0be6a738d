#!/bin/sh
# The ABI's values and layouts, against the committed baseline
# (tests/abi/baseline.txt; docs/design.md §15).
#
#   abi-layout.sh dump [ROOT]   print the soname, the target, every public enum
#                               constant's value, every enum type's and public
#                               struct's sizeof and every field's offsetof and
#                               sizeof, read from ROOT's include/tcmma/*.h
#                               (default: the source tree)
#   abi-layout.sh compare OLD NEW
#                               what NEW changed against OLD; exit 0 when
#                               equal, 1 when NEW only adds (a compatible
#                               change, still to be recorded), 2 when it breaks
#                               OLD (an incompatible change)
#   abi-layout.sh check         the source tree against the baseline: fails on
#                               any difference (see below)
#   abi-layout.sh probe [ROOT]  print the generated C probe (for a look at it)
#   abi-layout.sh baseline      rewrites the baseline (make abi-baseline); under
#                               the baseline's soname only for compatible changes
#
# What is public is found in the preprocessed headers (tcmma/tcmma.h and
# tcmma/sim.h: tables expanded, comments gone), never a hand list: every
# `typedef struct {...} name;` and every enum body's TCMMA_ constants. A C
# probe generated from them prints the figures, so they are the compiler's.
#
# Compatible (exit 1 of compare): new constants, enum types and structs; a
# *_COUNT constant that grew (rows appended); a struct whose first field is
# `size_t size` (the library reads only what the caller's size covers) that
# grew by fields appended past its old end. Incompatible (exit 2): any other
# change of a recorded value, offset or size, anything recorded that is gone,
# a struct without a size field that changed size (the library writes it
# whole, or it is embedded in another), a new field inside a struct's old
# extent. check fails on both: an incompatible change needs a raised soname
# (Makefile SONAME) and a new baseline; a compatible one needs only the new
# baseline, so that the addition is seen in review. A baseline of another
# soname fails until it is regenerated.
# Environment: TCMMA_SRCDIR (default: this script's tree), CC.
set -eu
export LC_ALL=C
src=${TCMMA_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
baseline=$src/tests/abi/baseline.txt

soname() { sed -n 's/^SONAME *:= *//p' "$src/Makefile"; }

# The probe's source for the headers under $1, on stdout.
probe_source() {
  root=$1
  pp=$(mktemp /tmp/tcmma-abi-pp-XXXXXX)
  printf '#include "tcmma/tcmma.h"\n#include "tcmma/sim.h"\n' |
    ${CC:-cc} -std=c11 -E -P -I"$root/include" -I"$root" -x c - >"$pp" ||
    { rm -f "$pp"; echo "abi-layout: cannot preprocess the headers under $root" >&2; return 1; }
  awk '
    { text = text " " $0 }
    # The body of the brace block opening at text[i], and its end in nend.
    function block(i,   d, j, c) {
      d = 0
      for (j = i; j <= length(text); j++) {
        c = substr(text, j, 1)
        if (c == "{") d++
        else if (c == "}" && --d == 0) { nend = j; return substr(text, i + 1, j - i - 1) }
      }
      print "abi-layout: unbalanced braces" > "/dev/stderr"; exit 1
    }
    # Splits s at ch outside (), [] and {} into parts[1..n]; returns n.
    function split_top(s, ch, parts,   n, d, j, c, cur) {
      n = 0; d = 0; cur = ""
      for (j = 1; j <= length(s); j++) {
        c = substr(s, j, 1)
        if (c == "(" || c == "[" || c == "{") d++
        else if (c == ")" || c == "]" || c == "}") d--
        if (c == ch && d == 0) { parts[++n] = cur; cur = "" } else cur = cur c
      }
      if (cur ~ /[^ ]/) parts[++n] = cur
      return n
    }
    # The first "struct NAME {" or "enum NAME {" of s in RSTART, RLENGTH (two
    # matches: mawk does not find the leftmost of an alternation).
    function next_block(s,   s1, l1) {
      s1 = match(s, /struct[ \t]*[A-Za-z0-9_]*[ \t]*\{/); l1 = RLENGTH
      if (match(s, /enum[ \t]*[A-Za-z0-9_]*[ \t]*\{/) && (!s1 || RSTART < s1)) return 1
      RSTART = s1; RLENGTH = l1
      return s1 > 0
    }
    function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
    function declarator_name(s,   m) {
      if (match(s, /\([ \t]*\*[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*\)/)) {
        s = substr(s, RSTART, RLENGTH); gsub(/[()* \t]/, "", s); return s
      }
      sub(/:.*/, "", s)                       # a bit-field width
      while (sub(/\[[^][]*\][ \t]*$/, "", s)) ; # array bounds
      s = trim(s)
      if (match(s, /[A-Za-z_][A-Za-z0-9_]*$/)) return substr(s, RSTART, RLENGTH)
      return ""
    }
    END {
      print "#include <stddef.h>"
      print "#include <stdio.h>"
      print "#include \"tcmma/tcmma.h\""
      print "#include \"tcmma/sim.h\""
      print "#define E(n) printf(\"enum %s %lld\\n\", #n, (long long)(n));"
      print "#define T(t) printf(\"enumtype %s %zu\\n\", #t, sizeof(t));"
      print "#define S(t) printf(\"struct %s %zu\\n\", #t, sizeof(t));"
      print "#define F(t, f) printf(\"field %s.%s %zu %zu\\n\", #t, #f, offsetof(t, f), sizeof(((t *)0)->f));"
      print "int main(void) {"
      pos = 1; found = 0
      # ("typedef" is looked for in the text before the keyword)
      while (next_block(substr(text, pos))) {
        start = pos + RSTART - 1; open = start + RLENGTH - 1
        head = substr(text, start, RLENGTH)
        before = substr(text, start > 40 ? start - 40 : 1, start > 40 ? 40 : start - 1)
        body = block(open)
        rest = substr(text, nend + 1)
        name = ""
        if (before ~ /typedef[ \t]*$/ && match(rest, /^[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*;/)) {
          name = substr(rest, RSTART, RLENGTH); gsub(/[ \t;]/, "", name)
        }
        if (head ~ /enum/) {
          n = split_top(body, ",", items)
          for (k = 1; k <= n; k++) {
            it = trim(items[k]); sub(/[ \t]*=.*/, "", it)
            if (it ~ /^TCMMA_[A-Za-z0-9_]*$/) { print "  E(" it ")"; found++ }
          }
          if (name ~ /^tcmma_/) print "  T(" name ")"
        } else if (name ~ /^tcmma_/) {
          print "  S(" name ")"; found++
          n = split_top(body, ";", decls)
          for (k = 1; k <= n; k++) {
            d = decls[k]
            gsub(/(_Alignas|alignas)[ \t]*\([^)]*\)/, "", d)
            if (trim(d) == "") continue
            m = split_top(d, ",", dcl)
            for (q = 1; q <= m; q++) {
              f = declarator_name(dcl[q])
              if (f != "") print "  F(" name ", " f ")"
            }
          }
        }
        pos = nend + 1
      }
      print "  return 0;"
      print "}"
      if (!found) { print "abi-layout: found no public enum or struct" > "/dev/stderr"; exit 1 }
    }' "$pp"
  st=$?
  rm -f "$pp"
  return $st
}

# The dump of the headers under ROOT ($1), on stdout.
dump() {
  root=${1:-$src}
  dir=$(mktemp -d /tmp/tcmma-abi-probe-XXXXXX)
  probe_source "$root" >"$dir/probe.c" || { rm -rf "$dir"; return 1; }
  ${CC:-cc} -std=c11 -I"$root/include" -I"$root" -o "$dir/probe" "$dir/probe.c" ||
    { rm -rf "$dir"; echo "abi-layout: the probe does not compile ($root)" >&2; return 1; }
  echo "soname $(soname)"
  echo "target $(${CC:-cc} -dumpmachine)"
  "$dir/probe" || { rm -rf "$dir"; echo "abi-layout: the probe failed" >&2; return 1; }
  rm -rf "$dir"
}

# compare OLD NEW: the differences, one a line, and the exit status above.
compare() {
  awk '
    /^#/ { next }
    NR == FNR { if ($1 == "struct") osize[$2] = $3; old[$1 " " $2] = $0; oval[$1 " " $2] = $3; next }
    { if ($1 == "struct") nsize[$2] = $3; new[$1 " " $2] = $0; nval[$1 " " $2] = $3
      order[++n] = $1 " " $2 }
    function sized(s) { return ("field " s ".size") in new && nval["field " s ".size"] == 0 }
    END {
      status = 0
      for (k in old) {
        split(k, p, " ")
        if (p[1] == "soname" || p[1] == "target") continue
        if (!(k in new)) { print "removed: " old[k]; status = 2; continue }
        if (old[k] == new[k]) continue
        if (p[1] == "enum" && p[2] ~ /_COUNT$/ && nval[k] + 0 > oval[k] + 0) {
          print "grew: " old[k] " -> " nval[k] " (rows appended)"; if (status < 1) status = 1
        } else if (p[1] == "struct" && sized(p[2]) && nval[k] + 0 > oval[k] + 0) {
          print "grew: " old[k] " -> " nval[k] " (a size-carrying struct)"; if (status < 1) status = 1
        } else {
          print "changed: " old[k] " -> " new[k]; status = 2
        }
      }
      for (i = 1; i <= n; i++) {
        k = order[i]
        if (k in old) continue
        split(k, p, " ")
        if (p[1] == "soname" || p[1] == "target") continue # facts of the dump, not the ABI
        if (p[1] == "field") {
          s = p[2]; sub(/\..*/, "", s)
          # a field named tail_pad names the tail padding of an old struct and is
          # never read: whatever an old caller left there is harmless
          if (s in osize && !(sized(s) && (nval[k] + 0 >= osize[s] + 0 || p[2] ~ /\.tail_pad$/))) {
            print "inserted: " new[k] " (inside the old " osize[s] " bytes of " s ")"; status = 2
            continue
          }
        }
        print "added: " new[k]; if (status < 1) status = 1
      }
      exit status
    }' "$1" "$2"
}

check() {
  [ -f "$baseline" ] || { echo "abi-layout: no $baseline: run make abi-baseline"; return 1; }
  tmp=$(mktemp -d /tmp/tcmma-abi-check-XXXXXX)
  dump >"$tmp/now" || { rm -rf "$tmp"; return 1; }
  old_soname=$(sed -n 's/^soname //p' "$baseline")
  if [ "$old_soname" != "$(soname)" ]; then
    echo "abi-layout: the soname is $(soname), the baseline's $old_soname: run make abi-baseline" \
      "and commit tests/abi/baseline.txt"
    rm -rf "$tmp"; return 1
  fi
  # Sizes and offsets are those of the baseline's target; elsewhere only the
  # enum values, which are the same everywhere, are compared.
  if [ "$(sed -n 's/^target //p' "$baseline")" != "$(sed -n 's/^target //p' "$tmp/now")" ]; then
    echo "abi-layout: target $(sed -n 's/^target //p' "$tmp/now") is not the baseline's: comparing enum values only"
    grep -e '^soname ' -e '^target ' -e '^enum ' "$baseline" >"$tmp/old"
    grep -e '^soname ' -e '^target ' -e '^enum ' "$tmp/now" >"$tmp/new"
  else
    cp "$baseline" "$tmp/old"; cp "$tmp/now" "$tmp/new"
  fi
  set +e
  compare "$tmp/old" "$tmp/new" >"$tmp/diff.raw"
  st=$?
  set -e
  sort "$tmp/diff.raw" >"$tmp/diff"
  if [ $st = 2 ]; then
    echo "abi-layout: the ABI changed incompatibly under $(soname) (< baseline, > now):"
    sed 's/^/  /' "$tmp/diff"
    echo "  raise SONAME in the Makefile, then run make abi-baseline (docs/design.md §15)"
  elif [ $st = 1 ]; then
    echo "abi-layout: the ABI grows (compatibly) beyond tests/abi/baseline.txt:"
    sed 's/^/  /' "$tmp/diff"
    echo "  run make abi-baseline and commit the baseline"
  elif [ $st != 0 ]; then
    echo "abi-layout: the comparison failed ($st)"
  fi
  rm -rf "$tmp"
  [ $st = 0 ]
}

write_baseline() {
  tmp=$(mktemp -d /tmp/tcmma-abi-base-XXXXXX)
  dump >"$tmp/now" || { rm -rf "$tmp"; return 1; }
  if [ -f "$baseline" ] && [ "$(sed -n 's/^soname //p' "$baseline")" = "$(soname)" ]; then
    set +e
    compare "$baseline" "$tmp/now" >"$tmp/diff.raw"
    st=$?
    set -e
    sort "$tmp/diff.raw" >"$tmp/diff"
    if [ $st = 2 ]; then
      echo "abi-layout: refusing to rewrite the baseline: these changes break $(soname):"
      sed 's/^/  /' "$tmp/diff"
      echo "  raise SONAME in the Makefile first (docs/design.md §15)"
      rm -rf "$tmp"; return 1
    fi
    sed 's/^/  /' "$tmp/diff"
  fi
  { echo "# The ABI of $(soname): written by make abi-baseline (tests/abi/abi-layout.sh), never"
    echo "# by hand; tests/abi-test.sh fails on any difference (docs/design.md §15)."
    cat "$tmp/now"; } >"$baseline"
  rm -rf "$tmp"
  echo "abi-layout: wrote $baseline ($(grep -c '^enum ' "$baseline") constants," \
    "$(grep -c '^struct ' "$baseline") structs, $(grep -c '^field ' "$baseline") fields)"
}

case ${1:-} in
  dump) dump "${2:-}" ;;
  probe) probe_source "${2:-$src}" ;;
  compare) [ $# = 3 ] || { echo "usage: abi-layout.sh compare OLD NEW" >&2; exit 64; }
           compare "$2" "$3" ;;
  check) check ;;
  baseline) write_baseline ;;
  *) echo "usage: abi-layout.sh dump [ROOT] | compare OLD NEW | check | baseline" >&2; exit 64 ;;
esac
