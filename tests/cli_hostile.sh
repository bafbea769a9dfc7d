#!/bin/sh
# Hostile and damaged input through the command line (issue 11): what the reader cannot use is reported on
# stderr with the file and offset, exit 1, and the rest still converted. Damaged copies of corpus traces are
# made here with python3. BondEtwSample (tx) carries one EventSource manifest in one chunk (envelope
# 01 01 00 5B, TotalChunks 1) in its second 1 MiB buffer (offset 0x100000).
. tests/tap_helpers.sh
B=testdata/tx/BondEtwSample.etl.gz
gzip -dc $B > "$T/bond.etl"
events() { grep -c '^{' "$1"; }

# --- in-trace EventSource manifests that are lost: reported, not silently dropped ----------------------
python3 - "$T/bond.etl" "$T" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.find(b'<instrumentationManifest')
assert i > 0 and d[i-8:i-4] == b'\x01\x01\x00\x5b', 'manifest chunk not where expected'
bad = bytearray(d); bad[i+1:i+4] = b'!!!'             # not well-formed: the manifest parser refuses it
open(sys.argv[2] + '/es_refused.etl', 'wb').write(bad)
inc = bytearray(d); inc[i-4] = 2                       # TotalChunks 2: the second chunk never comes
open(sys.argv[2] + '/es_incomplete.etl', 'wb').write(inc)
PY
$ETLCONV -of json "$T/bond.etl" > "$T/bond.json" 2> "$T/bond.err"; check $? 0 "BondEtwSample converts cleanly (exit 0)"
all=$(events "$T/bond.json")
for c in refused:"refused (" incomplete:"never completed (1 of 2 chunks"; do
  name=${c%%:*} text=${c#*:}
  $ETLCONV -of json "$T/es_$name.etl" > "$T/$name.json" 2> "$T/$name.err"; check $? 1 "EventSource manifest $name: exit 1"
  at=$(sed -n "s|^etlconv: warning: $T/es_$name.etl: offset \(0x[0-9a-f]*\): EventSource manifest of {4f8f06bf-8261-4099-ae5f-07c54bbcfab3} $text.*|\1|p" \
    "$T/$name.err")
  [ -n "$at" ]; ok $? "... reported with file, offset and provider"
  # The offset names the record carrying the chunk: an EVENT_HEADER record of that provider, in the second
  # 1 MiB buffer (after its 0x48-byte header), whose bytes hold the manifest.
  python3 - "$T/es_$name.etl" "$at" <<'PY'
import sys, struct, uuid
d = open(sys.argv[1], 'rb').read(); at = int(sys.argv[2], 16)
size, htype = struct.unpack_from('<HH', d, at)  # EVENT_HEADER: HeaderType 0x12/0x13, marker 0xC0
guid = uuid.UUID(bytes_le=d[at + 0x18:at + 0x28])
i = d.find(b'umentationManifest', at)  # the refused copy has '<!!!trumentation...'
sys.exit(0 if 0x100048 <= at < 0x200000 and htype in (0xC012, 0xC013) and
         str(guid) == '4f8f06bf-8261-4099-ae5f-07c54bbcfab3' and at < i < at + size else 1)
PY
  ok $? "... at the byte where that provider's record starts ($at)"
  check "$(events "$T/$name.json")" "$all" "... every event still converted"
done

# --- amplification: zero-width array elements ----------------------------------------------------------
# A manifest for primitive-types' provider whose template reads the real payload ("Mercury\0", 00, 4D, CD FF)
# as a string, a zero length B, a byte, a count N = 0xFFCD, then N binaries of length B (= 0 bytes each):
# 65,485 elements from no input (main wrote 595 KB of JSON and 4.9 MB of XML for this 16 KB trace).
P=testdata/perfview/primitive-types.etl.gz
cat > "$T/amp.man" <<'MAN'
<?xml version="1.0" encoding="utf-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"><instrumentation><events>
 <provider name="solar_system" guid="{d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615}" symbol="S">
  <templates><template tid="T">
   <data name="S" inType="win:AnsiString"/><data name="B" inType="win:UInt8"/><data name="C" inType="win:UInt8"/>
   <data name="N" inType="win:UInt16"/><data name="Z" inType="win:Binary" length="B" count="N"/>
  </template></templates>
  <events><event value="0" version="0" template="T" symbol="E"/></events>
 </provider></events></instrumentation></instrumentationManifest>
MAN
for fmt in json xml; do
  $ETLCONV -q --no-trace-schemas -import "$T/amp.man" -of $fmt $P > "$T/amp.$fmt"; check $? 1 "zero-width elements ($fmt): exit 1"
  [ "$(wc -c < "$T/amp.$fmt")" -lt 65536 ]; ok $? "... output bounded ($(wc -c < "$T/amp.$fmt") bytes for 7 events)"
done
# 3 of the 5 solar_system events read B = 0 (the other two run out of payload, an ordinary decode error)
check "$(grep -c '"error":"[^"]*truncated: more than 256 array elements that occupy no payload bytes' "$T/amp.json")" 3 \
  "... the events with zero-width elements are marked as truncated, with the reason"
check "$(grep -c '^{' "$T/amp.json")" 7 "... and every event is still written"

# --- a decode error names the record's place in the file ---------------------------------------------
# Checked against the file's own bytes (etl-format.md §1.2, §2.9): in a plain buffer the offset is the record's
# first byte (its EVENT_HEADER holds the event's raw timestamp at +0x10 and its provider at +0x18; its buffer's
# header the CPU at +0x28); in a
# compressed one (net.4.5.2.x86, relogged) it is the buffer's header (flag 0x40, CPU at +0x28, the record's
# place within the valid bytes at +0x30). A manifest whose template wants 8 more bytes than Immersive-Shell's
# event 191 carries makes the compressed trace's errors.
cat > "$T/shell.man" <<'MAN'
<?xml version="1.0" encoding="utf-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"><instrumentation><events>
 <provider name="Microsoft-Windows-Immersive-Shell" guid="{315a8872-923e-4ea2-9889-33cd4754bf64}" symbol="S">
  <templates><template tid="T"><data name="Message" inType="win:UInt32"/><data name="More" inType="win:UInt64"/>
  </template></templates>
  <events><event value="191" version="0" template="T" symbol="E"/></events>
 </provider></events></instrumentation></instrumentationManifest>
MAN
gzip -dc $P > "$T/prim.etl"; gzip -dc testdata/perfview/net.4.5.2.x86.etl.gz > "$T/n452.etl"
$ETLCONV -q --no-trace-schemas -import "$T/shell.man" -of json "$T/n452.etl" -j 2 > "$T/shell.json"
check $? 1 "Immersive-Shell events that do not fit the template: exit 1"
python3 - "$T/prim.etl" "$T/amp.json" "$T/n452.etl" "$T/shell.json" <<'PY'
import sys, json, re, struct, uuid
def check(trace, out, compressed):
    d = open(trace, 'rb').read(); n = bad = 0; places = set()
    for line in open(out):
        ev = json.loads(line)
        if 'error' not in ev or 'record at file' not in ev['error']: continue
        m = re.search(r'record at file 0 offset 0x([0-9a-f]+)( \(compressed buffer, record 0x([0-9a-f]+) bytes into '
                      r'its decompressed records\))?, ', ev['error'])
        n += 1
        if not m or bool(m.group(2)) != compressed: bad += 1; continue
        at = int(m.group(1), 16)
        if compressed:
            flags, = struct.unpack_from('<H', d, at + 0x34); valid, = struct.unpack_from('<I', d, at + 0x30)
            ok = flags & 0x40 and 0x48 + int(m.group(3), 16) < valid and d[at + 0x28] == ev['cpu']
        else:
            size, = struct.unpack_from('<I', d, 0); buf = at - at % size  # plain buffers: all one size
            ok = (str(uuid.UUID(bytes_le=d[at + 0x18:at + 0x28])) == ev['provider_guid'].strip('{}') and
                  struct.unpack_from('<q', d, at + 0x10)[0] == ev['timestamp'] and d[at + 2] in (0x12, 0x13) and
                  at >= buf + 0x48 and d[buf + 0x28] == ev['cpu'])
        bad += not ok
        places.add(m.group(0))
    print(f'# {out}: {n} errors, {bad} wrongly placed, {len(places)} places'); return n > 0 and bad == 0 and len(places) == n
sys.exit(0 if check(sys.argv[1], sys.argv[2], False) and check(sys.argv[3], sys.argv[4], True) else 1)
PY
ok $? "... each error names the record's file offset (plain) or its buffer and place (compressed)"

# --- output contract -----------------------------------------------------------------------------------
# An output that names an input or the -import manifest is refused even with -y (device + inode: other
# spellings and links too), and the source is left intact.
cp $P "$T/in.dat"; cp "$T/amp.man" "$T/keep.man"
ln "$T/in.dat" "$T/hard.xml"; ln -s in.dat "$T/sym.xml"
for out in "$T/in.dat" "$T/hard.xml" "$T/sym.xml" "$T/./in.dat"; do
  $ETLCONV -q "$T/in.dat" -o "$out" -y 2> "$T/err"; check $? 2 "-o $(basename "$out") naming the input, with -y: exit 2"
  cmp -s $P "$T/in.dat"; ok $? "... the input is intact"
  grep -q "names the input file" "$T/err"; ok $? "... and the refusal says why"
done
$ETLCONV -q $P -o "$T/keep.man" -import "$T/keep.man" -y 2> "$T/err"; check $? 2 "-o naming the -import manifest: exit 2"
cmp -s "$T/amp.man" "$T/keep.man"; ok $? "... the manifest is intact"
$ETLCONV -q $P -o "$T/x.xml" -import "$T/keep.man" -export "$T/keep.man" -y 2> /dev/null; check $? 2 "-export naming the -import manifest: exit 2"
test ! -e "$T/x.xml"; ok $? "... and -o was not written"
# Preconditions are checked before converting: -export FILE existing without -y wrote -o fully, then failed.
: > "$T/old.man"
$ETLCONV -q $P -o "$T/o.xml" -export "$T/old.man" 2> "$T/err"; check $? 2 "-export FILE that exists, no -y: exit 2"
test ! -e "$T/o.xml"; ok $? "... and no -o output is left behind"
test ! -s "$T/old.man"; ok $? "... and the existing file is untouched"
$ETLCONV -q $P -o "$T/s.xml" -summary "$T/s.xml" -y 2> /dev/null; check $? 2 "-o and -summary naming one file: exit 2"
$ETLCONV -q $P -o "$T/nodir/o.xml" 2> "$T/err"; check $? 2 "-o into a folder that does not exist: exit 2"
# A full device: the write fails, the run says so and exits 2 (both exited 0).
if [ -w /dev/full ]; then
  $ETLCONV --info $P > /dev/full 2> "$T/err"; check $? 2 "--info to a full device: exit 2"
  grep -q "write failed" "$T/err"; ok $? "... saying the write failed"
  $ETLCONV -q $P -o "$T/f.xml" -export /dev/full 2> "$T/err"; check $? 2 "-export to a full device: exit 2"
  test ! -e "$T/f.xml"; ok $? "... and -o is not left behind (outputs are named only when all succeeded)"
fi
# Nothing but the outputs appears in their folder: no temporary names left.
mkdir "$T/clean"
$ETLCONV -q $P -o "$T/clean/a.xml" -summary "$T/clean/a.txt" -export "$T/clean/a.man"; check $? 0 "three outputs: exit 0"
check "$(ls -A "$T/clean" | tr '\n' ' ')" "a.man a.txt a.xml " "... exactly the three files, no temporaries"
$ETLCONV -q $P -o "$T/clean/a.xml" -y; check $? 0 "-y replaces an output"
check "$(ls -A "$T/clean" | tr '\n' ' ')" "a.man a.txt a.xml " "... with no temporary left"

# --- --manifest DIR: symbolic links that leave the folder are not followed ------------------------------
# The zero-width manifest above, reached only through a link to outside the folder: not loaded, reported.
mkdir "$T/mdir" "$T/mdir2" "$T/mdir2/sub"
cp testdata/schemas/real-man/windows-driver-samples/UfxClientSample.man "$T/mdir/"  # a real manifest beside the link, so the folder still yields a schema
cp "$T/amp.man" "$T/outside.man"; ln -s ../outside.man "$T/mdir/link.man"
$ETLCONV --no-trace-schemas --manifest "$T/mdir" -of json $P > "$T/m.json" 2> "$T/err"; check $? 1 "--manifest DIR with a link leaving it: exit 1"
grep -q "link.man: symbolic link to .*outside.man, outside the folder" "$T/err"; ok $? "... the link is reported"
check "$(grep -c '"N":' "$T/m.json")" 0 "... and the manifest behind it was not loaded"
# a link that stays inside the folder is followed
cp "$T/amp.man" "$T/mdir2/sub/real.xml"; ln -s sub/real.xml "$T/mdir2/link.man"
$ETLCONV -q --no-trace-schemas --manifest "$T/mdir2" -of json $P > "$T/m2.json"
check "$(grep -c '"N":' "$T/m2.json")" 5 "a link inside the folder is followed"
