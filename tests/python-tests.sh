#!/bin/sh
# The Python package's tests (python/tests, pytest) against this build's
# libtcmma.so and libtcmma_sim.so, from the source tree. Installs pytest,
# numpy and wheel with pip when missing (as ensure-deps.sh does cmocka). Ends
# with cmocka's count lines, which tests/run-tests.sh folds into its total.
# Skipped under SAN/TSAN builds: the interpreter is not sanitized.
src=${TCMMA_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${TCMMA_BUILD:-$src/build}
py=${PYTHON:-python3}
if [ -n "${TCMMA_SAN:-}" ] || [ -n "${TCMMA_WRAP:-}" ] || ! command -v "$py" >/dev/null 2>&1; then
  echo "python-tests: skipped (no $py, or a sanitizer/valgrind run)"
  echo "[  SKIPPED ] 1 test(s), listed below:"
  exit 0
fi
# Debian's python3 comes without pip and venv (the wheel test makes a venv):
# as root with apt-get, their packages; otherwise the wheel test skips.
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 &&
  ! { "$py" -m pip --version && "$py" -c "import ensurepip"; } >/dev/null 2>&1; then
  echo "tcmma: installing python3-pip python3-venv (needed by the Python tests)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null 2>&1
  apt-get install -y -qq python3-pip python3-venv >/dev/null 2>&1
fi
missing=""
for m in pytest numpy wheel cffi; do
  "$py" -c "import $m" >/dev/null 2>&1 || missing="$missing $m"
done
if [ -n "$missing" ]; then
  echo "tcmma: installing$missing with pip (needed by the Python tests)"
  # shellcheck disable=SC2086
  "$py" -m pip install --quiet $missing >/dev/null 2>&1 ||
    "$py" -m pip install --quiet --user $missing >/dev/null 2>&1 ||
    "$py" -m pip install --quiet --break-system-packages $missing >/dev/null 2>&1 ||
    { echo "tcmma: pip could not install$missing; run: $py -m pip install$missing"
      echo "[  FAILED  ] 1 test(s)"; exit 1; }
fi
out=$(cd "$src/python" && TCMMA_SRCDIR="$src" TCMMA_BUILD="$build" \
  TCMMA_LIBRARY="$build/libtcmma.so" PYTHONPATH="$src/python" PYTHONDONTWRITEBYTECODE=1 \
  "$py" -m pytest -q -p no:cacheprovider -rs tests 2>&1); rc=$?
printf '%s\n' "$out"
# pytest's summary: "N passed, N failed, N skipped, N error(s) in T s".
sum=$(printf '%s\n' "$out" | tail -n 1)
n() {
  printf '%s\n' "$sum" |
    sed -n "s/.*[^0-9]\([0-9][0-9]*\) $1.*/\1/p;s/^\([0-9][0-9]*\) $1.*/\1/p" | head -n 1
}
p=$(n passed); f=$(n failed); k=$(n skipped); e=$(n error)
f=$(( ${f:-0} + ${e:-0} ))
echo "[  PASSED  ] ${p:-0} test(s)."
[ "${k:-0}" -eq 0 ] || echo "[  SKIPPED ] $k test(s), listed below:"
if [ "$f" -ne 0 ] || [ "$rc" -ne 0 ]; then
  [ "$f" -ne 0 ] || f=1
  echo "[  FAILED  ] $f test(s), listed below:"
  exit 1
fi
