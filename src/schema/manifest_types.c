/* Built-in manifest vocabulary: winmeta.xml well-known names (schemas.md §1.6) and the win:/xs: type
 * names with their TDH codes and default out-types (schemas.md §1.5). */
#include <string.h>

#include "schema/manifest_model.h"

static const etl_winmeta_entry winmeta_levels[] = {
    {"win:LogAlways", 0, "Log Always"}, {"win:Critical", 1, "Critical"}, {"win:Error", 2, "Error"},
    {"win:Warning", 3, "Warning"}, {"win:Informational", 4, "Information"}, {"win:Verbose", 5, "Verbose"},
    {"win:ReservedLevel6", 6, NULL}, {"win:ReservedLevel7", 7, NULL}, {"win:ReservedLevel8", 8, NULL},
    {"win:ReservedLevel9", 9, NULL}, {"win:ReservedLevel10", 10, NULL}, {"win:ReservedLevel11", 11, NULL},
    {"win:ReservedLevel12", 12, NULL}, {"win:ReservedLevel13", 13, NULL}, {"win:ReservedLevel14", 14, NULL},
    {"win:ReservedLevel15", 15, NULL},
};

static const etl_winmeta_entry winmeta_opcodes[] = {
    {"win:Info", 0, "Info"}, {"win:Start", 1, "Start"}, {"win:Stop", 2, "Stop"},
    {"win:DC_Start", 3, "DCStart"}, {"win:DC_Stop", 4, "DCStop"}, {"win:Extension", 5, "Extension"},
    {"win:Reply", 6, "Reply"}, {"win:Resume", 7, "Resume"}, {"win:Suspend", 8, "Suspend"},
    {"win:Send", 9, "Send"}, {"win:Receive", 240, "Receive"},
};

static const etl_winmeta_entry winmeta_tasks[] = {
    {"win:None", 0, "None"},
};

static const etl_winmeta_entry winmeta_keywords[] = {
    {"win:AnyKeyword", 0, NULL},
    {"win:ResponseTime", 0x0001000000000000ull, "Response Time"},
    {"win:WDIContext", 0x0002000000000000ull, "WDI Context"},
    {"win:WDIDiag", 0x0004000000000000ull, "WDI Diag"},
    {"win:SQM", 0x0008000000000000ull, "SQM"},
    {"win:AuditFailure", 0x0010000000000000ull, "Audit Failure"},
    {"win:AuditSuccess", 0x0020000000000000ull, "Audit Success"},
    {"win:CorrelationHint", 0x0040000000000000ull, "Correlation Hint"},
    {"win:EventlogClassic", 0x0080000000000000ull, "Classic"},
};

static const etl_winmeta_entry winmeta_channels[] = {
    {"TraceClassic", 0, NULL}, {"System", 8, NULL}, {"Application", 9, NULL}, {"Security", 10, NULL},
    {"TraceLogging", 11, NULL}, {"ProviderMetadata", 12, NULL},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const etl_winmeta_entry *table_for(enum etl_winmeta_kind kind, size_t *n)
{
    switch (kind) {
    case ETL_WINMETA_LEVEL: *n = COUNT(winmeta_levels); return winmeta_levels;
    case ETL_WINMETA_OPCODE: *n = COUNT(winmeta_opcodes); return winmeta_opcodes;
    case ETL_WINMETA_TASK: *n = COUNT(winmeta_tasks); return winmeta_tasks;
    case ETL_WINMETA_KEYWORD: *n = COUNT(winmeta_keywords); return winmeta_keywords;
    case ETL_WINMETA_CHANNEL: *n = COUNT(winmeta_channels); return winmeta_channels;
    }
    *n = 0;
    return NULL;
}

const etl_winmeta_entry *etl_winmeta_find(enum etl_winmeta_kind kind, const char *name)
{
    size_t n;
    const etl_winmeta_entry *t = table_for(kind, &n);
    if (!name) return NULL;
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0) return &t[i];
    return NULL;
}

const etl_winmeta_entry *etl_winmeta_find_value(enum etl_winmeta_kind kind, uint64_t value)
{
    size_t n;
    const etl_winmeta_entry *t = table_for(kind, &n);
    for (size_t i = 0; i < n; i++)
        if (t[i].value == value) return &t[i];
    return NULL;
}

/* ---- type names -------------------------------------------------------------------------------------- */

typedef struct type_name { const char *name; uint16_t code; } type_name;

static const struct in_type_row { const char *name; uint16_t code; uint16_t default_out; } in_types[] = {
    {"win:UnicodeString", 1, 1}, {"win:AnsiString", 2, 1}, {"win:Int8", 3, 3}, {"win:UInt8", 4, 4},
    {"win:Int16", 5, 5}, {"win:UInt16", 6, 6}, {"win:Int32", 7, 7}, {"win:UInt32", 8, 8},
    {"win:Int64", 9, 9}, {"win:UInt64", 10, 10}, {"win:Float", 11, 11}, {"win:Double", 12, 12},
    {"win:Boolean", 13, 13}, {"win:Binary", 14, 15}, {"win:GUID", 15, 14}, {"win:Pointer", 16, 19},
    {"win:FILETIME", 17, 2}, {"win:SYSTEMTIME", 18, 2}, {"win:SID", 19, 1}, {"win:HexInt32", 20, 18},
    {"win:HexInt64", 21, 19}, {"win:CountedUnicodeString", 22, 1}, {"win:CountedString", 22, 1},
    {"win:CountedAnsiString", 23, 1}, {"win:CountedBinary", 25, 15},
};

static const type_name out_types[] = {
    {"xs:string", 1}, {"xs:dateTime", 2}, {"xs:byte", 3}, {"xs:unsignedByte", 4}, {"xs:short", 5},
    {"xs:unsignedShort", 6}, {"xs:int", 7}, {"xs:unsignedInt", 8}, {"xs:long", 9}, {"xs:unsignedLong", 10},
    {"xs:float", 11}, {"xs:double", 12}, {"xs:boolean", 13}, {"xs:GUID", 14}, {"xs:hexBinary", 15},
    {"win:HexInt8", 16}, {"win:HexInt16", 17}, {"win:HexInt32", 18}, {"win:HexInt64", 19}, {"win:PID", 20},
    {"win:TID", 21}, {"win:Port", 22}, {"win:IPv4", 23}, {"win:IPv6", 24}, {"win:SocketAddress", 25},
    {"win:CIMDateTime", 26}, {"win:ETWTIME", 27}, {"win:Xml", 28}, {"win:ErrorCode", 29},
    {"win:Win32Error", 30}, {"win:NTSTATUS", 31}, {"win:HResult", 32},
    {"win:DateTimeCultureInsensitive", 33}, {"win:Json", 34}, {"win:Utf8", 35},
    {"win:Pkcs7WithTypeInfo", 36}, {"win:CodePointer", 37}, {"win:DateTimeUtc", 38},
};

/* Accepted on input only (never written by -export, which must stay mc-compatible): manifests regenerated
 * from TDH by PerfView's GetManifestForRegisteredProvider (repnz/etw-providers-docs, EVTX-ETW-Resources)
 * name each property's TDH in-type with its TraceEvent enum name, "win:" + TdhInputType.ToString(). */
static const type_name in_type_aliases[] = {
    {"CountedUtf16String", ETL_IN_MANIFEST_COUNTEDSTRING}, {"CountedMbcsString", ETL_IN_MANIFEST_COUNTEDANSISTRING},
    {"ReversedCountedString", ETL_IN_REVERSEDCOUNTEDSTRING},
    {"ReversedCountedAnsiString", ETL_IN_REVERSEDCOUNTEDANSISTRING},
    {"NonNullTerminatedString", ETL_IN_NONNULLTERMINATEDSTRING},
    {"NonNullTerminatedAnsiString", ETL_IN_NONNULLTERMINATEDANSISTRING},
    {"UnicodeChar", ETL_IN_UNICODECHAR}, {"AnsiChar", ETL_IN_ANSICHAR}, {"SizeT", ETL_IN_SIZET},
    {"HexDump", ETL_IN_HEXDUMP}, {"WbemSID", ETL_IN_WBEMSID},
};

int etl_manifest_in_type(const char *name, uint16_t *out)
{
    if (!name) return -1;
    for (size_t i = 0; i < COUNT(in_types); i++)
        if (strcmp(in_types[i].name, name) == 0) { *out = in_types[i].code; return 0; }
    for (size_t i = 0; i < COUNT(in_types); i++)
        if (strcmp(etl_qname_local(in_types[i].name), etl_qname_local(name)) == 0) { *out = in_types[i].code; return 0; }
    for (size_t i = 0; i < COUNT(in_type_aliases); i++)
        if (strcmp(in_type_aliases[i].name, etl_qname_local(name)) == 0) { *out = in_type_aliases[i].code; return 0; }
    return -1;
}

int etl_manifest_out_type(const char *name, uint16_t *out)
{
    if (!name) return -1;
    for (size_t i = 0; i < COUNT(out_types); i++)
        if (strcmp(out_types[i].name, name) == 0) { *out = out_types[i].code; return 0; }
    for (size_t i = 0; i < COUNT(out_types); i++)
        if (strcmp(etl_qname_local(out_types[i].name), etl_qname_local(name)) == 0) { *out = out_types[i].code; return 0; }
    if (strcmp(etl_qname_local(name), "NOPRINT") == 0) { *out = ETL_OUT_NOPRINT; return 0; }
    return -1;
}

uint16_t etl_manifest_default_out_type(uint16_t in_type)
{
    for (size_t i = 0; i < COUNT(in_types); i++)
        if (in_types[i].code == in_type) return in_types[i].default_out;
    return ETL_OUT_NULL;
}

const char *etl_manifest_in_type_name(uint16_t in_type)
{
    for (size_t i = 0; i < COUNT(in_types); i++)
        if (in_types[i].code == in_type) return in_types[i].name;
    return NULL;
}

const char *etl_manifest_out_type_name(uint16_t out_type)
{
    for (size_t i = 0; i < COUNT(out_types); i++)
        if (out_types[i].code == out_type) return out_types[i].name;
    return NULL;
}
