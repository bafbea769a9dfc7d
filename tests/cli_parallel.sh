#!/bin/sh
# -j N (src/pipeline/parallel.c): the output of every corpus trace with every per-event writer is byte for byte
# that of -j 1, with the same exit status and messages. Small batches (ETLCONV_BATCH_RECORDS) make every
# worker render many batches even in small traces; -j 3 gives batches an owner that is not a power of two.
. tests/tap_helpers.sh
for f in $(find testdata -name '*.etl.gz' | sort); do
    for fmt in xml csv table jsonl; do
        $ETLCONV -j 1 -of $fmt "$f" > "$T/one" 2> "$T/one.err"; rc1=$?
        js=2; [ $fmt = xml ] && js="2 3"
        for j in $js; do
            ETLCONV_BATCH_RECORDS=7 $ETLCONV -j $j -of $fmt "$f" > "$T/many" 2> "$T/many.err"; rcj=$?
            cmp -s "$T/one" "$T/many" && [ $rc1 = $rcj ] && cmp -s "$T/one.err" "$T/many.err"
            ok $? "$f -of $fmt: -j $j equals -j 1 (output, exit $rc1, messages)"
        done
    done
done
# default batches on the largest trace, filters and options that change the text
P=testdata/etwanalyzer/TraceLoggingTester.etl.gz
for args in "-of xml" "-of csv --csv-compat" "-of table --columns time,pid,tid,cpu,provider" "-of jsonl --local" \
            "-of xml -rts" "-of xml --event 1,2,3" "-of csv --from 1 --to 2" "-of xml --one-pass" "-of xml -lr"; do
    $ETLCONV -q -j 1 $args "$P" > "$T/one"; rc1=$?
    $ETLCONV -q -j 2 $args "$P" > "$T/many"; rcj=$?
    cmp -s "$T/one" "$T/many" && [ $rc1 = $rcj ]; ok $? "TraceLoggingTester $args: -j 2 equals -j 1"
done
# relative --from/--to on a trace whose header has no StartTime count from the first event: every worker
# binds them to the same event (each used to bind to the first record it rendered itself)
gzip -dc "$P" > "$T/nostart.etl"
printf '\0\0\0\0\0\0\0\0' | dd of="$T/nostart.etl" bs=1 seek=368 conv=notrunc 2>/dev/null  # StartTime at 0x170
$ETLCONV --info "$T/nostart.etl" 2>/dev/null | grep -q '^StartTime	1601-01-01T00:00:00'; ok $? "StartTime zeroed"
$ETLCONV -q -j 1 -of csv --from 0.3 --to 0.9 "$T/nostart.etl" > "$T/one"; rc1=$?
ETLCONV_BATCH_RECORDS=100 $ETLCONV -q -j 2 -of csv --from 0.3 --to 0.9 "$T/nostart.etl" > "$T/many"; rcj=$?
cmp -s "$T/one" "$T/many" && [ $rc1 = $rcj ] && [ "$(wc -l < "$T/one")" -gt 1000 ]
ok $? "no StartTime, --from 0.3 --to 0.9: -j 2 equals -j 1 ($(wc -l < "$T/one") rows)"
# ETLCONV_PIPELINE_TIMES: one line per worker on stderr, the output unchanged; the workers' records together
# are the trace's events as --info counts them (each read once), and the parts lie within each worker's pass
$ETLCONV -q -j 2 -of xml "$P" > "$T/one"
ETLCONV_PIPELINE_TIMES=1 $ETLCONV -q -j 2 -of xml "$P" > "$T/many" 2> "$T/times"; rcj=$?
cmp -s "$T/one" "$T/many" && [ $rcj = 0 ]; ok $? "ETLCONV_PIPELINE_TIMES: the output is unchanged"
[ "$(grep -c "^etlconv: $P: -j worker [01]: " "$T/times")" = 2 ] && [ "$(wc -l < "$T/times")" = 2 ]
ok $? "ETLCONV_PIPELINE_TIMES: one line per worker, naming the trace"
events=$($ETLCONV --info "$P" 2>/dev/null | awk -F'\t' '$1 == "events" { print $2 }')
sed 's/^.*: -j worker /worker /; s/[:,()]/ /g' "$T/times" | awk -v events="$events" '
    { pass = $3; parts = 0; for (i = 4; i < NF; i++) { if ($i == "records") records += $(i - 1)
                                          if ($(i + 1) == "s" && $i ~ /^[0-9.]+$/ && $(i - 1) != "other") parts += $i }
      if (parts > pass + 0.004) bad = 1 }  # six parts and the pass, each rounded to the millisecond
    END { exit !(records == events && events > 100000 && !bad) }'
ok $? "ETLCONV_PIPELINE_TIMES: the workers read the $events events once between them, parts within the pass"
ETLCONV_PIPELINE_TIMES=1 $ETLCONV -q -j 1 -of xml "$P" 2> "$T/times" > /dev/null
check "$(wc -c < "$T/times")" 0 "ETLCONV_PIPELINE_TIMES with -j 1 (no pipeline): nothing on stderr"
for v in 0 ""; do
    ETLCONV_PIPELINE_TIMES=$v $ETLCONV -q -j 2 -of xml "$P" 2> "$T/times" > /dev/null
    check "$(wc -c < "$T/times")" 0 "ETLCONV_PIPELINE_TIMES='$v': off"
done
# with the progress bar, the lines start on a line of their own (the bar is cleared first)
ETLCONV_PIPELINE_TIMES=1 $ETLCONV --progress -j 2 -of xml "$P" 2> "$T/times" > /dev/null
check "$(tr '\r' '\n' < "$T/times" | grep -c "^etlconv: $P: -j worker [01]: ")" 2 "ETLCONV_PIPELINE_TIMES with --progress"
# writers that need every event in order stay on one thread and still work with -j
$ETLCONV -q -j 2 -of summary "$P" > "$T/s2"; $ETLCONV -q -j 1 -of summary "$P" > "$T/s1"
diff "$T/s1" "$T/s2" | grep -v -i 'elapsed\|seconds\|^---\|^[0-9]' | grep -q . ; check $? 1 "summary with -j 2 (one thread) equals -j 1 but for the elapsed time"
# a trace read from a pipe (no first pass then) is converted on several threads too, with the same output
gzip -dc "$P" | $ETLCONV -q -j 1 -of csv - > "$T/one"; gzip -dc "$P" | $ETLCONV -q -j 2 -of csv - > "$T/many"
cmp -s "$T/one" "$T/many" && test -s "$T/one"; ok $? "TraceLoggingTester from a pipe: -j 2 equals -j 1"
