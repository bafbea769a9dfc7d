# Status-code names for WPP's ItemNTSTATUS, ItemWINERROR, ItemHRESULT, ItemNDIS_STATUS and ItemNDIS_OID, taken
# from the public-domain mingw-w64 headers (Debian mingw-w64-common) at build time, never typed in by hand.
#
# Pass 1 (this script, one run over ntstatus.h winerror.h ddk/ndis.h ntddndis.h in that order) prints
#   TABLE VALUE NAME       (VALUE: 8 upper-case hex digits)
# one line per first definition of a value; wpp_status_emit.awk turns the sorted lines into C.
# ntstatus.h must come before ddk/ndis.h: NDIS_STATUS_SUCCESS is written as STATUS_SUCCESS there.

function hex8(h) { h = toupper(h); sub(/^0X/, "", h); sub(/L$/, "", h); while (length(h) < 8) h = "0" h; return h }

function emit(table, value, name) {
    if (length(value) != 8) return
    if ((table SUBSEP value) in seen) return
    seen[table, value] = 1
    print table, value, name
}

$1 == "#define" && NF >= 3 {
    name = $2
    rest = $0
    sub(/^[ \t]*#define[ \t]+[A-Za-z0-9_]+[ \t]+/, "", rest)
    file = FILENAME
    sub(/.*\//, "", file)
    hex = ""
    if (match(rest, /0[xX][0-9A-Fa-f]+/)) hex = hex8(substr(rest, RSTART, RLENGTH))

    if (file == "ntstatus.h" && rest ~ /^\(\(NTSTATUS\)/ && hex != "") {
        ntstatus[name] = hex
        emit("ntstatus", hex, name)
    } else if (file == "winerror.h") {
        if (rest ~ /^__MSABI_LONG\([0-9]+\)/ && name !~ /^(FACILITY_|SEVERITY_)/) {
            n = rest
            sub(/^__MSABI_LONG\(/, "", n)
            sub(/\).*/, "", n)
            if (n + 0 < 65536) emit("win32", sprintf("%08X", n + 0), name)
        } else if (rest ~ /^(_HRESULT_TYPEDEF_\(|\(\(HRESULT\))/ && hex != "") {
            emit("hresult", hex, name)
        }
    } else if (file == "ndis.h" && name ~ /^NDIS_STATUS_/) {
        if (hex != "") emit("ndis_status", hex, name)
        else if (match(rest, /STATUS_[A-Z0-9_]+/) && (substr(rest, RSTART, RLENGTH) in ntstatus))
            emit("ndis_status", ntstatus[substr(rest, RSTART, RLENGTH)], name)
    } else if (file == "ntddndis.h" && name ~ /^OID_/ && rest ~ /^\(?0[xX][0-9A-Fa-f]+/) {
        emit("ndis_oid", hex, name)
    }
}
