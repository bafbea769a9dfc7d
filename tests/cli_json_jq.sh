#!/bin/sh
# JSON Lines of every corpus trace is read by jq (a JSON reader nobody here wrote): every line one object with
# the layout version, as many objects as lines; the WPP traces of ../shared/corpus/findneedle with their TMF
# files (messages, WPP members) and --json-bigint string as well. The writer's string escaping and cached
# member keys (formats/json_value.c) are on this path; tests/test_json_escape.c holds them to the former
# escaper byte for byte.
. tests/tap_helpers.sh
jq_reads() { # label, etlconv arguments...
  label=$1; shift
  $ETLCONV -q -j 1 -of json "$@" -o - > "$T/out.jsonl" 2>/dev/null
  lines=$(wc -l < "$T/out.jsonl")
  objects=$(jq -r 'select(type == "object" and .schema == 1) | 1' "$T/out.jsonl" 2>"$T/jq.err" | wc -l)
  if [ "$lines" -gt 0 ] && [ "$objects" = "$lines" ] && [ ! -s "$T/jq.err" ]; then
    ok 0 "jq reads $label ($lines lines)"
  else
    ok 1 "jq reads $label: $objects objects of $lines lines; $(head -c 200 "$T/jq.err")"
  fi
}
for f in testdata/*/*.etl.gz; do jq_reads "$f" "$f"; done
jq_reads "net.4.5.x86 --json-bigint string" --json-bigint string testdata/perfview/net.4.5.x86.PerfViewData.etl.gz
W=../shared/corpus/findneedle
if [ -d "$W" ]; then
  for f in $W/*.etl.gz; do jq_reads "$f with TMF" -tp $W/tmf "$f"; done
fi
# The check can fail: a line with a raw control character in a string is not JSON.
printf '{"schema":1,"message":"a\tb"}\n' > "$T/bad.jsonl"
objects=$(jq -r 'select(.schema == 1) | 1' "$T/bad.jsonl" 2>/dev/null | wc -l)
check "$objects" 0 "jq rejects a string with a raw control character"
