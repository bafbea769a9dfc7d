#!/bin/sh
# --each and -j share one base registry (issue 14): the schemas the command line names are parsed once per run;
# each file and each worker keeps what its trace teaches in an overlay of its own. Oracle: the separate
# conversion of each file at -j 1 (output and messages). The pair TraceLoggingTester -> net.4.5.x86 is the
# issue's leak (an EventSource manifest of the first changed 246 events of the second when they shared a
# registry; test_registry_overlay shows that count through a shared overlay); gcevents needs deferred bundled
# CLR manifests, loaded into the shared base by whichever worker looks first.
. tests/tap_helpers.sh
set -- testdata/etwanalyzer/TraceLoggingTester.etl.gz testdata/perfview/net.4.5.x86.PerfViewData.etl.gz \
       testdata/perfview/gcevents.PerfViewData.etl.gz testdata/perfview/SelfDescribingSingleEvent.etl.gz \
       testdata/tx/BondEtwSample.etl.gz testdata/airbus-cert/AMSITrace.etl.gz \
       testdata/s4/CldFlt2-2025-12-21-121418.etl.gz
# (the last two have messages: events lost; a live session file, exit 1)
want_rc=0
for f in "$@"; do
  b=$(basename "$f" .etl.gz)
  $ETLCONV -j 1 "$f" -of xml > "$T/alone.$b.xml" 2> "$T/alone.$b.err"; rc=$?
  [ $rc -gt $want_rc ] && want_rc=$rc
  cat "$T/alone.$b.err" >> "$T/alone.err"
done
check "$(grep -c . "$T/alone.err")" 3 "the separate conversions say 3 things (the oracle of the messages)"
for j in 1 2 3; do
  ETLCONV_BATCH_RECORDS=64 $ETLCONV -j $j --each -o "$T/each$j" -of xml "$@" 2> "$T/each$j.err"
  check $? $want_rc "--each -j $j exits $want_rc, the worst of the separate conversions"
  for f in "$@"; do
    b=$(basename "$f" .etl.gz)
    cmp -s "$T/alone.$b.xml" "$T/each$j/$b.xml"; ok $? "--each -j $j: $b.xml equals its separate conversion"
  done
  cmp -s "$T/alone.err" "$T/each$j.err"; ok $? "--each -j $j: messages those of the separate conversions, in input order"
done
# the second file alone after the first, both orders, on two workers: nothing the first taught leaks
$ETLCONV -q -j 2 --each -o "$T/rev" -of xml testdata/perfview/net.4.5.x86.PerfViewData.etl.gz \
  testdata/etwanalyzer/TraceLoggingTester.etl.gz
cmp -s "$T/alone.TraceLoggingTester.xml" "$T/rev/TraceLoggingTester.xml" &&
  cmp -s "$T/alone.net.4.5.x86.PerfViewData.xml" "$T/rev/net.4.5.x86.PerfViewData.xml"
ok $? "--each -j 2 in the other order: both equal their separate conversions"
# a user manifest loaded once for the run describes what an EventSource in the trace also describes: the
# user's wins in every file and every worker, as in a separate conversion
$ETLCONV -q testdata/etwanalyzer/TraceLoggingTester.etl.gz -of csv -export "$T/tlt.man" > /dev/null
grep -q 'CSharpTraceLoggingEventSource' "$T/tlt.man"; ok $? "-export: the EventSource manifest of TraceLoggingTester as a user manifest"
$ETLCONV -q -j 1 --manifest "$T/tlt.man" testdata/etwanalyzer/TraceLoggingTester.etl.gz -of csv > "$T/man.alone.csv"
$ETLCONV -q -j 2 --manifest "$T/tlt.man" --each -o "$T/man" -of csv testdata/perfview/gcevents.PerfViewData.etl.gz \
  testdata/etwanalyzer/TraceLoggingTester.etl.gz
cmp -s "$T/man.alone.csv" "$T/man/TraceLoggingTester.csv"; ok $? "--manifest with --each -j 2: equals the separate conversion"
