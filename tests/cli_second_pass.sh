#!/bin/sh
# The first pass (process names from rundowns logged at the end of a trace) is cheap now (issue 14: it looks at
# each record's header and decodes only process and thread events): it must still name every process as before.
# Oracle: tests/process_oracle.py, which works out from each trace's own process events (start/end/rundown, in
# its JSON Lines) the name that events of a process must carry, where those events settle it alone. --one-pass
# must get TraceLoggingTester's names wrong (its rundown comes at the end), so the check depends on the pass.
. tests/tap_helpers.sh
for f in testdata/etwanalyzer/TraceLoggingTester.etl.gz testdata/tx/Process.etl.gz \
         testdata/perfview/net.4.5.x86.PerfViewData.etl.gz; do
  for j in 1 2; do
    r=$($ETLCONV -q -j $j -of jsonl "$f" | /usr/bin/python3 tests/process_oracle.py)
    set -- $r
    [ "$1" -gt 3000 ] && [ "$2" = 0 ]
    ok $? "$(basename "$f") -j $j: every one of the $1 events whose process the trace settles is named right ($r)"
  done
done
r=$($ETLCONV -q --one-pass -of jsonl testdata/etwanalyzer/TraceLoggingTester.etl.gz | /usr/bin/python3 tests/process_oracle.py | sed -n 1p)
set -- $r
[ "$2" -gt 40000 ]; ok $? "--one-pass: TraceLoggingTester's rundown comes too late for $2 of those events"
