#!/bin/sh
# make run: the main job. Grows with each capability.
set -e
tcmma=${1:-build/tcmma}
echo "== tcmma arms"
"$tcmma" arms
# options -> compile -> census for a sample source (the emitter's output once
# it exists). Outputs go to a temporary directory, not the source tree.
sample=${TCMMA_RUN_SAMPLE:-tests/data/mma_bf16.cu}
out=$(mktemp -d "${TMPDIR:-/tmp}/tcmma-run.XXXXXX")
trap 'rm -rf "$out"' EXIT
echo "== tcmma options $sample"
"$tcmma" options "$sample"
echo "== tcmma compile $sample --sass"
"$tcmma" compile "$sample" --sass -o "$out/sample.cubin"
echo "== tcmma compile $sample -o $out/sample.ptx && tcmma ptx"
"$tcmma" compile "$sample" -o "$out/sample.ptx" >/dev/null
"$tcmma" ptx "$out/sample.ptx"
