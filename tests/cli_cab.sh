#!/bin/sh
# .cab inputs (netsh trace / pktmon reports): cabinets built here with gcab (Debian) around corpus traces must
# convert exactly like the traces themselves; damaged or empty cabinets fail with one line naming the file.
. tests/tap_helpers.sh
if ! command -v gcab >/dev/null 2>&1; then
    echo "not ok 1 - gcab is missing (apt-get install gcab; tests/ensure_deps.sh)"
    exit 0
fi
gzip -dc testdata/demikernel/PktMon.etl.gz > "$T/PktMon.etl"
gzip -dc testdata/perfview/primitive-types.etl.gz > "$T/primitive-types.etl"
(cd "$T" && gcab -cz report.cab PktMon.etl primitive-types.etl && gcab -c stored.cab PktMon.etl &&
    echo hello > notes.txt && gcab -cz noetl.cab notes.txt) > /dev/null
check "$?" 0 "gcab built the cabinets (MSZIP and stored)"

# (the summary names the inputs as given: the two files, or the cabinet; the rest must be equal)
for fmt in xml csv json table summary; do
    $ETLCONV -q "$T/PktMon.etl" "$T/primitive-types.etl" -of $fmt | grep -v -e '^Elapsed Time' -e "^	$T/" > "$T/want.$fmt"
    $ETLCONV -q "$T/report.cab" -of $fmt | grep -v -e '^Elapsed Time' -e "^	$T/" > "$T/got.$fmt"
    cmp -s "$T/want.$fmt" "$T/got.$fmt"; ok $? "MSZIP cabinet of 2 traces = the 2 traces merged ($fmt)"
done
$ETLCONV -q "$T/PktMon.etl" -of pcapng > "$T/want.pcapng"
$ETLCONV -q "$T/stored.cab" -of pcapng > "$T/got.pcapng"
cmp -s "$T/want.pcapng" "$T/got.pcapng"; ok $? "stored cabinet: same pcapng as the trace"
$ETLCONV -q "$T/stored.cab" -of json | cmp -s - "$T/want.json" && r=1 || r=0
check "$r" 0 "(control: the one-member cabinet differs from the two-trace output)"

$ETLCONV --info "$T/report.cab" > "$T/info.txt"; check "$?" 0 "--info on a cabinet: exit 0"
check "$(grep '^file' "$T/info.txt" | cut -f2 | sed "s|^$T/||" | tr '\n' ' ')" "report.cab::PktMon.etl report.cab::primitive-types.etl " \
    "--info lists the .etl members"
check "$(grep '^events' "$T/info.txt" | cut -f2)" "$($ETLCONV --info "$T/PktMon.etl" "$T/primitive-types.etl" | grep '^events' | cut -f2)" \
    "--info counts the members' events"

$ETLCONV -q "$T/noetl.cab" > /dev/null 2> "$T/err.txt"; check "$?" 2 "cabinet without .etl: exit 2"
check "$(wc -l < "$T/err.txt")" 1 "... one line"
grep -q "noetl.cab: cabinet holds no .etl file" "$T/err.txt"; ok $? "... naming the file"
head -c 100 "$T/report.cab" > "$T/cut.cab"
$ETLCONV -q "$T/cut.cab" > /dev/null 2> "$T/err.txt"; check "$?" 2 "truncated cabinet: exit 2"
check "$(wc -l < "$T/err.txt")" 1 "... one line: $(cat "$T/err.txt")"
# damage the compressed data of a member (past the headers): libmspack's checksum or inflate refuses it
cp "$T/report.cab" "$T/bad.cab"
printf '\377\377\377\377\377\377\377\377' | dd of="$T/bad.cab" bs=1 seek=2000 conv=notrunc 2>/dev/null
$ETLCONV -q "$T/bad.cab" > "$T/bad.out" 2> "$T/err.txt"; check "$?" 2 "damaged member data: exit 2"
grep -q "bad.cab::PktMon.etl: cannot extract" "$T/err.txt"; ok $? "... names the member: $(head -1 "$T/err.txt")"
check "$(wc -c < "$T/bad.out")" 0 "... and writes nothing"
