#!/bin/sh
# make run: the main job. Grows with each capability.
set -e
tcmma=${1:-build/tcmma}
echo "== tcmma arms"
"$tcmma" arms
echo
echo "== tcmma descriptor --cc 80"
"$tcmma" descriptor --cc 80
