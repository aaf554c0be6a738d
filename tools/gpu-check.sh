#!/bin/sh
# The one prepared GPU check: run it, from the repository root, on a machine
# with an NVIDIA GPU, its driver (libcuda.so.1) and the CUDA toolkit. Steps:
#   1. make all and the driver test (cmocka: installed, or .deb files in
#      $TCMMA_GPU_DEBS, default .gpu-debs, unpacked into / when missing);
#   2. tcmma devices;
#   3. tcmma verify --executor gpu --json over the whole matrix (cache off;
#      its wgmma cases run on a cc 9.0 device and skip elsewhere);
#   4. the driver test, whose real_gpu cases must run (not skip) and pass:
#      add_one on the device, and every module of tests/data/ptx loading
#      exactly when `tcmma ptx --check sm_<cc>a` says it does;
#   5. tcmma verify --executor gpu --case gemm --json: the GEMM matrix (whole
#      kernels, docs/verify.md) on the device, the same checks as the sim;
#   6. tcmma bench gemm: TFLOP/s of the emitted GEMM (bf16, f16, fp8 where the
#      device runs it; 4096^3 and 8192^3; the best block-tile config of each,
#      the mma.sync kernel's and on a cc 9.0 device the wgmma kernel's, its
#      tensor maps encoded by the driver: docs/emit.md, The Hopper GEMM)
#      beside torch.matmul when torch imports. A measurement, not a check:
#      only a failure to run fails the step.
# Prints one line per step and a summary; exits 1 on any failure: a step that
# fails, a case that fails, no case passed, or a case skipped for any reason
# other than the device's cc (a skip for "no CUDA driver" is a failure here).
# Every step runs under a timeout; the whole takes about 6 minutes on 16 cores.
# Logs go to $OUT (the device machine's return folder) when set, else
# build/gpu-check/, with JUnit XML of steps 3 and 5 (junit-verify-gpu.xml,
# junit-verify-gemm-gpu.xml). One job of a device plan (a fleet's share of
# the cases, docs/verify.md GPU CI) runs with tools/gpu-job.sh instead.
set -u
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
LOGS=${OUT:-build/gpu-check}
DEBS=${TCMMA_GPU_DEBS:-.gpu-debs}
mkdir -p "$LOGS"
failed=0
start=$(date +%s)

step() { printf '%-8s %s\n' "$1" "$2"; }
fail() { step FAIL "$1"; failed=1; }

have_cmocka() {
  printf '#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <setjmp.h>\n#include <cmocka.h>\nint main(void){return 0;}\n' |
    ${CC:-cc} -x c - -o /dev/null -lcmocka >/dev/null 2>&1
}
if ! have_cmocka && [ -d "$DEBS" ] && [ "$(id -u)" = 0 ]; then
  for d in "$DEBS"/*.deb; do [ -f "$d" ] && dpkg -x "$d" /; done
  ldconfig 2>/dev/null
fi

# 1. build
if timeout 240 make -j"$JOBS" all build/tests/test_driver >"$LOGS/make.log" 2>&1; then
  step ok "make all, build/tests/test_driver"
elif timeout 240 make -j"$JOBS" all >>"$LOGS/make.log" 2>&1; then
  fail "build/tests/test_driver does not build (cmocka missing? put libcmocka0 and libcmocka-dev .debs in $DEBS): $LOGS/make.log"
else
  fail "make all: $(grep -m1 -i error "$LOGS/make.log")"
  step summary "FAILED (nothing built) after $(( $(date +%s) - start )) s"
  exit 1
fi

# 2. devices
if timeout 60 build/tcmma devices >"$LOGS/devices.txt" 2>&1; then
  step ok "tcmma devices:"
  sed 's/^/         /' "$LOGS/devices.txt"
else
  fail "tcmma devices (exit $?): $(head -n 3 "$LOGS/devices.txt")"
fi

# 3. the whole matrix on the GPU
TCMMA_CACHE=0 timeout 300 build/tcmma verify --executor gpu --json \
  --junit "$LOGS/junit-verify-gpu.xml" >"$LOGS/verify-gpu.json" 2>"$LOGS/verify-gpu.err"
rc=$?
num() { sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p" "$LOGS/verify-gpu.json" | head -n 1; }
cases=$(num cases) passed=$(num passed) vfailed=$(num failed) skipped=$(num skipped)
# skips other than "the device (cc N) does not run ..." mean the executor never ran
badskips=$(grep -o '"reason": *"[^"]*"' "$LOGS/verify-gpu.json" | grep -v 'does not run' |
  grep -c -v -e '^$' || true)
line="verify --executor gpu: ${cases:-?} cases, ${passed:-?} passed, ${vfailed:-?} failed, ${skipped:-?} skipped"
# exit 4: none failed, some skipped (their reasons are checked below)
if { [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ]; } || [ -z "$cases" ]; then
  fail "$line (exit $rc); first failures:"
  sed -n '/"failures"/,/"skips"/p' "$LOGS/verify-gpu.json" | grep -E '"(case|reason)"' |
    head -n 6 | sed 's/^ */         /'
  head -n 3 "$LOGS/verify-gpu.err" | sed 's/^/         /'
elif [ "${passed:-0}" -eq 0 ]; then
  fail "$line: no case passed"
elif [ "${skipped:-0}" -gt 0 ] && [ "$badskips" -gt 0 ]; then
  fail "$line: skips other than the device's cc:"
  grep -o '"reason": *"[^"]*"' "$LOGS/verify-gpu.json" | grep -v 'does not run' | sort | uniq -c |
    head -n 5 | sed 's/^ */         /'
else
  step ok "$line"
fi

# 4. the driver test: its real_gpu cases must have run on the GPU
if [ -x build/tests/test_driver ]; then
  TCMMA_BIN=$PWD/build/tcmma TCMMA_SRCDIR=$PWD timeout 240 build/tests/test_driver \
    >"$LOGS/test_driver.log" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ] && grep -q '^\[       OK \] real_gpu$' "$LOGS/test_driver.log" &&
    grep -q '^\[       OK \] real_gpu_loads_as_checked' "$LOGS/test_driver.log"; then
    step ok "test_driver: real_gpu ran on $(sed -n 's/.*device 0: //p' "$LOGS/test_driver.log" | head -n 1)"
    step ok "test_driver: $(sed -n 's/.*\(ptx corpus on device 0.*\)/\1/p' "$LOGS/test_driver.log" | head -n 1)"
  else
    fail "test_driver (exit $rc): $(grep -E 'real_gpu|FAILED|SKIPPED|no GPU' "$LOGS/test_driver.log" | head -n 3 | tr '\n' ' ')"
  fi
fi

# 5. the GEMM matrix on the GPU
timeout 300 build/tcmma verify --executor gpu --case gemm --json \
  --junit "$LOGS/junit-verify-gemm-gpu.xml" >"$LOGS/verify-gemm-gpu.json" \
  2>"$LOGS/verify-gemm-gpu.err"
rc=$?
gnum() { sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p" "$LOGS/verify-gemm-gpu.json" | head -n 1; }
gcases=$(gnum cases) gpassed=$(gnum passed) gfailed=$(gnum failed) gskipped=$(gnum skipped)
# skips other than "the device (cc N) does not run ..." mean the executor never ran
gbad=$(grep -A1 '"outcome": "skipped"' "$LOGS/verify-gemm-gpu.json" | grep '"reason"' |
  grep -c -v 'does not run' || true)
line="verify --executor gpu --case gemm: ${gcases:-?} cases, ${gpassed:-?} passed, ${gfailed:-?} failed, ${gskipped:-?} skipped"
if { [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ]; } || [ -z "$gcases" ] || [ "${gpassed:-0}" -eq 0 ] ||
  [ "${gbad:-0}" -gt 0 ]; then
  fail "$line (exit $rc):"
  grep -B2 '"outcome": "\(failed\|skipped\)"' "$LOGS/verify-gemm-gpu.json" -A1 |
    grep -E '"(case|reason)"' | head -n 6 | sed 's/^ */         /'
  head -n 3 "$LOGS/verify-gemm-gpu.err" | sed 's/^/         /'
else
  step ok "$line"
fi

# 6. the GEMM benchmark (measures; fails only when it cannot run)
if [ -x build/tcmma ]; then
  timeout 600 build/tcmma bench gemm >"$LOGS/bench-gemm.txt" 2>"$LOGS/bench-gemm.err"
  rc=$?
  if [ "$rc" -eq 0 ]; then
    step ok "tcmma bench gemm (best config per size and type; every config in $LOGS/bench-gemm.err):"
    sed 's/^/         /' "$LOGS/bench-gemm.txt"
  else
    fail "tcmma bench gemm (exit $rc): $(tail -n 3 "$LOGS/bench-gemm.err" | tr '\n' ' ')"
  fi
else
  fail "build/tcmma was not built: $LOGS/make.log"
fi

secs=$(( $(date +%s) - start ))
if [ "$failed" -eq 0 ]; then step summary "PASSED in $secs s (logs: $LOGS)"; exit 0; fi
step summary "FAILED in $secs s (logs: $LOGS)"
exit 1
