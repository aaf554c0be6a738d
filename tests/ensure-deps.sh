#!/bin/sh
# Installs what the tests need when it is missing: the compilers they run
# (${CC:-cc} builds helper programs and the simulator's modules, so CC=clang
# needs clang; ${CXX:-c++} builds the install test's C++ generator), cmocka
# (Debian: libcmocka-dev), pkg-config (the install test reads tcmma.pc
# with it), xmllint (libxml2-utils) and Perl's TAP::Parser (perl): the
# validators tests/report-check.sh runs on tcmma verify's JUnit and TAP. As root it installs with apt-get; otherwise it stops with the
# exact command.

# Installs the packages named (or stops, saying how).
install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "tcmma: installing $* (needed by the tests)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq "$@" >/dev/null && return 0
    echo "tcmma: apt-get could not install $*" >&2
    exit 1
  fi
  echo "tcmma: the tests need $*; run: sudo apt-get install -y $*" >&2
  exit 1
}

# Whether a compiler command (its first word) is on PATH, and its package.
have() { command -v "${1%% *}" >/dev/null 2>&1; }
package_of() {
  case ${1%% *} in
  *clang*) echo clang ;;
  *++) echo g++ ;;
  *) echo gcc ;;
  esac
}

pkgs=""
have "${CC:-cc}" || pkgs=$(package_of "${CC:-cc}")
have "${CXX:-c++}" || pkgs="${pkgs:+$pkgs }$(package_of "${CXX:-c++}")"
# shellcheck disable=SC2086
[ -z "$pkgs" ] || install $pkgs
if ! have "${CC:-cc}" || ! have "${CXX:-c++}"; then
  echo "tcmma: ${CC:-cc} or ${CXX:-c++} is still missing" >&2
  exit 1
fi

have_cmocka() {
  printf '#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <setjmp.h>\n#include <cmocka.h>\nint main(void){return 0;}\n' |
    ${CC:-cc} -x c - -o /dev/null -lcmocka >/dev/null 2>&1
}
have_pkg_config() { command -v pkg-config >/dev/null 2>&1; }
# the report validators (tests/report-check.sh)
have_xmllint() { command -v xmllint >/dev/null 2>&1; }
have_tap_parser() { perl -MTAP::Parser -e 1 >/dev/null 2>&1; }

# Installs the package of each CHECK:PACKAGE pair whose check fails, then
# stops when a check still fails ($1 names what).
ensure() {
  what=$1
  shift
  pkgs=""
  for pair in "$@"; do "${pair%%:*}" || pkgs="${pkgs:+$pkgs }${pair#*:}"; done
  # shellcheck disable=SC2086
  [ -z "$pkgs" ] || install $pkgs
  for pair in "$@"; do
    "${pair%%:*}" || { echo "tcmma: $what is still missing" >&2; exit 1; }
  done
}
ensure "cmocka or pkg-config" have_cmocka:libcmocka-dev have_pkg_config:pkg-config
ensure "xmllint or Perl's TAP::Parser" have_xmllint:libxml2-utils have_tap_parser:perl

# nvdisasm, for `tcmma bench gemm --static` and its test (test_bench_sass):
# the toolkit here has no nvdisasm, so the nvidia-cuda-nvdisasm wheel brings
# one (nvidia/<*>/bin/nvdisasm under the nvidia package, where the bench
# looks for it after TCMMA_NVDISASM, PATH and /usr/local/cuda/bin).
have_nvdisasm() {
  [ -n "${TCMMA_NVDISASM:-}" ] && [ -x "$TCMMA_NVDISASM" ] && return 0
  command -v nvdisasm >/dev/null 2>&1 && return 0
  [ -x /usr/local/cuda/bin/nvdisasm ] && return 0
  python3 -c "import glob, os, nvidia, sys
sys.exit(not any(os.access(p, os.X_OK) for d in nvidia.__path__
                 for p in glob.glob(os.path.join(d, '*', 'bin', 'nvdisasm'))))" >/dev/null 2>&1
}
if ! have_nvdisasm; then
  if [ "$(id -u)" = 0 ] && command -v python3 >/dev/null 2>&1; then
    echo "tcmma: installing nvidia-cuda-nvdisasm (needed by the tests)"
    python3 -m pip install -q nvidia-cuda-nvdisasm >/dev/null 2>&1 ||
      { echo "tcmma: pip could not install nvidia-cuda-nvdisasm" >&2; exit 1; }
  else
    echo "tcmma: the tests need nvdisasm; run: python3 -m pip install nvidia-cuda-nvdisasm" >&2
    exit 1
  fi
fi
if ! have_nvdisasm; then
  echo "tcmma: nvdisasm is still missing" >&2
  exit 1
fi
