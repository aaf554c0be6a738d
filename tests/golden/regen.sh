#!/bin/sh
# Regenerates every golden output from the tool itself. Review `git diff`
# afterwards: a golden file is a reviewed record, never edited by hand.
set -eu
tcmma=${1:?usage: regen.sh PATH/TO/tcmma}
src=$(cd "$(dirname "$0")/../.." && pwd)
dir="$src/tests/golden"
bad=$(mktemp)
trap 'rm -f "$bad"' EXIT
grep -v '^[[:space:]]*#' "$dir/cases.list" | grep -v '^[[:space:]]*$' |
while read -r name code args; do
  args=$(printf '%s' "$args" | sed "s|@SRC@|$src|g")
  set +e
  # shellcheck disable=SC2086 # args split on whitespace, as cases.list says
  (cd "$src" && "$tcmma" $args >"$dir/$name.out" 2>"$dir/$name.err"); rc=$?
  set -e
  [ -s "$dir/$name.err" ] || rm -f "$dir/$name.err"
  if [ "$rc" != "$code" ]; then
    echo "regen: $name exited $rc, cases.list says $code" >&2
    echo "$name" >>"$bad"
  fi
done
# a case whose exit status disagrees with cases.list is a bug to look at, not to record
[ ! -s "$bad" ]
