#!/bin/sh
# `make install PREFIX=... DESTDIR=...`: binary, library, headers, libetl.pc, man page and bundled schemas land
# where they should, the installed etlconv finds its bundled manifest without a rebuild, and a program built
# from the installed headers with `pkg-config --libs libetl` links and reads a trace.
n=0
ok() { n=$((n+1)); echo "ok $n - $1"; }
no() { n=$((n+1)); echo "not ok $n - $1"; }
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
prefix=/opt/etlconv-test
if make -s install PREFIX=$prefix DESTDIR="$dest" BUILD="${BUILD:-build}" >/dev/null 2>&1; then ok "make install"; else no "make install"; exit 0; fi
root=$dest$prefix
for f in bin/etlconv lib/libetl.a include/etl/etl.h include/etl/etl_schema.h include/etl/etl_writer.h \
         lib/pkgconfig/libetl.pc share/man/man1/etlconv.1 share/etlconv/schemas/ClrEtwAll.man \
         share/etlconv/schemas/ClrEtwRuntimeAdditions.man share/etlconv/schemas/ClrEtwRuntimeAdditions.NOTICE \
         share/etlconv/schemas-compiled/ClrEtwAll.man.etlc; do
  [ -f "$root/$f" ] && ok "installed $f" || no "installed $f"
done
# The bundled .NET manifests are found relative to the installed binary: gcevents' 69 runtime events
# (corpus/perfview/gcevents.baseline.txt counts them under Microsoft-Windows-DotNETRuntime) all decode, the
# .NET 5+ ones (e.g. GC/Mark, 13 in the baseline's COUNT line of MarkWithType) through ClrEtwRuntimeAdditions.man.
(cd / && "$root/bin/etlconv" -q -of jsonl "$OLDPWD/testdata/perfview/gcevents.PerfViewData.etl.gz") > "$dest/gc.jsonl"
count=$(grep '"provider":"Microsoft-Windows-DotNETRuntime"' "$dest/gc.jsonl" | grep -c '"status":"ok"')
[ "$count" -eq 69 ] && ok "installed etlconv decodes with its bundled manifests" || no "bundled manifests: $count runtime events decoded"
count=$(grep '"provider":"Microsoft-Windows-DotNETRuntime"' "$dest/gc.jsonl" | grep -c '"event":"GC/Mark","id":202')
[ "$count" -eq 13 ] && ok "installed ClrEtwRuntimeAdditions.man decodes GC/Mark" || no "GC/Mark: $count"
# The man page documents the options --help lists.
missing=""
for opt in $("$root/bin/etlconv" --help | grep -o -- '^ *-[a-z-]*' | tr -d ' ' | sort -u); do
  grep -q -- "$(printf '%s' "$opt" | sed 's/-/\\\\-/g')" "$root/share/man/man1/etlconv.1" || \
  grep -q -- "$opt" "$root/share/man/man1/etlconv.1" || missing="$missing $opt"
done
[ -z "$missing" ] && ok "man page documents every option of --help" || no "man page lacks:$missing"
cat > "$dest/prog.c" <<'C'
#include <etl/etl.h>
#include <stdio.h>
static int count(const etl_event_record *r, void *c) { (void)r; ++*(long *)c; return 0; }
int main(int argc, char **argv) {
    etl_trace *t; etl_error e; long n = 0;
    if (argc < 2 || etl_open(&t, (const char *const *)argv + 1, 1, NULL, &e) != ETL_OK) return 1;
    etl_process(t, count, &n); etl_close(t); printf("%ld\n", n); return 0; }
C
flags=$(PKG_CONFIG_PATH="$root/lib/pkgconfig" pkg-config --define-variable=prefix="$root" --cflags --libs libetl 2>/dev/null)
# Under `make sanitize` the installed libetl.a is instrumented: link with the same sanitizer flags.
if ${CC:-cc} $SANFLAGS -o "$dest/prog" "$dest/prog.c" $flags 2>/dev/null; then ok "program links with pkg-config libetl"; else no "program links with pkg-config libetl"; fi
# primitive-types: EVENT64:5,SYSTEM64:2 (corpus/MANIFEST.tsv census)
[ "$("$dest/prog" testdata/perfview/primitive-types.etl.gz 2>/dev/null)" = 7 ] && ok "linked program reads a trace" || no "linked program reads a trace"
