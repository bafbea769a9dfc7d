# Turns src/schema/kernel_mof.tsv into C: one etl_property_info array shared by all events (events with the
# same field list share one slice) and one etl_event_info per (class GUID, version, type) row.
#   awk -f src/schema/kernel_mof_gen.awk src/schema/kernel_mof.tsv > build/gen/kernel_mof_table.c
# Any malformed row stops the build with a message naming the line.

function fail(msg) {
    printf "kernel_mof.tsv:%d: %s\n", NR, msg > "/dev/stderr"
    failed = 1
    exit 1
}

function cstr(s) {
    gsub(/\\/, "\\\\", s)
    gsub(/"/, "\\\"", s)
    return "\"" s "\""
}

function guid_c(g,    d4, i, s) {
    if (length(g) != 36 || g !~ /^[0-9a-fA-F-]+$/ || substr(g, 9, 1) != "-" || substr(g, 14, 1) != "-" ||
        substr(g, 19, 1) != "-" || substr(g, 24, 1) != "-")
        fail("bad GUID " g)
    d4 = substr(g, 20, 4) substr(g, 25, 12)
    s = "{0x" substr(g, 1, 8) "u, 0x" substr(g, 10, 4) ", 0x" substr(g, 15, 4) ", {"
    for (i = 0; i < 8; i++) s = s (i ? ", " : "") "0x" substr(d4, 2 * i + 1, 2)
    return s "}}"
}

function is_number(s) { return s ~ /^[0-9]+$/ }

# Emits the properties of one field list; returns the index of its first property.
function emit_fields(list,    n, fs, k, parts, np, name, types, inT, outT, flags, cnt, len, j, q, idx, start, first) {
    n = split(list, fs, /; */)
    start = nprops
    delete idx
    for (k = 1; k <= n; k++) {
        np = split(fs[k], parts, " ")
        if (np < 2) fail("field needs a name and a type: " fs[k])
        name = parts[1]
        split(parts[2], types, ":")
        inT = types[1]; outT = (2 in types) ? types[2] : "NULL"
        delete types
        if (!(inT in intypes)) fail("unknown in-type " inT)
        if (!(outT in outtypes)) fail("unknown out-type " outT)
        flags = "0"; cnt = 0; len = 0
        for (j = 3; j <= np; j++) {
            q = parts[j]
            if (q ~ /^count=/) {
                q = substr(q, 7)
                if (is_number(q)) { flags = flags " | ETL_PROP_PARAM_FIXED_COUNT"; cnt = q }
                else if (q in idx) { flags = flags " | ETL_PROP_PARAM_COUNT"; cnt = idx[q] }
                else fail("count refers to unknown earlier field " q)
            } else if (q ~ /^length=/) {
                q = substr(q, 8)
                if (is_number(q)) { flags = flags " | ETL_PROP_PARAM_FIXED_LENGTH"; len = q }
                else if (q in idx) { flags = flags " | ETL_PROP_PARAM_LENGTH"; len = idx[q] }
                else fail("length refers to unknown earlier field " q)
            } else if (q == "optional") flags = flags " | ETL_PROP_OPTIONAL_TAIL"
            else fail("unknown field attribute " q)
        }
        idx[name] = k - 1
        sub(/^0 \| /, "", flags)
        props[nprops++] = sprintf("    {%s, %s, ETL_IN_%s, ETL_OUT_%s, 0, 0, %d, %d, NULL},",
                                  cstr(name), flags, inT, outT, cnt, len)
    }
    return start
}

BEGIN {
    FS = "\t"
    split("NULL UNICODESTRING ANSISTRING INT8 UINT8 INT16 UINT16 INT32 UINT32 INT64 UINT64 FLOAT DOUBLE " \
          "BOOLEAN BINARY GUID POINTER FILETIME SYSTEMTIME SID HEXINT32 HEXINT64 COUNTEDSTRING " \
          "COUNTEDANSISTRING REVERSEDCOUNTEDSTRING REVERSEDCOUNTEDANSISTRING NONNULLTERMINATEDSTRING " \
          "NONNULLTERMINATEDANSISTRING UNICODECHAR ANSICHAR SIZET HEXDUMP WBEMSID", a, " ")
    for (i in a) intypes[a[i]] = 1
    split("NULL STRING DATETIME BYTE UNSIGNEDBYTE SHORT UNSIGNEDSHORT INT UNSIGNEDINT LONG UNSIGNEDLONG FLOAT " \
          "DOUBLE BOOLEAN GUID HEXBINARY HEXINT8 HEXINT16 HEXINT32 HEXINT64 PID TID PORT IPV4 IPV6 " \
          "SOCKETADDRESS CIMDATETIME ETWTIME XML ERRORCODE WIN32ERROR NTSTATUS HRESULT NOPRINT", b, " ")
    for (i in b) outtypes[b[i]] = 1
    provider_guid["MSNT_SystemTrace"] = "9e814aad-3204-11d2-9a82-006008a86939"
    provider_guid["KernelTraceControl"] = "28ad2447-105b-4fe2-9599-e59b2aa9a634"
    nprops = 0; nevents = 0
}

/^#/ || /^[ \t]*$/ { next }

{
    if (NF != 9) fail("expected 9 tab-separated columns, got " NF)
    if (!is_number($4) || $4 > 255) fail("bad version " $4)
    if (!is_number($5) || $5 > 255) fail("bad event type " $5)
    key = tolower($3) "/" $4 "/" $5
    if (key in seen) fail("duplicate (guid, version, type) " key)
    seen[key] = 1
    fields = $9
    gsub(/^ +| +$/, "", fields)
    if (fields == "") { first = 0; count = 0 }
    else {
        if (!(fields in slice)) {
            slice[fields] = emit_fields(fields)
            slice_count[fields] = nprops - slice[fields]
        }
        first = slice[fields]; count = slice_count[fields]
    }
    pg = ($1 in provider_guid) ? provider_guid[$1] : $3
    events[nevents++] = sprintf("    {ETL_SOURCE_KERNEL_MOF, %s, %s, {0, %d, 0, 0, %d, 0, 0}, %s, %s, %s, %s,\n" \
                                "     NULL, NULL, NULL, 0, NULL, NULL, %d, %d, %s, NULL, 0},",
                                guid_c(pg), guid_c($3), $4, $5, cstr($1), cstr($6), cstr($2), cstr($6),
                                count, count, count ? "etl_kernel_mof_properties + " first : "NULL")
}

END {
    if (failed) exit 1
    print "/* Generated from src/schema/kernel_mof.tsv by src/schema/kernel_mof_gen.awk. Do not edit. */"
    print "#include \"schema/kernel_mof_table.h\""
    print ""
    printf "const etl_property_info etl_kernel_mof_properties[%d] = {\n", nprops ? nprops : 1
    for (i = 0; i < nprops; i++) print props[i]
    if (!nprops) print "    {NULL, 0, 0, 0, 0, 0, 0, 0, NULL},"
    print "};"
    printf "const size_t etl_kernel_mof_property_count = %d;\n\n", nprops
    printf "const etl_event_info etl_kernel_mof_events[%d] = {\n", nevents
    for (i = 0; i < nevents; i++) print events[i]
    print "};"
    printf "const size_t etl_kernel_mof_event_count = %d;\n", nevents
}
