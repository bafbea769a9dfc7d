#!/bin/sh
# Benchmark input generator (tests/bench/gen_trace.c): a trace built from N copies of a real trace's event
# buffers reads back with N times the source's record census (etlconv --info) and no reader complaint.
# census(N) = census(0) + N x (census(source) - census(0)); census(0) is the header buffer alone.
. tests/tap_helpers.sh
BUILD=${BUILD:-build}
GEN=${GEN:-$BUILD/bench/gen_trace}
census() { "$ETLCONV" --info "$1" | awk -F'\t' '/^(buffers|buffers.compressed|events|records\.[A-Z0-9]+|errors|warnings|buffers.lost|events.lost)\t/ { print $1 "\t" $2 }' | sort; }
# expected N header source: each key of source or header → header + N*(source - header)
expect() {
    awk -F'\t' -v n="$1" 'FNR == NR { h[$1] = $2; next } { k[$1] = 1; s[$1] = $2 } END {
        for (x in h) k[x] = 1
        for (x in k) print x "\t" (h[x] + n * (s[x] - h[x])) }' "$2" "$3" | awk -F'\t' '$1 ~ /^records/ && $2 == 0 { next } { print }' | sort
}
for src in testdata/perfview/net.4.5.2.x86.etl.gz testdata/perfview/net.4.5.x86.PerfViewData.etl.gz \
           testdata/etwanalyzer/TraceLoggingTester.etl.gz testdata/tx/KernelNetwork.etl.gz \
           testdata/tx/CrossMachineHTTP.etl.gz; do
    name=$(basename "$src" .etl.gz)
    gzip -dc "$src" > "$T/src.etl"
    census "$T/src.etl" > "$T/src.census"
    "$GEN" "$src" "$T/g0.etl" 0 > /dev/null
    census "$T/g0.etl" > "$T/g0.census"
    "$GEN" "$src" "$T/g1.etl" 1 > /dev/null
    cmp -s "$T/g1.etl" "$T/src.etl"; ok $? "$name: one copy is the source byte for byte"
    "$GEN" "$src" "$T/g3.etl" 3 > /dev/null
    census "$T/g3.etl" > "$T/g3.census"
    expect 3 "$T/g0.census" "$T/src.census" > "$T/want.census"
    diff "$T/want.census" "$T/g3.census" > "$T/diff" 2>&1; ok $? "$name: 3 copies give 3 x the record census $(head -c 300 "$T/diff")"
    grep -q "^errors	0" "$T/g3.census" && grep -q "^warnings	0" "$T/g3.census"; ok $? "$name: 3 copies read without errors or warnings"
    rm -f "$T"/*.etl
done
# Copies follow each other in time: the generated trace's events come out in non-decreasing time, and
# every event of the second copy (all but the log-file header event) is later than the source's last event.
"$GEN" testdata/perfview/net.4.5.2.x86.etl.gz "$T/g2.etl" 2 > /dev/null
"$ETLCONV" -q -of jsonl "$T/g2.etl" -o "$T/g2.jsonl"; ok $? "two copies convert without warnings"
"$ETLCONV" -q -of jsonl testdata/perfview/net.4.5.2.x86.etl.gz -o "$T/src.jsonl"
jq -r .time "$T/g2.jsonl" > "$T/times"
sort -c "$T/times"; ok $? "two copies: times never go back"
last=$(jq -r .time "$T/src.jsonl" | sort | tail -1)
check "$(awk -v last="$last" '$0 > last' "$T/times" | wc -l)" "$(($(wc -l < "$T/src.jsonl") - 1))" \
    "two copies: the second copy's events all come after the source's last"
# Many copies: record stamps (QPC ticks here) and buffer stamps (FILETIMEs) step by their own spans; one step
# over both wrapped int64 after a few dozen copies (the 1 GB net.4.5.2.x86 mix had garbage times from copy ~20).
"$GEN" testdata/perfview/smallEtlFile.etl.gz "$T/g80.etl" 80 > /dev/null
"$ETLCONV" -q -of jsonl "$T/g80.etl" -o "$T/g80.jsonl"; ok $? "80 copies convert without warnings"
jq -r .time "$T/g80.jsonl" > "$T/times80"
sort -c "$T/times80"; ok $? "80 copies: times never go back"
check "$(grep -c '^1601-' "$T/times80")" 0 "80 copies: no time wrapped to 1601"
# (at most 8 MiB written should the check ever fail: the copies would otherwise fill the disk)
(ulimit -f 16384; exec "$GEN" testdata/perfview/smallEtlFile.etl.gz "$T/gbig.etl" 9000000000000000000) > /dev/null 2> "$T/err"
check $? 1 "copies that would overflow the stamps are refused"
grep -q "overflow" "$T/err"; ok $? "... with a message saying so"
rm -f "$T"/*.etl
