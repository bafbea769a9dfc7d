#!/bin/sh
# etlconv schema options: -import / --manifest (files, folders), -export, and their errors. The oracle for
# names is the imported manifest itself (testdata/schemas/real-man/microsoft-Tx/SystemEvents.man declares
# provider Microsoft-Windows-Kernel-Network {7dd42a49-...} and the TCP template fields PID, size, daddr, ...).
. tests/tap_helpers.sh
K=testdata/tx/KernelNetwork.etl.gz
MAN=testdata/schemas/real-man/microsoft-Tx/SystemEvents.man
[ -f "$MAN" ] || { echo "not ok 1 - $MAN missing"; exit 1; }

$ETLCONV $K -q --no-bundled-schemas > "$T/plain.xml"
grep -q '<Provider Guid="{7dd42a49-5329-4832-8dfd-43d979153a88}" />' "$T/plain.xml"
ok $? "without the manifest: Kernel-Network events have no provider name"
grep -q '<BinaryEventData>' "$T/plain.xml"; ok $? "without the manifest: BinaryEventData"

$ETLCONV $K -q -import "$MAN" > "$T/imported.xml"; check $? 0 "-import FILE exits 0"
xmllint --noout "$T/imported.xml"; ok $? "-import output is well-formed"
check "$(grep -c '<BinaryEventData>' "$T/imported.xml")" 0 "with the manifest: nothing left undecoded"
grep -q '<Provider Name="Microsoft-Windows-Kernel-Network" Guid="{7dd42a49-5329-4832-8dfd-43d979153a88}" />' "$T/imported.xml"
ok $? "provider name from the manifest"
for f in PID size daddr saddr dport sport; do
  grep -q "name=\"$f\"" "$MAN" && grep -q "<Data Name=\"$f\">" "$T/imported.xml"; ok $? "template field $f"
done
$ETLCONV -q -import "$MAN" $K | cmp -s - "$T/imported.xml"; ok $? "-import FILE then the trace: the trace ends the list"
$ETLCONV $K -q --manifest "$(dirname "$MAN")" | cmp -s - "$T/imported.xml"; ok $? "--manifest DIR decodes the same"
$ETLCONV $K -q --import="$MAN" | cmp -s - "$T/imported.xml"; ok $? "--import=FILE"
# The same manifest ships with etlconv (src/schema/bundled): no option needed, same output.
$ETLCONV $K -q | cmp -s - "$T/imported.xml"; ok $? "bundled SystemEvents.man: decoded with no option, as with -import"

$ETLCONV $K -import "$T/missing.man" > /dev/null 2> "$T/err"; check $? 2 "missing manifest: exit 2"
grep -q "missing.man" "$T/err"; ok $? "missing manifest: message names the file"
printf '<instrumentationManifest><broken' > "$T/broken.man"
$ETLCONV $K -import "$T/broken.man" > /dev/null 2> "$T/err"; check $? 2 "malformed manifest: exit 2"
grep -q "broken.man" "$T/err"; ok $? "malformed manifest: message names the file"

$ETLCONV $K -q -import "$MAN" -export "$T/exported.man" -of table > /dev/null; check $? 0 "-export exits 0"
xmllint --noout "$T/exported.man"; ok $? "exported manifest is well-formed"
grep -q 'Microsoft-Windows-Kernel-Network' "$T/exported.man"; ok $? "exported manifest names the provider"
$ETLCONV $K -q --no-bundled-schemas -import "$T/exported.man" > "$T/reimported.xml"; check $? 0 "the exported manifest imports"
check "$(grep -c '<Event ' "$T/reimported.xml")" "$(grep -c '<Event ' "$T/imported.xml")" "... and converts every event"
check "$(grep -c '<BinaryEventData>' "$T/reimported.xml")" 0 "the exported manifest decodes the trace again"
grep '<Data Name=' "$T/imported.xml" > "$T/a"; grep '<Data Name=' "$T/reimported.xml" > "$T/b"
cmp -s "$T/a" "$T/b"; ok $? "... with the same field values"
$ETLCONV $K -q -import "$MAN" -export "$T/exported.man" -of table > /dev/null 2> "$T/err"; check $? 2 "-export refuses to overwrite without -y"

# A refusal in part of what the user named is a warning, not the end of the run: the rest is used.
mkdir "$T/dir"
cp "$MAN" "$T/dir/SystemEvents.man"
printf '<instrumentationManifest><instrumentation><events><provider' > "$T/dir/zz-broken.man"
$ETLCONV $K --manifest "$T/dir" > "$T/dir.xml" 2> "$T/err"; check $? 1 "--manifest DIR with one broken file: exit 1 (warnings)"
grep -q "warning: .*zz-broken.man" "$T/err"; ok $? "... the warning names the broken file"
cmp -s "$T/dir.xml" "$T/imported.xml"; ok $? "... and the other manifests decode as before"
cat > "$T/partial.man" <<'XML'
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation><events>
  <provider name="Bad-Guid" guid="{not-a-guid}"><events><event value="1"/></events></provider>
  <provider name="Good" guid="{11111111-2222-3333-4444-555555555555}"><events><event value="1"/></events></provider>
 </events></instrumentation>
</instrumentationManifest>
XML
$ETLCONV $K -import "$MAN" "$T/partial.man" > "$T/partial.xml" 2> "$T/err"; check $? 1 "a manifest with one refused provider: exit 1"
grep -q "warning: .*partial.man" "$T/err"; ok $? "... the warning names the file"
cmp -s "$T/partial.xml" "$T/imported.xml"; ok $? "... and the conversion is complete"
$ETLCONV $K -q -import "$MAN" "$T/partial.man" > /dev/null 2> "$T/err"; check "$(cat "$T/err")" "" "-q silences that warning"

# JSON Lines carries the event message too. Oracle: HTTP_Server.man's text for HttpService event 12
# ("Queued last response (corresponding to request ID %1) for sending. Status code is %2.") with the two fields
# of the same line put in.
H=testdata/tx/CrossMachineHTTP.etl.gz
HMAN=testdata/schemas/real-man/microsoft-Tx/HTTP_Server.man
line=$($ETLCONV $H -q -of json -import "$HMAN" | grep -m1 '"id":12,')
rid=$(printf '%s' "$line" | sed -n 's/.*"RequestId":"\([^"]*\)".*/\1/p')
status=$(printf '%s' "$line" | sed -n 's/.*"HttpStatus":\([0-9]*\).*/\1/p')  # UInt16: a JSON number
text=$(sed -n 's/.*<string id="string174" value="\([^"]*\)".*/\1/p' "$HMAN")
want=$(printf '%s' "$text" | sed "s/%1/$rid/; s/%2/$status/")
[ -n "$rid" ] && [ -n "$status" ] && [ -n "$text" ]; ok $? "HttpService event 12: fields and manifest text found"
check "$(printf '%s' "$line" | sed -n 's/.*"message":"\([^"]*\)".*/\1/p')" "$want" "JSON Lines: message with its inserts"

# A folder in which nothing is a schema is a failure, not a silent conversion without it.
mkdir "$T/noschema"
printf '<?xml version="1.0"?><settings/>\n' > "$T/noschema/settings.xml"
$ETLCONV $K -q -import "$T/noschema" > /dev/null 2> "$T/err"; check $? 2 "-import of a folder without any schema: exit 2"
grep -q "noschema: no instrumentation manifest or binary with a WEVT_TEMPLATE found" "$T/err"; ok $? "... saying so"
