#!/bin/sh
# The long EVTX check (not part of make check; minutes to hours): every corpus trace converted to XML and
# EVTX, then every record compared by tests/evtx_compare.py with libevtx's evtxexport, and with python-evtx
# on every record of traces up to PY_MAX events (default 20000; python-evtx reads ~100 records/s, so the
# 170000-event traces would take hours: set PY_MAX=1000000 for them too). One line per trace.
# usage: sh tests/evtx_corpus_full.sh [CORPUS_DIR]   (ETLCONV, PY_MAX from the environment)
ETLCONV=${ETLCONV:-build/etlconv}
CORPUS=${1:-../shared/corpus}
PY_MAX=${PY_MAX:-20000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
status=0
for f in $(find "$CORPUS" -name '*.etl.gz' | sort); do
  b=$(basename "$f" .etl.gz)
  $ETLCONV -q "$f" -o "$T/x.xml" 2>/dev/null
  $ETLCONV -q "$f" -of evtx -o "$T/x.evtx" 2>/dev/null
  n=$(grep -c '^<Event xmlns=' "$T/x.xml")
  py=all; [ "$n" -gt "$PY_MAX" ] && py=edges
  start=$(date +%s)
  line=$(/usr/bin/python3 tests/evtx_compare.py "$T/x.xml" "$T/x.evtx" --python $py 2>"$T/err") || status=1
  echo "$b: $line python=$py $(($(date +%s) - start)) s"
  sed 's/^/    /' "$T/err" | head -5
  rm -f "$T/x.xml" "$T/x.evtx"
done
exit $status
