#!/bin/sh
# Seed corpora for the fuzz targets. Usage: tests/fuzz/seeds.sh decompress|reader|schema|wpp|wpp-pdb|cab [DIR]
#  decompress (default DIR build-fuzz/seeds/decompress): every compressed buffer of the compressed corpus
#    traces, framed as fuzz_decompress expects (selector byte 0 = plain LZ77, 24-bit output capacity = the
#    buffer's decompressed length, then the compressed stream), plus the MS-XCA §3 examples.
#  reader (default DIR build-fuzz/seeds/reader): every corpus trace up to 1 MiB, and the first 192 KiB of
#    the larger ones.
#  schema (default DIR build-fuzz/seeds/schema): selector byte 0 + every manifest of testdata/schemas (up to
#    256 KiB) and three synthetic WEPExplorer provider listings, 1 + every mc.exe-compiled WEVT_TEMPLATE blob,
#    2 + every test PE.
set -eu
target=${1:-decompress}
dir=${2:-build-fuzz/seeds/$target}
mkdir -p "$dir"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
if [ "$target" = schema ]; then
    for f in testdata/schemas/*/*.man testdata/schemas/*/*/*.man testdata/schemas/*/*/*.xml; do
        [ -f "$f" ] && [ "$(wc -c < "$f")" -le 262144 ] || continue
        { printf '\000'; cat "$f"; } > "$dir/man-$(basename "$f")"
    done
    # WEPExplorer listings (<Providers>, manifest_wep.c): names mapped back to values, a CDATA template with a
    # counted struct, a provider without events and one without a GUID
    wep_head='<Providers><Provider><Name>Syn-Wep</Name><Metadata><Guid>{3A4B5C6D-7E8F-4A0B-9C1D-2E3F4A5B6C7D}</Guid>'
    { printf '\000%s' "$wep_head"
      printf '%s' '<Channels><Channel><Message>Syn/Op</Message><Path>Syn-Wep/Operational</Path><Index>0</Index>'
      printf '%s' '<Id>16</Id></Channel></Channels><Levels><Level><Message>Warning</Message><Name>win:Warning</Name>'
      printf '%s' '<Value>3</Value></Level></Levels><Tasks><Task><Message>Connect</Message><Name>T1</Name><Value>1</Value>'
      printf '%s' '</Task></Tasks><Opcodes><Opcode><Message>Begin</Message><Name>O1</Name><Value>10</Value><Task>1</Task>'
      printf '%s' '</Opcode></Opcodes><Keywords><Keyword><Message></Message><Name>K1</Name><Value>16</Value></Keyword>'
      printf '%s' '</Keywords></Metadata><EventMetadata><Event><Id>1</Id><Version>0</Version><Channel>Syn/Op</Channel>'
      printf '%s' '<Level>Warning</Level><Task>Connect</Task><Opcode>Begin</Opcode><Keyword>K1</Keyword>'
      printf '%s\n' '<Message><![CDATA['
      printf '%s' 'Value %1 of %2.]]></Message><Template><![CDATA['
      printf '\n%s\n' '<template xmlns="http://schemas.microsoft.com/win/2004/08/events">'
      printf '%s\n' '<data name="N" inType="win:UInt16"/><struct name="S" count="N"><data name="V" inType="win:UInt32"/></struct>'
      printf '%s' '</template>]]></Template></Event></EventMetadata></Provider></Providers>'; } > "$dir/wep-names.xml"
    { printf '\000%s' "$wep_head"
      printf '%s' '</Metadata><EventMetadata></EventMetadata></Provider><Provider><Name>Syn-NoGuid</Name>'
      printf '%s' '<Metadata></Metadata></Provider></Providers>'; } > "$dir/wep-noguid.xml"
    { printf '\000%s' "$wep_head"
      printf '%s' '</Metadata><EventMetadata><Event><Id>2</Id><Version>1</Version><Level>Information</Level>'
      printf '%s' '<Opcode>Stop</Opcode><Template><![CDATA[<template><data name="A" inType="win:UnicodeString"/>'
      printf '%s' '<data name="B" inType="win:Binary" length="A"/></template>]]></Template></Event></EventMetadata>'
      printf '%s' '</Provider></Providers>'; } > "$dir/wep-winmeta.xml"
    for f in testdata/schemas/wevt-mc-testcases/*.wevt.*.bin; do { printf '\001'; cat "$f"; } > "$dir/crim-$(basename "$f")"; done
    for f in testdata/schemas/pe-wevt/*/*.dll testdata/schemas/pe-wevt/*.bin; do { printf '\002'; cat "$f"; } > "$dir/pe-$(basename "$f")"; done
    echo "$(ls "$dir" | wc -l) seeds in $dir"
    exit 0
fi
if [ "$target" = cab ]; then  # cabinets around small corpus traces: stored, MSZIP, two members
    w=$(mktemp -d)
    gzip -dc testdata/perfview/primitive-types.etl.gz > "$w/a.etl"
    gzip -dc testdata/demikernel/PktMon.etl.gz > "$w/b.etl"
    (cd "$w" && gcab -c stored.cab a.etl && gcab -cz mszip.cab a.etl && gcab -cz two.cab a.etl b.etl)
    cp "$w"/*.cab "$dir"/ && rm -rf "$w"
    echo "$(ls "$dir" | wc -l) seeds in $dir"
    exit 0
fi
# wpp (issue 18): 0 + every TMF of the corpus + NUL + a payload; 1 + message number + payload (fixed TMF).
# wpp-pdb: the PDBs tests/test_wpp_pdb.c builds: from the BthPS3PSM cvdump (with its TMC: control GUID) and
# from findneedle's TMFs (with a TPI stream of C enums); make build/tests/test_wpp_pdb first.
if [ "$target" = wpp ]; then
    for f in ../shared/corpus/findneedle/tmf/*.tmf ../shared/schemas/wpp-tmf/nefarius/tmf/*.tmf; do
        { printf '\000'; cat "$f"; printf '\000\001\000\000\000abc\000\002\000xy'; } > "$dir/tmf-$(basename "$f")"
    done
    for n in 0 1 2 3; do printf "\\001\\00$n%s" '0123456789abcdef0123456789abcdef0123456789' > "$dir/walk-$n"; done
    echo "$(ls "$dir" | wc -l) seeds in $dir"; exit 0
fi
if [ "$target" = wpp-pdb ]; then
    ETLCONV_KEEP_PDB="$dir/BthPS3PSM-annotations.pdb" ETLCONV_KEEP_FINDNEEDLE_PDB="$dir/findneedle-enums.pdb" \
        build/tests/test_wpp_pdb > /dev/null
    echo "$(ls "$dir" | wc -l) seeds in $dir"; exit 0
fi
if [ "$target" = reader ]; then
    for gz in testdata/*/*.etl.gz; do
        out="$dir/$(basename "$(dirname "$gz")")_$(basename "$gz" .gz)"
        gzip -dc "$gz" > "$tmp"
        if [ "$(wc -c < "$tmp")" -le 1048576 ]; then cp "$tmp" "$out"; else head -c 196608 "$tmp" > "$out"; fi
    done
    echo "$(ls "$dir" | wc -l) seeds in $dir"
    exit 0
fi
u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
u16() { od -An -tu2 -j "$2" -N2 "$1" | tr -d ' '; }
frame() { # selector capacity -> 4 header bytes
    printf "$(printf '\\%03o\\%03o\\%03o\\%03o' "$1" $(($2 & 255)) $(($2 >> 8 & 255)) $(($2 >> 16 & 255)))"
}
for trace in perfview/net.4.5.2.x86 perfview/SelfDescribingSingleEvent perfview/smallEtlFile demikernel/PktMon \
             terraingen2d/PerfViewData; do
    gzip -dc "testdata/$trace.etl.gz" > "$tmp"
    len=$(wc -c < "$tmp"); pos=0; i=0
    while [ $((pos + 72)) -le "$len" ]; do
        size=$(u32 "$tmp" "$pos")
        [ "$size" -ge 72 ] || break
        if [ $(( $(u16 "$tmp" $((pos + 52))) & 64 )) -ne 0 ]; then
            out="$dir/$(echo "$trace" | tr / _)-$i"
            { frame 0 $(( $(u32 "$tmp" $((pos + 48))) - 72 ))
              dd if="$tmp" bs=1 skip=$((pos + 72)) count=$((size - 72)) 2>/dev/null; } > "$out"
        fi
        pos=$((pos + size)); i=$((i + 1))
    done
done
hex() { # name hex-bytes...
    out="$dir/$1"; shift
    for b in "$@"; do printf "\\$(printf %03o $((0x$b)))"; done > "$out"
}
hex xca-plain-alphabet 00 1a 00 00 3f 00 00 00 61 62 63 64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 71 72 73 74 75 76 77 \
    78 79 7a
hex xca-plain-abc300 00 2c 01 00 ff ff ff 1f 61 62 63 17 00 0f ff 26 01
hex xca-lznt1-tune 02 8e 00 00 38 b0 88 46 23 20 00 20 47 20 41 00 10 a2 47 01 a0 45 20 44 00 08 45 01 50 79 00 \
    c0 45 20 05 24 13 88 05 b4 02 4a 44 ef 03 58 02 8c 09 16 01 48 45 00 be 00 9e 00 04 01 18 90 00
# §3.2 abc example: code lengths 0x30 0x23 at table offsets 48-49, 0x02 at 128, 0x20 at 143.
table=$(i=0; while [ $i -lt 256 ]; do
    case $i in 48) echo 30;; 49) echo 23;; 128) echo 02;; 143) echo 20;; *) echo 00;; esac; i=$((i + 1)); done)
# shellcheck disable=SC2086
hex xca-huffman-abc300 01 2c 01 00 $table a8 dc 00 00 ff 26 01
echo "$(ls "$dir" | wc -l) seeds in $dir"
