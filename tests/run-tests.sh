#!/bin/sh
# Runs every test binary given, prints each one's output, then one closing line
# "N passed, N failed, N skipped" counting cmocka test cases (a skipped case
# is never counted as passed). Exits non-zero on any failure.
# TCMMA_WRAP, when set, prefixes each run (make memcheck: valgrind).
passed=0 failed=0 skipped=0 broken=0
for t in "$@"; do
  # shellcheck disable=SC2086
  out=$(${TCMMA_WRAP:-} "$t" 2>&1); rc=$?
  printf '%s\n' "$out"
  p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
  f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
  k=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -n 1)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${k:-0}))
  if [ "$rc" -ne 0 ] && [ -z "$f" ]; then
    echo "tcmma: $t exited with status $rc"; broken=$((broken + 1)); failed=$((failed + 1))
  fi
done
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$broken" -eq 0 ]
