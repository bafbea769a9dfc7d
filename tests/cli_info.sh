#!/bin/sh
# `etlconv --info`: key<TAB>value lines, values from independent oracles (corpus MANIFEST/EXPECTED), exit codes.
ETLCONV=${ETLCONV:-build/etlconv}
n=0
check() { n=$((n+1)); if [ "$1" = "$2" ]; then echo "ok $n - $3"; else echo "not ok $n - $3: got '$1', want '$2'"; fi; }
val() { printf '%s\n' "$1" | awk -F'\t' -v k="$2" '$1==k {print $2; exit}'; }

out=$($ETLCONV testdata/perfview/primitive-types.etl.gz --info); rc=$?
check "$rc" 0 "primitive-types exits 0"
# Values from the PerfView baseline's EventTrace line (corpus/perfview/primitive-types.baseline.txt).
check "$(val "$out" BufferSize)" 8192 "BufferSize"
check "$(val "$out" Version)" 83951626 "Version"
check "$(val "$out" ProviderVersion)" 19043 "ProviderVersion"
check "$(val "$out" NumberOfProcessors)" 8 "NumberOfProcessors"
check "$(val "$out" PerfFreq)" 10000000 "PerfFreq"
check "$(val "$out" PointerSize)" 8 "PointerSize"
check "$(val "$out" UtcOffsetMinutes)" -120 "UtcOffsetMinutes"
check "$(val "$out" SessionName)" solar_system "SessionName"
check "$(val "$out" StartTime | cut -c1-22)" "2021-09-09T14:59:32.85" "StartTime (PerfView shows 14:59:32.85...)"
# Census from corpus/MANIFEST.tsv: EVENT64:5,SYSTEM64:2; providers(by GUID)=1
check "$(val "$out" records.EVENT64)" 5 "records.EVENT64"
check "$(val "$out" records.SYSTEM64)" 2 "records.SYSTEM64"
check "$(val "$out" providers)" 1 "providers"
check "$(val "$out" errors)" 0 "errors"
for k in BufferSize Version ProviderVersion NumberOfProcessors EndTime TimerResolution MaxFileSize LogFileMode \
         BuffersWritten StartBuffers PointerSize EventsLost CPUSpeed BootTime PerfFreq StartTime ReservedFlags \
         BuffersLost SessionName LogFileName UtcOffsetMinutes buffers buffers.compressed events providers \
         events.lost buffers.lost errors; do
  printf '%s\n' "$out" | grep -q "^$k	" && echo "ok $((n=n+1)) - key $k present" || echo "not ok $((n=n+1)) - key $k missing"
done

# Compressed relogged trace: 275 of 276 buffers compressed (corpus README), EventsLost 0.
out=$($ETLCONV testdata/perfview/net.4.5.2.x86.etl.gz --info)
check "$(val "$out" buffers)" 276 "net.4.5.2.x86 buffers"
check "$(val "$out" buffers.compressed)" 275 "net.4.5.2.x86 compressed buffers"
check "$(val "$out" records.PERFINFO64)" 115091 "net.4.5.2.x86 PERFINFO64 census"

# Lost events reported in the header (corpus README): WindowsUpdate EventsLost 41.
out=$($ETLCONV testdata/s4/WindowsUpdate.20251008.140245.443.8.etl.gz --info)
check "$(val "$out" events.lost)" 41 "WindowsUpdate events.lost"

# Several files: merged totals (EXPECTED.md §3: 100,753 records in the four diaghub files).
out=$($ETLCONV --info testdata/perfview/diaghub.etl.gz testdata/perfview/diaghub.kernel.1.etl.gz \
      testdata/perfview/diaghub.user_injected.1.etl.gz testdata/perfview/diaghub.user_paged.1.etl.gz)
check "$(val "$out" events)" 100753 "diaghub merged events"
check "$(printf '%s\n' "$out" | grep -c '^file	')" 4 "diaghub: one file line per input"

# Empty and missing files: exit 2 and a one-line error naming the file.
err=$($ETLCONV testdata/etwanalyzer/empty.etl --info 2>&1 >/dev/null); rc=$?
check "$rc" 2 "empty file exits 2"
case "$err" in *"testdata/etwanalyzer/empty.etl"*empty*) echo "ok $((n=n+1)) - empty file error names the file";;
  *) echo "not ok $((n=n+1)) - empty file error: $err";; esac
check "$(printf '%s\n' "$err" | wc -l)" 1 "empty file error is one line"
$ETLCONV testdata/nonexistent.etl --info >/dev/null 2>&1; check "$?" 2 "missing file exits 2"
