#!/bin/sh
# Installs what the tests need when it is missing: cmocka (Debian:
# libcmocka-dev) and pkg-config (the install test reads tcmma.pc with it).
# As root it installs with apt-get; otherwise it stops with the exact command.
have_cmocka() {
  printf '#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <setjmp.h>\n#include <cmocka.h>\nint main(void){return 0;}\n' |
    ${CC:-cc} -x c - -o /dev/null -lcmocka >/dev/null 2>&1
}
have_all() { have_cmocka && command -v pkg-config >/dev/null 2>&1; }
have_all && exit 0
pkgs=""
have_cmocka || pkgs="libcmocka-dev"
command -v pkg-config >/dev/null 2>&1 || pkgs="${pkgs:+$pkgs }pkg-config"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "tcmma: installing $pkgs (needed by the tests)"
  export DEBIAN_FRONTEND=noninteractive
  # shellcheck disable=SC2086
  apt-get update -qq >/dev/null && apt-get install -y -qq $pkgs >/dev/null
  have_all && exit 0
  echo "tcmma: apt-get could not install $pkgs" >&2
  exit 1
fi
echo "tcmma: the tests need $pkgs; run: sudo apt-get install -y $pkgs" >&2
exit 1
