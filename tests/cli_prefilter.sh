#!/bin/sh
# Filters run before an event's fields are decoded (issue 14: etl_decode_begin, then etl_decode_complete for the
# events kept and etl_decode_skip for the others). The events kept must be exactly those of filtering after
# decoding. Oracle: tests/filter_oracle.py, the filter semantics of the man page written again in Python over
# the unfiltered JSON Lines of the same trace; its output must equal etlconv's filtered JSON Lines byte for byte.
# Each filter kind (relative and absolute --from/--to, --pid, --tid, --event, --level, --keywords, --provider by
# name in another case, and combinations) on kernel, CLR, TraceLogging, manifest and packet traces; the values
# are taken from each trace (its busiest processes, threads, ids, providers; times at 30 % and 70 % of it).
. tests/tap_helpers.sh
PY=/usr/bin/python3
ORACLE="$PY tests/filter_oracle.py"

# the trace's most frequent values of a JSON member: $1 member, $2 how many, joined by ","
top() { $PY -c '
import collections, json, sys
c = collections.Counter(json.loads(l)[sys.argv[1]] for l in open(sys.argv[3]))
print(",".join(str(v) for v, _ in c.most_common(int(sys.argv[2]))))' "$1" "$2" "$T/all.jsonl"; }
# time of the event at a fraction of the trace (ISO), and the same as seconds from the trace start
at() { $PY -c '
import json, sys
lines = open(sys.argv[2]).readlines()
print(json.loads(lines[int(len(lines) * float(sys.argv[1]))])["time"])' "$1" "$T/all.jsonl"; }
seconds() { $PY -c '
import sys
sys.path.insert(0, "tests")
from filter_oracle import ticks
print("%.7f" % ((ticks(sys.argv[1]) - ticks(sys.argv[2])) / 1e7))' "$1" "$START"; }
# a keyword bit that some but not all events have
some_bit() { $PY -c '
import json, sys
kws = [int(json.loads(l)["keywords"]) for l in open(sys.argv[1])]
for b in list(range(48)) + list(range(56, 64)):
    n = sum(1 for k in kws if k >> b & 1)
    if 0 < n < len(kws):
        print(hex(1 << b)); break' "$T/all.jsonl"; }

compare() {  # $1 trace, $2 label, then the filter options
  f=$1; label=$2; shift 2
  $ETLCONV -q -of jsonl "$@" "$f" > "$T/kept.jsonl" 2>/dev/null
  $ORACLE "$START" "$@" < "$T/all.jsonl" > "$T/want.jsonl"
  kept=$(wc -l < "$T/want.jsonl" | tr -d ' ')
  if cmp -s "$T/kept.jsonl" "$T/want.jsonl"; then r=same; else r="differs ($(wc -l < "$T/kept.jsonl" | tr -d ' ') lines)"; fi
  check "$r" same "$(basename "$f") $label ($*): the $kept events the oracle keeps"
  total_kept=$((total_kept + kept))
}

total_kept=0
for f in testdata/tx/Process.etl.gz testdata/airbus-cert/ShutdownPerfDiagLogger.etl.gz \
         testdata/demikernel/PktMon.etl.gz testdata/airbus-cert/AMSITrace.etl.gz \
         testdata/perfview/net.4.5.x86.PerfViewData.etl.gz testdata/etwanalyzer/TraceLoggingTester.etl.gz; do
  $ETLCONV -q -of jsonl "$f" > "$T/all.jsonl"
  START=$($ETLCONV --info "$f" | awk '$1 == "StartTime" { print $2 }')
  A=$(at 0.3); B=$(at 0.7)
  P=$(top provider 2 | tr ',' '\n' | head -1 | tr 'a-z' 'A-Z')
  case $f in
  *net.4.5.x86*|*TraceLoggingTester*)  # the large ones: one of each kind of filter
    compare "$f" "time window, ids" --from "$(seconds "$A")" --to "$B" --event "$(top id 3)"
    compare "$f" "provider, pid, level" --provider "$P" --pid "$(top pid 2)" --level 4
    ;;
  *)
    compare "$f" "relative window" --from "$(seconds "$A")" --to "$(seconds "$B")"
    compare "$f" "absolute window" --from "$A" --to "$B"
    compare "$f" "pid" --pid "$(top pid 2)"
    compare "$f" "tid" --tid "$(top tid 1)"
    compare "$f" "event ids" --event "$(top id 3)"
    compare "$f" "level" --level 3
    K=$(some_bit); [ -n "$K" ] && compare "$f" "keywords" --keywords "$K"
    compare "$f" "provider" --provider "$P"
    compare "$f" "combined" --provider "$P" --level 4 --to "$B" --event "$(top id 5)"
    ;;
  esac
done
# the checks above cannot pass by keeping nothing
[ "$total_kept" -gt 10000 ]; ok $? "the filters kept $total_kept events in all (more than 10000)"
