#!/bin/sh
# The writers' per-schema static-text cache (formats/text_cache.c, issue 14) changes no byte: on corpus
# traces whose schemas arrive or change mid-trace (EventSource manifests in net.4.5.x86, TraceLogging
# descriptions parsed from every record in TraceLoggingTester, manifest Tx traces, WPP with its TMF) each
# text writer's output equals the output rendered afresh for every event (ETLCONV_TEXT_CACHE=off), also
# with --stable, --csv-compat and -lr.
. tests/tap_helpers.sh
same() { # label, etlconv arguments...
  label=$1; shift
  $ETLCONV -q -j 1 "$@" -o - > "$T/cached" 2>/dev/null
  ETLCONV_TEXT_CACHE=off $ETLCONV -q -j 1 "$@" -o - > "$T/fresh" 2>/dev/null
  if [ -s "$T/fresh" ] && cmp -s "$T/cached" "$T/fresh"; then ok 0 "$label"; else ok 1 "$label: cached and uncached outputs differ"; fi
}
for f in etwanalyzer/TraceLoggingTester perfview/net.4.5.x86.PerfViewData tx/CrossMachineHTTP tx/Process \
         perfview/SelfDescribingSingleEvent s4/WindowsUpdate.20251008.140245.443.8; do
  for fmt in xml csv table jsonl; do same "$f -of $fmt" -of $fmt "testdata/$f.etl.gz"; done
done
same "net.4.5.x86 --stable xml" -of xml --stable testdata/perfview/net.4.5.x86.PerfViewData.etl.gz
same "TraceLoggingTester --csv-compat" -of csv --csv-compat testdata/etwanalyzer/TraceLoggingTester.etl.gz
same "CrossMachineHTTP -lr table" -of table -lr --columns time,pid,tid,cpu,provider testdata/tx/CrossMachineHTTP.etl.gz
W=../shared/corpus/findneedle
if [ -d "$W" ]; then
  same "WPP with TMF -of xml" -of xml -tp $W/tmf $W/wpptypes-sample.etl.gz
  same "WPP with TMF -of jsonl" -of jsonl -tp $W/tmf $W/wpptypes-sample.etl.gz
fi
# The comparison can fail: a different output is seen.
$ETLCONV -q -j 1 -of xml testdata/tx/Process.etl.gz -o - > "$T/a" 2>/dev/null
$ETLCONV -q -j 1 -of xml --stable testdata/tx/Process.etl.gz -o - > "$T/b" 2>/dev/null
cmp -s "$T/a" "$T/b"; check $? 1 "the byte comparison tells different outputs apart"
