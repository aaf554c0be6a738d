#!/bin/sh
# Runs one job of a device plan on this machine's GPU: exactly the cases
# `tcmma verify --plan DEVICES --device CC --shard I/N` selects (the jobs
# come from `tcmma verify --plan DEVICES --shards N --ci-matrix`, whose
# "command" is this script's line; docs/verify.md, GPU CI).
#
#   sh tools/gpu-job.sh --plan 75,80,89,90,100,120 --device 90 --shard 1/4
#
# Steps, each under a timeout:
#   1. make all (JOBS=N for -jN; TCMMA_GPU_JOB_BUILD=0 skips it and runs
#      $TCMMA_BIN, default build/tcmma);
#   2. the job's cases (--list): bad arguments stop here with exit 2;
#   3. device 0 must be the job's device: tcmma devices --json, its cc equal
#      to --device (a job that reached another device, or none, runs nothing);
#   4. tcmma verify --executor gpu with the job's options, the cache off,
#      --junit into the output folder and --json beside it.
# Exit 0 only when every case of the job passed. A failed case, a skipped
# one (the plan gives a device only the cases it runs, so a skip means the
# executor could not run here), a wrong device, a failed build: 1. Bad
# arguments: 2. Outputs go to $OUT when set, else build/gpu-job/:
# make.log, devices.json, cases-ccCC-IofN.txt, verify-ccCC-IofN.json (and
# .err), junit-ccCC-IofN.xml. One line per step and a summary, as
# tools/gpu-check.sh prints (which stays the whole-device check).
set -u
plan="" device="" shard=""
while [ $# -gt 0 ]; do
  case $1 in
  --plan | --device | --shard)
    [ $# -ge 2 ] || { echo "gpu-job: $1 needs a value" >&2; exit 2; }
    case $1 in --plan) plan=$2 ;; --device) device=$2 ;; --shard) shard=$2 ;; esac
    shift 2
    ;;
  *) echo "gpu-job: unknown argument '$1': expected --plan DEVICES --device CC --shard I/N" >&2
    exit 2 ;;
  esac
done
if [ -z "$plan" ] || [ -z "$device" ] || [ -z "$shard" ]; then
  echo "usage: sh tools/gpu-job.sh --plan DEVICES --device CC --shard I/N" >&2
  exit 2
fi
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
LOGS=${OUT:-build/gpu-job}
BIN=${TCMMA_BIN:-build/tcmma}
tag="cc$device-$(printf '%s' "$shard" | sed 's|/|of|')"
mkdir -p "$LOGS"
start=$(date +%s)
step() { printf '%-8s %s\n' "$1" "$2"; }
finish() {
  step summary "$1 job $tag in $(( $(date +%s) - start )) s (logs: $LOGS)"
  exit "$2"
}

# 1. build
if [ "${TCMMA_GPU_JOB_BUILD:-1}" != 0 ]; then
  if timeout 300 make -j"$JOBS" all >"$LOGS/make.log" 2>&1; then
    step ok "make all"
  else
    step FAIL "make all: $(grep -m1 -i error "$LOGS/make.log")"
    finish FAILED 1
  fi
fi

# 2. the job's cases (the CLI checks the arguments)
set -- --plan "$plan" --device "$device" --shard "$shard"
timeout 60 "$BIN" verify "$@" --list >"$LOGS/cases-$tag.txt" 2>"$LOGS/cases-$tag.err"
rc=$?
if [ "$rc" -ne 0 ]; then
  step FAIL "tcmma verify $* --list (exit $rc): $(head -n 1 "$LOGS/cases-$tag.err")"
  [ "$rc" -eq 2 ] && finish FAILED 2
  finish FAILED 1
fi
step ok "job $tag: $(wc -l <"$LOGS/cases-$tag.txt" | tr -d ' ') cases"

# 3. the device must be the job's
timeout 60 "$BIN" devices --json >"$LOGS/devices.json" 2>&1
# the first value of a key of the devices' JSON (device 0 comes first)
first() { sed -n "s/.*\"$1\": *\"\{0,1\}\([^\",]*\).*/\1/p" "$LOGS/devices.json" | head -n 1; }
cc=$(first cc)
if [ "$cc" != "$device" ]; then
  step FAIL "device 0 is cc ${cc:-none} ($(first name)$(first message)), the job is for cc $device"
  finish FAILED 1
fi
step ok "device 0: cc $cc, $(first name)"

# 4. the job
junit="$LOGS/junit-$tag.xml"
TCMMA_CACHE=0 timeout 600 "$BIN" verify --executor gpu "$@" --junit "$junit" --json \
  >"$LOGS/verify-$tag.json" 2>"$LOGS/verify-$tag.err"
rc=$?
num() { sed -n "s/^  \"$1\": *\([0-9]*\).*/\1/p" "$LOGS/verify-$tag.json" | head -n 1; }
line="verify --executor gpu $*: $(num cases) cases, $(num passed) passed,"
line="$line $(num failed) failed, $(num skipped) skipped; $junit"
if [ "$rc" -eq 0 ]; then
  step ok "$line"
  finish PASSED 0
fi
step FAIL "$line (exit $rc); first failures and skips:"
grep -E '"(case|reason)"' "$LOGS/verify-$tag.json" | head -n 6 | sed 's/^ */         /'
head -n 3 "$LOGS/verify-$tag.err" | sed 's/^/         /'
finish FAILED 1
