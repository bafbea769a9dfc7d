#!/bin/sh
# Throughput benchmarks (`make bench`; measurements, not tests). Fills the measured part of BENCHMARKS.md
# (between its "make bench" markers) and prints the same to stdout.
#  1. The decompressors over every compressed buffer of the compressed corpus traces (tests/bench/).
#  2. Generated inputs (tests/bench/gen_trace.c): each mix's real corpus trace replicated to BENCH_MB MB
#     (default 256; BENCH_MB="256 1024 4096" for the issue's 0.25/1/4 GB) under $BUILD/bench/data, kept
#     between runs, never committed. Per mix and per registered writer plus --info: median of ROUNDS runs
#     (default 3) of events/s, input MB/s, output MB/s and peak RSS (getrusage of the child).
#  3. With valgrind: callgrind instructions per event on the source traces (the figure to track; it does
#     not depend on the machine's load). CALLGRIND=all: every writer on every mix; CALLGRIND=no: none.
#     Then -j 2 thread by thread (xml): the speed-up its instructions allow on two cores that do not slow
#     each other.
#  4. Every tests/bench_*.sh other features add; their output goes in a section of its own.
# Environment: BENCH_MB, ROUNDS, MIXES (names below), WRITERS (default: all registered + info), BENCH_J (-j for
# the writer rows; default: etlconv's own default, all cores), JOBS (the -j values of the extra xml rows,
# default "1 2", run in interleaved rounds with two -j 1 runs at once, free and pinned; a table after each size
# compares them: CPU ratio and each round's wall speed-up), CALLGRIND. CPU s is
# user + system time of all threads (getrusage): on a loaded machine the steadier figure; events/s and MB/s
# are wall-clock. BENCH_MB=1024 gives the issue's 1 GB figures (about 1 GB of disk per mix).
set -eu
BUILD=${BUILD:-build}
ETLCONV=${ETLCONV:-$BUILD/etlconv}
CC=${CC:-cc}
ROUNDS=${ROUNDS:-3}
BENCH_MB=${BENCH_MB:-256}
CALLGRIND=${CALLGRIND:-some}
MIXES=${MIXES:-"TraceLoggingTester net.4.5.x86.PerfViewData net.4.5.2.x86 CrossMachineHTTP"}
OUT_MD=${OUT_MD:-BENCHMARKS.md}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
report=$tmp/report.md
data="$BUILD/bench/data"
mkdir -p "$BUILD/bench" "$data"
make -s --no-print-directory "$BUILD/libetl.a" "$BUILD/libetlformats.a" "$BUILD/bench/gen_trace" BUILD="$BUILD"
cflags="-std=c11 -O2 -g -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iinclude -Isrc"
$CC $cflags -o "$BUILD/bench/bench_decompress" tests/bench/bench_decompress.c "$BUILD/libetl.a" -lz
$CC $cflags -o "$BUILD/bench/bench_run" tests/bench/bench_run.c
$CC $cflags -o "$BUILD/bench/list_writers" tests/bench/list_writers.c "$BUILD/libetlformats.a" "$BUILD/libetl.a" \
    $(pkg-config --libs libxml-2.0 zlib libzstd libdeflate) -lcsv -lmspack -lpthread -lm
WRITERS=${WRITERS:-"$("$BUILD/bench/list_writers" | tr '\n' ' ')info"}

source_of() {
    case $1 in
    TraceLoggingTester) echo testdata/etwanalyzer/TraceLoggingTester.etl.gz ;;
    net.4.5.x86.PerfViewData) echo testdata/perfview/net.4.5.x86.PerfViewData.etl.gz ;;
    net.4.5.2.x86) echo testdata/perfview/net.4.5.2.x86.etl.gz ;;
    CrossMachineHTTP) echo testdata/tx/CrossMachineHTTP.etl.gz ;;
    KernelNetwork) echo testdata/tx/KernelNetwork.etl.gz ;;
    *) echo "bench: unknown mix $1" >&2; exit 2 ;;
    esac
}
say() { printf '%s\n' "$*" | tee -a "$report"; }
have_valgrind=no
if command -v valgrind > /dev/null 2>&1 && [ "$CALLGRIND" != no ]; then have_valgrind=yes; fi
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/Collected :/ { print $NF }'; }
events_of() { "$ETLCONV" --info "$1" 2>/dev/null | awk -F'\t' '$1 == "events" { print $2 }'; }

say "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, \
$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, $(uname -sr), \
$($CC --version | head -1); $(date -u +%Y-%m-%dT%H:%MZ); load $(cut -d' ' -f1-3 /proc/loadavg)"
say "Settings: BENCH_MB=$BENCH_MB ROUNDS=$ROUNDS (median) CALLGRIND=$CALLGRIND"
say ""
say "### Decompression (best of 20 passes over all compressed buffers)"
say '```'
for t in perfview/net.4.5.2.x86 demikernel/PktMon terraingen2d/PerfViewData perfview/SelfDescribingSingleEvent; do
    "$BUILD/bench/bench_decompress" "testdata/$t.etl.gz" 20 | tee -a "$report"
done
say '```'

# median of the first field of lines on stdin (with the line's other fields)
median_line() { sort -n | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }'; }
# run_one WRITER INPUT [extra args]: prints "seconds maxrss out_bytes status", median of ROUNDS; the output goes
# to /dev/stdout (a pipe bench_run reads and counts); the -j rows (jobs_rounds) write to /dev/null, whose
# speed-up the pipe would hide (bench_run reads it at about 850 MB/s, and a single writer and reader waking each
# other on this virtual machine run slower than two such pairs at once).
out=/dev/stdout
run_one() {
    w=$1 f=$2
    shift 2
    i=0
    : > "$tmp/runs"
    while [ $i -lt "$ROUNDS" ]; do
        if [ "$w" = info ]; then
            "$BUILD/bench/bench_run" "$ETLCONV" --info "$f" >> "$tmp/runs"
        else
            "$BUILD/bench/bench_run" "$ETLCONV" -q -y -of "$w" ${BENCH_J:+-j "$BENCH_J"} "$@" -o "$out" "$f" >> "$tmp/runs"
        fi
        i=$((i + 1))
    done
    median_line < "$tmp/runs"
}

# row MIX WRITER EVENTS MB SECONDS RSS_KIB OUT_BYTES STATUS CPU: one table row
row() {
    awk -v m="$1" -v w="$2" -v ev="$3" -v mb="$4" -v s="$5" -v rss="$6" -v ob="$7" -v cpu="$9" 'BEGIN {
        printf "| %s | %s | %d | %.1f | %.2f | %.0f | %.0f | %.0f | %.1f | %.2f | %.0f |", m, w, ev, mb, s, ev / s, mb / s,
               ob / 1e6 / s, rss / 1024, cpu, ev / (cpu > 0 ? cpu : 1e-9) }'
}

# jobs_rounds INPUT: ROUNDS rounds, each of: XML at -j N for every N of JOBS; two independent -j 1 conversions at
# once (what perfectly parallel work gains on this machine, whose cores share caches, memory bandwidth and a
# hypervisor: the ceiling for -j 2); with taskset and 2+ CPUs, the same pair pinned to CPUs 0 and 1 (whether the
# two CPUs run alike). Rounds interleave the kinds because a virtual machine's speed comes in phases: here two
# vCPUs ran the same conversion at the same moment 1.5-1.9x apart, and which one was slow changed within
# seconds, so medians of separate series compare different phases. Writes $tmp/j<N> (bench_run lines),
# $tmp/rounds ("round kind seconds cpu"; kind N, pair or pin) and $tmp/pin ("cpu0_s cpu1_s").
jobs_rounds() {
    for j in ${JOBS:-1 2}; do : > "$tmp/j$j"; done
    : > "$tmp/rounds"; : > "$tmp/pin"
    pin=no
    if command -v taskset > /dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then pin=yes; fi
    i=0
    while [ $i -lt "$ROUNDS" ]; do
        for j in ${JOBS:-1 2}; do
            "$BUILD/bench/bench_run" "$ETLCONV" -q -y -of xml -j "$j" -o /dev/null "$1" > "$tmp/one"
            cat "$tmp/one" >> "$tmp/j$j"
            awk -v i=$i -v j="$j" '{ print i, j, $1, $5 }' "$tmp/one" >> "$tmp/rounds"
        done
        "$BUILD/bench/bench_run" "$ETLCONV" -q -y -of xml -j 1 -o /dev/null "$1" > "$tmp/pair_a" &
        "$BUILD/bench/bench_run" "$ETLCONV" -q -y -of xml -j 1 -o /dev/null "$1" > "$tmp/pair_b"
        wait
        sort -n "$tmp/pair_a" "$tmp/pair_b" | tail -1 | awk -v i=$i '{ print i, "pair", $1, $5 }' >> "$tmp/rounds"
        if [ $pin = yes ]; then
            taskset -c 0 "$BUILD/bench/bench_run" "$ETLCONV" -q -y -of xml -j 1 -o /dev/null "$1" > "$tmp/pin_a" &
            taskset -c 1 "$BUILD/bench/bench_run" "$ETLCONV" -q -y -of xml -j 1 -o /dev/null "$1" > "$tmp/pin_b"
            wait
            echo "$(cut -d' ' -f1 "$tmp/pin_a") $(cut -d' ' -f1 "$tmp/pin_b")" >> "$tmp/pin"
        fi
        i=$((i + 1))
    done
}

# jobs_table MIX: the -j rows of one mix from jobs_rounds: medians of CPU and wall, and the median of each
# round's own speed-up (its -j 1 wall over its -j N wall; for the pair, twice its -j 1 over the slower run's)
jobs_table() {
    awk -v m="$1" '
        function med(a, n,   i, j, t) {
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return n ? a[int((n + 1) / 2)] : 0 }
        { w[$1, $2] = $3; c[$1, $2] = $4; if (!($2 in seen)) { seen[$2] = 1; kinds[++nk] = $2 } if ($1 + 1 > nr) nr = $1 + 1 }
        END {
            for (r = 0; r < nr; r++) { a1w[r + 1] = w[r, 1]; a1c[r + 1] = c[r, 1] }
            w1 = med(a1w, nr); c1 = med(a1c, nr)
            for (k = 1; k <= nk; k++) {
                K = kinds[k]; if (K == 1) continue
                n = 0
                for (r = 0; r < nr; r++) if ((r, K) in w) { n++; aw[n] = w[r, K]; ac[n] = c[r, K]
                    sp[n] = (K == "pair" ? 2 : 1) * w[r, 1] / (w[r, K] > 0 ? w[r, K] : 1e-9) }
                mw = med(aw, n); mc = med(ac, n); ms = med(sp, n)
                label = K == "pair" ? "two -j 1 runs at once (the ceiling)" : K
                printf "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2fx |\n", m, label, mc, c1, mc / (c1 > 0 ? c1 : 1e-9), mw, w1, ms
            }
        }' "$tmp/rounds"
    if [ -s "$tmp/pin" ]; then
        awk -v m="$1" '{ a = $1 < $2 ? $1 : $2; b = $1 < $2 ? $2 : $1; r = b / (a > 0 ? a : 1e-9)
                         s = s sprintf("%s%.2f/%.2f", NR > 1 ? ", " : "", $1, $2) }
            END { printf "| %s | two -j 1 runs pinned to CPU 0 / CPU 1, s per round: %s | | | | | | |\n", m, s }' "$tmp/pin"
    fi
}

# times_rows MIX: ETLCONV_PIPELINE_TIMES lines on stdin as table rows, each part in % of the worker's pass
times_rows() {
    sed -n 's/^etlconv: .*: -j worker /worker /p' | sed 's/[:,()]/ /g' | awk -v m="$1" '
        # "worker N PASS s reading R s B batches C records rendering ... other O s": each part by its name
        { delete v; for (i = 5; i < NF; i++) if ($(i + 1) == "s" && $(i - 1) ~ /^[a-z]+$/) v[$(i - 1)] = $i
          for (i = 2; i <= NF; i++) if ($i == "records") records = $(i - 1)
          p = $3 > 0 ? $3 : 1e-9
          printf "| %s | %s | %.2f | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", m, $2, $3, records,
                 100 * v["reading"] / p, 100 * v["rendering"] / p, 100 * v["observing"] / p, 100 * v["writing"] / p,
                 100 * v["releasing"] / p, 100 * v["waiting"] / p, 100 * v["other"] / p }'
}

for size in $BENCH_MB; do
    say ""
    say "### Generated traces of about $size MB: median of $ROUNDS runs"
    say ""
    say "| mix | writer | events | input MB | s | events/s | input MB/s | output MB/s | peak RSS MiB | CPU s | events/CPU s |"
    say "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for mix in $MIXES; do
        src=$(source_of "$mix")
        f="$data/$mix.${size}MB.etl"
        [ -s "$f" ] || "$BUILD/bench/gen_trace" "$src" "$f" --mb "$size" > /dev/null
        mb=$(wc -c < "$f" | awk '{ printf "%.1f", $1 / 1e6 }')
        ev=$(events_of "$f")
        for w in $WRITERS; do
            set -- $(run_one "$w" "$f")
            if [ "$4" -gt 1 ]; then say "| $mix | $w | FAILED (exit $4) | | | | | | | | |"; continue; fi
            say "$(row "$mix" "$w" "$ev" "$mb" "$@")"
        done
        if "$ETLCONV" --help 2>&1 | grep -q -- ' -j'; then
            jobs_rounds "$f"
            for j in ${JOBS:-1 2}; do
                set -- $(median_line < "$tmp/j$j")
                say "$(row "$mix" "xml -j $j (-o /dev/null)" "$ev" "$mb" "$@")"
            done
            jobs_table "$mix" >> "$tmp/jobs"
            ETLCONV_PIPELINE_TIMES=1 "$ETLCONV" -q -y -of xml -j 2 -o /dev/null "$f" 2>&1 | times_rows "$mix" >> "$tmp/times"
        fi
    done
    if [ -s "$tmp/jobs" ]; then
        say ""
        say "XML with -j N against -j 1 (-o /dev/null), traces of about $size MB, $ROUNDS interleaved rounds (each: -j N for"
        say "every N, then two independent -j 1 runs at once, then that pair pinned to CPUs 0 and 1): medians of CPU seconds"
        say "of all threads (the work -j N adds) and of wall seconds, and the median of each round's own speed-up (its"
        say "-j 1 wall over its -j N wall; the pair: twice the work in the slower run's wall time, what perfectly parallel"
        say "work gets here). Load now: $(cut -d' ' -f1-3 /proc/loadavg). Pinned pairs far apart mean unequal CPUs: -j 1"
        say "then runs at the speed of whichever CPU it got."
        say ""
        say "| mix | -j | CPU s | CPU s at -j 1 | CPU ratio | wall s | wall s at -j 1 | speed-up (median of rounds) |"
        say "|---|---:|---:|---:|---:|---:|---:|---:|"
        tee -a "$report" < "$tmp/jobs"
        rm -f "$tmp/jobs"
    fi
    if [ -s "$tmp/times" ]; then
        say ""
        say "Where each worker's time went in one more -j 2 run (ETLCONV_PIPELINE_TIMES; xml, -o /dev/null), in % of its"
        say "pass: workers that read and render nearly all of it are held up by nothing but their cores' speed."
        say ""
        say "| mix | worker | pass s | records read | reading | rendering | observing | writing | releasing | waiting | other |"
        say "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        tee -a "$report" < "$tmp/times"
        rm -f "$tmp/times"
    fi
done

if [ "$have_valgrind" = yes ]; then
    say ""
    say "### callgrind: instructions per event on the source traces (deterministic; the figure to track)"
    say ""
    say "| mix | writer | events | instructions | instructions/event |"
    say "|---|---|---:|---:|---:|"
    for mix in $MIXES; do
        src=$(source_of "$mix")
        gzip -dc "$src" > "$tmp/src.etl"
        ev=$(events_of "$tmp/src.etl")
        if [ "$CALLGRIND" = all ]; then ws=$WRITERS; elif [ "$mix" = net.4.5.2.x86 ]; then ws="xml csv table jsonl info"; else ws=xml; fi
        for w in $ws; do
            if [ "$w" = info ]; then n=$(ir "$ETLCONV" --info "$tmp/src.etl")
            else n=$(ir "$ETLCONV" -q -j 1 -of "$w" "$tmp/src.etl"); fi
            say "$(awk -v m="$mix" -v w="$w" -v ev="$ev" -v n="$n" 'BEGIN { printf "| %s | %s | %d | %.0f | %.0f |", m, w, ev, n, n / ev }')"
            if [ "$w" = xml ]; then echo "$n" > "$tmp/ir_xml_$mix"; fi  # -j 1 of the table below
        done
    done
    # -j 2 in instructions, thread by thread: the speed-up the code allows on two cores that do not slow each
    # other (wall-clock speed-ups on a shared virtual machine also carry what the host does). valgrind runs one
    # thread at a time, so how the batches fell to the two workers is its schedule's; "work bound" assumes an
    # even split (-j 1's instructions over half of -j 2's), "as scheduled" takes the busier thread as the
    # critical path (its serial start included). Both count the spin for the reader's turn, whose length
    # depends on that schedule: -j 2's total varies by about 1.5 % from run to run (net.4.5.x86: 945-958 M in
    # four runs), "as scheduled" more (1.83-1.88x); on a trace as small as CrossMachineHTTP's the schedule
    # gives most batches to one thread.
    say ""
    say "### callgrind: -j 2 thread by thread (xml, the source traces)"
    say ""
    say "| mix | -j 1 instructions | -j 2, all threads | -j 2 / -j 1 | busier thread | work bound | as scheduled |"
    say "|---|---:|---:|---:|---:|---:|---:|"
    for mix in $MIXES; do
        gzip -dc "$(source_of "$mix")" > "$tmp/src.etl"
        rm -f "$tmp"/cg-*
        valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$tmp/cg" \
            "$ETLCONV" -q -j 2 -of xml "$tmp/src.etl" > /dev/null 2>&1 || true
        say "$(cat "$tmp"/cg-* 2>/dev/null | awk -v m="$mix" -v one="$(cat "$tmp/ir_xml_$mix" 2>/dev/null)" '
            /^totals:/ { t = $2; all += t; if (t > max) max = t }
            END { if (!all || !one) { printf "| %s | (callgrind gave no count) | | | | | |", m; exit }
                  printf "| %s | %.0f | %.0f | %.3f | %.0f | %.2fx | %.2fx |", m, one, all, all / one, max,
                         one / (all / 2), one / max }')"
    done
fi

for extra in tests/bench_*.sh; do
    [ -f "$extra" ] || continue
    say ""
    say "### $extra"
    say '```'
    ETLCONV=$ETLCONV BUILD=$BUILD sh "$extra" 2>&1 | tee -a "$report" || true
    say '```'
done

# BENCHMARKS.md: replace what lies between the markers, keep the rest (the hand-written log of changes)
begin='<!-- make bench: begin (generated; do not edit by hand) -->'
end='<!-- make bench: end -->'
if [ -f "$OUT_MD" ] && grep -qF "$begin" "$OUT_MD"; then
    awk -v b="$begin" -v e="$end" -v r="$report" '
        $0 == b { print; while ((getline line < r) > 0) print line; skip = 1; next }
        $0 == e { skip = 0 }
        !skip { print }' "$OUT_MD" > "$tmp/md" && cp "$tmp/md" "$OUT_MD"
else
    { printf '# Benchmarks\n\n%s\n' "$begin"; cat "$report"; printf '%s\n' "$end"; } >> "$OUT_MD"
fi
echo "bench: results written to $OUT_MD"
