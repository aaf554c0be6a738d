#!/bin/sh
# Runs every test binary given, several at a time, prints each one's output
# whole (never interleaved with another's) as it finishes, then one closing
# line "tests: N passed, N failed, N skipped" counting cmocka test cases (a
# skipped case is never counted as passed). Exits non-zero on any failure;
# a binary that exits non-zero without a cmocka FAILED line (a crash, a
# signal, a wrapper's error) counts as one failed test.
# TCMMA_WRAP, when set, prefixes each run (make memcheck: valgrind).
# How many at a time: TCMMA_TEST_JOBS, else make's -jN (MAKEFLAGS), else the
# online cores. The tests keep their files apart (mkdtemp or pid-named
# directories, their own TCMMA_CACHE_DIR where they clear or count a cache),
# so none needs to run alone.
export TCMMA_WRAP
jobs=${TCMMA_TEST_JOBS:-}
if [ -z "$jobs" ]; then
  for w in ${MAKEFLAGS:-}; do
    case $w in
    -j[0-9]*) jobs=${w#-j} ;;
    --jobs=[0-9]*) jobs=${w#--jobs=} ;;
    esac
  done
fi
case $jobs in '' | *[!0-9]* | 0) jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1) ;; esac
case $jobs in '' | *[!0-9]* | 0) jobs=1 ;; esac

dir=$(mktemp -d "${TMPDIR:-/tmp}/tcmma-run-tests-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM

# The longest binaries (their wall times, measured) start first, so that
# the last to finish are short ones and the cores stay busy to the end; the
# others follow in the order given.
first='test_verify test_verify_sim python-tests.sh test_gemm test_sim_dialect test_ptx_corpus test_compile
       test_sim_cache'
i=0
for f in $first; do
  for t in "$@"; do
    [ "${t##*/}" = "$f" ] && i=$((i + 1)) && printf '%s\0%s\0' "$i" "$t"
  done
done >"$dir/queue"
for t in "$@"; do
  long=false
  for f in $first; do [ "${t##*/}" = "$f" ] && long=true; done
  $long || { i=$((i + 1)) && printf '%s\0%s\0' "$i" "$t"; }
done >>"$dir/queue"

# Each job: the binary's output to N.out, its exit status to N.rc, then the
# output printed under a lock (mkdir is atomic) so that two finishing at
# once do not mix. The job's own shell always exits 0: xargs would stop
# starting jobs after a 255 or a signal.
# shellcheck disable=SC2016
xargs -0 -n 2 -P "$jobs" sh -c '
  d=$0 i=$1 t=$2
  # shellcheck disable=SC2086
  ${TCMMA_WRAP:-} "$t" >"$d/$i.out" 2>&1
  echo $? >"$d/$i.rc"
  until mkdir "$d/lock" 2>/dev/null; do sleep 1; done
  cat "$d/$i.out"
  rmdir "$d/lock"
  exit 0' "$dir" <"$dir/queue"

passed=0 failed=0 skipped=0 broken=0
n=0
for t in "$@"; do n=$((n + 1)); done
i=0
while [ "$i" -lt "$n" ]; do
  i=$((i + 1))
  t=$(tr '\0' '\n' <"$dir/queue" | sed -n "$((2 * i))p")
  # a job that never wrote its status did not run to the end: failed
  rc=$(cat "$dir/$i.rc" 2>/dev/null); rc=${rc:-127}
  out="$dir/$i.out"
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" 2>/dev/null | tail -n 1)
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" 2>/dev/null | tail -n 1)
  k=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" 2>/dev/null | tail -n 1)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${k:-0}))
  if [ "$rc" -ne 0 ] && [ -z "$f" ]; then
    echo "tcmma: $t exited with status $rc" >>"$dir/failures"; broken=$((broken + 1)); failed=$((failed + 1))
  fi
  # the failed and skipped cases again, by binary, so that a log's tail
  # (all a CI report may keep) names them
  awk -v t="$t" '/^\[  (FAILED|SKIPPED) *\] [0-9]+ test\(s\), listed below:/ { on = 1; next }
    on && /^\[  (FAILED|SKIPPED) *\] / { print "tcmma: " t ": " $2 " " $4; next } { on = 0 }' \
    "$out" 2>/dev/null >>"$dir/failures"
done
[ -s "$dir/failures" ] && cat "$dir/failures"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$broken" -eq 0 ]
