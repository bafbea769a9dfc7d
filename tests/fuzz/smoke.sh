#!/bin/sh
# Fuzz smoke run (CI, issue 11): builds the libFuzzer targets (`make fuzz`, clang, ASan+UBSan) and runs every
# tests/fuzz/fuzz_*.c for FUZZ_SECONDS (default 30) from the seeds its header names ("Seeds:
# tests/fuzz/seeds.sh NAME", else the seed set of seeds.sh named like the target, else none), so targets added
# later are picked up without an edit here.
# One TAP line per target with its executions; a crash, leak, timeout or out-of-memory fails it and keeps the
# input in build-fuzz/smoke/. Long runs: the same targets by hand, e.g.
#   build-fuzz/fuzz/fuzz_reader -max_total_time=3600 CORPUS build-fuzz/seeds/reader
set -u
cd "$(dirname "$0")/../.."
secs=${FUZZ_SECONDS:-30}
work=build-fuzz/smoke
command -v clang >/dev/null 2>&1 || { echo "not ok 1 - clang is needed for the fuzz smoke run (apt-get install clang)"; exit 1; }
make --no-print-directory -j2 fuzz >/dev/null || { echo "not ok 1 - make fuzz"; exit 1; }
mkdir -p "$work"
kinds=$(sed -n 's/.*Usage: tests\/fuzz\/seeds\.sh \([a-z|_-]*\).*/\1/p' tests/fuzz/seeds.sh)
n=0 failed=0
for src in tests/fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  n=$((n + 1))
  seeds=$(tr '\n' ' ' < "$src" | sed -n 's/.*Seeds: tests\/fuzz\/seeds\.sh[ *]*\([a-z][a-z_-]*\).*/\1/p')
  if [ -z "$seeds" ]; then  # else the seed set named like the target, if seeds.sh has one
    cand=$(echo "${name#fuzz_}" | tr _ -)
    case "|$kinds|" in *"|$cand|"*) seeds=$cand ;; esac
  fi
  corpus="$work/corpus-$name"
  rm -rf "$corpus"; mkdir -p "$corpus"
  seed_dir=""
  if [ -n "$seeds" ]; then
    seed_dir="$work/seeds-$seeds"
    [ -d "$seed_dir" ] || sh tests/fuzz/seeds.sh "$seeds" "$seed_dir" >/dev/null 2>&1 || seed_dir=""
  fi
  log="$work/$name.log"
  # shellcheck disable=SC2086
  build-fuzz/fuzz/$name -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$work/$name-" "$corpus" $seed_dir > "$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ $rc -eq 0 ]; then
    echo "ok $n - $name: ${execs:-?} executions in ${secs} s from ${seeds:-no} seeds, no crash"
  else
    failed=$((failed + 1))
    echo "not ok $n - $name: exit $rc after ${execs:-?} executions; see $log and $work/$name-*"
    grep -m3 -E 'ERROR|SUMMARY' "$log" | sed 's/^/# /'
  fi
done
echo "fuzz smoke: $((n - failed)) passed, $failed failed"
[ $failed -eq 0 ]
