#!/bin/sh
# Scripts can trust the result (issue 12): KernelTime/UserTime in milliseconds on every corpus trace, inputs
# from pipes, --each that never loses an output and converts each file as if alone, filters that cannot
# match, and the exit-code policy for lost events.
# Oracles: tests/support/etl_cpu_ticks.py (an independent Python walk of the raw record headers, with the
# TimerResolution that --info reports), the separate conversion of each file, and the gzip'ed input path.
. tests/tap_helpers.sh
CORPUS=../shared/corpus
[ -d "$CORPUS" ] || CORPUS=testdata
P=testdata/perfview/primitive-types.etl.gz

# --- KernelTime/UserTime = ticks x TimerResolution / 10000 on every corpus trace, XML and CSV ---------------
info() { $ETLCONV --info "$1" 2>/dev/null | awk -F'\t' -v k="$2" '$1 == k { print $2; exit }'; }
csv_times() { python3 -c 'import csv, sys
r = csv.reader(sys.stdin); next(r)
for row in r: print(row[17], row[18])'; }
python3 tests/support/check_cpu_ms.py "$ETLCONV" $(find "$CORPUS" -name '*.etl' -o -name '*.etl.gz' | sort) > "$T/ms"
check "$(grep -c . "$T/ms")" $(( 2 * $(find "$CORPUS" -name '*.etl.gz' | wc -l) )) "KernelTime/UserTime checked in XML and CSV on every corpus trace with a header"
while read -r verdict rest; do
  case "$verdict" in ok) ok 0 "$rest" ;; *) ok 1 "${rest#ok }" ;; esac
done < "$T/ms"
# The conversion itself, on numbers: TX Process.etl (TimerResolution 156001) and powershell.etl (156250).
check "$(info testdata/tx/Process.etl.gz TimerResolution)" 156001 "Process.etl: TimerResolution 156001 (15.6001 ms ticks)"
$ETLCONV -q testdata/krabsetw/powershell.etl.gz -of csv | csv_times | sort -u | head -3 | tr '\n' ' ' > "$T/ps"
check "$(cat "$T/ps")" "0 0 15 0 " "powershell.etl: 1 kernel tick = 15 ms (15.625 ms ticks, truncated)"

# --- pipes ------------------------------------------------------------------------------------------------
# Spooled stdin goes to $TMPDIR: a folder of this script's own, so another run at once (CI runs make check and
# make sanitize together) cannot leave a copy there while we look. It stays so to the end: unsetting it would
# drop a TMPDIR the caller gave.
mkdir "$T/spool"; export TMPDIR="$T/spool"
$ETLCONV testdata/tx/KernelNetwork.etl.gz -of table > "$T/file.txt"
gzip -dc testdata/tx/KernelNetwork.etl.gz | $ETLCONV - -of table > "$T/pipe.txt"; check $? 0 "zcat trace | etlconv - exits 0"
cmp -s "$T/file.txt" "$T/pipe.txt"; ok $? "zcat trace.etl.gz | etlconv - -of table equals etlconv trace.etl.gz -of table"
gzip -dc testdata/tx/KernelNetwork.etl.gz | $ETLCONV /dev/stdin -of table > "$T/stdin.txt"; cmp -s "$T/file.txt" "$T/stdin.txt"; ok $? "/dev/stdin the same"
$ETLCONV - -of table < testdata/tx/KernelNetwork.etl.gz > "$T/gzpipe.txt"; cmp -s "$T/file.txt" "$T/gzpipe.txt"; ok $? "gzip bytes on stdin the same"
mkfifo "$T/fifo"
(gzip -dc testdata/tx/KernelNetwork.etl.gz > "$T/fifo" &)
$ETLCONV "$T/fifo" -of table > "$T/fifo.txt"; cmp -s "$T/file.txt" "$T/fifo.txt"; ok $? "a FIFO the same"
gzip -dc $P | $ETLCONV - testdata/tx/KernelNetwork.etl.gz -of table > "$T/mixed.txt"
$ETLCONV $P testdata/tx/KernelNetwork.etl.gz -of table | cmp -s - "$T/mixed.txt"; ok $? "stdin merged with a file the same as two files"
check "$(ls "$TMPDIR" | grep -c "^etlconv-input-")" 0 "no spooled copies left in \$TMPDIR"
printf '' | $ETLCONV - 2> "$T/err"; check $? 2 "empty stdin: exit 2"
grep -q "stdin: empty input" "$T/err"; ok $? "... saying so"
$ETLCONV - - < $P 2> "$T/err"; check $? 2 "stdin named twice: exit 2"

# --- --each: never loses an output, each file as if alone -----------------------------------------------------
mkdir -p "$T/a" "$T/b"
cp testdata/demikernel/PktMon.etl.gz "$T/a/PktMon.etl.gz"; cp testdata/tx/KernelNetwork.etl.gz "$T/b/PktMon.etl.gz"
$ETLCONV -q --each -o "$T/same" -of csv "$T/a/PktMon.etl.gz" "$T/b/PktMon.etl.gz" $P; check $? 0 "--each with two PktMon.etl exits 0"
check "$(find "$T/same" -name '*.csv' | wc -l)" 3 "--each: three inputs, three outputs"
$ETLCONV -q "$T/a/PktMon.etl.gz" -of csv | cmp -s - "$T/same${T}/a/PktMon.csv"; ok $? "same-named inputs mirror their folders (a/PktMon.csv)"
$ETLCONV -q "$T/b/PktMon.etl.gz" -of csv | cmp -s - "$T/same${T}/b/PktMon.csv"; ok $? "... (b/PktMon.csv)"
test -s "$T/same/primitive-types.csv"; ok $? "a unique name stays flat (primitive-types.csv)"
E=$(cd "$(dirname "$ETLCONV")" && pwd)/$(basename "$ETLCONV")
(cd "$T" && $E -q --each -o dup a/PktMon.etl.gz ./a/PktMon.etl.gz -of csv); check $? 0 "the same file twice"
test -s "$T/dup/a/PktMon.csv" && test -s "$T/dup/a/PktMon~2.csv"; ok $? "... gets a/PktMon.csv and a/PktMon~2.csv"
(cd "$T" && $E -q --each -o up ../$(basename "$T")/a/PktMon.etl.gz b/PktMon.etl.gz -of csv)
test -z "$(find "$T" -maxdepth 1 -newer "$T/up" -name '*.csv')" && test -s "$T/up/$(basename "$T")/a/PktMon.csv"; ok $? "'..' never leads outside -o DIR"
# Each file of a multi-file run equals its separate conversion (the registry is per input: before, an
# EventSource manifest of TraceLoggingTester changed 246 rows of net.4.5.x86).
set -- testdata/etwanalyzer/TraceLoggingTester.etl.gz testdata/perfview/net.4.5.x86.PerfViewData.etl.gz \
       testdata/perfview/gcevents.PerfViewData.etl.gz testdata/perfview/SelfDescribingSingleEvent.etl.gz $P
$ETLCONV -q --each -o "$T/multi" -of csv "$@"; check $? 0 "--each on 5 files exits 0"
# separate conversions, once: the oracle of this part
for f in "$@"; do $ETLCONV -q "$f" -of csv > "$T/alone.$(basename "$f" .etl.gz).csv"; done
for f in "$@"; do
  b=$(basename "$f" .etl.gz)
  cmp -s "$T/alone.$b.csv" "$T/multi/$b.csv"; ok $? "--each: $b.csv equals its separate conversion"
done
$ETLCONV -q --each --jobs 2 -o "$T/par" -of csv.gz "$@"; check $? 0 "--each --jobs 2 -of csv.gz exits 0"
for f in "$@"; do
  b=$(basename "$f" .etl.gz)
  gzip -dc "$T/par/$b.csv.gz" | cmp -s - "$T/alone.$b.csv"; ok $? "--jobs 2, csv.gz: $b equals its separate conversion"
done
$ETLCONV -q --each --gzip -o "$T/gz" $P -summary; test -s "$T/gz/primitive-types.xml.gz" && test -s "$T/gz/primitive-types.summary.txt"; ok $? "--gzip: NAME.xml.gz (summary stays text)"
$ETLCONV -q --each -o "$T/rep" $P -f HTML -report; test -s "$T/rep/primitive-types.report.html"; ok $? "--each -report: NAME.report.html per input"
$ETLCONV $P --jobs 2 2> "$T/err"; check $? 2 "--jobs without --each: usage error"
$ETLCONV $P -of csv.gz 2> "$T/err"; check $? 2 "-of csv.gz to stdout: usage error"
$ETLCONV $P -of csv.gz -o "$T/c.csv.gz"; check "$(gzip -dc "$T/c.csv.gz" | wc -l)" 8 "-of csv.gz -o FILE.csv.gz: compressed CSV"

# --- filters that cannot match ---------------------------------------------------------------------------------
$ETLCONV $P --event 70000 2> "$T/err"; check $? 2 "--event 70000: usage error"
grep -q "0 to 65535" "$T/err"; ok $? "... giving the range"
$ETLCONV $P --from 10 --to 5 2> "$T/err"; check $? 2 "--from after --to: usage error"
$ETLCONV $P --from 2021-09-09T15:00:00Z --to 2021-09-09T14:00:00Z 2> "$T/err"; check $? 2 "... also with ISO times"
$ETLCONV $P --provider '{d3dd3dd4-aac2-4e2a-8dd4}' 2> "$T/err"; check $? 2 "malformed GUID: usage error"
grep -q "is not a GUID" "$T/err"; ok $? "... saying so"
$ETLCONV $P --provider solar_sytem -of table > "$T/none.txt" 2> "$T/err"; check $? 0 "unknown provider name: exit 0 (a name may be valid elsewhere)"
grep -q "warning: --provider 'solar_sytem' matched no event; providers in the input: MSNT_SystemTrace, solar_system" "$T/err"; ok $? "... with a warning listing the providers seen"
$ETLCONV $P --provider solar_system -of table 2> "$T/err" | wc -l > "$T/n"; check "$(cat "$T/n") $(wc -c < "$T/err")" "5 0" "a matching provider: 5 events, no warning"

# --- exit policy ------------------------------------------------------------------------------------------------
W=testdata/s4/WindowsUpdate.20251008.140245.443.8.etl.gz
check "$(info $W EventsLost)" 41 "WindowsUpdate: the header reports 41 events lost by the session"
$ETLCONV $W -o /dev/null 2> "$T/err"; check $? 0 "intact trace with session losses: exit 0 (tracerpt reports success)"
grep -q "converted completely; the recording session reported: 41 events lost" "$T/err"; ok $? "... and says so"
$ETLCONV $W -o /dev/null --strict 2>/dev/null; check $? 1 "--strict: exit 1"
