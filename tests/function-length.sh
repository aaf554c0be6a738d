#!/bin/sh
# Functions a reader can follow (issue #20): reports every C function
# definition longer than 80 lines, from its first signature line to its
# closing brace, and fails when one is in the library (tables/, mma/,
# nvrtc/), the tools (tools/) or the FILEs given. The style this counts: a definition starts in column 0 and its
# closing brace is alone in column 0 (clang-format's, as the tree is).
# Usage: sh tests/function-length.sh [FILE...]
# Environment (set by `make check`): TCMMA_SRCDIR.
set -eu
src=${TCMMA_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
limit=80

# Allowed, each with why; a name here that is under the limit (or gone)
# fails too, so the list only shrinks. None today.
allowed=''

# Prints "file:line: name: N lines" for each definition over the limit.
long_functions() {
  awk -v limit="$limit" '
    FNR == 1 { pending = 0; body = 0 }
    !body && !pending && /^[A-Za-z_]/ && /\(/ && !/=/ && !/^typedef/ {
      if (match($0, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
        name = substr($0, RSTART, RLENGTH); sub(/[ \t]*\($/, "", name)
        start = FNR; pending = 1
      }
    }
    pending && /;[ \t]*$/ { pending = 0 }
    pending && /\{[ \t]*$/ { pending = 0; body = 1; next }
    body && /^}/ {
      body = 0
      n = FNR - start + 1
      if (n > limit) printf "%s:%d: %s: %d lines\n", FILENAME, start, name, n
    }
  ' "$@"
}

rc=0
if [ $# -gt 0 ]; then
  out=$(long_functions "$@")
  [ -z "$out" ] || { printf '%s\n' "$out"; rc=1; }
  exit $rc
fi

cd "$src"
lib=$(long_functions tables/*.c mma/*.c mma/sim/*.c nvrtc/*.c nvrtc/*/*.c tools/*.c tools/*/*.c)
for name in $allowed; do
  if printf '%s\n' "$lib" | grep -q ": $name: "; then
    printf '%s\n' "$lib" | grep ": $name: " | sed 's/$/ (allowed)/'
    lib=$(printf '%s\n' "$lib" | grep -v ": $name: " || true)
  else
    echo "function-length: allowed $name is not over $limit lines: drop it from the list"; rc=1
  fi
done
if [ -n "$lib" ]; then
  printf '%s\n' "$lib" | sed 's/$/ (over the limit)/'; rc=1
fi
[ $rc -eq 0 ] && echo "function-length: no library or tools function over $limit lines"
exit $rc
