#!/bin/sh
# make run: the main job. Grows with each capability.
set -e
tcmma=${1:-build/tcmma}
echo "== tcmma arms"
"$tcmma" arms
echo
echo "== tcmma descriptor --cc 80"
"$tcmma" descriptor --cc 80
# emit -> options -> compile -> census. Outputs go to a temporary directory,
# not the source tree. TCMMA_RUN_SAMPLE=FILE compiles that source instead.
out=$(mktemp -d "${TMPDIR:-/tmp}/tcmma-run.XXXXXX")
trap 'rm -rf "$out"' EXIT
sample=${TCMMA_RUN_SAMPLE:-}
if [ -z "$sample" ]; then
  sample=$out/tile.cu
  emit="--m 32 --n 16 --k 32 --d bf16 --a bf16,shared,swizzled,ld=64 --b bf16,t,shared,swizzled,ld=64 --scope fragment"
  echo "== tcmma emit $emit --kernel --outer 2"
  # shellcheck disable=SC2086
  "$tcmma" emit $emit --kernel --outer 2 > "$sample"
  echo "kernel: $(wc -l < "$sample") lines, $(grep -c 'tile-mma' "$sample") tile-mma blocks -> $sample"
  # shellcheck disable=SC2086
  "$tcmma" emit $emit --json | sed -n '/"census"/,/^  }/p'
fi
# the markers' answer (the arch compile takes), then the floor proven by
# compiling up NVRTC's targets (the default; --no-probe leaves it out)
echo "== tcmma options $sample"
"$tcmma" options "$sample"
echo "== tcmma compile $sample --sass"
"$tcmma" compile "$sample" --sass -o "$out/sample.cubin"
echo "== tcmma compile $sample -o $out/sample.ptx && tcmma ptx"
"$tcmma" compile "$sample" -o "$out/sample.ptx" >/dev/null
"$tcmma" ptx "$out/sample.ptx"
