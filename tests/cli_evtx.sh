#!/bin/sh
# EVTX output (-of EVTX) checked by readers nobody here wrote: libevtx's evtxinfo/evtxexport and
# python-evtx, with tests/evtx_compare.py (CRC32s recomputed with zlib on every chunk; per record provider,
# ids, level, task, opcode, keywords, time to 100 ns, pid/tid and payload values against etlconv's own XML
# of the same trace; its docstring lists the normalisation).
#
# Every corpus trace: EVTX structure and CRCs, evtxinfo without error and with the XML's record count.
# Record by record, both readers on every record of every trace up to 20000 events (python-evtx through its
# parsing API: see FastRecords in tests/evtx_compare.py); on the five larger traces (168,000-186,000 events)
# python-evtx reads every 64th chunk here, and `make check-evtx-full` (tests/evtx_corpus_full.sh, ~10 min)
# reads every record of them with both readers. make sanitize checks less with the readers (see large_check below).
. tests/tap_helpers.sh
# the bundled manifests: UserData layouts (events whose template has one are written as UserData)
COMPARE="/usr/bin/python3 tests/evtx_compare.py $(for m in src/schema/bundled/*.man src/schema/bundled/*.manifest; do printf -- '--manifest %s ' "$m"; done)"
CORPUS=../shared/corpus
[ -d "$CORPUS" ] || CORPUS=testdata

count_events() { grep -c '^<Event xmlns=' "$1"; }
# Under the sanitizers (make sanitize) the subject is etlconv's memory safety while it writes every trace's EVTX,
# which runs in full, with evtxinfo's count; there the five large traces get the structure and CRC check against
# that count only (--records), not the record-by-record comparison, whose reading of etlconv's XML (ElementTree,
# 36 s a trace) tests nothing the plain make check run does not: CI runs both at once in 30 minutes.
# The smaller traces keep libevtx on every record there, and python-evtx reads their first and last chunk.
large_check=full py_small=all
case "${SANFLAGS:-}" in *address*) large_check=structure py_small=edges ;; esac

for f in $(find "$CORPUS" -name '*.etl.gz' | sort) "$CORPUS/etwanalyzer/empty.etl"; do
  [ -f "$f" ] || continue
  b=$(basename "$f" .etl.gz)
  # one pass writes the EVTX and the summary (its event total is what the EVTX must hold)
  $ETLCONV -q "$f" -of EVTX -o "$T/$b.evtx" -summary "$T/$b.sum" 2>"$T/$b.err"
  rc=$?
  if [ ! -s "$T/$b.sum" ]; then  # unreadable input (the 0-byte file): fails as XML does, writes nothing
    $ETLCONV -q "$f" -o "$T/$b.xml" 2>/dev/null
    check "$rc:$(test -e "$T/$b.evtx"; echo $?)" "$?:1" "$b: EVTX fails like XML (exit $rc), no file left"
    continue
  fi
  ne=$(sed -n 's/^Total Events  Processed //p' "$T/$b.sum")
  evtxinfo "$T/$b.evtx" > "$T/$b.info" 2> "$T/$b.infoerr"
  check "$?:$(wc -c < "$T/$b.infoerr")" "0:0" "$b: evtxinfo reports no error"
  check "$(sed -n 's/^[[:space:]]*Number of records[[:space:]]*: //p' "$T/$b.info")" "$ne" "$b: evtxinfo counts $ne records"
  $ETLCONV -q "$f" -o "$T/$b.xml" 2>/dev/null
  check "$rc" "$?" "$b: EVTX exit status as XML's"
  # System/Computer: the machine the kernel's SystemConfig CPU rundown names (the XML's ComputerName), or empty
  pc=$(sed -n 's/.*<Data Name="ComputerName">\([^<]*\)<.*/\1/p' "$T/$b.xml" | head -1)
  compared=records
  if [ "$ne" -gt 20000 ] && [ $large_check = structure ]; then
    compared=structure
    $COMPARE "$T/$b.xml" "$T/$b.evtx" --records "$ne" > "$T/$b.cmp" 2>&1
    ok $? "$b: CRCs and structure of every chunk, $ne records (sanitizers: the records are compared in make check)"
  elif [ "$ne" -gt 20000 ]; then
    $COMPARE "$T/$b.xml" "$T/$b.evtx" --python every:64 --libevtx no --computer "$pc" > "$T/$b.cmp" 2>&1
    ok $? "$b: CRCs and structure of every chunk; python-evtx's records of every 64th chunk equal etlconv's XML (Computer '$pc')"
  else
    $COMPARE "$T/$b.xml" "$T/$b.evtx" --python $py_small --computer "$pc" > "$T/$b.cmp" 2>&1
    ok $? "$b: CRCs and structure; every record read by libevtx, and python-evtx's ($py_small), equals etlconv's XML (Computer '$pc')"
  fi
  grep -q 'errors=0' "$T/$b.cmp" || sed 's/^/# /' "$T/$b.cmp" | head -8
  if { [ "$b" = gcevents.PerfViewData ] || [ "$b" = diaghub.user_paged.1 ]; } && [ $compared = records ]; then
    # CLR events whose ClrEtwAll template has a <UserData> layout: written as UserData, as many as the
    # manifests give for the XML's events (evtx_compare.py counts them with ElementTree)
    ud=$(sed -n 's/.* userdata-[a-z-]*=\([0-9]*\).*/\1/p' "$T/$b.cmp")
    want=$(sed -n 's/.* userdata-manifests=\([0-9]*\).*/\1/p' "$T/$b.cmp")
    test "${ud:-0}" -gt 0 && test "$ud" = "$want"
    ok $? "$b: ${ud:-no} records written as UserData (the manifests give ${want:-none}), each element holding the value its %N names"
  fi
  rm -f "$T/$b.xml" "$T/$b.evtx"
done

P=testdata/perfview/primitive-types.etl.gz
K=testdata/tx/KernelNetwork.etl.gz
[ -f "$K" ] || K=$CORPUS/tx/KernelNetwork.etl.gz

# --- outputs: file, stdout to a file, stdout to a pipe (spooled), gzip, protection, --each ------------------
$ETLCONV -q $P -of evtx -o "$T/p.evtx"; check $? 0 "-of evtx -o FILE"
$ETLCONV -q $P -o "$T/p2.evtx"; cmp -s "$T/p.evtx" "$T/p2.evtx"; ok $? "-o FILE.evtx picks EVTX"
$ETLCONV -q $P -of EVTX > "$T/p3.evtx"; cmp -s "$T/p.evtx" "$T/p3.evtx"; ok $? "stdout redirected to a file: same bytes"
$ETLCONV -q $P -of EVTX | cat > "$T/p4.evtx"; cmp -s "$T/p.evtx" "$T/p4.evtx"; ok $? "stdout to a pipe (spooled): same bytes"
$ETLCONV -q $P -of EVTX -o "$T/p5.evtx.gz"; gzip -dc "$T/p5.evtx.gz" | cmp -s "$T/p.evtx" -; ok $? ".evtx.gz: same bytes compressed"
echo precious > "$T/keep.evtx"
$ETLCONV -q $P -o "$T/keep.evtx" 2>/dev/null; check $? 2 "refuses to overwrite without -y"
check "$(cat "$T/keep.evtx")" precious "existing file untouched"
$ETLCONV -q $P -o "$T/keep.evtx" -y; cmp -s "$T/p.evtx" "$T/keep.evtx"; ok $? "-y overwrites"
mkdir "$T/each"
$ETLCONV -q $P $K --each -of evtx -o "$T/each/"; check $? 0 "--each -of evtx"
check "$(ls "$T/each" | tr '\n' ' ')" "KernelNetwork.evtx primitive-types.evtx " "--each writes NAME.evtx per input"
cmp -s "$T/p.evtx" "$T/each/primitive-types.evtx"; ok $? "--each output equals the single conversion"
check "$(ls -A "$T" | grep -c '^\.')" 0 "no temporary files left"
$ETLCONV -q $P -of evtx -o "$T/det.evtx"; cmp -s "$T/p.evtx" "$T/det.evtx"; ok $? "deterministic: two runs, same bytes"

# --- merge and filters: same events as the XML of the same command ----------------------------------------
$ETLCONV -q $P $K -o "$T/m.xml"; $ETLCONV -q $P $K -of evtx -o "$T/m.evtx"
$COMPARE "$T/m.xml" "$T/m.evtx" --python none --libevtx yes > "$T/m.cmp" 2>&1; ok $? "two inputs merged in time order: records equal the XML ($(cat "$T/m.cmp" | head -1))"
$ETLCONV -q $K --event 10,11 --pid 4 -o "$T/f.xml"; $ETLCONV -q $K --event 10,11 --pid 4 -of evtx -o "$T/f.evtx"
$COMPARE "$T/f.xml" "$T/f.evtx" --python edges > "$T/f.cmp" 2>&1; ok $? "filters: records equal the filtered XML ($(head -1 "$T/f.cmp"))"

# --- damaged input: a valid EVTX of what could be read --------------------------------------------------
gzip -dc "$K" > "$T/k.etl"
head -c 500000 "$T/k.etl" > "$T/trunc.etl"
$ETLCONV -q "$T/trunc.etl" -o "$T/trunc.xml" 2>/dev/null; $ETLCONV -q "$T/trunc.etl" -of evtx -o "$T/trunc.evtx" 2>/dev/null
test -s "$T/trunc.evtx"; ok $? "truncated input: EVTX written"
$COMPARE "$T/trunc.xml" "$T/trunc.evtx" --python edges > "$T/t.cmp" 2>&1; ok $? "truncated input: valid EVTX with every event read ($(head -1 "$T/t.cmp"))"
cp "$T/k.etl" "$T/bad.etl"
for off in 245832 491592 737352; do  # 0xFF over the first record header of three 8 KiB buffers
  printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' |
    dd of="$T/bad.etl" bs=1 seek=$off conv=notrunc 2>/dev/null
done
$ETLCONV -q "$T/bad.etl" -o "$T/bad.xml" 2>/dev/null; $ETLCONV -q "$T/bad.etl" -of evtx -o "$T/bad.evtx" 2>/dev/null
$COMPARE "$T/bad.xml" "$T/bad.evtx" --python edges > "$T/b.cmp" 2>&1; ok $? "corrupted input: valid EVTX with every event read ($(head -1 "$T/b.cmp"))"
test "$(grep -c '^<Event xmlns=' "$T/bad.xml")" -lt 8924; ok $? "... and the damage did cost events (fewer than the 8924 of the intact trace)"

# --- the comparer itself must catch a wrong file ---------------------------------------------------------
cp "$T/p.evtx" "$T/flip.evtx"
printf 'X' | dd of="$T/flip.evtx" bs=1 seek=5000 conv=notrunc 2>/dev/null
$ETLCONV -q $P -o "$T/p.xml"
$COMPARE "$T/p.xml" "$T/flip.evtx" --python none --libevtx no > "$T/flip.cmp" 2>&1; check $? 1 "a flipped byte fails the CRC check"
grep -q "event records CRC32" "$T/flip.cmp"; ok $? "... and names the chunk's event records CRC32"
# one pid and one payload value changed in the reference XML: both readers must report both records
sed -e '0,/ProcessID="/s/ProcessID="/ProcessID="7/' -e '0,/<Data Name="[^"]*">[0-9]/s/\(<Data Name="[^"]*">\)\([0-9]\)/\11\2/' \
  "$T/p.xml" > "$T/p_wrong.xml"
$COMPARE "$T/p_wrong.xml" "$T/p.evtx" --python all > "$T/wrong.cmp" 2>&1; check $? 1 "a wrong pid and value in the XML fail the comparison"
check "$(grep -c -e 'libevtx record 1: pid' -e 'python-evtx record 1: pid' "$T/wrong.cmp"):$(grep -c 'record [0-9]*: [A-Za-z]* ' "$T/wrong.cmp")" "2:4" \
  "... named by libevtx and by python-evtx's parsing path, for the pid and the value"
$COMPARE "$T/p.xml" "$T/p.evtx" --python all --computer HOST > "$T/host.cmp" 2>&1; check $? 1 "a Computer the file does not carry fails"

# --- WPP messages decoded with their TMF: DebugData filled in, as in the XML ------------------------------
W=$CORPUS/findneedle/wppemitter-sample.etl.gz
if [ -f "$W" ]; then
  $ETLCONV -q "$W" -tp "$CORPUS/findneedle/tmf" -o "$T/w.xml"; $ETLCONV -q "$W" -tp "$CORPUS/findneedle/tmf" -of evtx -o "$T/w.evtx"
  $COMPARE "$T/w.xml" "$T/w.evtx" > "$T/w.cmp" 2>&1; ok $? "WPP with TMF: DebugData (flags, level, component, function, message) as in the XML ($(head -1 "$T/w.cmp"))"
  test "$(grep -c '<FileLine>[A-Za-z]' "$T/w.xml")" -gt 40; ok $? "... the messages were decoded (FileLine filled)"
fi

# --- --stable (trace diffing): the stable view, byte-identical across time zones and locales -------------
$ETLCONV -q $K --stable -o "$T/s.xml"; $ETLCONV -q $K --stable -of evtx -o "$T/s1.evtx"
TZ=Asia/Kolkata LC_ALL=C $ETLCONV -q $K --stable -of evtx -o "$T/s2.evtx"
cmp -s "$T/s1.evtx" "$T/s2.evtx"; ok $? "--stable: same bytes in another time zone and locale"
$COMPARE "$T/s.xml" "$T/s1.evtx" --python edges > "$T/s.cmp" 2>&1; ok $? "--stable: records equal the stable XML (relative times, P/T ordinals) ($(head -1 "$T/s.cmp"))"
$ETLCONV -q $P --stable --mask time -of evtx -o "$T/nt.evtx"
evtxexport -f xml "$T/nt.evtx" 2>/dev/null | grep -c '<TimeCreated/>' > "$T/nt"; check "$(cat "$T/nt")" 7 "--mask time: TimeCreated without a time in all 7 records"
