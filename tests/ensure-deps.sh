#!/bin/sh
# Installs what the tests need when it is missing: cmocka (Debian: libcmocka-dev).
# As root it installs with apt-get; otherwise it stops with the exact command.
have_cmocka() {
  printf '#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <setjmp.h>\n#include <cmocka.h>\nint main(void){return 0;}\n' |
    ${CC:-cc} -x c - -o /dev/null -lcmocka >/dev/null 2>&1
}
have_cmocka && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "tcmma: installing libcmocka-dev (needed by the tests)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq libcmocka-dev >/dev/null
  have_cmocka && exit 0
  echo "tcmma: apt-get could not install libcmocka-dev" >&2
  exit 1
fi
echo "tcmma: the tests need cmocka; run: sudo apt-get install -y libcmocka-dev" >&2
exit 1
