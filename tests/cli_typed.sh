#!/bin/sh
# Typed, queryable output (issue 15). Oracles: Python's json and csv modules with the typing rule of
# etlconv(1) written again in tests/typed_json_check.py (from the TDH in/out type codes, not from etlconv's
# own "json" member); sqlite3 loading --split through schema.sql + .import; jq (row counts per event type,
# computed from the JSON Lines output); Python's ElementTree counting manifests (tests/schema_count_check.py)
# and xmllint for provider/event counts; a JSON schema from the published ECS and Filebeat ETW field lists
# (tests/ecs_check.py).
. tests/tap_helpers.sh
PY=/usr/bin/python3

# -- 1. every JSON value has its schema's type; integers/booleans/strings spell what -of csv says --------
for f in testdata/*/*.etl.gz; do
  $ETLCONV schemas -q "$f" -of json > "$T/s.json" 2>/dev/null
  $ETLCONV -q "$f" -of json > "$T/e.jsonl" 2>/dev/null
  $ETLCONV -q "$f" -of csv > "$T/e.csv" 2>/dev/null
  out=$($PY tests/typed_json_check.py "$T/s.json" "$T/e.jsonl" "$T/e.csv"); rc=$?
  ok $rc "typed JSON $f: $(printf '%s' "$out" | head -3 | tr '\n' ' ')"
done
# The checker can fail: a decimal integer written as a string must be caught.
P=testdata/perfview/primitive-types.etl.gz
$ETLCONV schemas -q $P -of json > "$T/s.json"; $ETLCONV -q $P -of csv > "$T/e.csv"
$ETLCONV -q $P -of json | sed 's/"int16_type":\(-*[0-9]*\)/"int16_type":"\1"/' > "$T/bad.jsonl"
$PY tests/typed_json_check.py "$T/s.json" "$T/bad.jsonl" "$T/e.csv" > /dev/null; check $? 1 "the type checker catches a number written as a string"

# -- the documented spellings on a known event -----------------------------------------------------------
line=$($ETLCONV -q $P -of json | grep -m1 '"string_type":"Mercury"')
check "$(printf '%s' "$line" | jq -c '[.fields.boolean_type, .fields.int16_type, .fields.uint64_type, .schema, .keywords]')" \
  '[false,-51,204,1,0]' "primitive-types: boolean, signed and 64-bit integers as JSON values, schema 1"
check "$($ETLCONV -q $P -of json --json-bigint string | grep -m1 Mercury | jq -c '[.fields.uint64_type, .fields.int16_type, (.timestamp|type)]')" \
  '["204",-51,"string"]' "--json-bigint string: 64-bit integers and timestamp as strings, narrower ones numbers"
H=testdata/tx/CrossMachineHTTP.etl.gz
m=$($ETLCONV -q $H -of json | grep -m1 '"Type.value"' | jq -c '.fields | [.Type, ."Type.value", .Status]')
check "$m" '["ResponseLogging",0,"0x0"]' "mapped value: name + NAME.value number; NTSTATUS-like hex stays a string"

# -- 2. --split: sqlite3 loads schema.sql + every CSV; rows per table = events per type in the JSON Lines --
S="testdata/tx/Process.etl.gz testdata/perfview/primitive-types.etl.gz testdata/tx/CrossMachineHTTP.etl.gz testdata/airbus-cert/AMSITrace.etl.gz testdata/s4/SIH.20230422.034724.362.1.etl.gz testdata/s4/CldFlt0-2025-12-21-121418.etl.gz testdata/krabsetw/powershell.etl.gz"
$ETLCONV -q $S -of csv -o "$T/plain.csv"; plain=$?
$ETLCONV -q $S -of csv --split "$T/split" --split-max-open 3; check $? $plain "--split of seven traces with at most 3 open files: the exit status of a plain conversion"
(echo ".read $T/split/schema.sql"; for c in "$T"/split/*.csv; do b=$(basename "$c" .csv); echo ".import --csv --skip 1 '$c' \"$b\""; done) \
  | sqlite3 "$T/db.sqlite" 2> "$T/sqlerr"
check "$(cat "$T/sqlerr")" "" "sqlite3 accepts schema.sql and imports every table without a complaint"
# per table: rows in SQLite vs events of that type counted by jq over the JSON Lines of the same run
$ETLCONV -q $S -of json > "$T/all.jsonl"
jq -r 'if .status == "ok" then "\(.provider_guid)|\(.event)|\(.version)|\(.id)|\(.opcode)" else "_undecoded" end' "$T/all.jsonl" \
  | sort | uniq -c | awk '{print $1}' | sort -n > "$T/want.counts"
sqlite3 "$T/db.sqlite" "select name from sqlite_master where type='table'" | while read -r t; do
  sqlite3 "$T/db.sqlite" "select count(*) from \"$t\""; done | sort -n > "$T/got.counts"
check "$(cmp -s "$T/want.counts" "$T/got.counts"; echo $?)" 0 "rows per table = events per type ($(wc -l < "$T/got.counts") tables, $(wc -l < "$T/all.jsonl") events)"
check "$(sqlite3 "$T/db.sqlite" 'select sum(n) from (select 1 as n)')" 1 "sqlite3 runs"
# column names: common columns + the schema's top-level field names, for every table with a schema
$ETLCONV schemas -q $S -of json > "$T/s.json"
cat > "$T/cols.py" <<'EOF'
import csv, json, sqlite3, sys
listing = json.load(open(sys.argv[1]))
by_class, by_id = {}, {}
for p in listing["providers"]:
    for e in p["events"]:
        cols = [f["name"] for f in e["fields"] if f["out_type_code"] != 301]  # NOPRINT: never a value
        by_id.setdefault((p["guid"], e["id"], e["version"]), []).append(cols)
        if e["class_guid"]:
            by_class.setdefault((e["class_guid"], e["opcode"], e["version"]), []).append(cols)
COMMON = ["time", "timestamp", "provider", "provider_guid", "event", "id", "version", "level", "task", "opcode",
          "keywords", "pid", "tid", "cpu", "process", "activity_id", "related_activity_id"]
def sql_names(fields):
    """The documented rule: a name already used (without regard to case) gets _2, _3..."""
    used, out = [c.lower() for c in COMMON], []
    for f in fields:
        name, k = f, 2
        while name.lower() in used:
            name, k = "%s_%d" % (f, k), k + 1
        used.append(name.lower())
        out.append(name)
    return out
db = sqlite3.connect(sys.argv[2])
common = 17
bad = checked = 0
for (t,) in db.execute("select name from sqlite_master where type='table'"):
    cols = [r[1] for r in db.execute('pragma table_info("%s")' % t)]
    if t == "_undecoded":
        continue
    row = db.execute('select provider_guid, id, version, opcode from "%s" limit 1' % t).fetchone()
    want = [sql_names(c) for c in by_class.get((row[0], row[3], row[2]), []) + by_id.get((row[0], row[1], row[2]), [])]
    if cols[:common] != COMMON or (cols[common:] not in want and cols[common:] != ["string"]):
        bad += 1
        print("table %s: columns %s, schema %s" % (t, cols[common:], want))
    checked += 1
print("%d tables checked" % checked)
sys.exit(1 if bad or not checked else 0)
EOF
out=$($PY "$T/cols.py" "$T/s.json" "$T/db.sqlite"); ok $? "column names = the schema's field names: $out"
check "$(sqlite3 "$T/db.sqlite" 'select int16_type, uint64_type, boolean_type from "solar_system.PrimitiveTypesTest.v0" order by timestamp limit 1')" \
  "-51|204|0" "typed columns: negative integers, UInt64, booleans as 0/1"
check "$(sqlite3 "$T/db.sqlite" "select typeof(int16_type) from \"solar_system.PrimitiveTypesTest.v0\" limit 1")" integer "BIGINT columns hold integers"
head -1 "$T/split/_undecoded.csv" | grep -q ',status,error,payload$'; ok $? "_undecoded table keeps status, error and the raw payload"
$ETLCONV -q $S -of json --split "$T/jsplit"; check $? $plain "-of json --split: the exit status of a plain conversion"
check "$(cat "$T"/jsplit/*.jsonl | wc -l)" "$(wc -l < "$T/all.jsonl")" "JSON Lines split: every event in one of the files"
check "$(ls "$T/jsplit" | grep -c '\.jsonl$')" "$(ls "$T/split" | grep -c '\.csv$')" "JSON Lines split: same tables as CSV"
$ETLCONV -q $P -of csv --split "$T/x" -o "$T/x.csv" 2> "$T/err"; check $? 2 "--split with -o is refused"
$ETLCONV -q $P -of xml --split "$T/x" 2> "$T/err"; check $? 2 "--split with -of xml is refused"
$ETLCONV -q $P -of csv --split "$T/x" --split-max-open 0 2> "$T/err"; check $? 2 "--split-max-open 0 is refused"
: > "$T/file"; $ETLCONV -q $P -of csv --split "$T/file" 2> "$T/err"; check $? 2 "--split onto a file: exit 2"
grep -q "not a directory" "$T/err"; ok $? "... saying so"

# -- 3. etlconv schemas: same providers/events/fields as an independent count over the manifests --------
for m in $(find testdata/schemas/real-man testdata/schemas/wevt-mc-testcases -name '*.man' | sort); do
  $ETLCONV schemas -q -import "$m" -of json > "$T/l.json"
  out=$($PY tests/schema_count_check.py "$T/l.json" "$m"); rc=$?
  ok $rc "schemas -import $m: $(printf '%s' "$out" | grep -c '^ok') providers agree$(printf '%s' "$out" | grep '^DIFF' | head -2 | tr '\n' ' ')"
done
for d in testdata/schemas/pe-wevt/synthetic-from-mc-testcases/*.dll; do
  b=$(basename "$d" .dll)
  $ETLCONV schemas -q -import "$d" -of json > "$T/l.json"
  out=$($PY tests/schema_count_check.py "$T/l.json" "testdata/schemas/wevt-mc-testcases/$b.man"); rc=$?
  ok $rc "schemas -import $b.dll (binary) = $b.man counted: $(printf '%s' "$out" | grep '^DIFF' | head -2 | tr '\n' ' ')"
done
M=testdata/schemas/real-man/microsoft-Tx/HTTP_Server.man
want=$(xmllint --xpath 'count(//*[local-name()="events"]/*[local-name()="event"])' "$M")
check "$($ETLCONV schemas -q -import "$M" | grep -c '^  event ')" "$want" "text listing: as many events as xmllint counts in HTTP_Server.man"
check "$($ETLCONV schemas -q -import "$M" | grep -c '^provider ')" \
  "$(xmllint --xpath 'count(//*[local-name()="events"]/*[local-name()="provider"])' "$M")" "text listing: providers as xmllint counts"
# schema pack: a folder → one manifest → the same decoding
$ETLCONV schemas -q -import testdata/schemas/real-man -of manifest -o "$T/pack.man"; check $? 0 "schemas -of manifest -o pack.man"
xmllint --noout "$T/pack.man"; ok $? "the pack is well-formed XML"
$ETLCONV -q $H --no-bundled-schemas -import testdata/schemas/real-man -o "$T/a.xml"
$ETLCONV -q $H --no-bundled-schemas -import "$T/pack.man" -o "$T/b.xml"
cmp -s "$T/a.xml" "$T/b.xml"; ok $? "-import pack.man decodes CrossMachineHTTP exactly as the folder"
grep -q '<Provider Name="Microsoft-Windows-HttpService"' "$T/b.xml"; ok $? "... with the manifest's names"
# --info: per-provider counts add up to the trace's events, as the JSON Lines output counts them
$ETLCONV schemas -q --info $H -of json > "$T/info.json"
check "$(jq '[.providers[].events] | add' "$T/info.json")" "$($ETLCONV -q $H -of json | wc -l)" "schemas --info: event counts add up"
check "$(jq -r '.providers[] | select(.name=="Microsoft-Windows-HttpService") | "\(.decoded) \(.undecoded)"' "$T/info.json")" \
  "$($ETLCONV -q $H -of json | jq -r 'select(.provider=="Microsoft-Windows-HttpService") | .status' | sort | uniq -c | awk '{printf "%s ", $1}' | sed 's/ $//') 0" \
  "schemas --info: HttpService decoded/undecoded = JSON statuses"
$ETLCONV schemas -q --info testdata/tx/KernelNetwork.etl.gz --no-bundled-schemas | grep -q "$(printf '\t0\t0\t')[1-9]"; ok $? "--info shows undecoded events of a provider without schema"
$ETLCONV schemas -q -of bogus 2> "$T/err"; check $? 2 "schemas -of bogus: exit 2"

# -- 4. ECS -----------------------------------------------------------------------------------------------
for f in $H testdata/tx/KernelNetwork.etl.gz testdata/perfview/primitive-types.etl.gz testdata/demikernel/PktMon.etl.gz testdata/s4/SIH.20230422.034724.362.1.etl.gz; do
  $ETLCONV -q "$f" -of json --style ecs > "$T/ecs.json"
  out=$($PY tests/ecs_check.py "$T/ecs.json"); ok $? "ECS $f: $out"
done
printf '%s\n' '{"@timestamp":"2020-01-01T00:00:00Z","event":{"code":"1","kind":"event","severity":4},"process":{"pid":"1","thread":{"id":1}},"winlog":{"event_id":1}}' > "$T/bad.json"
$PY tests/ecs_check.py "$T/bad.json" > /dev/null; check $? 1 "the ECS checker rejects a string pid and missing winlog members"
$ETLCONV -q $P -of csv --style ecs 2> "$T/err"; check $? 2 "--style ecs needs -of json"
