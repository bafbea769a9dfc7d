#!/bin/sh
# Makes sure the build dependencies are present: installs them with apt-get when running as root,
# otherwise prints the exact command to run. Used by `make check` and .ci/run.
PKGS="build-essential pkg-config libxml2-dev libcsv-dev zlib1g-dev libcmocka-dev libxml2-utils"
missing=""
have_header() { printf '#include <%s>\n' "$1" | ${CC:-cc} -E $(pkg-config --cflags libxml-2.0 2>/dev/null) -x c - >/dev/null 2>&1; }
{ command -v cc && command -v make; } >/dev/null 2>&1 || missing="$missing build-essential"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
have_header libxml/parser.h || missing="$missing libxml2-dev"
have_header csv.h || missing="$missing libcsv-dev"
have_header zlib.h || missing="$missing zlib1g-dev"
command -v xmllint >/dev/null 2>&1 || missing="$missing libxml2-utils"  # CLI tests check XML with xmllint
printf '#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <setjmp.h>\n#include <cmocka.h>\n' \
  | ${CC:-cc} -E -x c - >/dev/null 2>&1 || missing="$missing libcmocka-dev"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq $PKGS >/dev/null || { echo "apt-get install failed" >&2; exit 1; }
else
  echo "missing build dependencies:$missing" >&2
  echo "run: sudo apt-get update && sudo apt-get install -y $PKGS" >&2
  exit 1
fi
