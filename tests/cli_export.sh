#!/bin/sh
# -export then -import round trip that can fail: the second conversion runs with --no-trace-schemas, so the
# trace's own TraceLogging metadata, EventSource manifests and KernelTraceControl metadata are ignored and
# only the exported manifest can decode those events. Oracles for the provider names: EXPECTED.md §8
# (AMSITrace: 19 AmsiScript events of the TraceLogging provider AmsiTrace), §4 (SelfDescribingSingleEvent:
# provider MySource, event TestEvent) and the PerfView baseline of net.4.5.2.x86 (its EventSource providers).
. tests/tap_helpers.sh
A=testdata/airbus-cert/AMSITrace.etl.gz
S=testdata/perfview/SelfDescribingSingleEvent.etl.gz
N=testdata/perfview/net.4.5.2.x86.etl.gz

# TraceLogging traces: every event, byte for byte.
for pair in "$A AmsiTrace AmsiScript 19" "$S MySource TestEvent 1"; do
  set -- $pair
  trace=$1 provider=$2 event=$3 count=$4 name=$(basename "$1" .etl.gz)
  $ETLCONV -q "$trace" -export "$T/$name.man" > "$T/$name.a.xml"; rc=$?
  [ $rc -le 1 ]; ok $? "$name: converts with -export (exit $rc)"
  xmllint --noout "$T/$name.man"; ok $? "$name: exported manifest is well-formed"
  check "$(grep -o '<provider name="[^"]*"' "$T/$name.man" | tr '\n' ' ')" "<provider name=\"$provider\" " \
    "$name: the manifest describes exactly the provider the events were decoded with"
  grep -q "<event [^>]*name=\"$event\"" "$T/$name.man"; ok $? "$name: ... and its event $event"
  check "$(grep -c "<Provider Name=\"$provider\"" "$T/$name.a.xml")" "$count" "$name: $count $provider events decoded"

  $ETLCONV -q "$trace" --no-trace-schemas > "$T/$name.c.xml"
  check "$(grep -c "<Provider Name=\"$provider\"" "$T/$name.c.xml")" 0 \
    "$name: --no-trace-schemas alone leaves the $provider events without a schema"
  [ "$(grep -c '<BinaryEventData>' "$T/$name.c.xml")" -ge "$count" ]; ok $? "$name: ... written as BinaryEventData"

  $ETLCONV -q "$trace" --no-trace-schemas -import "$T/$name.man" > "$T/$name.b.xml"; check $? $rc "$name: same exit status after -import"
  cmp "$T/$name.a.xml" "$T/$name.b.xml" >&2; ok $? "$name: -import of the export with --no-trace-schemas gives byte-identical XML"
done

# Converts $1 again with --no-trace-schemas -import $T/$2.man and compares event by event with $T/$2.a.xml
# (JSON of the first conversion in $T/$2.a.json). Sets $same, $classic.
round_trip_except_classic() {
  $ETLCONV -q "$1" --no-trace-schemas -import "$T/$2.man" > "$T/$2.b.xml"; check $? 0 "$3: converts after -import"
  awk 'FNR == 1 { file++ }
       file == 1 { embedded[FNR] = index($0, "\"source\":\"embedded\"") > 0; next }
       file == 2 { a[FNR] = $0; next }
       { if ($0 == a[FNR]) same++
         else if (embedded[FNR] && index(a[FNR], "<EventGuid>")) classic++
         else { differ++; if (differ <= 3) print "differs:", substr(a[FNR], 1, 400) > "/dev/stderr" } }
       END { printf "%d %d %d\n", same, classic, differ }' \
    RS='\n' "$T/$2.a.json" RS='</Event>' "$T/$2.a.xml" "$T/$2.b.xml" > "$T/$2.cmp"
  read same classic differ < "$T/$2.cmp"
  echo "# $3: $same events identical, $classic embedded classic-layout events differ (not exportable)" >&2
  check "$differ" 0 "$3: every event but the embedded classic layouts is byte-identical after -import"
  [ "$same" -gt 100000 ]; ok $? "$3: ... ($same events compared)"
}

# EventSource + KernelTraceControl metadata. Events whose embedded schema is a classic MOF event-class layout
# (tracerpt shows EventName + ExtendedTracingInfo/EventGuid) cannot be written as a manifest event (a manifest
# event has no event-class GUID), so without the trace's metadata they fall back to the bundled CLR manifest
# and are named differently. Every other event must be byte-identical.
$ETLCONV "$N" -export "$T/n.man" > "$T/n.a.xml" 2> "$T/n.err"; check $? 0 "net.4.5.2.x86: converts with -export"
$ETLCONV -q "$N" -of json > "$T/n.a.json"
for p in System.Threading.Tasks.TplEventSource System.Diagnostics.Eventing.FrameworkEventSource PerfView \
         Microsoft-Windows-DotNETRuntimePrivate Microsoft-Windows-Kernel-File; do
  grep -q "<provider name=\"$p\"" "$T/n.man"; ok $? "net.4.5.2.x86: exported manifest describes $p"
done
grep -q '<provider name="Microsoft-Windows-DotNETRuntimeStress"' "$T/n.man"; check $? 1 \
  "net.4.5.2.x86: no bundled provider the trace has no event of"
$ETLCONV -q "$N" --no-trace-schemas > "$T/n.c.xml"
check "$(grep -c '<Provider Name="System.Threading.Tasks.TplEventSource"' "$T/n.c.xml")" 0 \
  "net.4.5.2.x86: --no-trace-schemas alone leaves the EventSource events without a schema"
round_trip_except_classic "$N" n net.4.5.2.x86
check "$(grep -o 'export: [0-9]* events were decoded with classic' "$T/n.err")" \
  "export: $classic events were decoded with classic" "net.4.5.2.x86: -export warns about exactly those events"

# A WPR trace with one TraceLogging provider of 7 event kinds (EXPECTED.md §5.1: CSharpTraceLoggingEventSource,
# 70 events, MarkString ... WriteGuid), plus KernelTraceControl metadata.
L=testdata/etwanalyzer/TraceLoggingTester.etl.gz
$ETLCONV -q "$L" -export "$T/l.man" > "$T/l.a.xml"; check $? 0 "TraceLoggingTester: converts with -export"
$ETLCONV -q "$L" -of json > "$T/l.a.json"
for e in MarkString MarkStringInteger MarkBoolByteCharDoubleInt16Int32Int64SByteUInt16UInt32UInt64 WriteIntList \
         WriteDateTime WriteTimeSpan WriteGuid; do
  grep -q "<event [^>]*name=\"$e\"" "$T/l.man"; ok $? "TraceLoggingTester: exported manifest has event $e"
done
guid=$(grep -o '<provider name="CSharpTraceLoggingEventSource" guid="{[^}]*}"' "$T/l.man" | grep -o '{.*}')
$ETLCONV -q "$L" --no-trace-schemas --provider "$guid" -of json > "$T/l.c.json"
check "$(wc -l < "$T/l.c.json" | tr -d ' ')" 70 "TraceLoggingTester: --no-trace-schemas: the 70 events by provider GUID $guid"
check "$(grep -c '"status":"ok"' "$T/l.c.json")" 0 "TraceLoggingTester: --no-trace-schemas alone decodes none of them"
round_trip_except_classic "$L" l TraceLoggingTester
