#!/bin/sh
# etlconv conversions end to end: the README command, every format, atomic/protected/gzip output, --local,
# filters, batch mode, exit codes and messages. Expected counts and times come from the corpus oracles:
# corpus-MANIFEST.tsv censuses (primitive-types: EVENT64:5 + SYSTEM64:2 = 7 records, 5 of them from
# provider d3dd3dd4-... PID 33984) and the PerfView baseline (primitive-types starts 2021-09-09T14:59:32.85 UTC).
. tests/tap_helpers.sh
wellformed() { xmllint --noout "$1" 2>/dev/null; }
P=testdata/perfview/primitive-types.etl.gz

# --- the README's main command -------------------------------------------------------------------------
$ETLCONV $P -of xml > "$T/readme.xml"; check $? 0 "README command exits 0"
wellformed "$T/readme.xml"; ok $? "README command output is well-formed XML"
check "$(grep -c '<Event xmlns="http://schemas.microsoft.com/win/2004/08/events/event">' "$T/readme.xml")" 7 \
      "7 events (census EVENT64:5 + SYSTEM64:2)"
check "$(grep -m1 '<Provider' "$T/readme.xml" | grep -c '68fdd900-4a3e-11d1-84f4-0000f80464e3')" 1 \
      "the EventTrace header event comes first"
check "$(grep -m1 'SystemTime=' "$T/readme.xml" | sed 's/.*SystemTime="\([^"]*\)".*/\1/' | cut -c1-22)" \
      "2021-09-09T14:59:32.85" "first SystemTime is the trace start in UTC (PerfView baseline)"
grep -m1 'SystemTime=' "$T/readme.xml" | grep -q 'SystemTime="[0-9-]*T[0-9:]*\.[0-9]\{9\}Z"'; ok $? "SystemTime has 9 fraction digits and Z"
$ETLCONV $P > "$T/default.xml"; cmp -s "$T/readme.xml" "$T/default.xml"; ok $? "XML is the default format"

# --- every format ------------------------------------------------------------------------------------
$ETLCONV $P -of CSV > "$T/p.csv"; check $? 0 "CSV exits 0"
check "$(head -1 "$T/p.csv")" "Event Name,Type,Event ID,Version,Channel,Level,Opcode,Task,Keyword,PID,TID,Processor Number,Instance ID,Parent Instance ID,Activity ID,Related Activity ID,Clock-Time,Kernel(ms),User(ms),User Data" "CSV header: tracerpt's 20 columns"
check "$(wc -l < "$T/p.csv")" 8 "CSV: header + 7 rows"
$ETLCONV $P -of csv --csv-compat | head -1 > "$T/compat.csv"
check "$(cat "$T/compat.csv")" "Event Name, Type, Event ID, Version, Channel, Level, Opcode, Task, Keyword, PID, TID, Processor Number, Instance ID, Parent Instance ID, Activity ID, Related Activity ID, Clock-Time, Kernel(ms), User(ms), User Data" "--csv-compat header verbatim"
check "$($ETLCONV $P -of table | wc -l)" 7 "table: 7 lines"
$ETLCONV $P -of table | cut -f5 > "$T/names"
$ETLCONV $P -of table --columns none | cut -f1 | cmp -s - "$T/names"; ok $? "--columns none: the event name comes first"
check "$($ETLCONV $P -of json | wc -l)" 7 "JSON: 7 lines"
check "$($ETLCONV $P --format jsonl | grep -c '^{"time":"2021-09-09T')" 7 "JSON lines are objects with time first"
$ETLCONV $P -summary > "$T/sum.txt"; check $? 0 "-summary exits 0"
check "$(grep 'Total Events  Processed' "$T/sum.txt")" "Total Events  Processed 7" "summary counts 7 events"
check "$(grep -c '^<Event' "$T/sum.txt")" 0 "-summary alone prints only the summary"
check "$($ETLCONV testdata/tx/KernelNetwork.etl.gz -q --no-bundled-schemas -of summary | grep -c '^|EventCount    EventName    EventType         Guid                                |$')" 1 "-of summary: tracefmt's header when the names fit"
# Long event names/types (PrimitiveTypesTest, PartitionInfoExtension) widen their column: every box line the
# same length, each GUID under the "Guid" heading.
for f in $P testdata/perfview/SelfDescribingSingleEvent.etl.gz testdata/tx/KernelNetwork.etl.gz; do
  $ETLCONV -q "$f" -of summary | awk '/^[|+]/ { len[length($0)]++ }
    /^\|EventCount/ { col = index($0, "Guid") }
    /^\| *[0-9]+ / { if (match($0, /[0-9a-f]+-[0-9a-f]+-[0-9a-f]+-[0-9a-f]+-[0-9a-f]+\|$/) != 0 && RSTART != col) bad++ }
    END { n = 0; for (l in len) n++; print n, bad + 0, (col > 0) }' > "$T/box"
  check "$(cat "$T/box")" "1 0 1" "summary box of $(basename "$f") aligned"
done

# --- output files ------------------------------------------------------------------------------------
mkdir "$T/out"
$ETLCONV $P -o "$T/out/a.xml"; check $? 0 "-o writes a file"
cmp -s "$T/out/a.xml" "$T/readme.xml"; ok $? "-o content equals stdout content"
echo precious > "$T/out/keep.xml"
$ETLCONV $P -o "$T/out/keep.xml" 2> "$T/err"; check $? 2 "refuses to overwrite without -y (exit 2)"
check "$(cat "$T/out/keep.xml")" precious "existing file untouched"
grep -q "keep.xml: already exists (use -y to overwrite)" "$T/err"; ok $? "message names the file and -y"
$ETLCONV $P -o "$T/out/keep.xml" -y; check $? 0 "-y overwrites"
cmp -s "$T/out/keep.xml" "$T/readme.xml"; ok $? "overwritten content is the conversion"
check "$(ls -A "$T/out" | grep -c '^\.')" 0 "no temporary files left in the output directory"
$ETLCONV testdata/missing.etl -o "$T/out/never.xml" 2>/dev/null; check $? 2 "missing input: exit 2"
test ! -e "$T/out/never.xml"; ok $? "failed run leaves no output file"
$ETLCONV $P -o "$T/nodir/x.xml" 2> "$T/err"; check $? 2 "unwritable output directory: exit 2"
grep -q "nodir/x.xml" "$T/err"; ok $? "message names the output"
if [ -e /dev/full ]; then
  $ETLCONV $P > /dev/full 2> "$T/err"; check $? 2 "write error on stdout (disk full): exit 2"
  grep -q "write failed" "$T/err"; ok $? "write error is reported"
fi
$ETLCONV $P -o /dev/null; check $? 0 "-o /dev/null (a device is written directly, without -y)"
$ETLCONV $P -o /dev/stdout | cmp -s - "$T/readme.xml"; ok $? "-o /dev/stdout"
$ETLCONV $P -o "$T/out/by-name.csv.gz"; gzip -dc "$T/out/by-name.csv.gz" | cmp -s - "$T/p.csv"; ok $? "-o NAME.csv.gz without -of writes CSV"
$ETLCONV $P -o "$T/out/by-name.jsonl"; check "$(grep -c '^{"time"' "$T/out/by-name.jsonl")" 7 "-o NAME.jsonl without -of writes JSON Lines"
$ETLCONV $P -o "$T/out/forced.csv" -of xml; check "$(head -1 "$T/out/forced.csv")" "<Events>" "-of wins over the name"
# interrupted run: a signal while the temporary file exists must not leave it behind
$ETLCONV testdata/etwanalyzer/TraceLoggingTester.etl.gz -o "$T/out/big.xml" -q & pid=$!
sleep 0.2; kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null
test ! -e "$T/out/big.xml" || [ "$(tail -1 "$T/out/big.xml")" = "</Events>" ]; ok $? "interrupted run leaves no half file"
check "$(ls -A "$T/out" | grep -c '^\.')" 0 "interrupted run leaves no temporary file"
# a mapped input truncated by another program between the reader's size check and its access faults with
# SIGBUS: one line, exit 2, no output file. The fault is sent by hand while the run waits on a FIFO input.
mkfifo "$T/bus.fifo"; exec 3<>"$T/bus.fifo"
$ETLCONV "$T/bus.fifo" -o "$T/out/bus.xml" -q 2> "$T/bus.err" & pid=$!
i=0; while [ $i -lt 100 ] && ! ls -l /proc/$pid/fd 2>/dev/null | grep -q bus.fifo; do sleep 0.1; i=$((i + 1)); done
printf 'partial' >&3; sleep 0.2; kill -BUS $pid; wait $pid; check $? 2 "bus error (input truncated while mapped): exit 2"
exec 3>&-
check "$(grep -c 'truncated or replaced while it was being read' "$T/bus.err")" 1 "bus error: one line says why"
test ! -e "$T/out/bus.xml"; ok $? "bus error leaves no output file"
check "$(ls -A "$T/out" | grep -c '^\.')" 0 "bus error leaves no temporary file"

# a tracerpt command line as scripts write it
case "$ETLCONV" in /*) E=$ETLCONV ;; *) E=$PWD/$ETLCONV ;; esac
(cd "$T/out" && "$E" -l "$OLDPWD/$P" -o dump.xml -of XML -lr -summary summary.txt -y -en ANSI); check $? 0 "tracerpt-style command line exits 0"
cmp -s "$T/out/dump.xml" "$T/readme.xml"; ok $? "tracerpt-style: dump.xml"
grep -q "Total Events  Processed 7" "$T/out/summary.txt"; ok $? "tracerpt-style: summary.txt"

# --- gzip in and out ---------------------------------------------------------------------------------
$ETLCONV $P -o "$T/out/a.xml.gz"; check $? 0 "-o FILE.gz exits 0"
gzip -t "$T/out/a.xml.gz"; ok $? "FILE.gz is valid gzip"
gzip -dc "$T/out/a.xml.gz" | cmp -s - "$T/readme.xml"; ok $? "FILE.gz holds the same XML"
gzip -dc $P > "$T/plain.etl"
$ETLCONV "$T/plain.etl" | cmp -s - "$T/readme.xml"; ok $? "plain .etl and .etl.gz inputs convert identically"

# --- times -------------------------------------------------------------------------------------------
first() { grep -m1 'SystemTime=' | sed 's/.*SystemTime="\([^"]*\)".*/\1/'; }
check "$(TZ=XST-8 $ETLCONV $P --local | first | cut -c1-22,30-)" "2021-09-09T22:59:32.85+08:00" \
      "--local at UTC+8: local clock time and +08:00 (not tracerpt's +07:59)"
check "$(TZ=XST+5 $ETLCONV $P --local | first | cut -c1-22,30-)" "2021-09-09T09:59:32.85-05:00" "--local at UTC-5"
check "$(TZ=XST-5:30 $ETLCONV $P --local | first | cut -c1-22,30-)" "2021-09-09T20:29:32.85+05:30" "--local at UTC+5:30"
check "$(TZ=XST-8 $ETLCONV $P | first | cut -c1-22,30-)" "2021-09-09T14:59:32.85Z" "UTC by default whatever TZ says"
check "$(TZ=XST-8 $ETLCONV $P --local -gmt | first | cut -c30-)" "Z" "-gmt after --local gives UTC"
$ETLCONV $P -rts | grep -q '<TimeCreated RawTime="[0-9]*" />'; ok $? "-rts writes RawTime"

# --- filters -------------------------------------------------------------------------------------------
check "$($ETLCONV $P -of table --pid 33984 | wc -l)" 5 "--pid"
check "$($ETLCONV $P -of table --pid 33984,39096 | wc -l)" 7 "--pid list"
check "$($ETLCONV $P -of table --tid 29376 | wc -l)" 2 "--tid"
check "$($ETLCONV $P -of table --provider '{D3DD3DD4-AAC2-4E2A-8DD4-A8FB61B77615}' | wc -l)" 5 "--provider GUID (any case)"
check "$($ETLCONV $P -of table --provider d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615 --provider 68fdd900-4a3e-11d1-84f4-0000f80464e3 | wc -l)" 7 "--provider repeated"
check "$($ETLCONV $P -of table --event 1 | wc -l)" 0 "--event with an id nobody logged"
check "$($ETLCONV $P -of table --event 0,1 | wc -l)" 7 "--event list"
check "$($ETLCONV $P -of table --level 4 | wc -l)" 2 "--level 4 drops level-5 events, keeps level 0"
check "$($ETLCONV $P -of table --from 1 | wc -l)" 5 "--from seconds after trace start"
check "$($ETLCONV $P -of table --to 1 | wc -l)" 2 "--to seconds after trace start"
check "$($ETLCONV $P -of table --from 2021-09-09T14:59:36Z --to '2021-09-09T16:59:37+02:00' | wc -l)" 2 "--from/--to ISO with Z and offset"
check "$($ETLCONV $P -of table --keywords 0x1 | wc -l)" 0 "--keywords (no event has keyword bits)"
check "$($ETLCONV $P -summary --pid 33984 | grep 'EventCount' -A3 | grep -c '|         5 ')" 1 "summary counts filtered events"

# provider by name (case-insensitive) and the values every format carries, against the PerfView baseline
# (primitive-types.baseline.txt: solar_system/PrimitiveTypesTest with string_type Mercury..Jupiter)
want="Mercury Venus Earth Mars Jupiter"
check "$($ETLCONV $P -of table --columns none --provider SOLAR_SYSTEM | cut -f1 | sort -u)" PrimitiveTypesTest "--provider NAME; table event name"
check "$($ETLCONV $P -of table --columns none --provider solar_system | cut -f2 | tr '\n' ' ')" "$want " "table: first field values"
check "$($ETLCONV $P -of csv --provider solar_system | tail -n +2 | cut -d, -f20 | tr '\n' ' ')" "$want " "CSV: first payload column"
check "$($ETLCONV $P -of json --provider solar_system | sed 's/.*"string_type":"\([A-Za-z]*\)".*/\1/' | tr '\n' ' ')" "$want " "JSON: fields.string_type"
check "$($ETLCONV $P --provider solar_system | sed -n 's/.*<Data Name="string_type">\(.*\)<\/Data>/\1/p' | tr '\n' ' ')" "$want " "XML: Data string_type"

# --- batch ---------------------------------------------------------------------------------------------
$ETLCONV --each -o "$T/batch" -of csv $P testdata/perfview/smallEtlFile.etl.gz -summary; check $? 0 "--each exits 0"
test -s "$T/batch/primitive-types.csv" && test -s "$T/batch/smallEtlFile.csv"; ok $? "--each writes DIR/NAME.csv per input"
test -s "$T/batch/primitive-types.summary.txt"; ok $? "--each writes a summary per input"
check "$(wc -l < "$T/batch/primitive-types.csv")" 8 "--each output holds that input only"

# --- several inputs merged ------------------------------------------------------------------------------
a=$($ETLCONV $P -of table | wc -l); b=$($ETLCONV testdata/perfview/smallEtlFile.etl.gz -of table | wc -l)
check "$($ETLCONV $P testdata/perfview/smallEtlFile.etl.gz -of table | wc -l)" $((a + b)) "two inputs: every event of both"
$ETLCONV $P testdata/perfview/smallEtlFile.etl.gz -of table --columns time | cut -f1 > "$T/times"
check "$(head -2 "$T/times" | cut -c1-4 | tr '\n' ' ')" "2021 2016 " "merged output starts with each file's header event"
tail -n +3 "$T/times" | sort -c; ok $? "merged output is in time order after the header events"

# --- exit codes and messages ----------------------------------------------------------------------------
$ETLCONV testdata/nope.etl 2> "$T/err"; check $? 2 "missing file: exit 2"
grep -q "testdata/nope.etl" "$T/err"; ok $? "missing file: message names the file"
check "$(wc -l < "$T/err")" 1 "missing file: one line"
$ETLCONV testdata/etwanalyzer/empty.etl 2> "$T/err"; check $? 2 "empty file: exit 2"
grep -q "testdata/etwanalyzer/empty.etl" "$T/err"; ok $? "empty file: message names the file"
head -c 3000 "$T/plain.etl" > "$T/truncated.etl"
$ETLCONV "$T/truncated.etl" > "$T/trunc.xml" 2> "$T/err"; rc=$?
[ $rc = 1 ] || [ $rc = 2 ]; ok $? "truncated file: exit 1 or 2 (got $rc)"
grep -q "truncated.etl: offset 0x" "$T/err"; ok $? "truncated file: message names file and byte offset"
gzip -dc testdata/perfview/net.4.5.2.x86.etl.gz | head -c 2000000 > "$T/head.etl"
head -c 1000000 /dev/zero | tr '\0' '\377' | cat "$T/head.etl" - > "$T/garbage-tail.etl"
$ETLCONV "$T/garbage-tail.etl" > "$T/garbage-tail.xml" 2> "$T/err"; check $? 1 "corrupt tail: converted with warnings (exit 1)"
grep -q "garbage-tail.etl: offset 0x" "$T/err"; ok $? "corrupt tail: message names file and byte offset"
$ETLCONV "$T/garbage-tail.etl" -q > /dev/null 2> "$T/err"; check $? 1 "corrupt tail with -q: same exit status"
grep -q "^etlconv: error: .*garbage-tail.etl: offset 0x" "$T/err"; ok $? "-q still prints read errors"
printf 'this is not an etl file, just text padding padding padding padding padding padding\n' > "$T/junk.etl"
$ETLCONV "$T/junk.etl" 2> "$T/err"; check $? 2 "not an ETL file: exit 2"
grep -q "junk.etl" "$T/err"; ok $? "not an ETL file: message names the file"
# Exit policy (etlconv.1): events the recording session lost (41 in this header) are noted, exit 0 as with
# tracerpt; --strict makes them exit 1.
$ETLCONV testdata/s4/WindowsUpdate.20251008.140245.443.8.etl.gz > "$T/wu.xml" 2> "$T/err"; check $? 0 "events lost (41 in the header): exit 0"
grep -q "41 events lost" "$T/err"; ok $? "lost events are reported"
wellformed "$T/wu.xml"; ok $? "output with lost events is still complete XML"
$ETLCONV testdata/s4/WindowsUpdate.20251008.140245.443.8.etl.gz --strict -q > /dev/null 2> "$T/err"; check $? 1 "--strict: lost events exit 1"
check "$(wc -c < "$T/err")" 0 "-q prints nothing"
$ETLCONV $P --bogus 2> "$T/err"; check $? 2 "unknown option: exit 2"
$ETLCONV $P -of bogus 2> "$T/err"; check $? 2 "unknown format: exit 2"
grep -q "unknown format 'bogus'" "$T/err"; ok $? "unknown format message"
$ETLCONV 2>/dev/null; check $? 2 "no input: exit 2"
$ETLCONV --help | grep -q "Exit status"; ok $? "--help documents the exit status"
check "$($ETLCONV --version)" "etlconv 0.1.0" "--version"

# --- progress bar --------------------------------------------------------------------------------------
$ETLCONV testdata/perfview/net.4.5.2.x86.etl.gz -of xml --progress > /dev/null 2> "$T/progress"
grep -q '%.*events/s.*ETA' "$T/progress"; ok $? "--progress draws percent, events/s and ETA on stderr"
$ETLCONV testdata/perfview/net.4.5.2.x86.etl.gz -of table > /dev/null 2> "$T/progress"
check "$(wc -c < "$T/progress")" 0 "no progress bar when stderr is not a terminal"

# --- every XML document this script produced is well-formed ------------------------------------------------
bad=""
for f in "$T"/*.xml "$T"/out/*.xml "$T"/batch/*.xml; do
  [ -s "$f" ] || continue
  xmllint --noout "$f" 2>/dev/null || bad="$bad $(basename "$f")"
done
for f in "$T"/out/*.xml.gz; do gzip -dc "$f" | xmllint --noout - 2>/dev/null || bad="$bad $(basename "$f")"; done
for opt in --local -rts -lr "--provider d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615" "--from 1"; do
  $ETLCONV $P $opt | xmllint --noout - 2>/dev/null || bad="$bad [$opt]"
done
check "$bad" "" "every XML output parses with libxml2 (xmllint)"

# --- the man page documents every option --help lists -----------------------------------------------------
man_text=$(sed 's/\\-/-/g' src/cli/etlconv.1)
missing=""
for o in $($ETLCONV --help | grep -o '^  *-[-a-z?]*\(, --[-a-z]*\)\?' | tr ',' ' '); do
  printf '%s\n' "$man_text" | grep -q -- "$o" || missing="$missing $o"
done
check "$missing" "" "etlconv.1 documents every option of --help"

# --- bytes after the last property are never dropped silently -----------------------------------------
# net.4.5.2.x86: PerfView's baseline shows 80 DotNETRuntimePrivate GC/PerHeapHistory events with DataLen=233;
# the bundled manifest declares an empty template for that event (id 4, version 2), so every byte is extra.
N=testdata/perfview/net.4.5.2.x86.etl.gz
PRIV="--provider Microsoft-Windows-DotNETRuntimePrivate --event 4"
$ETLCONV -q $N $PRIV -of jsonl > "$T/priv.jsonl"
check "$(grep -c '"status":"ok","fields":{},"extra_payload":"[0-9A-F]\{466\}"[,}]' "$T/priv.jsonl")" 80 \
      "JSONL: the 233 bytes of each of the 80 Private PerHeapHistory events as extra_payload"
check "$($ETLCONV -q $N $PRIV -of xml | grep -c 'win:ExtraPayload')" 0 "XML: tracerpt ignores bytes after the last property"
check "$($ETLCONV -q $N $PRIV -of xml -lr | grep -c '<Data Name="win:ExtraPayload" Type="win:ErrorMoreData">0x[0-9A-F]\{466\}</Data>')" 80 \
      "XML -lr: the extra bytes as win:ExtraPayload"
check "$($ETLCONV -q $N $PRIV -of table -lr --columns none | grep -c '^GC/PerHeapHistory	0x[0-9A-F]\{466\}$')" 80 \
      "table -lr: the extra bytes as a hex cell"
# An event newer than its schema: with only PerfView's ClrEtwAll.man (AllocationTick up to version 3), the
# gcevents AllocationTick v4 events decode with the v3 layout; JSONL says so (schema_version 3) and keeps the
# 8 bytes v4 added — PerfView's baseline shows them as ObjectSize=32 and ObjectSize=48 for the first two.
$ETLCONV -q testdata/perfview/gcevents.PerfViewData.etl.gz --no-bundled-schemas -import src/schema/bundled/ClrEtwAll.man \
  -of jsonl --provider Microsoft-Windows-DotNETRuntime --event 10 > "$T/at.jsonl"
check "$(grep -c '"version":4,.*"source":"manifest","schema_version":3,"status":"ok"' "$T/at.jsonl")" 12 \
      "JSONL: 12 AllocationTick v4 decoded with the v3 schema say schema_version 3 (baseline COUNT 12)"
check "$(head -2 "$T/at.jsonl" | grep -o '"extra_payload":"[0-9A-F]*"' | tr '\n' ' ')" \
      '"extra_payload":"2000000000000000" "extra_payload":"3000000000000000" ' "... and keep ObjectSize 32 and 48 as extra_payload"
