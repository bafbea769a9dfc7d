#!/bin/sh
# Makes sure the build dependencies are present: installs them with apt-get when running as root,
# otherwise prints the exact command to run. Used by `make check` and .ci/run.
# Build: libxml2, libcsv, zlib, libzstd (zstd output), libdeflate (gzip output), libmspack (.cab inputs),
# mingw-w64-common (status-code tables generated at build time). Test-only oracles: xmllint, tshark (pcapng), python3-evtx and libevtx-utils
# (EVTX), sqlite3 (split tables), gcab (.cab inputs built in tests), jq, zstd. clang: `make fuzz` and the CI fuzz
# smoke run (tests/fuzz/smoke.sh).
PKGS="build-essential pkg-config libxml2-dev libcsv-dev zlib1g-dev libzstd-dev libdeflate-dev libmspack-dev mingw-w64-common libcmocka-dev libxml2-utils zstd tshark python3-evtx libevtx-utils sqlite3 gcab jq clang"
missing=""
have_header() { printf '#include <%s>\n' "$1" | ${CC:-cc} -E $(pkg-config --cflags libxml-2.0 2>/dev/null) -x c - >/dev/null 2>&1; }
{ command -v cc && command -v make; } >/dev/null 2>&1 || missing="$missing build-essential"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
have_header libxml/parser.h || missing="$missing libxml2-dev"
have_header csv.h || missing="$missing libcsv-dev"
have_header zlib.h || missing="$missing zlib1g-dev"
have_header zstd.h || missing="$missing libzstd-dev"
have_header libdeflate.h || missing="$missing libdeflate-dev"
have_header mspack.h || missing="$missing libmspack-dev"
[ -f /usr/share/mingw-w64/include/ntstatus.h ] || missing="$missing mingw-w64-common"
for tool in zstd:zstd tshark:tshark evtxexport:libevtx-utils sqlite3:sqlite3 gcab:gcab jq:jq; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing="$missing ${tool#*:}"
done
/usr/bin/python3 -c "import Evtx" >/dev/null 2>&1 || missing="$missing python3-evtx"
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
