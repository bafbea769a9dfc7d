/* libetl — TDH-like schema layer: event descriptions (in the spirit of TRACE_EVENT_INFO), the registry
 * every schema source feeds, and the decoder that walks a record's payload into rendered fields.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_ETL_SCHEMA_H
#define ETL_ETL_SCHEMA_H

#include <stdio.h>

#include "etl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- TDH in/out types (same numbers as _TDH_IN_TYPE / _TDH_OUT_TYPE) --------------------------------- */

enum etl_in_type {
    ETL_IN_NULL = 0, ETL_IN_UNICODESTRING = 1, ETL_IN_ANSISTRING = 2, ETL_IN_INT8 = 3, ETL_IN_UINT8 = 4,
    ETL_IN_INT16 = 5, ETL_IN_UINT16 = 6, ETL_IN_INT32 = 7, ETL_IN_UINT32 = 8, ETL_IN_INT64 = 9,
    ETL_IN_UINT64 = 10, ETL_IN_FLOAT = 11, ETL_IN_DOUBLE = 12, ETL_IN_BOOLEAN = 13, ETL_IN_BINARY = 14,
    ETL_IN_GUID = 15, ETL_IN_POINTER = 16, ETL_IN_FILETIME = 17, ETL_IN_SYSTEMTIME = 18, ETL_IN_SID = 19,
    ETL_IN_HEXINT32 = 20, ETL_IN_HEXINT64 = 21, ETL_IN_MANIFEST_COUNTEDSTRING = 22,
    ETL_IN_MANIFEST_COUNTEDANSISTRING = 23, ETL_IN_RESERVED24 = 24, ETL_IN_MANIFEST_COUNTEDBINARY = 25,
    ETL_IN_COUNTEDSTRING = 300, ETL_IN_COUNTEDANSISTRING = 301, ETL_IN_REVERSEDCOUNTEDSTRING = 302,
    ETL_IN_REVERSEDCOUNTEDANSISTRING = 303, ETL_IN_NONNULLTERMINATEDSTRING = 304,
    ETL_IN_NONNULLTERMINATEDANSISTRING = 305, ETL_IN_UNICODECHAR = 306, ETL_IN_ANSICHAR = 307,
    ETL_IN_SIZET = 308, ETL_IN_HEXDUMP = 309, ETL_IN_WBEMSID = 310
};

enum etl_out_type {
    ETL_OUT_NULL = 0, ETL_OUT_STRING = 1, ETL_OUT_DATETIME = 2, ETL_OUT_BYTE = 3, ETL_OUT_UNSIGNEDBYTE = 4,
    ETL_OUT_SHORT = 5, ETL_OUT_UNSIGNEDSHORT = 6, ETL_OUT_INT = 7, ETL_OUT_UNSIGNEDINT = 8, ETL_OUT_LONG = 9,
    ETL_OUT_UNSIGNEDLONG = 10, ETL_OUT_FLOAT = 11, ETL_OUT_DOUBLE = 12, ETL_OUT_BOOLEAN = 13, ETL_OUT_GUID = 14,
    ETL_OUT_HEXBINARY = 15, ETL_OUT_HEXINT8 = 16, ETL_OUT_HEXINT16 = 17, ETL_OUT_HEXINT32 = 18,
    ETL_OUT_HEXINT64 = 19, ETL_OUT_PID = 20, ETL_OUT_TID = 21, ETL_OUT_PORT = 22, ETL_OUT_IPV4 = 23,
    ETL_OUT_IPV6 = 24, ETL_OUT_SOCKETADDRESS = 25, ETL_OUT_CIMDATETIME = 26, ETL_OUT_ETWTIME = 27,
    ETL_OUT_XML = 28, ETL_OUT_ERRORCODE = 29, ETL_OUT_WIN32ERROR = 30, ETL_OUT_NTSTATUS = 31,
    ETL_OUT_HRESULT = 32, ETL_OUT_CULTURE_INSENSITIVE_DATETIME = 33, ETL_OUT_JSON = 34, ETL_OUT_UTF8 = 35,
    ETL_OUT_PKCS7_WITH_TYPE_INFO = 36, ETL_OUT_CODE_POINTER = 37, ETL_OUT_DATETIME_UTC = 38,
    ETL_OUT_REDUCEDSTRING = 300, ETL_OUT_NOPRINT = 301
};

/* ---- where a schema came from ------------------------------------------------------------------------ */

/* Lookup order (documented in README): the record's own TraceLogging metadata, then user-supplied schemas
 * (manifests, PE binaries, -import), then schemas carried by the trace (EventSource manifests,
 * KernelTraceControl metadata), then bundled manifests, then the built-in kernel MOF tables. */
typedef enum etl_schema_source {
    ETL_SOURCE_NONE = 0,
    ETL_SOURCE_TRACELOGGING,   /* EVENT_SCHEMA_TL metadata in the record */
    ETL_SOURCE_USER_MANIFEST,  /* .man / -import supplied by the user */
    ETL_SOURCE_USER_WEVT,      /* WEVT_TEMPLATE in a PE binary supplied by the user */
    ETL_SOURCE_EVENTSOURCE,    /* .NET EventSource manifest written into the trace (event 0xFFFE) */
    ETL_SOURCE_EMBEDDED_TDH,   /* KernelTraceControl MetaData/EventInfo blobs in the trace */
    ETL_SOURCE_BUNDLED,        /* manifests shipped with etlconv */
    ETL_SOURCE_KERNEL_MOF,     /* built-in kernel (NT Kernel Logger) MOF tables */
    ETL_SOURCE_TMF,            /* WPP TMF files */
    ETL_SOURCE_COUNT
} etl_schema_source;

/* Short stable name: "tracelogging", "manifest", "wevt", "eventsource", "embedded", "bundled", "kernel",
 * "tmf", "none". */
const char *etl_schema_source_name(etl_schema_source source);

/* ---- event descriptions ------------------------------------------------------------------------------- */

/* Property flags (same numbers as PROPERTY_FLAGS), plus etlconv extensions from 0x1000 up. */
enum {
    ETL_PROP_STRUCT = 0x1,
    ETL_PROP_PARAM_LENGTH = 0x2,       /* `length` is the index of the property holding the length */
    ETL_PROP_PARAM_COUNT = 0x4,        /* `count` is the index of the property holding the count */
    ETL_PROP_WBEM_XML_FRAGMENT = 0x8,
    ETL_PROP_PARAM_FIXED_LENGTH = 0x10,/* `length` is a fixed length (even when 0/1) */
    ETL_PROP_PARAM_FIXED_COUNT = 0x20, /* `count` is a fixed element count: the property is an array */
    ETL_PROP_HAS_TAGS = 0x40,
    ETL_PROP_HAS_CUSTOM_SCHEMA = 0x80,
    ETL_PROP_INLINE_COUNT = 0x1000,    /* TraceLogging variable array: a u16 element count precedes the data */
    ETL_PROP_INLINE_LENGTH = 0x2000,   /* TraceLogging binary: a u16 byte length precedes the data */
    ETL_PROP_OPTIONAL_TAIL = 0x4000    /* kernel MOF: the payload may end right before this property, or after
                                        * any whole element of this array; decoding stops there, no error
                                        * (StackWalk frame lists, PerfInfo Mark padding) */
};

/* Map flags (same numbers as MAP_FLAGS). */
enum {
    ETL_MAP_VALUEMAP = 0x1,
    ETL_MAP_BITMAP = 0x2,
    ETL_MAP_PATTERNMAP = 0x4,
    ETL_MAP_WBEM_VALUEMAP = 0x8,
    ETL_MAP_WBEM_BITMAP = 0x10,
    ETL_MAP_WBEM_FLAG = 0x20,
    ETL_MAP_WBEM_NO_MAP = 0x40
};

typedef struct etl_map_entry {
    uint32_t value;
    const char *name;      /* UTF-8, already resolved from string tables */
} etl_map_entry;

typedef struct etl_map_info {
    const char *name;
    uint32_t flags;        /* ETL_MAP_* */
    uint32_t entry_count;
    const etl_map_entry *entries;
} etl_map_info;

typedef struct etl_property_info {
    const char *name;
    uint32_t flags;            /* ETL_PROP_* */
    uint16_t in_type;          /* etl_in_type (unused for STRUCT) */
    uint16_t out_type;         /* etl_out_type */
    uint16_t struct_start;     /* STRUCT: index of the first member in the property array */
    uint16_t struct_count;     /* STRUCT: number of members */
    uint16_t count;            /* fixed count (FIXED_COUNT) or index of the count property (PARAM_COUNT) */
    uint16_t length;           /* fixed length (FIXED_LENGTH or non-zero) or index (PARAM_LENGTH) */
    const etl_map_info *map;   /* value/bit map, NULL if none */
} etl_property_info;

typedef struct etl_event_info {
    etl_schema_source source;
    etl_guid provider_guid;
    etl_guid event_guid;           /* classic event-class GUID; zero for manifest-style events */
    etl_event_descriptor descriptor;
    const char *provider_name;
    const char *event_name;        /* manifest symbol / TraceLogging name / MOF event-type name; may be NULL */
    const char *task_name;         /* classic: the MOF class name ("Process") */
    const char *opcode_name;       /* classic: the event-type name ("Start", "DCStart") */
    const char *level_name;
    const char *channel_name;
    const char *const *keyword_names;
    uint32_t keyword_name_count;
    const char *message;           /* message template with %1..%n inserts, NULL if none */
    const char *provider_message;
    uint32_t property_count;       /* all entries, struct members included */
    uint32_t top_level_count;      /* the first top_level_count entries are the top-level properties */
    const etl_property_info *properties;
    /* Manifest templates with a <UserData> child: the element layout Windows renders the payload in (EVTX
     * writes it), else NULL. Items, in document order (names are qualified names as written):
     *   "\x01" NAME "\x02"                element start
     *   "\x03" NAME "\x02" TEXT "\x02"     attribute of the element just started (xmlns declarations too)
     *   "\x04" TEXT "\x02"                content text, whitespace around it removed
     *   "\x05"                           element end
     * In TEXT, "%N" stands for top-level property N (1-based). */
    const char *user_data;
    uint64_t serial;               /* set by the registry/TraceLogging cache when they store a description: unique
                                    * in the process and never reused, so writers can key per-schema caches on
                                    * it (formats/text_cache.h) even after a freed description's memory is reused */
} etl_event_info;

/* ---- registry: every schema source feeds one of these ----------------------------------------------- */

typedef enum etl_schema_key_kind {
    ETL_KEY_MANIFEST = 0,  /* (provider GUID, event id, version) */
    ETL_KEY_CLASSIC = 1    /* (event-class GUID, opcode/type, version) */
} etl_schema_key_kind;

typedef struct etl_schema_registry etl_schema_registry;

etl_schema_registry *etl_schema_registry_new(void);
void etl_schema_registry_free(etl_schema_registry *registry);

/* A registry over `base` (a plain registry, which must outlive it): adds go to the overlay; lookups and visits
 * see both as one registry that got the base's adds first and the overlay's after (precedence by source, the
 * overlay's entry on a tie). For what one conversion learns from its trace on top of schemas parsed once. */
etl_schema_registry *etl_schema_registry_new_overlay(const etl_schema_registry *base);
/* The overlay's base; NULL for a plain registry. */
const etl_schema_registry *etl_schema_registry_base(const etl_schema_registry *registry);
/* Makes a loaded registry safe to read from several threads (directly or as the base of their overlays):
 * after this call it takes no adds but its own deferred loads, which run under its lock. */
int etl_schema_registry_share(etl_schema_registry *registry);

/* A new, never reused etl_event_info.serial (thread-safe). */
uint64_t etl_event_info_next_serial(void);

/* Deep-copies `info` (strings, properties, maps) into the registry. The key is (provider_guid, descriptor.id,
 * descriptor.version) for ETL_KEY_MANIFEST and (event_guid, descriptor.opcode, descriptor.version) for
 * ETL_KEY_CLASSIC. An existing entry is replaced only by a source that comes earlier in the lookup order. */
int etl_schema_registry_add(etl_schema_registry *registry, const etl_event_info *info, etl_schema_key_kind key);

/* Exact key first; then the highest version below `version`; then the lowest above. NULL if none. */
const etl_event_info *etl_schema_registry_find(const etl_schema_registry *registry, etl_schema_key_kind key,
                                               const etl_guid *guid, uint16_t id_or_opcode, uint8_t version);

/* Provider names by GUID (from any source), for events that have no schema. */
int etl_schema_registry_add_provider(etl_schema_registry *registry, const etl_guid *guid, const char *name,
                                     etl_schema_source source);
const char *etl_schema_registry_provider_name(const etl_schema_registry *registry, const etl_guid *guid);

/* Iterate every stored description (for -export); callback returns non-zero to stop. */
typedef int (*etl_schema_visit_fn)(const etl_event_info *info, etl_schema_key_kind key, void *ctx);
void etl_schema_registry_visit(const etl_schema_registry *registry, etl_schema_visit_fn fn, void *ctx);

/* User-supplied and bundled schema sources (manifest issue). `source` is ETL_SOURCE_USER_MANIFEST or
 * ETL_SOURCE_BUNDLED. Hostile input is refused with an error naming the file. */
int etl_schema_load_manifest_file(etl_schema_registry *registry, const char *path, etl_schema_source source,
                                  etl_error *err);
int etl_schema_load_manifest_memory(etl_schema_registry *registry, const char *xml, size_t length,
                                    const char *origin, etl_schema_source source, etl_error *err);
/* A PE32/PE32+ binary with a WEVT_TEMPLATE resource (message strings from its RT_MESSAGETABLE or .mui). */
int etl_schema_load_pe_file(etl_schema_registry *registry, const char *path, etl_error *err);
/* Every .man/.xml manifest and PE binary below a folder. */
int etl_schema_load_directory(etl_schema_registry *registry, const char *path, etl_schema_source source,
                              etl_error *err);
/* One command-line argument: a folder (as above), a manifest (.man/.xml/.manifest) or a PE binary. Returns
 * ETL_OK, or the first failure (file, line/offset and how many more in err). What could be read is registered
 * all the same: a refused provider or template leaves the rest of its file loaded, a bad file the rest of the
 * folder. `loaded` (may be NULL) receives the number of files that contributed descriptions, so a caller can
 * go on with a partial load and report the failure as a warning. */
int etl_schema_load_path(etl_schema_registry *registry, const char *path, etl_schema_source source,
                         etl_error *err, unsigned *loaded);
/* What a load did with the files it met. Inside a folder, PE-named files that are not PEs and binaries without
 * a WEVT_TEMPLATE are skipped without an error (a copy of System32 holds thousands) but counted here. */
typedef struct etl_schema_load_stats {
    unsigned loaded;            /* files that contributed descriptions */
    unsigned without_manifest;  /* PE binaries without a WEVT_TEMPLATE resource */
    unsigned not_pe;            /* .dll/.exe/.sys/... files that are not PE files */
    unsigned not_manifest;      /* .man/.xml/.manifest files in a folder that are no event schema */
    unsigned failed;            /* files (or parts of files) refused: the first one is in err */
} etl_schema_load_stats;
/* etl_schema_load_path with the counts (stats may be NULL). */
int etl_schema_load_path_stats(etl_schema_registry *registry, const char *path, etl_schema_source source,
                               etl_error *err, etl_schema_load_stats *stats);
/* The manifests shipped with etlconv (ETL_SOURCE_BUNDLED; $(PREFIX)/share/etlconv/schemas, or the source
 * tree's src/schema/bundled when run from the build tree), then every entry of $ETLCONV_SCHEMA_PATH
 * (colon-separated files/folders, loaded as user-supplied). Search path and precedence: docs/schemas.md. */
int etl_schema_load_bundled(etl_schema_registry *registry, etl_error *err);
/* -export: one instrumentation manifest describing the given providers' events (all providers when
 * n == 0), from whatever source they came; loading it back decodes the same way. */
int etl_schema_export_manifest(const etl_schema_registry *registry, const etl_guid *providers, size_t n,
                               FILE *out, etl_error *err);
/* Collects what -export writes: call it with the `info` of every decoded event; it keeps a deep copy in
 * `exported` (a registry of its own; TraceLogging descriptions live only until the decoder's next lookup), one
 * per (provider, id, version), the first. Kernel MOF is skipped (built in). Returns 0; 1 when the description
 * is a classic event-class layout, which a manifest cannot describe (count these); -1 when out of memory.
 * Then etl_schema_export_manifest(exported, NULL, 0, ...) writes the manifest. */
int etl_schema_export_collect(etl_schema_registry *exported, const etl_event_info *info);

/* WPP software tracing (docs/schemas.md §5): TMF statements decode trace-message records (source "tmf").
 * `path` is a .tmf file or a folder whose *.tmf files are all read (tracefmt's -tp: <message-GUID>.tmf);
 * a .pdb file (or a folder of .pdb files, with etl_schema_load_pdb_path) gives the TMF text its S_ANNOTATION
 * records carry. A malformed statement is skipped and reported (first one in err as "FILE:LINE: why"), the
 * rest loads: the result is ETL_ERR_FORMAT then, with the counts in stats. */
typedef struct etl_tmf_load_stats {
    unsigned files;            /* TMF files (or PDBs with TMF annotations) read */
    unsigned statements;       /* #typev statements read, duplicates included */
    unsigned arguments;        /* argument lines of the statements */
    unsigned enums;            /* #enumv blocks */
    unsigned refused;          /* malformed statements or lines skipped */
    unsigned duplicates;       /* statements whose (message GUID, number) was known already: the first stays */
    unsigned controls;         /* control GUIDs (PDB "TMC:" annotations) */
    unsigned pdb_enums;        /* enumerations taken from a PDB's types for ItemEnum/ItemFlagsEnum arguments */
} etl_tmf_load_stats;
int etl_schema_load_tmf_path(etl_schema_registry *registry, const char *path, etl_error *err,
                             etl_tmf_load_stats *stats);
int etl_schema_load_pdb_path(etl_schema_registry *registry, const char *path, etl_error *err,
                             etl_tmf_load_stats *stats);
/* tracefmt -i: the PDB an image (.sys/.dll/.exe) names in its CodeView debug record, looked for beside the
 * image, then in each of `folders`. */
int etl_schema_load_image_pdb(etl_schema_registry *registry, const char *image, const char *const *folders,
                              size_t folder_count, etl_error *err, etl_tmf_load_stats *stats);
/* Every entry of $TRACE_FORMAT_SEARCH_PATH (';'- or ':'-separated folders/files, as tracefmt reads it). */
int etl_schema_load_tmf_search_path(etl_schema_registry *registry, etl_error *err, etl_tmf_load_stats *stats);

/* ---- decoding ----------------------------------------------------------------------------------------- */

typedef enum etl_decode_status {
    ETL_DECODE_OK = 0,
    ETL_DECODE_NO_SCHEMA = 1,   /* payload delivered as raw bytes */
    ETL_DECODE_ERROR = 2        /* payload did not fit its schema: decoded as far as it fits + the rest raw */
} etl_decode_status;

typedef enum etl_field_kind {
    ETL_FIELD_VALUE = 0,
    ETL_FIELD_STRUCT_BEGIN,
    ETL_FIELD_STRUCT_END,
    ETL_FIELD_ARRAY_BEGIN,
    ETL_FIELD_ARRAY_END
} etl_field_kind;

typedef struct etl_field {
    etl_field_kind kind;
    const char *name;          /* property name; array elements carry the array's name */
    const char *value;         /* rendered UTF-8 text (ETL_FIELD_VALUE only) */
    uint16_t in_type;
    uint16_t out_type;
    uint16_t depth;            /* struct/array nesting depth, 0 for top level */
    int32_t array_index;       /* element index inside an array, -1 otherwise */
    const etl_property_info *property;
} etl_field;

/* A WPP trace message decoded with its TMF statement (source ETL_SOURCE_TMF). */
typedef struct etl_wpp_event {
    const char *component;      /* TMF component name ("BthPS3"); also the event's provider_name */
    const char *tag;            /* the statement's name, <file>_<ext><line> ("L2CAP_c141"): tracefmt's %2 */
    const char *file;           /* source file from the TMF header (SRC=), "" when unknown */
    uint32_t line;              /* source line taken from the tag, 0 when unknown */
    const char *function;       /* FUNC= ("" when unknown) */
    const char *level;          /* LEVEL= name ("TRACE_LEVEL_ERROR", "" when none) */
    const char *flags;          /* FLAGS= name ("" when none) */
    uint16_t message_number;
    etl_guid message_guid;
} etl_wpp_event;
/* A value's own bytes inside the payload (for counted strings/binaries the bytes after the count prefix). */
typedef struct etl_field_bytes {
    const uint8_t *data;       /* NULL for struct/array markers and values without payload bytes */
    uint32_t size;
} etl_field_bytes;

typedef struct etl_decoded_event {
    const etl_event_record *record;
    const etl_event_info *info;     /* NULL when no schema */
    etl_decode_status status;
    etl_schema_source source;       /* which source decoded it (ETL_SOURCE_NONE when no schema) */
    const char *provider_name;      /* always set: schema/registry name, else the GUID text */
    const char *event_name;         /* always set: "Task/Opcode", event name, or "EventID(N)" */
    const char *task_name;          /* may be NULL */
    const char *opcode_name;
    const char *level_name;
    const char *channel_name;
    const char *const *keyword_names;
    uint32_t keyword_name_count;
    const char *message;            /* message with inserts substituted; NULL when the schema has none */
    const char *process_name;       /* image name without extension of the process that had process_id at
                                     * the event's time (from process start/end/rundown events seen so far,
                                     * or in a first pass: etl_decoder_learn); NULL when unknown */
    uint32_t process_id;            /* the process the event belongs to, as PerfView's PID: the record's PID,
                                     * except for kernel events that name a process in their payload
                                     * (ProcessId field) or have no PID (PERFINFO headers: the process of
                                     * their thread); 0xFFFFFFFF when unknown */
    int string_only;                /* EVENT_HEADER_FLAG_STRING_ONLY: fields[0] is the bare string */
    size_t field_count;
    const etl_field *fields;
    const uint8_t *undecoded;       /* NO_SCHEMA: the whole payload; ERROR: the bytes not decoded; OK: bytes
                                     * after the last property (newer event versions; tracerpt ignores them) */
    size_t undecoded_length;
    const char *error;              /* ERROR: one-line reason */
    const etl_wpp_event *wpp;       /* WPP message decoded with a TMF (message = its text); NULL otherwise */
    const etl_field_bytes *field_bytes; /* parallel to `fields` (NULL when the producer has none): the bytes
                                     * each value was rendered from, so typed writers can keep the number
                                     * behind a mapped name (src/decode/value_kind.h) */
} etl_decoded_event;

typedef struct etl_decoder etl_decoder;

/* `trace` (may be NULL) supplies the clock for ETWTIME fields; the registry must outlive the decoder. */
etl_decoder *etl_decoder_new(etl_schema_registry *registry, const etl_trace *trace);
void etl_decoder_free(etl_decoder *decoder);

/* Decoder options (etl_decoder_set_flags; 0 by default). */
enum {
    /* Ignore the schemas the trace carries — TraceLogging metadata in records, EventSource manifests
     * (event 0xFFFE), KernelTraceControl MetaData/EventInfo blobs — so only user-supplied, bundled and
     * built-in kernel schemas decode. Used to check that an exported manifest alone decodes a trace. */
    ETL_DECODER_NO_TRACE_SCHEMAS = 0x1,
    /* Keep no process table: events come with process_id 0xFFFFFFFF and no process_name, and etl_decoder_learn
     * learns nothing. For output that shows the record header's PID only (etl_writer_format.header_ids_only):
     * the table, and the first pass that fills it, would change nothing there. */
    ETL_DECODER_NO_PROCESSES = 0x2
};
/* Set before the first etl_decode_event / etl_decoder_learn. */
void etl_decoder_set_flags(etl_decoder *decoder, unsigned flags);

/* Feeds the stateful sources (EventSource manifests, embedded metadata, process table) with the record and
 * decodes it. The result stays valid until the next call on the same decoder. Returns ETL_OK or
 * ETL_ERR_NOMEM. */
int etl_decode_event(etl_decoder *decoder, const etl_event_record *record, const etl_decoded_event **out);

/* etl_decode_event in two steps, so that a caller can drop events on what the first step gives before paying
 * for their fields: etl_decode_begin feeds the stateful sources and fills everything but the fields, message
 * and process (schema, status when there is no schema, provider and event names — all a filter looks at);
 * then exactly one of etl_decode_complete (the event as etl_decode_event returns it) or etl_decode_skip (the
 * event is not wanted: the decoder's state and statistics end as after etl_decode_event, fields and message
 * are not rendered, process_id is 0xFFFFFFFF; a payload that does not fit its schema is still decoded, so its
 * status and error are those of etl_decode_event). Each returns ETL_OK or ETL_ERR_NOMEM. */
int etl_decode_begin(etl_decoder *decoder, const etl_event_record *record, const etl_decoded_event **out);
int etl_decode_complete(etl_decoder *decoder, const etl_decoded_event **out);
int etl_decode_skip(etl_decoder *decoder, const etl_decoded_event **out);

/* Optional first pass over the same records, in the same order, before any etl_decode_event: learns process
 * context (process names with their lifetimes, TID → PID) without producing output, so the decoding pass can
 * name processes whose rundown comes only at the end of the trace (WPR traces). Decodes only kernel
 * Process/Thread and Microsoft-Windows-Kernel-Process events and feeds no other source; invalidates the last
 * decoded event. Returns ETL_OK or ETL_ERR_NOMEM. */
int etl_decoder_learn(etl_decoder *decoder, const etl_event_record *record);
/* What etl_decode_event does to the decoder's state for a record, without decoding it for output: the schemas the
 * trace carries (EventSource manifests, embedded TDH) and the process table. After it, later records decode as
 * if this one had gone through etl_decode_event (the parallel pipeline, src/pipeline/parallel.h). */
int etl_decoder_observe(etl_decoder *decoder, const etl_event_record *record);
/* What `from` learnt about processes (etl_decoder_learn, or decoding) becomes `to`'s, as if `to` had seen the
 * same records: one first pass serves every worker of the parallel pipeline. ETL_OK or ETL_ERR_NOMEM. */
int etl_decoder_copy_processes(etl_decoder *to, const etl_decoder *from);

typedef struct etl_decode_stats {
    uint64_t decoded;
    uint64_t no_schema;
    uint64_t decode_errors;
    uint64_t by_source[ETL_SOURCE_COUNT];
    uint64_t extra_payload;     /* decoded OK with bytes after the last property (counted in `decoded` too) */
    uint64_t trace_schemas_lost;/* schemas the trace carries that were refused or never completed (reported) */
} etl_decode_stats;

const etl_decode_stats *etl_decoder_get_stats(const etl_decoder *decoder);

/* Where the decoder reports schemas the trace carries and that are lost (an in-trace EventSource manifest
 * refused by the manifest parser, broken off by a lost chunk, or never completed): warnings with the file and
 * offset of the event that showed it. */
void etl_decoder_set_diagnostic(etl_decoder *decoder, etl_diagnostic_fn fn, void *ctx);
/* After the last record: reports what is still incomplete (manifests whose last chunks never came). */
void etl_decoder_finish(etl_decoder *decoder);

#ifdef __cplusplus
}
#endif

#endif /* ETL_ETL_SCHEMA_H */
