#!/bin/sh
# Compiled bundled manifests (docs/schemas.md): etlconv finds the build's compiled files next to itself, and a
# damaged one is refused with a one-line warning naming it, the manifest parsed instead, the output unchanged.
# Oracle: the output of the same trace decoded by the build's etlconv (compiled sets) and by a copy of it that
# finds no compiled file at all (so it parses the XML), which must agree byte for byte.
. tests/tap_helpers.sh
G=testdata/perfview/gcevents.PerfViewData.etl.gz   # decoded with the bundled ClrEtwAll.man (69 runtime events)
C=$(dirname "$ETLCONV")/schemas-compiled
[ -f "$C/ClrEtwAll.man.etlc" ]; ok $? "the build wrote $C/ClrEtwAll.man.etlc"

# A copy of the program in a folder of its own finds no compiled files: it parses the XML (src/schema/bundled
# is found under the current folder).
mkdir -p "$T/bare" "$T/damaged/schemas-compiled"
cp "$ETLCONV" "$T/bare/etlconv" && cp "$ETLCONV" "$T/damaged/etlconv"
$ETLCONV -q -of jsonl "$G" > "$T/compiled.jsonl" 2> "$T/compiled.err"; check $? 0 "with compiled sets: exit 0"
"$T/bare/etlconv" -q -of jsonl "$G" > "$T/parsed.jsonl" 2> "$T/parsed.err"; check $? 0 "parsing the XML: exit 0"
check "$(grep '"provider":"Microsoft-Windows-DotNETRuntime"' "$T/compiled.jsonl" | grep -c '"status":"ok"')" 69 \
    "with compiled sets: gcevents' 69 runtime events decode"
cmp -s "$T/compiled.jsonl" "$T/parsed.jsonl"; ok $? "compiled sets and the parsed XML give the same output"
check "$(cat "$T/compiled.err")" "" "with compiled sets: nothing on stderr"

# One byte of the body flipped (offset 200): the key still matches, the body hash does not.
cp "$C"/*.etlc "$T/damaged/schemas-compiled/"
f="$T/damaged/schemas-compiled/ClrEtwAll.man.etlc"
b=$(od -An -tu1 -j200 -N1 "$f" | tr -d ' ')
printf "$(printf '\\%03o' $(( (b + 1) % 256 )))" | dd of="$f" bs=1 seek=200 conv=notrunc 2>/dev/null
"$T/damaged/etlconv" -q -of jsonl "$G" > "$T/damaged.jsonl" 2> "$T/damaged.err"; check $? 0 "damaged compiled set: exit 0"
cmp -s "$T/damaged.jsonl" "$T/parsed.jsonl"; ok $? "damaged compiled set: the manifest is parsed, same output"
check "$(wc -l < "$T/damaged.err" | tr -d ' ')" 1 "damaged compiled set: one line on stderr"
grep -q "warning: .*ClrEtwAll.man.etlc: offset 0x20: compiled schema: checksum mismatch; parsing .*ClrEtwAll.man instead" \
    "$T/damaged.err"; ok $? "damaged compiled set: the warning names the file, the offset and the manifest parsed"
