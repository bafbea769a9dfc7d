#!/bin/sh
# Scripts written for tracerpt (issue 12): tracerpt's documented command lines run under a "tracerpt" name,
# every tracerpt option, the usage errors that keep an option from swallowing the next one, and the report.
# Oracles: tracerpt's documentation (docs/tracerpt.md §1.1: the examples below are quoted from it), xmllint
# for the XML/HTML files, the -summary writer and the CSV dump for the report's counts (other code paths).
. tests/tap_helpers.sh
E=$(cd "$(dirname "$ETLCONV")" && pwd)/$(basename "$ETLCONV")
ln -s "$E" "$T/tracerpt"
TR="$T/tracerpt"
P=testdata/perfview/primitive-types.etl.gz
K=testdata/tx/KernelNetwork.etl.gz
N=testdata/perfview/net.4.5.2.x86.etl.gz
mkdir "$T/w"
gzip -dc $P > "$T/w/logfile1.etl"; gzip -dc $K > "$T/w/logfile2.etl"; cp "$T/w/logfile1.etl" "$T/w/logfile.etl"
touch "$T/w/counterfile.blg"
printf '<?xml version="1.0"?>\n<counting/>\n' > "$T/w/schema.xml"

# --- tracerpt's documented examples (learn.microsoft.com tracerpt page and usage text), run unchanged ------
# Each exits 0 and writes every file it names (or tracerpt's default name).
run() { (cd "$T/w" && "$TR" "$@" > "$T/out" 2> "$T/err"); }
run logfile1.etl logfile2.etl -o logdump.xml -of XML; check $? 0 "tracerpt logfile1.etl logfile2.etl -o logdump.xml -of XML"
xmllint --noout "$T/w/logdump.xml"; ok $? "... writes logdump.xml (well-formed)"
run logfile.etl -o logdmp.xml -of XML -lr -summary logdmp.txt -report logrpt.xml
check $? 0 "tracerpt logfile.etl -o logdmp.xml -of XML -lr -summary logdmp.txt -report logrpt.xml (the issue's command)"
xmllint --noout "$T/w/logdmp.xml" "$T/w/logrpt.xml"; ok $? "... writes logdmp.xml and logrpt.xml (well-formed)"
grep -q "Total Events  Processed 7" "$T/w/logdmp.txt"; ok $? "... writes logdmp.txt (7 events)"
check "$(cat "$T/out")" "The command completed successfully." "... and ends with tracerpt's line"
run logfile1.etl logfile2.etl -o -report; check $? 0 "tracerpt logfile1.etl logfile2.etl -o -report"
test -s "$T/w/dumpfile.xml" && xmllint --noout "$T/w/workload.xml"; ok $? "... writes dumpfile.xml and workload.xml"
run logfile.etl counterfile.blg -report logrpt2.xml -df schema.xml; check $? 0 "tracerpt logfile.etl counterfile.blg -report logrpt2.xml -df schema.xml"
xmllint --noout "$T/w/logrpt2.xml"; ok $? "... writes the report"
grep -q "counterfile.blg: performance-counter logs are not read" "$T/err"; ok $? "... says the .blg is not read"
grep -q "schema.xml: the report uses etlconv's fixed counters" "$T/err"; ok $? "... says the -df file is not applied"
run -rt "NT Kernel Logger" -o logfile.csv -of CSV; check $? 2 "tracerpt -rt \"NT Kernel Logger\" -o logfile.csv -of CSV: no ETW on Linux (exit 2)"
check "$(wc -l < "$T/err")" 1 "... one line"
grep -q "^etlconv: -rt: real-time ETW sessions exist only on Windows" "$T/err"; ok $? "... naming the reason"
run -l logfile.etl -export exported.man; check $? 0 "tracerpt -l logfile.etl -export exported.man (Message Analyzer docs)"
grep -q '<instrumentationManifest' "$T/w/exported.man"; ok $? "... writes the manifest"
run -l logfile.etl -import exported.man -o imported.xml -of XML; check $? 0 "tracerpt -l X.etl -import X.man -o X.xml -of XML (writeasync.net)"
xmllint --noout "$T/w/imported.xml"; ok $? "... writes imported.xml"
run logfile.etl -lr -y -o logdmp.xml; check $? 0 "tracerpt X.etl -lr -y -o X.xml (winlogdecoder)"
rm -f "$T/w/dumpfile.xml"
run -of XML logfile.etl; check $? 0 "tracerpt -of XML X.etl (super-speedy-syslog-searcher#99)"
test -s "$T/w/dumpfile.xml"; ok $? "... writes tracerpt's default dumpfile.xml"
check "$(grep -c '^<Event ' "$T/w/dumpfile.xml")" 7 "... with the 7 events"
run logfile.etl -summary -y; check $? 0 "tracerpt X.etl -summary -y"
grep -q "Total Events  Processed 7" "$T/w/summary.txt"; ok $? "... writes tracerpt's default summary.txt"
run logfile.etl -export -y; check $? 0 "tracerpt X.etl -export (no file name)"
test -s "$T/w/schema.man"; ok $? "... writes tracerpt's default schema.man"

# --- the tracerpt mode, and what marks it --------------------------------------------------------------
$ETLCONV $P -o "$T/plain.xml" > "$T/out"; check "$(cat "$T/out")" "" "etlconv mode: no 'completed successfully' line"
$ETLCONV $P --tracerpt -o "$T/compat.xml" > "$T/out"; check "$(cat "$T/out")" "The command completed successfully." "--tracerpt prints it too"
$ETLCONV $P --tracerpt -o - > "$T/out" 2> "$T/err"; check "$(tail -1 "$T/err")" "The command completed successfully." "... on stderr when the dump goes to stdout"
check "$(grep -c '^<Event ' "$T/out")" 7 "... and the dump on stdout is intact"
(cd "$T/w" && "$TR" missing.etl > "$T/out" 2>/dev/null); check $? 2 "failure: exit 2"
check "$(cat "$T/out")" "" "... and no success line"

# --- an option never swallows the next option -----------------------------------------------------------
$ETLCONV $P -export -q 2> "$T/err"; check $? 2 "-export -q: usage error"
grep -q "option -export: '-q' is an option" "$T/err"; ok $? "... naming -export and -q"
test ! -e ./-q; ok $? "... and no file named -q"
$ETLCONV $P -o -of XML 2> "$T/err"; check $? 2 "-o -of XML: usage error (etlconv mode)"
grep -q "option -o: '-of' is an option" "$T/err"; ok $? "... naming -o and -of"
for opt in -of -int -df -rl -f --jobs --provider --from; do
  $ETLCONV $P $opt -q > /dev/null 2> "$T/err"; rc=$?
  [ $rc = 2 ] && grep -q "option $opt needs a value, not the option '-q'" "$T/err"; ok $? "$opt -q: usage error naming both"
done
$ETLCONV $P -rl 2> "$T/err"; check $? 2 "-rl at the end: usage error"

# --- -report, -f, -rl ------------------------------------------------------------------------------------
for l in 1 2 3 4 5; do
  $ETLCONV -q $N -o /dev/null -report "$T/r$l.xml" -rl $l; check $? 0 "-report -rl $l exits 0"
  check "$(grep -c '<table name=' "$T/r$l.xml")" $((l + 1)) "-rl $l: $((l + 1)) tables"
done
xmllint --noout "$T/r5.xml"; ok $? "report XML well-formed (xmllint)"
$ETLCONV -q $N -o /dev/null -report "$T/r.html" -f HTML -rl 5; check $? 0 "-f HTML exits 0"
xmllint --html --noout "$T/r.html" 2> "$T/err"; check "$(wc -c < "$T/err")" 0 "HTML report parses cleanly (xmllint --html)"
check "$(grep -c '<h2>' "$T/r.html")" 7 "HTML: the trace facts and 6 tables"
$ETLCONV $P -report "$T/x.xml" -rl 6 2> "$T/err"; check $? 2 "-rl 6: usage error"
$ETLCONV $P -report "$T/x.xml" -f PDF 2> "$T/err"; check $? 2 "-f PDF: usage error"
# Counts against other code paths: event types vs the -summary table, disk bytes vs the CSV dump's
# TransferSize cells (DiskIo Read = opcode 10, Write = 11), process events vs the JSON writer's process names.
$ETLCONV -q $N -of summary | awk -F'|' '/^\| *[0-9]+ / { split($2, a, " "); s += a[1] } END { print s }' > "$T/sum"
awk '/<table name="Event types"/,/<\/table>/' "$T/r5.xml" | sed -n 's/.*<data name="Events">\([0-9]*\)<.*/\1/p' | awk '{ s += $1 } END { print s }' > "$T/rep"
check "$(cat "$T/rep")" "$(cat "$T/sum")" "report event-type counts add up to the summary's ($(cat "$T/sum"))"
$ETLCONV -q $N -of csv | python3 -c '
import csv, sys
r = csv.reader(sys.stdin); h = next(r); rd = wr = nr = nw = 0
for row in r:
    if row[0] == "DiskIo" and row[6] in ("10", "11"):
        size = int(row[21])  # User Data (column 19 on): DiskNumber, IrpFlags, TransferSize
        if row[6] == "10": rd += size; nr += 1
        else: wr += size; nw += 1
print(nr, rd, nw, wr)' > "$T/disk.csv"
sed -n 's/.*<data name="Disk">0<\/data><data name="Reads">\([0-9]*\)<\/data><data name="ReadBytes">\([0-9]*\)<\/data><data name="Writes">\([0-9]*\)<\/data><data name="WriteBytes">\([0-9]*\)<.*/\1 \2 \3 \4/p' "$T/r5.xml" > "$T/disk.rep"
check "$(cat "$T/disk.rep")" "$(cat "$T/disk.csv")" "Disks table equals the CSV's DiskIo reads/writes and TransferSize sums"
check "$(sed -n 's/.*IoWithoutFileName">\([0-9]*\)<.*/\1/p' "$T/r5.xml")" 0 "every disk I/O of net.4.5.2 resolved to a file name (names come from the rundown)"
awk '/<table name="Files"/,/<\/table>/' "$T/r5.xml" | sed -n 's/.*"DiskReadBytes">\([0-9]*\)<.*"DiskWriteBytes">\([0-9]*\)<.*/\1 \2/p' | awk '{ r += $1; w += $2 } END { print r, w }' > "$T/files"
check "$(cat "$T/files")" "$(awk '{ print $2, $4 }' "$T/disk.csv")" "Files table: disk bytes per file add up to the disk totals"
$ETLCONV -q $N -of json | grep -c '"process":"Test.x86"' > "$T/pid"
check "$(sed -n 's/.*<data name="PID">3644<\/data><data name="Image">Test.x86<\/data><data name="Events">\([0-9]*\)<.*/\1/p' "$T/r5.xml")" "$(cat "$T/pid")" "Processes: Test.x86 (PID 3644) events equal the JSON lines of process Test.x86"

# --- -int, -df, -config -----------------------------------------------------------------------------------
$ETLCONV -q $P -o /dev/null -int "$T/int.txt"; check $? 0 "-int FILE exits 0"
check "$(grep -c '^Provider ' "$T/int.txt")" 3 "-int: one block per event layout (3 in primitive-types)"
grep -q "^Provider solar_system {d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615}	Event PrimitiveTypesTest" "$T/int.txt"; ok $? "-int names provider, GUID and event"
check "$(grep -A1 'Event PrimitiveTypesTest' "$T/int.txt" | tail -1)" "	Events 5" "-int counts the events of the layout"
$ETLCONV $P -report "$T/x.xml" -df "$T/none.xml" 2> "$T/err"; check $? 2 "-df with a missing file: exit 2"
grep -q "none.xml" "$T/err"; ok $? "... naming the file"
printf '# settings\n-of CSV\n-o "%s"\n' "$T/cfg out.csv" > "$T/settings.txt"
$ETLCONV $P -config "$T/settings.txt"; check $? 0 "-config FILE exits 0"
check "$(head -c 10 "$T/cfg out.csv")" "Event Name" "-config: options read from the file (-of CSV, a quoted -o name)"
printf -- '-config %s\n' "$T/loop.txt" > "$T/loop.txt"
$ETLCONV $P -config "$T/loop.txt" 2> "$T/err"; check $? 2 "-config that includes itself: exit 2"
grep -q "nested more than" "$T/err"; ok $? "... with a message"
$ETLCONV $P -config "$T/none.txt" 2> "$T/err"; check $? 2 "-config missing file: exit 2"
printf -- '-o "unterminated\n' > "$T/bad.txt"
$ETLCONV $P -config "$T/bad.txt" 2> "$T/err"; check $? 2 "-config with an unterminated quote: exit 2"
grep -q "bad.txt: unterminated quote" "$T/err"; ok $? "... naming the file"
head -c 1100000 /dev/zero | tr '\0' 'x' > "$T/big.txt"
$ETLCONV $P -config "$T/big.txt" 2> "$T/err"; check $? 2 "-config larger than 1 MiB: exit 2 (not a settings file)"
$ETLCONV -? | grep -q "^Usage: etlconv"; ok $? "-? prints the help (tracerpt's spelling)"

# --- other tracerpt switches keep working ----------------------------------------------------------------
$ETLCONV $P -en ANSI -of CSV -o "$T/en.csv"; check $? 0 "-en ANSI accepted"
$ETLCONV $P -gmt | grep -c 'SystemTime=".*Z"' > "$T/gmt"; check "$(cat "$T/gmt")" 7 "-gmt: UTC times"
$ETLCONV $P -rts | grep -c '<TimeCreated RawTime=' > "$T/rts"; check "$(cat "$T/rts")" 7 "-rts: raw timestamps"
$ETLCONV $P -of EVTX 2> "$T/err"; check $? 2 "-of EVTX: a clear one-line error until the EVTX writer exists"
check "$(wc -l < "$T/err")" 1 "... one line"

# --- value maps and messages exactly as the schema gives them (pktmon) ------------------------------------
# Windows' own pktmon text keeps the map entries' trailing space: "..., Appearance 1, Direction Tx , Type
# Ethernet , Component 78, Edge 1, Filter 1, OriginalSize 66, LoggedSize 66" (real `pktmon start --etw
# --log-mode real-time` output in RoseSecurity/Red-Teaming-TTPs Windows.md, commit 0042188c; the same form in
# other public pktmon etl2txt pastes; not copied here, the facts are asserted). Every packet message of
# demikernel/PktMon.etl must have exactly that form (the template itself ends in a space).
D=testdata/demikernel/PktMon.etl.gz
$ETLCONV -q $D -of json | grep -o '"message":"PktGroupId[^"]*"' | sed 's/^"message":"//; s/"$//' > "$T/pkt"
check "$(wc -l < "$T/pkt")" 114 "PktMon: 114 packet messages (PktMon.cap, written by Windows' pktmon, holds 114 packets)"
check "$(grep -Evc '^PktGroupId [0-9]+, PktNumber [0-9]+, Appearance [0-9]+, Direction (Tx|Rx) , Type Ethernet , Component [0-9]+, Edge [0-9]+, Filter [0-9]+, OriginalSize [0-9]+, LoggedSize [0-9]+ $' "$T/pkt")" 0 \
      "PktMon: every packet message is Windows' text byte for byte (\"Direction Tx , Type Ethernet ,\")"
$ETLCONV -q $D | grep -c '<Message>PktGroupId [0-9]*, PktNumber 1, Appearance [0-9]*, Direction Tx , Type Ethernet , ' > "$T/n"
check "$(cat "$T/n")" 76 "... in the XML RenderingInfo too (76 Tx)"
$ETLCONV -q $D -of json | grep -c '"DirTag":"Rx "' > "$T/n"; check "$(cat "$T/n")" 38 "the mapped field value keeps its space as well (38 \"Rx \")"

# --- --csv-compat: what public samples show (docs/tracerpt-compat.md lists them and what is unverified) -----
$ETLCONV -q testdata/tx/KernelNetwork.etl.gz -of csv --csv-compat | sed -n 2p > "$T/row"
check "$(cut -c1-40 "$T/row")" "           EventTrace,           Header," "compat: names right-aligned (widths 21, 16)"
awk -F', ' '{ print $9, $10, $11 }' "$T/row" | grep -Eq '^0x[0-9A-F]{16} 0x[0-9A-F]{8} 0x[0-9A-F]{8}$'; ok $? "compat: Keyword 0x%016X, PID and TID 0x%08X"
$ETLCONV -q testdata/tx/KernelNetwork.etl.gz -of json | head -1 | python3 -c 'import json, sys; e = json.load(sys.stdin); print("0x%08X 0x%08X" % (e["pid"], e["tid"]))' > "$T/ids"
check "$(awk -F', ' '{ print $10, $11 }' "$T/row")" "$(cat "$T/ids")" "compat: the header event's PID and TID as the JSON writer has them ($(cat "$T/ids"))"
check "$($ETLCONV -q testdata/tx/KernelNetwork.etl.gz -of csv | sed -n 2p | cut -d, -f9-11)" "0x0,0x22BC,0x2228" "default CSV keeps the short hex"
