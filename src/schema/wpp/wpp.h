/* WPP software tracing: the TMF model (statements, arguments, enumerations), the store every TMF source
 * (files, folders, TRACE_FORMAT_SEARCH_PATH, PDB annotations) feeds, and the decoder of trace-message
 * records. docs/schemas.md §5 describes the formats; the item types are those of the WDK's defaultwpp.ini. */
#ifndef ETL_SCHEMA_WPP_H
#define ETL_SCHEMA_WPP_H

#include <stddef.h>
#include <stdint.h>

#include "decode/render.h"
#include "etl/etl_schema.h"
#include "util/textbuf.h"

/* Bounds on what a TMF may ask for: memory follows these, never a count read from a file. */
#define WPP_MAX_LINE 65536u          /* longer lines are refused (with their line number) */
#define WPP_MAX_ARGS 128u            /* arguments of one statement (WPP generates at most a few dozen) */
#define WPP_MAX_LIST_ITEMS 256u      /* names of one ItemList/ItemSet */
#define WPP_MAX_ENUM_ENTRIES 4096u   /* entries of one #enumv block */
#define WPP_MAX_STATEMENTS 1000000u  /* statements in one store (all files together) */
#define WPP_MAX_FILE_BYTES (64u << 20)

/* Item types (defaultwpp.ini): how many bytes an argument takes and how it is rendered. */
typedef enum wpp_item {
    WPP_ITEM_UNKNOWN = 0,
    WPP_ITEM_CHAR, WPP_ITEM_UCHAR, WPP_ITEM_SHORT, WPP_ITEM_USHORT, WPP_ITEM_LONG, WPP_ITEM_ULONG,
    WPP_ITEM_LONGLONG, WPP_ITEM_ULONGLONG, WPP_ITEM_LONGLONGX, WPP_ITEM_LONGLONGXX, WPP_ITEM_LONGLONGO,
    WPP_ITEM_PTR, WPP_ITEM_DOUBLE,
    WPP_ITEM_STRING, WPP_ITEM_WSTRING, WPP_ITEM_RSTRING, WPP_ITEM_RWSTRING, WPP_ITEM_PSTRING, WPP_ITEM_PWSTRING,
    WPP_ITEM_SID, WPP_ITEM_GUID,
    WPP_ITEM_NTSTATUS, WPP_ITEM_WINERROR, WPP_ITEM_HRESULT, WPP_ITEM_NDIS_STATUS, WPP_ITEM_NDIS_OID,
    WPP_ITEM_IPADDR, WPP_ITEM_IPV6ADDR, WPP_ITEM_PORT, WPP_ITEM_CHAR4,
    WPP_ITEM_TIMESTAMP, WPP_ITEM_WAITTIME, WPP_ITEM_TIMEDELTA,
    WPP_ITEM_LISTBYTE, WPP_ITEM_LISTSHORT, WPP_ITEM_LISTLONG,
    WPP_ITEM_SETBYTE, WPP_ITEM_SETSHORT, WPP_ITEM_SETLONG,
    WPP_ITEM_ENUM, WPP_ITEM_FLAGSENUM, WPP_ITEM_HEXDUMP,
    WPP_ITEM_COUNT
} wpp_item;

/* Item type by its TMF name ("ItemLong", "ItemListByte"); WPP_ITEM_UNKNOWN when not a defaultwpp.ini type. */
wpp_item wpp_item_from_name(const char *name, size_t length);
const char *wpp_item_name(wpp_item item);

typedef struct wpp_arg {
    char *expression;     /* the C expression WPP logged ("status"), the field name */
    char *type_name;      /* as written ("ItemLong", or an unknown name) */
    wpp_item item;
    uint16_t number;      /* %N in the format string (10, 11, ...) */
    uint16_t list_count;  /* ItemList/ItemSet names, ItemEnum/ItemFlagsEnum: 1 (the enum name) */
    char **list;
} wpp_arg;

typedef struct wpp_statement {
    etl_guid guid;        /* message GUID (the TMF file's) */
    uint16_t number;      /* message number */
    char *tag;            /* <file>_<ext><line>: the #typev name */
    char *format;         /* the format string, without its quotes */
    char *level, *flags, *function;  /* from the // trailer; "" when absent */
    uint32_t component;   /* index into the store's components */
    uint32_t line_number; /* source line, from the tag ("Device_c104" → 104); 0 when none */
    uint16_t arg_count;
    wpp_arg *args;
} wpp_statement;

typedef struct wpp_component {
    etl_guid guid;
    char *name;           /* "findneedle", "BthPS3" */
    char *source_file;    /* SRC= ("L2CAP.c"), "" when absent */
    uint32_t origin;      /* the file (TMF, PDB) it was read from: wpp_store_begin_origin */
} wpp_component;

/* A provider's control GUID (what tracelog -guid enables) from a PDB's "TMC:" annotation: the GUID, the
 * WPP_DEFINE_CONTROL_GUID name and its WPP_DEFINE_BIT flag names (flag i is bit 1 << i). */
#define WPP_MAX_CONTROLS 4096u
#define WPP_MAX_CONTROL_FLAGS 64u
typedef struct wpp_control {
    etl_guid guid;
    char *name;
    char **flags;
    uint16_t flag_count;
    uint32_t origin;      /* the PDB whose statements it controls */
} wpp_control;

typedef struct wpp_enum_entry {
    uint64_t value;
    char *name;
} wpp_enum_entry;

typedef struct wpp_enum {
    char *name;
    uint32_t entry_count;
    wpp_enum_entry *entries;
} wpp_enum;

typedef struct wpp_store wpp_store;

wpp_store *wpp_store_new(void);
void wpp_store_free(wpp_store *store);

typedef etl_tmf_load_stats wpp_load_stats;

/* Parses TMF text (one file, or the text of PDB annotations); `origin` names it in errors. Malformed
 * statements are skipped and counted in stats->refused; the first problem goes to err as "ORIGIN:LINE:
 * reason". Returns ETL_OK, ETL_ERR_FORMAT (something was refused; the rest is loaded) or ETL_ERR_NOMEM. */
int wpp_store_parse(wpp_store *store, const char *text, size_t length, const char *origin,
                    wpp_load_stats *stats, etl_error *err);

const wpp_statement *wpp_store_find(const wpp_store *store, const etl_guid *guid, uint16_t number);

/* Starts a new origin: components and controls added from now on belong to it (one per TMF file or PDB). */
void wpp_store_begin_origin(wpp_store *store);
/* Adds a control GUID of the current origin (a second one with the same GUID is ignored). ETL_ERR_NOMEM, or
 * ETL_ERR_FORMAT beyond WPP_MAX_CONTROLS; flag names past WPP_MAX_CONTROL_FLAGS are dropped. */
int wpp_store_add_control(wpp_store *store, const etl_guid *guid, const char *name, const char *const *flags,
                          size_t flag_count);
const wpp_control *wpp_store_control(const wpp_store *store, const etl_guid *guid);
size_t wpp_store_control_count(const wpp_store *store);
const wpp_control *wpp_store_control_at(const wpp_store *store, size_t index);
/* Adds an enumeration (as an #enumv block would) unless one of that name is known; entries are copied. */
int wpp_store_add_enum(wpp_store *store, const char *name, const wpp_enum_entry *entries, uint32_t count);

/* MESSAGE_TRACE_HEADER option flags (evntrace.h) that say which identifier the record carries. */
#define WPP_TRACE_MESSAGE_GUID 0x0002u
#define WPP_TRACE_MESSAGE_COMPONENTID 0x0004u

/* How a trace message found its statement. */
typedef enum wpp_match {
    WPP_MATCH_NONE = 0,
    WPP_MATCH_MESSAGE_GUID,   /* (message GUID, number): the TMF file's GUID, the normal case */
    WPP_MATCH_CONTROL_GUID,   /* the record carries a control GUID: the one statement of that number among
                                 the statements of the PDB that declared the control (TMC:) */
    WPP_MATCH_COMPONENT_ID,   /* TRACE_MESSAGE_COMPONENTID: 4 bytes instead of the GUID, the first 4 bytes
                                 (Data1) of the GUID the caller passed: the one statement of that number
                                 whose message GUID starts with them */
    WPP_MATCH_AMBIGUOUS       /* control GUID or component id: several statements have that number */
} wpp_match;

/* The statement of a trace message: by message GUID, else by control GUID; with `component_id` set (the
 * record had TRACE_MESSAGE_COMPONENTID and no GUID: guid->data1 holds the id) by component id only. */
const wpp_statement *wpp_store_lookup(const wpp_store *store, const etl_guid *guid, uint16_t number,
                                      int component_id, wpp_match *how);
const wpp_component *wpp_store_component(const wpp_store *store, uint32_t index);
const wpp_enum *wpp_store_enum(const wpp_store *store, const char *name);
size_t wpp_store_statement_count(const wpp_store *store);
/* Statements in load order (index < wpp_store_statement_count). */
const wpp_statement *wpp_store_statement_at(const wpp_store *store, size_t index);

/* The registry owns the WPP store (created on first use by a loader). */
wpp_store *etl_schema_registry_wpp(etl_schema_registry *registry, int create);
const wpp_store *etl_schema_registry_wpp_const(const etl_schema_registry *registry);

/* ---- decoding ---------------------------------------------------------------------------------------- */

typedef struct wpp_decoder wpp_decoder;

wpp_decoder *wpp_decoder_new(void);
void wpp_decoder_free(wpp_decoder *d);

/* True when the record is a WPP trace message: a classic MESSAGE_TRACE record, or an EVENT_HEADER record
 * with EVENT_HEADER_FLAG_TRACE_MESSAGE (message GUID in the provider id, message number in the event id). */
int wpp_is_trace_message(const etl_event_record *record);

/* Decodes a trace message with its statement: fills ev->fields, ev->message, ev->wpp, ev->provider_name,
 * ev->event_name, ev->task_name (function), ev->level_name, ev->status (OK, or ERROR when the arguments do not
 * fit: `error` says which) and ev->source. Returns 0 when no statement matches (ev untouched), 1 when
 * decoded, ETL_ERR_NOMEM. */
int wpp_decode(wpp_decoder *d, const wpp_store *store, const etl_event_record *record,
               const etl_render_context *ctx, etl_decoded_event *ev);

/* ---- rendering shared by the decoder and the tracefmt writer ----------------------------------------- */

/* One printf conversion as WPP format strings write it inside !...! ("08x", "-10s", "I64X", "p"). */
typedef struct wpp_spec {
    char flags[6];
    int width, precision;   /* -1 when absent */
    int wide64;             /* I64 / ll */
    char conversion;        /* d i u x X o c s S p e f g ...; 's' when absent */
} wpp_spec;

/* Parses "!spec!" text (without the bangs); a bad spec gives conversion 's'. */
void wpp_spec_parse(const char *text, size_t length, wpp_spec *spec);

/* Appends `text` padded/cut as the spec's width and precision say (%-10s, %.3s). */
void wpp_put_text(etl_textbuf *out, const char *text, const wpp_spec *spec);
/* Appends an integer as the spec says (d/i signed at `bits` width; u x X o c; p as a zero-padded pointer of
 * `bits`/4 hex digits; s as decimal). */
void wpp_put_integer(etl_textbuf *out, uint64_t value, unsigned bits, int is_signed, const wpp_spec *spec);

/* Expands a tracefmt prefix (TRACE_FORMAT_PREFIX syntax: %1..%9 standard items with !spec!, %!FUNC!,
 * %!LEVEL!, %!FLAGS!, %!COMPNAME!, %!FILE!, %!LINE!) for one decoded event. `time_text` is %4; `scratch` is
 * working space reused between calls. */
void wpp_expand_prefix(etl_textbuf *out, const char *prefix, const etl_decoded_event *ev, const char *time_text,
                       etl_textbuf *scratch);

/* tracefmt's default prefix: "[CPU]PID.TID::time [component]". */
#define WPP_DEFAULT_PREFIX "[%9!d!]%8!04X!.%3!04X!::%4!s! [%1!s!]"

#endif
