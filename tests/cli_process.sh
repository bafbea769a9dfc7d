#!/bin/sh
# Process names need the first pass: WPR logs the process rundown at the end of the trace. Oracle:
# EXPECTED.md §5.1 — the 70 CSharpTraceLoggingEventSource events of TraceLoggingTester.etl are written by the
# generator program itself (ETWAnalyzer Samples/TraceLoggingTester/Program.cs: Main calls TestSource.Log.*
# between "wpr -start" and "wpr -stop"; TraceLoggingTester.csproj builds the executable TraceLoggingTester,
# win-x64), so all 70 come from one process named TraceLoggingTester (image name without ".exe").
. tests/tap_helpers.sh
L=testdata/etwanalyzer/TraceLoggingTester.etl.gz

$ETLCONV -q "$L" --provider CSharpTraceLoggingEventSource -of json > "$T/two.json"; check $? 0 "converts"
check "$(wc -l < "$T/two.json" | tr -d ' ')" 70 "70 CSharpTraceLoggingEventSource events"
check "$(grep -c '"process":"TraceLoggingTester"' "$T/two.json")" 70 "every one named TraceLoggingTester"
check "$(grep -o '"pid":[0-9]*' "$T/two.json" | sort -u | wc -l | tr -d ' ')" 1 "... all from one process"

# Without the first pass the rundown comes too late: the test above can fail.
$ETLCONV -q --one-pass "$L" --provider CSharpTraceLoggingEventSource -of json > "$T/one.json"; check $? 0 "--one-pass converts"
check "$(grep -c '"process":null' "$T/one.json")" 70 "--one-pass: the 70 events have no process name yet"
