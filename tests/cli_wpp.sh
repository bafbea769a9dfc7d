#!/bin/sh
# WPP (issue 18): trace messages decoded with TMF files. Oracles: the message texts, record counts and message
# GUIDs that ../shared/corpus/EXPECTED.md §findneedle asserts for the 8 findneedle captures (texts the source
# project states equal tracefmt's, byte for byte); the record census of each trace (--info); for CldFlt, the
# bytes of the undecoded payload itself (a TMF written here says: pointer, pointer, NTSTATUS).
. tests/tap_helpers.sh
FN=../shared/corpus/findneedle
CLD=../shared/corpus/s4
[ -d "$FN/tmf" ] || { echo "not ok 1 - $FN missing"; exit 1; }

# message texts of one trace, sorted (JSON Lines → the "message" member of source "tmf" events)
messages() { $ETLCONV "$1" -q -tp "$FN/tmf" -of json | jq -r 'select(.source == "tmf") | .message' | LC_ALL=C sort; }
wpp_records() { $ETLCONV --info "$1" 2>/dev/null | awk -F'\t' '$1 == "records.MESSAGE(WPP)" { print $2 }'; }

# trace, WPP records (EXPECTED.md), message GUID
while read -r name count guid; do
  f="$FN/$name.etl.gz"
  check "$(wpp_records "$f")" "$count" "$name: $count MESSAGE(WPP) records in the census"
  $ETLCONV "$f" -q -tp "$FN/tmf" -of json > "$T/$name.jsonl"; check $? 0 "$name: -tp converts, exit 0"
  check "$(jq -r 'select(.source == "tmf" and .status == "ok") | .provider_guid' "$T/$name.jsonl" | sort -u)" \
        "{$guid}" "$name: every decoded record has message GUID $guid"
  check "$(jq -r 'select(.source == "tmf" and .status == "ok" and .provider == "findneedle")' "$T/$name.jsonl" | grep -c '^{')" \
        "$count" "$name: all $count WPP records decoded, component findneedle"
  check "$(jq -r 'select(.status != "ok")' "$T/$name.jsonl" | grep -c '^{')" 0 "$name: nothing undecoded or in error"
done <<EOF
wppemitter-sample 45 9b93a332-c452-3e71-64f7-55130c7de2e4
wppstr-sample 4 744151fd-b3f4-32e6-38eb-0fd11e3fb62d
wpptypes-sample 5 4857fab7-1162-3184-360b-cdd863ddf4ea
wpptypes2-sample 5 6033c1c6-a9fa-394c-0bc0-1581cb94150e
wppenum-sample 2 d4153fff-ac08-361f-5ed7-af1d38cd1903
wpptime-sample 2 8ff2a761-4025-3d98-c3fc-1bc40b34330d
wppbin-sample 2 4305d668-552d-302b-a84c-fbcf09373bf6
wppndis-sample 1 4bfa7244-5583-3195-181b-88348eb33cdb
EOF

# Every text EXPECTED.md asserts, byte for byte (the whole set of messages of each trace but wppemitter's).
expect() { # trace [folder], then the expected messages one per line on stdin
  printf '%s\n' "$(LC_ALL=C sort)" > "$T/want"
  messages "${2:-$FN}/$1.etl.gz" > "$T/got"
  cmp -s "$T/got" "$T/want"; ok $? "$1: every message text equals EXPECTED.md's"
  cmp -s "$T/got" "$T/want" || diff "$T/want" "$T/got" | sed 's/^/# /'
}
expect wppstr-sample <<'EOF'
strtrace name=alpha id=0 tag=END
strtrace name=bravo id=1 tag=END
strtrace name=charlie id=2 tag=END
widetrace user=root role=admin
EOF
expect wpptypes-sample <<'EOF'
sint i=42 neg=-1000 i64=-5000000000
uint u=4000000000 hex=0xabcdef x64=0xdeadbeefcafe
ptr p=00007FF012345678 null=0000000000000000
widths z=00042 h=0000beef
hr=0x80070005(ERROR_ACCESS_DENIED) st=0xc0000022(STATUS_ACCESS_DENIED) guid=11223344-5566-7788-99aa-bbccddeeff00
EOF
expect wpptypes2-sample <<'EOF'
counted a=CountedAnsi w=CountedWide
sid=S-1-5-18
clsid=aabbccdd-eeff-1122-3344-556677889900 iid=aabbccdd-eeff-1122-3344-556677889900
werr=2(ERROR_FILE_NOT_FOUND) i64X=0xABCDEF i64o=777
ip=127.0.0.1 port=80
EOF
expect wppenum-sample <<'EOF'
b=0x00000001(true) irql=0x00000002(DPC)
set=[1,3]
EOF
expect wpptime-sample <<'EOF'
cc=RGBA
ts=2020-01-01 00:00:00.000Z
EOF
expect wppbin-sample <<'EOF'
hex=DEADBEEF00112233
due=2020-01-01 00:00:00.000Z
EOF
expect wppndis-sample <<'EOF'
nst=0x4001000b(NDIS_STATUS_MEDIA_CONNECT) noid=0x00010101(OID_GEN_SUPPORTED_LIST)
EOF
# Two more findneedle captures (testdata/findneedle, MIT; their TMFs are in the corpus's tmf folder): an
# ItemEnum and an ItemFlagsEnum whose #enumv tables tracepdb took from the PDB's C enums, and ItemDouble,
# ItemTimeDelta, ItemRString, ItemRWString. The texts are what findneedle's tests assert and state equal
# tracefmt's (wppenum2 is also in its parity test against tracefmt itself; wppmisc is not, its author notes
# that %g's rounding of 3.140625 varies between C runtimes: glibc's round-half-even gives 3.14062).
TD=testdata/findneedle
check "$(wpp_records "$TD/wppenum2-sample.etl.gz") $(wpp_records "$TD/wppmisc-sample.etl.gz")" "1 2" \
      "wppenum2 and wppmisc: 1 and 2 MESSAGE(WPP) records in the census"
expect wppenum2-sample "$TD" <<'EOF'
state=StateActive flags=FlagRead | FlagExec(0x5)
EOF
expect wppmisc-sample "$TD" <<'EOF'
dbl=3.14062 delta=5.000s
raw a=RawAnsi w=RawWide
EOF
E="$T/wppemitter-sample.jsonl"
check "$(jq -r 'select(.source == "tmf" and .id == 10)' "$E" | grep -c '^{')" 30 "wppemitter: 30 records of message 10"
check "$(jq -r 'select(.source == "tmf" and .id == 11)' "$E" | grep -c '^{')" 15 "wppemitter: 15 records of message 11"
for m in 'WppEmitter work item id=0 status=0x0 phase=startup provider=WppEmitter' \
         'WppEmitter work item id=27 status=0x1b phase=startup provider=WppEmitter' \
         'WppEmitter detail seq=2 note=processing-record value=2 category=Detail'; do
  check "$(jq -r 'select(.source == "tmf") | .message' "$E" | grep -cxF "$m")" 1 "wppemitter: '$m'"
done
check "$(jq -r 'select(.source == "tmf" and .pid == 0)' "$E" | grep -c '^{')" 0 "wppemitter: process id not 0"

# Every output format shows the decoded message; tracerpt's DebugData is filled in.
S="$FN/wppstr-sample.etl.gz"
$ETLCONV "$S" -q -tp "$FN/tmf" > "$T/s.xml"; xmllint --noout "$T/s.xml"; ok $? "XML with -tp is well-formed"
grep -q '<Message>widetrace user=root role=admin</Message>' "$T/s.xml"; ok $? "XML: DebugData/Message"
grep -q '<Function>main</Function>' "$T/s.xml" && grep -q '<LevelName>STR_GENERAL</LevelName>' "$T/s.xml" &&
  grep -q '<Component>findneedle</Component>' "$T/s.xml" && grep -q '<FileLine>WppStrEmitter_cpp29</FileLine>' "$T/s.xml"
ok $? "XML: DebugData Function, LevelName, Component and FileLine from the TMF"
check "$($ETLCONV "$S" -q -tp "$FN/tmf" -of table | grep -c 'findneedle	WppStrEmitter_cpp27	')" 3 "table: component and file_line tag"
$ETLCONV "$S" -q -tp "$FN/tmf" -of csv > "$T/s.csv"
python3 -c 'import csv,sys; rows=list(csv.reader(open(sys.argv[1]))); sys.exit(0 if any(r[19:] == ["root"] for r in rows) else 1)' "$T/s.csv"
ok $? "CSV: the argument is the User Data cell (python csv reader)"

check "$(jq -r 'select(.source == "tmf") | [.wpp.component, .wpp.tag, .wpp.file, .wpp.line, .wpp.function, .wpp.level, .wpp.flags] | @tsv' "$T/wppstr-sample.jsonl" | tail -1)" \
      "$(printf 'findneedle\tWppStrEmitter_cpp29\tWppStrEmitter.cpp\t29\tmain\tSTR_GENERAL\t')" \
      "JSON: the wpp member has component, tag, SRC file, line, FUNC, LEVEL and FLAGS of the TMF"

# tracefmt text: the default prefix, and TRACE_FORMAT_PREFIX
$ETLCONV "$S" -q -tp "$FN/tmf" -of tracefmt > "$T/s.txt"; check $? 0 "-of tracefmt exits 0"
pid=$(jq -r 'select(.source == "tmf") | .pid' "$T/wppstr-sample.jsonl" | head -1)
tid=$(jq -r 'select(.source == "tmf") | .tid' "$T/wppstr-sample.jsonl" | head -1)
cpu=$(jq -r 'select(.source == "tmf") | .cpu' "$T/wppstr-sample.jsonl" | head -1)
t=$(jq -r 'select(.source == "tmf") | .time' "$T/wppstr-sample.jsonl" | tail -1)
want=$(printf '[%d]%04X.%04X::%s/%s/%s-%s [findneedle]widetrace user=root role=admin' "$cpu" "$pid" "$tid" \
       "$(echo "$t" | cut -c6-7)" "$(echo "$t" | cut -c9-10)" "$(echo "$t" | cut -c1-4)" "$(echo "$t" | cut -c12-23)")
check "$(tail -1 "$T/s.txt")" "$want" "tracefmt: [CPU]PID.TID::MM/DD/YYYY-HH:MM:SS.mmm [component]message"
check "$(TRACE_FORMAT_PREFIX='%2!s!|%!FUNC!|%!LEVEL!|%8!d!|' $ETLCONV "$S" -q -tp "$FN/tmf" -of tracefmt | tail -1)" \
      "WppStrEmitter_cpp29|main|STR_GENERAL|$pid|widetrace user=root role=admin" "TRACE_FORMAT_PREFIX honoured"
check "$(TRACE_FORMAT_SEARCH_PATH="/nonexistent;$FN/tmf" $ETLCONV "$S" -of json 2>/dev/null | jq -r 'select(.source == "tmf") | .message' | tail -1)" \
      "widetrace user=root role=admin" "TRACE_FORMAT_SEARCH_PATH: folders separated by ';' (a missing one is a warning)"
$ETLCONV "$S" -q -tmf "$FN/tmf/744151fd-b3f4-32e6-38eb-0fd11e3fb62d.tmf" -of json > "$T/one.jsonl"
cmp -s "$T/one.jsonl" "$T/wppstr-sample.jsonl"; ok $? "-tmf FILE decodes as -tp DIR"

# CldFlt: no TMF → output unchanged (a TMF for other GUIDs changes nothing, byte for byte); with a TMF
# written here for message 43 of 2818ef08-..., its 13 + 3 records decode.
for c in CldFlt0 CldFlt1; do
  f="$CLD/$c-2025-12-21-121418.etl.gz"
  $ETLCONV "$f" -q > "$T/$c.plain.xml"
  $ETLCONV "$f" -q -tp "$FN/tmf" > "$T/$c.other.xml"
  cmp -s "$T/$c.plain.xml" "$T/$c.other.xml"; ok $? "$c: TMFs of other GUIDs leave the XML unchanged"
  for fmt in csv table json tracefmt; do
    $ETLCONV "$f" -q -of $fmt > "$T/$c.$fmt"
    $ETLCONV "$f" -q -tp "$FN/tmf" -of $fmt | cmp -s - "$T/$c.$fmt"; ok $? "$c: ... and the $fmt output"
  done
  check "$(grep -c 'Unknown( 43): GUID=2818ef08-6a54-396f-2244-5a6ea4a98cf0 (No Format Information found).' "$T/$c.plain.xml")" \
        "$(wpp_records "$f")" "$c: without TMF every WPP record is tracerpt's Unknown( 43) DebugData"
done
mkdir -p "$T/cld"
cat > "$T/cld/2818ef08-6a54-396f-2244-5a6ea4a98cf0.tmf" <<'EOF'
// written by tests/cli_wpp.sh for the CldFlt traces (argument types read off the payloads: 8 + 8 + 4 bytes)
2818ef08-6a54-396f-2244-5a6ea4a98cf0 CldFlt // SRC=test.c MJ= MN=
#typev test_c43 43 "%0 [%!FUNC!] a=%10!p! b=%11!p! status=%12!s!" //   LEVEL=TRACE_LEVEL_ERROR FLAGS=TEST FUNC=TestFunction
{
a, ItemPtr -- 10
b, ItemPtr -- 11
status, ItemNTSTATUS -- 12
}
EOF
f="$CLD/CldFlt0-2025-12-21-121418.etl.gz"
$ETLCONV "$f" -q -tp "$T/cld" -of json > "$T/cld.jsonl"; check $? 0 "CldFlt0 with a TMF for message 43: exit 0"
check "$(jq -r 'select(.source == "tmf" and .status == "ok")' "$T/cld.jsonl" | grep -c '^{')" "$(wpp_records "$f")" \
      "CldFlt0: every WPP record decodes"
# the oracle: the payload hex of the run without TMF, read as two little-endian pointers and a status
$ETLCONV "$f" -q -of json | jq -r 'select(.status == "no_schema" and .id == 43) | .payload' | awk '
  function le(h,   s, i) { s = ""; for (i = length(h) - 1; i >= 1; i -= 2) s = s substr(h, i, 2); return s }
  { st = tolower(le(substr($0, 33, 8)))
    printf " [TestFunction] a=%s b=%s status=0x%s%s\n", le(substr($0, 1, 16)), le(substr($0, 17, 16)), st,
           st == "c01c000f" ? "(STATUS_FLT_DO_NOT_ATTACH)" : "" }' > "$T/cld.want"
jq -r 'select(.source == "tmf") | .message' "$T/cld.jsonl" > "$T/cld.got"
check "$(wc -l < "$T/cld.want")" 13 "CldFlt0: 13 payloads read without TMF"
cmp -s "$T/cld.got" "$T/cld.want"; ok $? "CldFlt0: messages equal the payload bytes read by hand (pointers, NTSTATUS with its name)"
grep -q '^#define STATUS_FLT_DO_NOT_ATTACH ((NTSTATUS)0xC01C000F)' /usr/share/mingw-w64/include/ntstatus.h
ok $? "... and 0xC01C000F is STATUS_FLT_DO_NOT_ATTACH in mingw-w64's ntstatus.h"

# Hostile and malformed TMFs: refused with file and line, the rest loads, exit 1; nothing usable: exit 2.
cp "$T/cld/2818ef08-6a54-396f-2244-5a6ea4a98cf0.tmf" "$T/bad.tmf"
printf '#typev broken 44 "no closing quote\n{\n}\n' >> "$T/bad.tmf"
$ETLCONV "$f" -tmf "$T/bad.tmf" -of json > "$T/bad.jsonl" 2> "$T/err"; check $? 1 "a malformed statement: exit 1 (warning)"
grep -q "bad.tmf:9: #typev format string has no closing quote" "$T/err"; ok $? "... the warning names file and line"
check "$(jq -r 'select(.source == "tmf")' "$T/bad.jsonl" | grep -c '^{')" 13 "... and the good statement still decodes"
awk 'BEGIN { printf "2818ef08-6a54-396f-2244-5a6ea4a98cf0 X // SRC=x.c\n#typev x_c1 43 \""; for (i = 0; i < 70000; i++) printf "A"; print "\"\n{\n}" }' > "$T/long.tmf"
$ETLCONV "$f" -tmf "$T/long.tmf" > /dev/null 2> "$T/err"; check $? 2 "a 70,000-byte line: nothing loads, exit 2"
grep -q "long.tmf:2: line longer than 64 KiB" "$T/err"; ok $? "... refused with its line number"
printf '2818ef08-6a54-396f-2244-5a6ea4a98cf0 X // SRC=x.c\n#typev x_c1 43 "unclosed\n{\n}\n' > "$T/allbad.tmf"
$ETLCONV "$f" -tmf "$T/allbad.tmf" > /dev/null 2> "$T/err"; check $? 2 "a TMF whose only statement is refused: exit 2"
grep -q "allbad.tmf:2: #typev format string has no closing quote" "$T/err"; ok $? "... naming file and line"
$ETLCONV "$f" -tp "$T/empty-missing" > /dev/null 2> "$T/err"; check $? 2 "missing -tp folder: exit 2"
mkdir -p "$T/empty"; $ETLCONV "$f" -tp "$T/empty" > /dev/null 2> "$T/err"; check $? 2 "-tp folder without TMF: exit 2"
grep -q "no TMF statement found" "$T/err"; ok $? "... saying so"

# -pdb and -i: the findneedle TMFs as PDB annotations (the PDB test_wpp_pdb.c builds from the documented MSF,
# DBI and CodeView structures) decode as the TMF files do; -i finds that PDB through an image's CodeView
# record (a minimal PE32+ written here: one section holding the debug directory and its RSDS record).
BUILD=${BUILD:-build}
ETLCONV_KEEP_FINDNEEDLE_PDB="$T/findneedle.pdb" "$BUILD/tests/test_wpp_pdb" > /dev/null 2>&1
[ -f "$T/findneedle.pdb" ]; ok $? "test_wpp_pdb wrote the findneedle PDB"
$ETLCONV "$S" -q -pdb "$T/findneedle.pdb" -of json > "$T/pdb.jsonl"; check $? 0 "-pdb FILE: exit 0"
cmp -s "$T/pdb.jsonl" "$T/wppstr-sample.jsonl"; ok $? "-pdb FILE decodes wppstr-sample as -tp does, byte for byte"
mkdir -p "$T/img" "$T/syms"
cp "$T/findneedle.pdb" "$T/syms/"
python3 - "$T/img/WppStrEmitter.sys" 'C:\build\x64\findneedle.pdb' <<'PY'
import struct, sys
rsds = b'RSDS' + bytes(range(16)) + struct.pack('<I', 1) + sys.argv[2].encode() + b'\0'
debug = struct.pack('<IIHHIIII', 0, 0, 0, 0, 2, len(rsds), 0x1000 + 28, 0x200 + 28)
coff = struct.pack('<HHIIIHH', 0x8664, 1, 0, 0, 0, 240, 0x22)
opt = bytearray(240)
struct.pack_into('<H', opt, 0, 0x20B)
struct.pack_into('<I', opt, 108, 16)
struct.pack_into('<II', opt, 112 + 8 * 6, 0x1000, 28)
sect = struct.pack('<8sIIIIIIHHI', b'.rdata', 0x200, 0x1000, 0x200, 0x200, 0, 0, 0, 0, 0x40000040)
head = bytearray(0x200)
head[0:2] = b'MZ'
struct.pack_into('<I', head, 0x3C, 0x40)
pe = b'PE\0\0' + coff + bytes(opt) + sect
head[0x40:0x40 + len(pe)] = pe
open(sys.argv[1], 'wb').write(bytes(head) + (debug + rsds).ljust(0x200, b'\0'))
PY
$ETLCONV "$S" -q -i "$T/img/WppStrEmitter.sys" -of json > /dev/null 2> "$T/err"; check $? 2 "-i IMAGE whose PDB is nowhere: exit 2"
grep -q "its PDB findneedle.pdb is neither beside it nor in a -pdb folder" "$T/err"; ok $? "... naming the PDB its CodeView record gives"
$ETLCONV "$S" -q -i "$T/img/WppStrEmitter.sys" -pdb "$T/syms" -of json > "$T/img.jsonl"; check $? 0 "-i IMAGE -pdb DIR: exit 0"
cmp -s "$T/img.jsonl" "$T/wppstr-sample.jsonl"; ok $? "-i finds the PDB in the -pdb folder and decodes as -tp does"
cp "$T/findneedle.pdb" "$T/img/"
$ETLCONV "$S" -q -i "$T/img/WppStrEmitter.sys" -of json | cmp -s - "$T/wppstr-sample.jsonl"; ok $? "-i finds the PDB beside the image"
$ETLCONV "$S" -q -i "$T/s.xml" > /dev/null 2> "$T/err"; check $? 2 "-i of a file that is no PE: exit 2"
$ETLCONV "$S" -q -pdb "$T/s.xml" > /dev/null 2> "$T/err"; check $? 2 "-pdb of a file that is no PDB: exit 2"
grep -q "s.xml: offset 0x0: not a PDB" "$T/err"; ok $? "... saying so with the offset"
