#!/bin/sh
# make check-evtx-full: every record of every corpus trace read back by both outside readers (libevtx's
# evtxexport and python-evtx, through tests/evtx_compare.py --python all) and compared with etlconv's XML of
# the same trace. make check does the same for every trace up to 20000 events and samples every 64th chunk
# of the larger ones with python-evtx; this covers the five large traces (530,000 records) too: ~10 minutes
# on two cores (python-evtx decodes ~1,000-2,000 records/s, evtxexport ~3,500 runs beside it). TAP lines.
# usage: sh tests/evtx_corpus_full.sh [CORPUS_DIR]   (ETLCONV from the environment)
. tests/tap_helpers.sh
CORPUS=${1:-../shared/corpus}
for f in $(find "$CORPUS" -name '*.etl.gz' | sort); do
  b=$(basename "$f" .etl.gz)
  $ETLCONV -q "$f" -o "$T/x.xml" 2>/dev/null
  $ETLCONV "$f" -of evtx -o "$T/x.evtx" 2>"$T/conv.err"
  # events too large for one 64 KiB chunk are written as BinaryEventData; etlconv says how many
  short=$(tr '\r' '\n' < "$T/conv.err" | sed -n 's/.*EVTX: \([0-9]*\) event(s) too large.*/\1/p' | head -1)
  pc=$(sed -n 's/.*<Data Name="ComputerName">\([^<]*\)<.*/\1/p' "$T/x.xml" | head -1)
  start=$(date +%s)
  line=$(/usr/bin/python3 tests/evtx_compare.py "$T/x.xml" "$T/x.evtx" --python all --computer "$pc" --shortened "${short:-0}" \
         $(for m in src/schema/bundled/*.man src/schema/bundled/*.manifest; do printf -- '--manifest %s ' "$m"; done) 2>"$T/err")
  ok $? "$b: $line ($(($(date +%s) - start)) s)"
  sed 's/^/# /' "$T/err" | head -5
  rm -f "$T/x.xml" "$T/x.evtx"
done
