#!/bin/sh
# Activity correlation. Oracle: an independent grouping of the JSON Lines output by activity_id (python3, from
# the JSON members only) on the corpus trace with activity ids (tx/CrossMachineHTTP: HTTP.sys connections and
# requests linked by RelatedActivityId).
. tests/tap_helpers.sh
TR=testdata/tx/CrossMachineHTTP.etl.gz
$ETLCONV -q "$TR" -of json > "$T/all.jsonl"
$ETLCONV -q "$TR" -of activities > "$T/act.tsv"; check "$?" 0 "-of activities: exit 0"
python3 - "$T/all.jsonl" > "$T/oracle.tsv" <<'PY'
import json, sys
from datetime import datetime, timezone
ZERO = "{00000000-0000-0000-0000-000000000000}"
def ticks(t):  # "2011-02-05T02:03:59.4624301Z" -> 100 ns units
    whole, frac = t.rstrip("Z").split(".")
    dt = datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    return int(dt.timestamp()) * 10**7 + int(frac.ljust(7, "0"))
acts = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    a = e["activity_id"]
    if a == ZERO:
        continue
    g = acts.setdefault(a, {"first": e["time"], "n": 0, "parent": "", "prov": [], "msg": e.get("message") or e["event"]})
    g["last"] = e["time"]; g["n"] += 1
    if not g["parent"] and e["related_activity_id"] not in (None, ZERO):
        g["parent"] = e["related_activity_id"]
    if e["provider"] not in g["prov"]:
        g["prov"].append(e["provider"])
print("activity_id\tfirst\tlast\tduration_s\tevents\tparent\tproviders\tfirst_message")
for a, g in acts.items():
    d = ticks(g["last"]) - ticks(g["first"])
    print("\t".join([a, g["first"], g["last"], "%d.%07d" % (d // 10**7, d % 10**7), str(g["n"]), g["parent"],
                     ",".join(g["prov"]), g["msg"]]))
PY
check "$(($(wc -l < "$T/oracle.tsv") - 1))" 500 "the trace has 500 activities (oracle)"
cmp -s "$T/oracle.tsv" "$T/act.tsv"; ok $? "activities equal the python grouping of the JSON Lines (id, first, last, duration, events, parent, providers, first message)"
diff "$T/oracle.tsv" "$T/act.tsv" | head -5

# --activity ID: the events of the activity and of the activities linked to it, either way, in one step.
CONN='{00000100-0000-0002-464d-42fb30bbcb01}'
$ETLCONV -q "$TR" -of json --activity "$CONN" > "$T/sel.jsonl"; check "$?" 0 "--activity: exit 0"
python3 - "$T/all.jsonl" "$CONN" > "$T/sel_oracle.jsonl" <<'PY'
import json, sys
root = sys.argv[2]
events = [json.loads(l) for l in open(sys.argv[1])]
linked = {root}
for e in events:
    r = e["related_activity_id"]
    if r and e["activity_id"] == root: linked.add(r)
    if r == root: linked.add(e["activity_id"])
for line in open(sys.argv[1]):
    if json.loads(line)["activity_id"] in linked:
        sys.stdout.write(line)
PY
check "$(wc -l < "$T/sel.jsonl")" "$(wc -l < "$T/sel_oracle.jsonl")" "--activity: as many events as the python selection"
cmp -s "$T/sel.jsonl" "$T/sel_oracle.jsonl"; ok $? "--activity: the same events (connection + its requests, both link directions)"
REQ='{80000748-0000-ff00-b63f-84710c7967bb}'
check "$($ETLCONV -q "$TR" -of json --activity "$REQ" | jq -r .activity_id | sort -u | tr '\n' ' ')" "$CONN $REQ " \
    "--activity REQUEST: the request and the connection that names it"
$ETLCONV -q "$TR" --activity nonsense > /dev/null 2>&1; check "$?" 2 "--activity with a bad GUID: exit 2"

# --group activity: the events of each activity together (first activity first), same events as without it.
$ETLCONV -q "$TR" -of json --group activity > "$T/grouped.jsonl"; check "$?" 0 "--group activity: exit 0"
check "$(sort "$T/grouped.jsonl" | md5sum)" "$(sort "$T/all.jsonl" | md5sum)" "--group activity: the same lines"
python3 - "$T/grouped.jsonl" "$T/all.jsonl" <<'PY' > "$T/runs.txt"
import json, sys
ids = [json.loads(l)["activity_id"] for l in open(sys.argv[1])]
runs = [a for i, a in enumerate(ids) if i == 0 or ids[i - 1] != a]
first_seen = list(dict.fromkeys(json.loads(l)["activity_id"] for l in open(sys.argv[2])))
print(len(runs), len(set(ids)), runs == first_seen)
PY
check "$(cat "$T/runs.txt")" "501 501 True" "--group activity: each activity (and the no-activity group) is one run, in order of first event"
$ETLCONV -q "$TR" -of xml --group activity > "$T/grouped.xml"
xmllint --noout "$T/grouped.xml"; ok $? "--group activity with XML: well-formed (header and footer kept in place)"
check "$(grep -c '<Event xmlns' "$T/grouped.xml")" 3397 "... all 3397 events"
check "$(grep -o '<Correlation ActivityID="[^"]*"' "$T/grouped.xml" | uniq | wc -l)" 501 "... one run of events per activity"
$ETLCONV -q "$TR" -of table --group activity | grep -c '^# activity' > "$T/heads.txt"
check "$(cat "$T/heads.txt")" 501 "--group activity in the table: one heading line per activity"
$ETLCONV -q "$TR" --group process > /dev/null 2>&1; check "$?" 2 "--group other than activity: exit 2"
