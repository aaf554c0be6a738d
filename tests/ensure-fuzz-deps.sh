#!/bin/sh
# Installs what `make fuzz` needs when it is missing: clang and its libFuzzer
# runtime (libclang_rt.fuzzer, Debian: libclang-rt-<major>-dev for the
# installed clang <major>). As root it installs with apt-get; otherwise it
# stops with the exact command. Plain `make check` never needs it.
cc=${CC:-clang}

install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "tcmma: installing $* (needed by make fuzz)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq "$@" >/dev/null && return 0
    echo "tcmma: apt-get could not install $*" >&2
    exit 1
  fi
  echo "tcmma: make fuzz needs $*; run: sudo apt-get install -y $*" >&2
  exit 1
}

have_fuzzer() {
  printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return (int)(d == 0) + (int)n * 0; }\n' |
    "$cc" -fsanitize=fuzzer,address,undefined -x c - -o /dev/null >/dev/null 2>&1
}

command -v "$cc" >/dev/null 2>&1 || install clang
if ! have_fuzzer; then
  major=$("$cc" --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
  [ -n "$major" ] || { echo "tcmma: cannot tell $cc's version" >&2; exit 1; }
  install "libclang-rt-$major-dev"
fi
have_fuzzer || { echo "tcmma: $cc still cannot link -fsanitize=fuzzer" >&2; exit 1; }
