#!/bin/sh
# Runs every fuzz target built in BUILD/fuzz for SECONDS each, on a working
# copy of its seed corpus (BUILD/fuzz-corpus/<target>; the seeds in
# tests/fuzz/corpus/<target>/ are never written). Prints one line per target,
# "fuzz TARGET: N executions, M crashes (S s)", and exits 1 when any target
# found a crash, a leak, a sanitizer report or a timeout (the log and the
# reproducing input are in BUILD/fuzz-artifacts/<target>/).
build=${1:?usage: run.sh BUILD SECONDS}
seconds=${2:-60}
src=$(cd "$(dirname "$0")/../.." && pwd)
failed=0
for bin in "$build"/fuzz/fuzz_*; do
  [ -x "$bin" ] || continue
  t=${bin##*/fuzz_}
  work="$build/fuzz-corpus/$t" art="$build/fuzz-artifacts/$t"
  mkdir -p "$work" "$art"
  rm -f "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-*
  seeds="$src/tests/fuzz/corpus/$t"
  [ -d "$seeds" ] || seeds=""
  # shellcheck disable=SC2086 # no seeds: no second directory
  "$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=60 -rss_limit_mb=4096 \
    -artifact_prefix="$art/" "$work" $seeds >"$art/log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$art/log" | tail -n 1)
  crashes=$(find "$art" -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' |
    wc -l | tr -d ' ')
  echo "fuzz $t: ${execs:-?} executions, $crashes crashes ($seconds s)"
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    failed=1
    echo "fuzz $t: exit $rc; the end of $art/log:"
    tail -n 40 "$art/log"
  fi
done
exit $failed
