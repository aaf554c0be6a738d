#!/bin/sh
# Compiles `tcmma emit --kernel` output for every arm with nvcc (CUDA dialect,
# a CUBIN at sm_<floor>, sm_75 for floor-70 arms, warnings as errors), checks
# inline-PTX kernels are rejected at the arch below the floor, and compiles
# the HOST dialect of each as C11. Not part of `make check` (nvcc is slow);
# run: sh tests/emit-compile-check.sh [build/tcmma]
set -u
tcmma=${1:-build/tcmma}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
cc=${CC:-cc}
dir=$(mktemp -d /tmp/tcmma-emit-check-XXXXXX)
# name | floor arch | below-floor arch ("" for wmma) | emit args
cases='
f16-f32|80|75|--d f32 --a f16 --b f16 --m 32 --n 16 --k 32
f16-f32-t|80|75|--d f32,t --a f16,t --b f16,t --m 16 --n 8 --k 16
f16-swz|80|75|--d f32,shared --a f16,shared,swizzled,ld=64 --b f16,shared,swizzled,ld=64 --m 32 --n 16 --k 32
f16-swz-t|80|75|--d f32 --a f16,t,shared,swizzled,ld=64 --b f16,t,shared,swizzled,ld=64 --m 32 --n 16 --k 32
f16-wide-stmt|80|75|--d f16 --a f16 --b f16 --m 16 --n 16 --k 16
f16-frag|80|75|--d f16 --a f16,shared --b f16,t --m 32 --n 16 --k 16 --scope fragment --outer 3
bf16|80|75|--d bf16 --a bf16 --b bf16 --m 32 --n 16 --k 32
bf16-f32-frag|80|75|--d f32,shared,swizzled,ld=32 --a bf16,shared --b bf16,shared,swizzled,ld=64 --m 16 --n 16 --k 32 --scope fragment --outer 2
fp8|89|88|--d f32 --a e4m3 --b e5m2 --m 32 --n 16 --k 64
fp8-t|89|88|--d f16 --a e5m2,t --b e4m3,t --m 16 --n 8 --k 32
fp8-swz|89|88|--d bf16 --a e4m3,shared,swizzled,ld=128 --b e4m3,t,shared,swizzled,ld=128 --m 16 --n 8 --k 32
fp8-swz-gather|89|88|--d f32 --a e4m3,t,shared,swizzled,ld=128 --b e5m2,shared,swizzled,ld=128 --m 16 --n 8 --k 32 --scope fragment --outer 2
wmma-f16|75||--d f16 --a f16 --b f16 --fp16 narrow --m 32 --n 32 --k 32
wmma-f16-t|75||--d f16,t --a f16,t,shared --b f16,t --fp16 narrow --m 16 --n 16 --k 16
wmma-f16f32|75||--d f32 --a f16 --b f16,t --prefer wmma --m 32 --n 16 --k 32 --scope fragment --outer 2
wmma-f16-wide|75||--d f16 --a f16 --b f16 --scope fragment --cc 75 --m 32 --n 16 --k 16 --outer 2
wmma-f16-wide-t|75||--d f16,t,shared --a f16,shared --b f16 --scope fragment --cc 75 --m 16 --n 16 --k 16
wmma-bf16|80||--d f32 --a bf16,t --b bf16 --prefer wmma --m 16 --n 32 --k 32
wmma-tf32|80||--d f32 --a f32 --b f32 --tf32 --m 32 --n 16 --k 16
wmma-tf32-t|80||--d f32,t,shared --a f32,t,shared --b f32,t --tf32 --m 16 --n 16 --k 8 --scope fragment --outer 2
bf16-swz64-subtile|80|75|--d f32,ld=128,at=64:96 --a bf16,shared,swizzle=64,ld=32,at=64:16 --b bf16,t,shared,swizzle=64,ld=32,at=96:16 --m 64 --n 32 --k 16
f16-swz32-pieces|80|75|--d f16 --a f16,t,shared,swizzle=32,ld=16 --b f16,shared,swizzle=32,ld=16 --m 16 --n 16 --k 16 --scope fragment --pieces --outer 2
fp8-scale-pieces|89|88|--d bf16 --a e4m3 --b e4m3,t --m 32 --n 16 --k 64 --scope fragment --pieces --init scale --alpha 2.0f --beta -1.0f
wmma-ldm16-zero|75||--d f32,ld=24 --a f16,shared,ld=24 --b f16,t,ld=24 --prefer wmma --m 16 --n 16 --k 16 --init zero
wmma-f16-scale|75||--d f16 --a f16 --b f16 --fp16 narrow --m 16 --n 16 --k 16 --init scale --alpha 0.5f --beta 2.0f
'
echo "$cases" | while IFS='|' read -r name floor below args; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  "$tcmma" emit $args --kernel > "$dir/$name.cu" || { echo "FAIL $name: emit"; continue; }
  if "$nvcc" -arch=sm_$floor -cubin -Werror all-warnings -o "$dir/$name.cubin" "$dir/$name.cu" \
       2> "$dir/$name.log"; then
    echo "ok   $name: sm_$floor cubin"
  else
    echo "FAIL $name: sm_$floor"; cat "$dir/$name.log"
  fi
  if [ -n "$below" ]; then
    if "$nvcc" -arch=sm_$below -cubin -o "$dir/$name.low" "$dir/$name.cu" 2> "$dir/$name.low.log"; then
      echo "FAIL $name: sm_$below accepted an inline-PTX kernel below its floor"
    else
      echo "ok   $name: sm_$below rejected ($(grep -o "requires .target sm_[0-9]*" "$dir/$name.low.log" | head -n 1))"
    fi
  fi
  # shellcheck disable=SC2086
  "$tcmma" emit $args --kernel --dialect host > "$dir/$name.c" || { echo "FAIL $name: host emit"; continue; }
  if "$cc" -std=c11 -Wall -Werror -c -I include -I . -o "$dir/$name.o" "$dir/$name.c" 2> "$dir/$name.c.log"; then
    echo "ok   $name: host C11"
  else
    echo "FAIL $name: host C11"; cat "$dir/$name.c.log"
  fi
done | tee "$dir/summary"
echo "$(grep -c '^ok' "$dir/summary") ok, $(grep -c '^FAIL' "$dir/summary") failed; outputs in $dir"
! grep -q '^FAIL' "$dir/summary"
