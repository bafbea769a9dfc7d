#!/bin/sh
# Throughput benchmarks (`make bench`; measurements, not tests). Best of 3 wall-clock runs unless noted.
#  1. The decompressors over every compressed buffer of the compressed corpus traces (tests/bench/).
#  2. When the etlconv CLI offers them: `--info`, and XML and CSV conversions to stdout (discarded) of the
#     largest traces (decompressed to a temporary directory first), as events/s and MB/s of .etl input.
#  3. With valgrind installed: callgrind instruction counts for one decompression pass and one --info run.
set -eu
BUILD=${BUILD:-build}
ETLCONV=${ETLCONV:-$BUILD/etlconv}
CC=${CC:-cc}
ROUNDS=${ROUNDS:-3}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bench="$BUILD/bench/bench_decompress"
mkdir -p "$BUILD/bench"
make -s --no-print-directory "$BUILD/libetl.a" BUILD="$BUILD"
$CC -std=c11 -O2 -g -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc -o "$bench" tests/bench/bench_decompress.c \
    "$BUILD/libetl.a" -lz

for t in etwanalyzer/TraceLoggingTester perfview/net.4.5.x86.PerfViewData perfview/net.4.5.2.x86; do
    gzip -dc "testdata/$t.etl.gz" > "$tmp/$(basename "$t").etl"
done
have_valgrind=no
if command -v valgrind > /dev/null 2>&1; then have_valgrind=yes; fi
# ir [--toggle-collect=FN] CMD...: callgrind instruction count (Ir) of CMD.
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/Collected :/ { print $NF }'; }

echo "== decompression (best of 20 passes over all compressed buffers)"
for t in perfview/net.4.5.2.x86 demikernel/PktMon terraingen2d/PerfViewData perfview/SelfDescribingSingleEvent; do
    "$bench" "testdata/$t.etl.gz" 20
done

if [ "$have_valgrind" = yes ]; then
    n=$(ir --toggle-collect=etl_decompress_etl_buffer "$bench" "$tmp/net.4.5.2.x86.etl" 1)
    out=$("$bench" "$tmp/net.4.5.2.x86.etl" 1 | sed 's/.*out \([0-9.]*\) MB.*/\1/')
    awk -v n="$n" -v mb="$out" 'BEGIN { printf "callgrind\tdecompress net.4.5.2.x86 (1 pass)\t%d Ir\t%.2f Ir/output byte\n", n, n / (mb * 1e6) }'
fi

now() { date +%s.%N; }
# best_of CMD...: runs CMD $ROUNDS times (output discarded), prints the best wall time in seconds, or "fail".
best_of() {
    best=""
    i=0
    while [ $i -lt "$ROUNDS" ]; do
        t0=$(now)
        if ! "$@" > /dev/null 2>&1; then echo fail; return; fi
        t1=$(now)
        best=$(awk -v a="$t0" -v b="$t1" -v best="$best" 'BEGIN { t = b - a; if (best == "" || t < best) best = t; printf "%.4f", best }')
        i=$((i + 1))
    done
    echo "$best"
}

if [ ! -x "$ETLCONV" ] || ! "$ETLCONV" --info "$tmp/net.4.5.2.x86.etl" 2>/dev/null | grep -q '^events'; then
    echo "== etlconv: $ETLCONV has no working --info yet; skipping CLI timings"
    exit 0
fi

echo "== etlconv (best of $ROUNDS)"
convert_supported=no
if "$ETLCONV" --help 2>&1 | grep -q -- '-of'; then convert_supported=yes; fi
report() { # what trace MB events seconds|fail
    if [ "$5" = fail ]; then printf '%s\t%s\tFAILED (non-zero exit)\n' "$1" "$2"; return; fi
    awk -v w="$1" -v t="$2" -v mb="$3" -v ev="$4" -v s="$5" 'BEGIN {
        printf "%s\t%s\t%s MB\t%d events\t%.3f s\t%.0f events/s\t%.1f MB/s\n", w, t, mb, ev, s, ev / s, mb / s }'
}
for t in TraceLoggingTester net.4.5.x86.PerfViewData net.4.5.2.x86; do
    f="$tmp/$t.etl"
    mb=$(wc -c < "$f" | awk '{ printf "%.2f", $1 / 1e6 }')
    events=$("$ETLCONV" --info "$f" 2>/dev/null | awk -F '\t' '$1 == "events" { print $2 }')
    events=${events:-0}
    report info "$t" "$mb" "$events" "$(best_of "$ETLCONV" --info "$f")"
    if [ "$convert_supported" = yes ]; then
        for fmt in xml csv; do
            report "$fmt" "$t" "$mb" "$events" "$(best_of "$ETLCONV" -q -of "$fmt" "$f")"
        done
    fi
done

if [ "$have_valgrind" = yes ]; then
    printf 'callgrind\tetlconv --info net.4.5.2.x86\t%s Ir\n' "$(ir "$ETLCONV" --info "$tmp/net.4.5.2.x86.etl")"
    if [ "$convert_supported" = yes ]; then
        printf 'callgrind\tetlconv -of xml net.4.5.2.x86\t%s Ir\n' "$(ir "$ETLCONV" -q -of xml "$tmp/net.4.5.2.x86.etl")"
    fi
fi
