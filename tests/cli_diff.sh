#!/bin/sh
# --stable and `etlconv diff` (issue 13) on the real corpus traces in testdata/. Oracles: byte comparison of
# the same conversion under other time zones/locales and a second run; `diff X X` and `diff golden(X) X`
# must be empty; a golden edited here (lines deleted, duplicated, a value changed, an event moved to another
# thread) must produce exactly those changes in text, JSON (jq) and JUnit (xmllint); the count table must
# equal counts computed by jq from each side's JSON Lines conversion.
. tests/tap_helpers.sh
BIG="TraceLoggingTester.etl.gz net.4.5.2.x86.etl.gz net.4.5.x86.PerfViewData.etl.gz"
is_big() { case " $BIG " in *" $(basename "$1") "*) return 0;; esac; return 1; }
UTF8=$(locale -a 2>/dev/null | grep -i -m1 -E '^(C|en_US)\.utf-?8$'); UTF8=${UTF8:-C.UTF-8}

# --- stable output: byte-identical under other time zones, locales, --local, and a second run ------------
# The three largest traces (80% of the corpus's events) go through the baseline writer twice; the others
# through every writer (xml + summary, csv, baseline, jsonl, tracefmt; pcapng for the one trace with packets)
# in three environments and a second run.
convert_all() {  # $1 trace, $2 output prefix, $3 extra option ("" or --local), then environment assignments
  f=$1; p=$2; x=$3; shift 3
  env "$@" $ETLCONV -q "$f" --stable $x -of baseline > "$p.txt" 2>/dev/null
  is_big "$f" && return
  env "$@" $ETLCONV -q "$f" --stable $x -of xml -summary "$p.sum" > "$p.xml" 2>/dev/null
  env "$@" $ETLCONV -q "$f" --stable $x -of csv > "$p.csv" 2>/dev/null
  env "$@" $ETLCONV -q "$f" --stable $x -of jsonl > "$p.jsonl" 2>/dev/null
  env "$@" $ETLCONV -q "$f" --stable $x -of tracefmt > "$p.tf" 2>/dev/null
  case $f in *PktMon*) env "$@" $ETLCONV -q "$f" --stable $x -of pcapng -o "$p.pcapng" 2>/dev/null;; esac
}
unstable=""; traces=0
# Under the sanitizers (make sanitize) every writer still converts every trace twice (a difference between two runs
# is what reading uninitialised memory looks like); the time zone and locale variants test no memory the second
# run does not, and the plain make check run keeps them: CI runs both at once in 30 minutes.
variants=yes
case "${SANFLAGS:-}" in *address*) variants=no ;; esac
for f in testdata/*/*.etl.gz; do
  traces=$((traces + 1))
  b=$T/$(basename "$f" .etl.gz)
  convert_all "$f" "$b.1" "" TZ=UTC LC_ALL=C
  convert_all "$f" "$b.2" "" TZ=UTC LC_ALL=C
  if [ $variants = yes ] && ! is_big "$f"; then
    convert_all "$f" "$b.3" "" TZ=Asia/Kolkata LC_ALL="$UTF8"
    convert_all "$f" "$b.4" --local TZ=America/Los_Angeles LC_ALL="$UTF8"
  fi
  for x in txt xml sum csv jsonl tf pcapng; do
    [ -e "$b.1.$x" ] || continue
    for k in 2 3 4; do
      [ -e "$b.$k.$x" ] || continue
      cmp -s "$b.1.$x" "$b.$k.$x" || unstable="$unstable $(basename "$f"):$x:$k"
    done
  done
  mv "$b.1.txt" "$b.golden"; [ -e "$b.1.jsonl" ] && mv "$b.1.jsonl" "$b.golden.jsonl"; rm -f "$b".[1234].*
done
check "$traces" 32 "32 corpus traces converted"
across="TZ=UTC/Asia/Kolkata/America/Los_Angeles, LC_ALL=C/$UTF8, --local, two runs"
[ $variants = yes ] || across="two runs (sanitizers: the time zone and locale variants run in make check)"
check "$unstable" "" "--stable output identical across $across"

# --- diff X X and diff golden(X) X: exit 0, report says "same" and nothing else ---------------------------
notsame=""
for f in testdata/*/*.etl.gz; do
  b=$T/$(basename "$f" .etl.gz)
  $ETLCONV diff -q "$b.golden" "$f" > "$b.d1" 2>/dev/null; r1=$?
  $ETLCONV diff -q "$f" "$f" > "$b.d2" 2>/dev/null; r2=$?
  [ "$(sed 1,2d "$b.d2")" = same ] || r2=x
  [ "$r1$r2" = 00 ] && [ "$(sed 1,2d "$b.d1")" = same ] || notsame="$notsame $(basename "$f")"
done
check "$notsame" "" "diff golden(X) X and diff X X exit 0 with an empty report for every corpus trace"
notsame=""; jsonl_goldens=0
for g in "$T"/*.golden.jsonl; do
  f=$(ls testdata/*/"$(basename "$g" .golden.jsonl).etl.gz"); jsonl_goldens=$((jsonl_goldens + 1))
  $ETLCONV diff -q "$g" "$f" > "$T/dj" 2>/dev/null && [ "$(sed 1,2d "$T/dj")" = same ] || notsame="$notsame $(basename "$f")"
done
check "$jsonl_goldens:$notsame" "29:" "JSON Lines baselines: diff golden.jsonl(X) X exits 0 with an empty report (29 traces)"

# --- a golden of CrossMachineHTTP edited: two lines deleted, one duplicated, a value changed, one event
# moved to another thread of its process. OLD = the edited golden, NEW = the trace, so the report must say:
# + LogFileWrite (P3 T3) and + FastSend (P4 T5) [deleted], - ConnCleanup (P2 T2) [duplicated],
# ~ LogFileWrite SiteId: 7 → 0 [changed], - RecvResp in T5 and + RecvResp in T4 [moved]; nothing else.
H=testdata/tx/CrossMachineHTTP.etl.gz
G=$T/CrossMachineHTTP.golden
awk -F'\t' -v OFS='\t' '
  NR == 176 && $6 ~ /LogFileWrite$/ { next }                  # deleted (P3 T3)
  NR == 711 && $6 ~ /FastSend$/ { next }                      # deleted (P4 T5)
  NR == 1576 && $6 ~ /LogFileWrite$/ { sub(/SiteId=0/, "SiteId=7") }   # value changed (P3 T3)
  NR == 14 && $3 == "T4" && $6 ~ /RecvResp$/ { $3 = "T5" }    # moved to T5 (same process P4)
  { print }
  NR == 3396 && $6 ~ /ConnCleanup$/ { print }                 # duplicated (P2 T2)
' "$G" > "$T/edited.txt"
check "$(($(wc -l < "$G") - $(wc -l < "$T/edited.txt")))" 1 "edited golden: 2 lines deleted, 1 duplicated"
$ETLCONV diff -q "$T/edited.txt" "$H" --color=never > "$T/e.txt" --junit "$T/e.xml"; check $? 1 "edited golden: exit 1"
grep -E '^[-+~] |^    ' "$T/e.txt" | sed 's/ @activity=A[0-9]*//; s/ \(RequestId\|Status\|ConnectionId\|Handle\|ConnectionObj\)=.*//' > "$T/e.ops"
cat > "$T/e.want" <<'X'
+ HTTP Logging Trace Task/LogFileWrite
~ HTTP Logging Trace Task/LogFileWrite
    SiteId: 7 → 0
- HTTP Request Trace Task/RecvResp
+ HTTP Request Trace Task/FastSend
+ HTTP Request Trace Task/RecvResp
- HTTP Connection Trace Task/ConnCleanup
X
check "$(sort "$T/e.ops")" "$(sort "$T/e.want")" "text report names exactly the edits"
grep -q '^@@ .* Microsoft-Windows-HttpService P4 T4 (-)$' "$T/e.txt"; ok $? "the moved event is added in its thread's stream (P4 T4)"
check "$(grep -c '^  .*[0-9]' "$T/e.txt" | awk '{print ($1 > 0)}')" 1 "hunks carry context events"
check "$(sed -n '/^Event counts/,/^@@/p' "$T/e.txt" | grep -c '^  .*([-+][0-9]*)$')" 3 "count table: the 3 event types whose counts changed"
$ETLCONV diff -q --json "$T/edited.txt" "$H" > "$T/e.json"; check $? 1 "--json: exit 1"
jq -r '.streams[].hunks[].events[] | select(.op != " ") |
       "\(.op) \(.event)" + (if .op == "~" then " " + ([.changes[] | "\(.field)=\(.old)>\(.new)"] | join(",")) else "" end)' \
   "$T/e.json" | sort > "$T/j.ops"
printf '%s\n' "+ HTTP Logging Trace Task/LogFileWrite" "~ HTTP Logging Trace Task/LogFileWrite SiteId=7>0" \
  "- HTTP Request Trace Task/RecvResp" "+ HTTP Request Trace Task/FastSend" "+ HTTP Request Trace Task/RecvResp" \
  "- HTTP Connection Trace Task/ConnCleanup" | sort > "$T/j.want"
check "$(cat "$T/j.ops")" "$(cat "$T/j.want")" "JSON report (jq) names exactly the edits"
check "$(jq '.same' "$T/e.json")" false "JSON: same is false"
check "$(jq '[.counts[] | select(.differs)] | length' "$T/e.json")" 3 "JSON: 3 counts differ"
xmllint --noout "$T/e.xml" 2>/dev/null; ok $? "JUnit report is well-formed XML (xmllint)"
check "$(xmllint --xpath 'count(//testcase)' "$T/e.xml")" "$(jq '.counts | length' "$T/e.json")" "JUnit: one test case per provider/event type"
check "$(xmllint --xpath 'count(//testcase[failure])' "$T/e.xml")" 4 "JUnit: failures for LogFileWrite, FastSend, RecvResp, ConnCleanup"
xmllint --xpath 'string(//testcase[@name="HTTP Logging Trace Task/LogFileWrite"]/failure)' "$T/e.xml" | grep -q 'SiteId: 7 → 0'
ok $? "JUnit: the failure carries the changed field"
$ETLCONV diff -q "$T/edited.txt" "$H" --counts-only > "$T/c.txt"; check $? 1 "--counts-only: exit 1"
check "$(grep -c '^@@' "$T/c.txt")" 0 "--counts-only: no hunks"
$ETLCONV diff -q "$T/edited.txt" "$H" --ignore-event 'HTTP Request Trace Task/RecvResp' \
  --ignore-event '*:HTTP Logging Trace Task/LogFileWrite' --ignore-event 'HTTP Request Trace Task/FastSend' \
  --ignore-event 'Microsoft-Windows-HttpService:HTTP Connection Trace Task/ConnCleanup' > /dev/null; check $? 0 "--ignore-event of the edited types: same"
$ETLCONV diff -q "$T/edited.txt" "$H" --color=always | grep -q "$(printf '\033\\[31m- ')"; ok $? "--color=always: deleted lines in red"

# --- count table against counts computed by jq from each side's JSON Lines --------------------------------
for pair in "testdata/s4/CldFlt0-2025-12-21-121418.etl.gz testdata/s4/CldFlt1-2025-12-21-121418.etl.gz" \
            "testdata/perfview/net.4.5.x86.PerfViewData.etl.gz testdata/perfview/net.4.5.2.x86.etl.gz"; do
  set -- $pair
  $ETLCONV -q "$1" -of jsonl | jq -r '[.provider, .event] | @tsv' > "$T/a.tsv"
  $ETLCONV -q "$2" -of jsonl | jq -r '[.provider, .event] | @tsv' > "$T/b.tsv"
  awk -F'\t' 'FNR == 1 { side++ } { k = $1 "\t" $2; c[k, side]++; keys[k] = 1 }
              END { for (k in keys) print k "\t" c[k, 1] + 0 "\t" c[k, 2] + 0 }' "$T/a.tsv" "$T/b.tsv" | sort > "$T/want.tsv"
  $ETLCONV diff -q --json --counts-only "$1" "$2" | jq -r '.counts[] | [.provider, .event, .old, .new] | @tsv' | sort > "$T/got.tsv"
  check "$(cmp -s "$T/want.tsv" "$T/got.tsv" && echo same)" same "count table of $(basename "$1") vs $(basename "$2") equals jq's counts ($(wc -l < "$T/want.tsv") types)"
done

# --- masking: .NET runtime events of two recordings in different processes (gcevents vs gcrundownevents) ---
P=testdata/perfview
$ETLCONV diff -q --json $P/gcevents.PerfViewData.etl.gz $P/gcrundownevents.PerfViewData.clrRundown.etl.gz > "$T/m.json"
check "$(jq '[.streams[].hunks[].events[] | select(.op == " ")] | length > 0' "$T/m.json")" true "the two recordings share aligned events"
check "$(jq '[.streams[].hunks[].events[] | select(.op == "~") | .changes[] |
              select((.field | test("^(time|ProcessId|ThreadId|TThreadId|ParentId)$")) or
                     ((.old // "") | test("^(P|T|A)[0-9]+$|^0x[0-9A-F]{9,}$")))] | length' "$T/m.json")" 0 \
      "no pid/tid/activity/time/64-bit pointer value among the changed fields"
for f in CldFlt0 CldFlt1; do $ETLCONV -q testdata/s4/$f-2025-12-21-121418.etl.gz --stable | grep 'EventTrace/' > "$T/$f.h"; done
cmp -s "$T/CldFlt0.h" "$T/CldFlt1.h"; ok $? "two recordings of CldFltLog: identical stable header lines (volatile header facts left out)"
$ETLCONV diff -q testdata/s4/CldFlt0-2025-12-21-121418.etl.gz testdata/s4/CldFlt1-2025-12-21-121418.etl.gz | grep -q 'EventTrace'
check $? 1 "CldFlt0 vs CldFlt1: no header difference reported"

# --- usage errors: exit 2 ---------------------------------------------------------------------------------
$ETLCONV diff "$G" 2>/dev/null; check $? 2 "diff with one side: exit 2"
$ETLCONV diff "$G" "$T/missing.etl" 2>/dev/null; check $? 2 "diff with an unreadable side: exit 2"
$ETLCONV diff "$G" "$H" --by nothing 2>/dev/null; check $? 2 "bad --by: exit 2"
printf '# etlconv baseline 1: --stable\nnot a line\n' > "$T/bad.txt"
$ETLCONV diff "$T/bad.txt" "$H" 2> "$T/err"; check $? 2 "malformed baseline: exit 2"
grep -q 'bad.txt: line 2:' "$T/err"; ok $? "malformed baseline: the message names file and line"
$ETLCONV $H --stable --mask 'a:b' 2>/dev/null; check $? 2 "bad --mask: exit 2"
