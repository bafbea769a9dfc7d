#!/bin/sh
# -of pcapng, judged by tshark (Wireshark's reader, Debian package) against Windows' own pktmon export:
# corpus/demikernel/PktMon.cap is what `pktmon etl2pcap` wrote for PktMon.etl (EXPECTED.md §7: 114 packets).
. tests/tap_helpers.sh
ETL=testdata/demikernel/PktMon.etl.gz
WIN=testdata/demikernel/PktMon.cap

if ! command -v tshark >/dev/null 2>&1; then
    echo "not ok 1 - tshark is missing (apt-get install tshark; tests/ensure_deps.sh)"
    exit 0
fi

$ETLCONV -q "$ETL" -o "$T/p.pcapng"; check "$?" 0 "pcapng written, exit 0"
$ETLCONV -q "$ETL" -of pcapng > "$T/stdout.pcapng"
cmp -s "$T/p.pcapng" "$T/stdout.pcapng"; ok $? "-o NAME.pcapng picks the format (same bytes as -of pcapng)"

tshark -r "$T/p.pcapng" > "$T/list.txt" 2> "$T/err.txt"; rc=$?
check "$rc" 0 "tshark reads our pcapng (exit 0)"
check "$(grep -v '^Running as user' "$T/err.txt" | wc -l)" 0 "tshark prints no error"

# Same packets as Windows: count, timestamps at µs (pktmon truncates 100 ns to µs), lengths and bytes.
F="-e frame.time_epoch -e frame.len -e frame.cap_len -e frame.encap_type -e frame.protocols"
tshark -r "$WIN" -T fields $F 2>/dev/null > "$T/win.txt"
tshark -r "$T/p.pcapng" -T fields $F 2>/dev/null | awk -F'\t' -v OFS='\t' '{ $1 = substr($1, 1, length($1) - 3) "000"; print }' > "$T/ours.txt"
check "$(wc -l < "$T/win.txt")" 114 "Windows' capture has 114 packets (EXPECTED.md §7)"
check "$(wc -l < "$T/ours.txt")" 114 "ours has 114 packets"
cmp -s "$T/win.txt" "$T/ours.txt"; ok $? "time (µs), frame length, captured length, link type, protocols equal packet by packet"
tshark -r "$WIN" -x 2>/dev/null > "$T/win.hex"
tshark -r "$T/p.pcapng" -x 2>/dev/null > "$T/ours.hex"
cmp -s "$T/win.hex" "$T/ours.hex"; ok $? "packet bytes equal (tshark -x hex dumps)"
# 100 ns resolution is kept: the first packet's event time is 20:18:35.4891721 (JSON output)
check "$(tshark -r "$T/p.pcapng" -T fields -e frame.time_epoch -c 1 2>/dev/null)" 1718050715.489172100 "if_tsresol 7: 100 ns kept"

# Direction: the Hyper-V adapter's own MAC is 00:22:48:7b:b3:80 (dst of every received frame in Windows'
# capture); a frame is outbound exactly when that MAC is its source.
tshark -r "$T/p.pcapng" -T fields -e frame.packet_flags_direction -e eth.src 2>/dev/null |
    awk -F'\t' '{ out = ($2 == "00:22:48:7b:b3:80"); flag = ($1 == "0x00000002") ? 1 : ($1 == "0x00000001") ? 0 : -1;
                  if (flag != out) bad++ } END { print bad + 0 }' > "$T/dir.txt"
check "$(cat "$T/dir.txt")" 0 "epb_flags direction agrees with the frame's source MAC for all packets"
check "$(tshark -r "$T/p.pcapng" -Y 'frame.packet_flags_direction == 2' 2>/dev/null | wc -l)" 76 "76 outbound: the 19 Tx events at each of components 48, 50, 59, 61 (JSON DirTag)"

# Interface assignment: pktmon component of each packet event (JSON, jq) named by pktmon's component events
# (id 20) = the IDB name tshark shows for each packet.
$ETLCONV -q "$ETL" -of json > "$T/p.jsonl"
jq -r -s '(map(select(.id == 20)) | map({key: (.fields.Id | tostring), value: .fields.Name}) | from_entries) as $names
          | .[] | select(.provider == "Microsoft-Windows-PktMon" and (.id == 160 or .id == 170))
          | $names[.fields.ComponentId | tostring]' "$T/p.jsonl" > "$T/want_if.txt"
tshark -r "$T/p.pcapng" -T fields -e frame.interface_name 2>/dev/null > "$T/got_if.txt"
check "$(wc -l < "$T/want_if.txt")" 114 "JSON: 114 pktmon packet events"
cmp -s "$T/want_if.txt" "$T/got_if.txt"; ok $? "every packet is on the IDB of its pktmon component"
check "$(capinfos -I "$T/p.pcapng" 2>/dev/null | grep -c 'Time resolution = 0x07')" 4 "4 IDBs (components 59, 61, 50, 48), each with if_tsresol 7"
check "$(tshark -r "$T/p.pcapng" -T fields -e frame.packet_id -c 1 2>/dev/null)" 1071654 "epb_packetid = PktGroupId"
tshark -r "$T/p.pcapng" -T fields -e frame.comment -c 1 2>/dev/null | grep -q '^PID=0 TID=0 PktGroupId=1071654 PktNumber=1 Appearance=1 Component=59 Edge=1 Filter=1$'
ok $? "comment: PID/TID and pktmon ids"
capinfos -I "$T/p.pcapng" 2>/dev/null | grep -q 'Description = Microsoft Hyper-V Network Adapter #3'
ok $? "if_description from pktmon's component description"

# --pcapng-events: every other event as a systemd journal export block, still readable, packets unchanged.
$ETLCONV -q "$ETL" --pcapng-events -o "$T/e.pcapng"
tshark -r "$T/e.pcapng" > /dev/null 2> "$T/err2.txt"; check "$?" 0 "tshark reads --pcapng-events output"
total=$(wc -l < "$T/p.jsonl")
check "$(tshark -r "$T/e.pcapng" -Y systemd_journal 2>/dev/null | wc -l)" $((total - 114)) "one journal block per non-packet event"
check "$(tshark -r "$T/e.pcapng" -Y eth 2>/dev/null | wc -l)" 114 "packets still 114"
tshark -r "$T/e.pcapng" -Y systemd_journal -T fields -e systemd_journal.comm -e systemd_journal.message 2>/dev/null |
    grep -q '^Microsoft-Windows-PktMon	Component 75, Type HTTP Protocol , Name http.sys, HTTP $'  # map names keep their space, as Windows prints them (issue 12)
ok $? "journal block: provider as _COMM, event message as MESSAGE"

# Every bundled corpus trace: as many packets as the JSON output has packet events (pktmon 160/170, ndiscap
# 1001/1003, NdisWan 5001/5002); tshark reads those that have packets (only PktMon), and the others are the
# same empty capture (SHB only) as primitive-types below, which tshark reads.
$ETLCONV -q testdata/perfview/primitive-types.etl.gz -of pcapng > "$T/none.pcapng"; check "$?" 0 "no packets: exit 0"
check "$(tshark -r "$T/none.pcapng" 2>/dev/null | wc -l)" 0 "no packets: tshark reads an empty capture"
bad=""
for f in testdata/*/*.etl.gz; do
    $ETLCONV -q --one-pass "$f" -of pcapng > "$T/c.pcapng" 2>/dev/null
    want=$($ETLCONV -q --one-pass "$f" -of json --provider 4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac \
             --provider 2ed6006e-4729-4609-b423-3ee7bcd678ef --provider d84521f7-2235-4237-a7c0-14e3a9676286 2>/dev/null |
           jq -c 'select(.id == 160 or .id == 170 or .id == 1001 or .id == 1003 or .id == 5001 or .id == 5002)' | wc -l)
    if [ "$want" = 0 ]; then
        cmp -s "$T/c.pcapng" "$T/none.pcapng" || bad="$bad $f(not empty)"
    else
        got=$(tshark -r "$T/c.pcapng" 2>/dev/null | wc -l) || bad="$bad $f(tshark)"
        [ "$got" = "$want" ] || bad="$bad $f($got!=$want)"
    fi
done
check "$bad" "" "every corpus trace: packets in the pcapng = packet events in JSON"

