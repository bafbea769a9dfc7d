#!/bin/sh
# `etlconv diff` throughput and memory (issue 13; run by `make bench`, or alone: sh tests/bench_diff.sh).
# Diffs the largest corpus trace (etwanalyzer/TraceLoggingTester, 43 MB, ~173 k events) against itself, and
# against its golden baseline: wall time (best of ROUNDS), events/s (events of both sides per second), peak
# RSS (GNU time), and with valgrind the callgrind instructions per event. BENCH_DIFF_INPUT=FILE.etl replaces
# the input (e.g. a generated 1 GB trace from build/bench/data/).
set -eu
BUILD=${BUILD:-build}
ETLCONV=${ETLCONV:-$BUILD/etlconv}
ROUNDS=${ROUNDS:-3}
CALLGRIND=${CALLGRIND:-some}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

input=${BENCH_DIFF_INPUT:-}
if [ -z "$input" ]; then
    input=$tmp/TraceLoggingTester.etl
    gzip -dc testdata/etwanalyzer/TraceLoggingTester.etl.gz > "$input"
fi
size=$(wc -c < "$input")
"$ETLCONV" -q "$input" --stable -o "$tmp/golden.txt"

# run NAME ARGS...: best wall time of ROUNDS, peak RSS of the last run
run() {
    name=$1; shift
    best=""
    r=0
    while [ "$r" -lt "$ROUNDS" ]; do
        /usr/bin/time -f '%e %M' -o "$tmp/time" "$ETLCONV" diff -q "$@" > "$tmp/report" || true
        t=$(cut -d' ' -f1 "$tmp/time"); rss=$(cut -d' ' -f2 "$tmp/time")
        if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
        r=$((r + 1))
    done
    events=$(sed -n '1s/.*(\([0-9]*\) events)$/\1/p' "$tmp/report")
    same=$(tail -1 "$tmp/report")
    awk -v n="$name" -v e="$events" -v t="$best" -v m="$rss" -v s="$same" -v mb="$size" 'BEGIN {
        printf "%-28s %9d events/side %7.2f s %10.0f events/s %8.1f MB/s %7.1f MB peak RSS  report: %s\n",
               n, e, t, 2 * e / t, 2 * mb / 1e6 / t, m / 1024, s }'
}

echo "input: $input ($size bytes)"
run "diff X X" "$input" "$input"
run "diff golden(X) X" "$tmp/golden.txt" "$input"
run "diff golden(X) golden(X)" "$tmp/golden.txt" "$tmp/golden.txt"
if [ "$CALLGRIND" != no ] && command -v valgrind > /dev/null 2>&1; then
    n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$ETLCONV" diff -q "$input" "$input" 2>&1 >/dev/null |
        awk '/Collected :/ { print $NF }')
    events=$(sed -n '1s/.*(\([0-9]*\) events)$/\1/p' "$tmp/report")
    awk -v n="$n" -v e="$events" 'BEGIN { printf "callgrind diff X X: %.0f instructions, %.0f per event (both sides)\n", n, n / (2 * e) }'
fi
