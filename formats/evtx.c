/* EVTX (Windows XML Event Log) output, -of EVTX: what tracerpt -of EVTX gives, readable by Event Viewer,
 * Get-WinEvent and the EVTX tools (python-evtx, libevtx's evtxexport, the evtx crate, chainsaw, hayabusa).
 *
 * Each event is one record whose BinXml (src/evtx/) holds the <Event> layout Windows writes for converted
 * ETW events — System (Provider Name/Guid, EventID, Version, Level, Task, Opcode, Keywords, TimeCreated,
 * EventRecordID, Correlation, Execution, Channel, Computer, Security), then the payload as etlconv's XML
 * writes it (EventData with typed Data values and ComplexData for structs, BinaryEventData for events
 * without a schema, ProcessingErrorData for payloads that do not fit their schema, DebugData for WPP
 * messages without TMF), then RenderingInfo (level/opcode/task/keyword names, message) and, for classic
 * events, ExtendedTracingInfo — so nothing the XML output shows is lost. One template per layout and chunk.
 *
 * Streaming: one 64 KiB chunk in memory. The file header (chunk count, next record id, clean flag) is
 * known only at the end: with options->sink_write_at it is written first as "dirty" and rewritten in place
 * at the end; without (stdout pipe, .gz) chunks are spooled to a temporary file and everything is written
 * at the end. The output is deterministic (no wall-clock time in it). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl_diff.h"
#include "evtx/evtx_binxml.h"
#include "evtx/evtx_chunk.h"
#include "evtx/evtx_computer.h"
#include "evtx/evtx_value.h"
#include "format_util.h"

#define EVENT_NS "http://schemas.microsoft.com/win/2004/08/events/event"
#define TRACE_NS "http://schemas.microsoft.com/win/2004/08/events/trace"
#define PROCESSING_ERROR_CODE 15005  /* tracerpt's ErrorCode for a payload that does not fit its schema */
#define MAX_NESTING 64
#define NO_CAP SIZE_MAX
#define LAST_RESORT_PAYLOAD 32768    /* bytes of payload kept when nothing else makes an event fit */

typedef struct evtx_state {
    etl_sink sink;
    etl_writer_options options;
    evtx_chunk *chunk;
    evtx_event event;
    FILE *spool;           /* chunks, when the destination cannot take the header last */
    uint64_t next_id;      /* record id of the next event */
    uint64_t chunks;       /* chunks written */
    uint64_t truncated;    /* events shortened to fit one record */
    evtx_computers computers;  /* per input file: the machine its SystemConfig rundown names, or "" */
    int failed;
} evtx_state;

/* ---- values ----------------------------------------------------------------------------------------- */

static void value_int(evtx_event *ev, uint8_t type, uint64_t v, int width)
{
    size_t b = evtx_value_begin(ev);
    char bytes[8];
    for (int i = 0; i < width; i++) bytes[i] = (char)(v >> (8 * i));
    etl_textbuf_append(&ev->values, bytes, (size_t)width);
    evtx_value_end(ev, b, type);
}

static void value_string(evtx_event *ev, const char *text, size_t cap)
{
    size_t b = evtx_value_begin(ev);
    evtx_put_utf16(&ev->values, text, cap == NO_CAP ? 0x7FFF : cap / 2);
    evtx_value_end(ev, b, EVTX_STRING);
}

static void value_binary(evtx_event *ev, const uint8_t *p, size_t n, size_t cap)
{
    size_t b = evtx_value_begin(ev);
    etl_textbuf_append(&ev->values, (const char *)p, n < cap ? n : cap);
    evtx_value_end(ev, b, EVTX_BINARY);
}

static void value_guid(evtx_event *ev, const etl_guid *g)
{
    size_t b = evtx_value_begin(ev);
    evtx_put_guid(&ev->values, g);
    evtx_value_end(ev, b, EVTX_GUID);
}

static void value_null(evtx_event *ev)
{
    evtx_value_end(ev, evtx_value_begin(ev), EVTX_NULL);
}

/* <name>value</name> with a number. */
static void element_int(evtx_event *ev, evtx_name name, uint8_t type, uint64_t v, int width)
{
    evtx_open(ev, name);
    evtx_subst(ev, type, 0);
    value_int(ev, type, v, width);
    evtx_end(ev);
}

static void element_string(evtx_event *ev, evtx_name name, const char *text, size_t cap)
{
    evtx_open(ev, name);
    evtx_subst(ev, EVTX_STRING, 0);
    value_string(ev, text, cap);
    evtx_end(ev);
}

static void empty_element(evtx_event *ev, evtx_name name)
{
    evtx_open(ev, name);
    evtx_end(ev);
}

/* ---- System ----------------------------------------------------------------------------------------- */

static void write_system(evtx_state *st, const etl_decoded_event *ev)
{
    evtx_event *e = &st->event;
    const etl_event_record *r = ev->record;
    const etl_event_header *h = &r->header;
    evtx_open(e, EVTX_N_SYSTEM);

    evtx_open(e, EVTX_N_PROVIDER);
    const char *provider = fmt_known_provider(ev);
    evtx_attr_subst(e, EVTX_N_NAME, EVTX_STRING, 1);
    if (provider) value_string(e, provider, NO_CAP);
    else value_null(e);
    evtx_attr_subst(e, EVTX_N_GUID, EVTX_GUID, 0);
    value_guid(e, &h->provider_id);
    evtx_end(e);

    element_int(e, EVTX_N_EVENTID, EVTX_UINT16, h->descriptor.id, 2);
    element_int(e, EVTX_N_VERSION, EVTX_UINT8, h->descriptor.version, 1);
    element_int(e, EVTX_N_LEVEL, EVTX_UINT8, h->descriptor.level, 1);
    element_int(e, EVTX_N_TASK, EVTX_UINT16, h->descriptor.task, 2);
    element_int(e, EVTX_N_OPCODE, EVTX_UINT8, h->descriptor.opcode, 1);
    element_int(e, EVTX_N_KEYWORDS, EVTX_HEXINT64, h->descriptor.keyword, 8);

    /* --stable: the stable view's time is relative to the first event (a FILETIME near 1601-01-01);
     * --mask time: none */
    evtx_open(e, EVTX_N_TIMECREATED);
    if (!(st->options.stable & ETL_STABLE_NO_TIME)) {
        evtx_attr_subst(e, EVTX_N_SYSTEMTIME, EVTX_FILETIME, 0);
        value_int(e, EVTX_FILETIME, (uint64_t)h->timestamp, 8);
    }
    evtx_end(e);
    element_int(e, EVTX_N_EVENTRECORDID, EVTX_UINT64, st->next_id, 8);

    /* Windows leaves out a zero ActivityID; readers drop optional attributes whose value is null */
    evtx_open(e, EVTX_N_CORRELATION);
    evtx_attr_subst(e, EVTX_N_ACTIVITYID, EVTX_GUID, 1);
    if (etl_guid_is_zero(&h->activity_id)) value_null(e);
    else value_guid(e, &h->activity_id);
    etl_guid related;
    evtx_attr_subst(e, EVTX_N_RELATEDACTIVITYID, EVTX_GUID, 1);
    if (fmt_related_activity(r, &related)) value_guid(e, &related);
    else value_null(e);
    evtx_end(e);

    /* KernelTime/UserTime: the header's raw tick counts, as Windows' own ETL→EVTX conversion stores them */
    evtx_open(e, EVTX_N_EXECUTION);
    static const evtx_name exec_names[] = {EVTX_N_PROCESSID, EVTX_N_THREADID, EVTX_N_PROCESSORID,
                                           EVTX_N_KERNELTIME, EVTX_N_USERTIME};
    const uint32_t exec_values[] = {h->process_id, h->thread_id, r->buffer_context.processor_index,
                                    h->kernel_time, h->user_time};
    for (int i = 0; i < (st->options.stable ? 2 : 5); i++) {  /* --stable: no machine facts */
        evtx_attr_subst(e, exec_names[i], EVTX_UINT32, 0);
        value_int(e, EVTX_UINT32, exec_values[i], 4);
    }
    evtx_end(e);

    element_string(e, EVTX_N_CHANNEL, ev->channel_name ? ev->channel_name : "", NO_CAP);
    /* tracerpt leaves Computer empty; etlconv names the machine when the file's kernel rundown does */
    const char *computer = r->file_index < st->computers.count ? st->computers.names[r->file_index] : "";
    element_string(e, EVTX_N_COMPUTER, computer, NO_CAP);

    evtx_open(e, EVTX_N_SECURITY);
    size_t sid_size = 0;
    const uint8_t *sid = etl_record_sid(r, &sid_size);
    evtx_attr_subst(e, EVTX_N_USERID, EVTX_SID, 1);
    if (sid) {
        size_t b = evtx_value_begin(e);
        etl_textbuf_append(&e->values, (const char *)sid, sid_size);
        evtx_value_end(e, b, EVTX_SID);
    } else {
        value_null(e);
    }
    evtx_end(e);
    evtx_end(e);  /* System */
}

/* ---- payload ---------------------------------------------------------------------------------------- */

static void write_field_value(evtx_state *st, const etl_decoded_event *ev, const etl_field *f, size_t cap)
{
    evtx_event *e = &st->event;
    uint8_t type = evtx_field_type(f->in_type, f->out_type, f->property ? f->property->map : NULL,
                                   ev->record->pointer_size);
    size_t b = evtx_value_begin(e);
    if (type == EVTX_STRING) {
        evtx_put_utf16(&e->values, f->value, cap == NO_CAP ? 0x7FFF : cap / 2);
    } else {
        type = evtx_encode_text(&e->values, type, f->value);
        if (e->values.length - b > cap) {  /* only strings and binaries are long */
            e->values.length = b + (type == EVTX_BINARY ? cap : cap & ~(size_t)1);
        }
    }
    evtx_value_end(e, b, type);
    evtx_subst(e, type, 0);
}

static void write_fields(evtx_state *st, const etl_decoded_event *ev, size_t cap)
{
    evtx_event *e = &st->event;
    int depth = 0;
    for (size_t i = 0; i < ev->field_count; i++) {
        const etl_field *f = &ev->fields[i];
        switch (f->kind) {
        case ETL_FIELD_VALUE:
            evtx_open(e, EVTX_N_DATA);
            evtx_attr_text(e, EVTX_N_NAME, f->name ? f->name : "");
            write_field_value(st, ev, f, cap);
            evtx_end(e);
            break;
        case ETL_FIELD_STRUCT_BEGIN:
            if (depth == MAX_NESTING) break;
            evtx_open(e, EVTX_N_COMPLEXDATA);
            evtx_attr_text(e, EVTX_N_NAME, f->name ? f->name : "");
            depth++;
            break;
        case ETL_FIELD_STRUCT_END:
            if (depth > 0) {
                evtx_end(e);
                depth--;
            }
            break;
        case ETL_FIELD_ARRAY_BEGIN:
        case ETL_FIELD_ARRAY_END:
            break;
        }
    }
    while (depth-- > 0) evtx_end(e);  /* a truncated decode: close what was opened */
}

/* A WPP message without its TMF, as tracerpt (and the XML writer) show it. */
static void write_debug_data(evtx_state *st, const etl_event_record *r)
{
    evtx_event *e = &st->event;
    char guid[40], message[160];
    evtx_open(e, EVTX_N_DEBUGDATA);
    element_int(e, EVTX_N_SEQUENCENUMBER, EVTX_UINT32, r->wpp_sequence, 4);
    static const evtx_name empty[] = {EVTX_N_FLAGSNAME, EVTX_N_LEVELNAME, EVTX_N_COMPONENT,
                                      EVTX_N_SUBCOMPONENT, EVTX_N_FILELINE, EVTX_N_FUNCTION};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) empty_element(e, empty[i]);
    fmt_guid(&r->header.provider_id, guid);
    guid[37] = '\0';
    snprintf(message, sizeof message, "Unknown(%3u): GUID=%s (No Format Information found).",
             (unsigned)r->header.descriptor.id, guid + 1);
    element_string(e, EVTX_N_MESSAGE, message, NO_CAP);
    evtx_end(e);
}

/* A WPP message decoded with its TMF: the same DebugData, filled in (as the XML writer). */
static void write_wpp_debug_data(evtx_state *st, const etl_decoded_event *ev, size_t cap)
{
    evtx_event *e = &st->event;
    const etl_wpp_event *w = ev->wpp;
    evtx_open(e, EVTX_N_DEBUGDATA);
    element_int(e, EVTX_N_SEQUENCENUMBER, EVTX_UINT32, ev->record->wpp_sequence, 4);
    element_string(e, EVTX_N_FLAGSNAME, w->flags ? w->flags : "", NO_CAP);
    element_string(e, EVTX_N_LEVELNAME, w->level ? w->level : "", NO_CAP);
    element_string(e, EVTX_N_COMPONENT, w->component ? w->component : "", NO_CAP);
    empty_element(e, EVTX_N_SUBCOMPONENT);
    element_string(e, EVTX_N_FILELINE, w->tag ? w->tag : "", NO_CAP);
    element_string(e, EVTX_N_FUNCTION, w->function ? w->function : "", NO_CAP);
    element_string(e, EVTX_N_MESSAGE, ev->message ? ev->message : "", cap);
    evtx_end(e);
}

static void write_binary_element(evtx_event *e, evtx_name name, const uint8_t *p, size_t n, size_t cap)
{
    evtx_open(e, name);
    evtx_subst(e, EVTX_BINARY, 0);
    value_binary(e, p, n, cap);
    evtx_end(e);
}

/* ---- UserData: the manifest template's own element layout (etl_event_info.user_data) ------------------ */

#define USER_DATA_MAX_PROPERTIES 256
#define USER_DATA_MAX_TEXT 1024

/* slot[k]: the field of top-level property k when it is one plain value (not a struct or an array), else -1. */
static int user_data_slots(const etl_decoded_event *ev, int32_t *slot)
{
    uint32_t n = ev->info->top_level_count;
    if (n > USER_DATA_MAX_PROPERTIES || !ev->info->properties) return -1;
    for (uint32_t k = 0; k < n; k++) slot[k] = -1;
    for (size_t i = 0; i < ev->field_count; i++) {
        const etl_field *f = &ev->fields[i];
        if (f->kind != ETL_FIELD_VALUE || f->depth != 0 || f->array_index >= 0 || !f->property) continue;
        ptrdiff_t k = f->property - ev->info->properties;
        if (k >= 0 && (uint32_t)k < n) slot[k] = (int32_t)i;
    }
    return 0;
}

/* The text up to the layout's \x02 separator, NUL-terminated in buf; NULL when too long or unterminated. */
static const char *user_data_item(const char **p, char *buf)
{
    const char *end = strchr(*p, '\x02');
    if (!end || end - *p >= USER_DATA_MAX_TEXT) return NULL;
    memcpy(buf, *p, (size_t)(end - *p));
    buf[end - *p] = '\0';
    *p = end + 1;
    return buf;
}

/* Names readers can take as written: printable ASCII without markup characters (the chunk's name table holds
 * UTF-16 of 8-bit characters). */
static int user_data_name_ok(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++) {
        char c = *s;
        if (c <= ' ' || c > '~' || c == '<' || c == '>' || c == '&' || c == '"' || c == '\'' || c == '=' || c == '/')
            return 0;
    }
    return 1;
}

/* Content text: literal parts and "%N" substitutions of top-level property N's value. */
static int user_data_text(evtx_state *st, const etl_decoded_event *ev, const int32_t *slot, char *text, size_t cap,
                          int emit)
{
    char *p = text;
    while (*p) {
        char *pct = p;
        while (*pct && !(pct[0] == '%' && pct[1] >= '1' && pct[1] <= '9')) pct++;
        if (pct > p && emit) {
            char keep = *pct;
            *pct = '\0';
            evtx_text(&st->event, p);
            *pct = keep;
        }
        if (!*pct) break;
        unsigned long k = strtoul(pct + 1, &p, 10);
        if (k == 0 || k > ev->info->top_level_count || slot[k - 1] < 0) return -1;
        if (emit) write_field_value(st, ev, &ev->fields[slot[k - 1]], cap);
    }
    return 0;
}

/* One pass over the layout: emit == 0 only checks that every item can be written as Windows would. */
static int user_data_walk(evtx_state *st, const etl_decoded_event *ev, const int32_t *slot, size_t cap, int emit)
{
    evtx_event *e = &st->event;
    char name[USER_DATA_MAX_TEXT], text[USER_DATA_MAX_TEXT];
    int depth = 0;
    for (const char *p = ev->info->user_data; *p;) {
        char code = *p++;
        if (code == '\x01') {
            if (!user_data_item(&p, name) || (!emit && !user_data_name_ok(name)) || depth == MAX_NESTING) return -1;
            if (emit) evtx_open_named(e, name);
            depth++;
        } else if (code == '\x03') {
            if (!user_data_item(&p, name) || !user_data_item(&p, text) || (!emit && !user_data_name_ok(name))) return -1;
            if (strchr(text, '%')) return -1;  /* substitutions in attributes: not in any known manifest */
            if (emit) evtx_attr_text_named(e, name, text);
        } else if (code == '\x04') {
            if (!user_data_item(&p, text) || depth == 0 || user_data_text(st, ev, slot, text, cap, emit) != 0) return -1;
        } else if (code == '\x05') {
            if (depth-- == 0) return -1;
            if (emit) evtx_end(e);
        } else {
            return -1;
        }
    }
    return depth == 0 ? 0 : -1;
}

/* <UserData> as the template lays it out; -1 (nothing written) when the layout names a struct or array
 * property or is otherwise out of reach: the event then keeps EventData. */
static int write_user_data(evtx_state *st, const etl_decoded_event *ev, size_t cap)
{
    int32_t slot[USER_DATA_MAX_PROPERTIES];
    if (user_data_slots(ev, slot) != 0 || user_data_walk(st, ev, slot, cap, 0) != 0) return -1;
    evtx_open(&st->event, EVTX_N_USERDATA);
    user_data_walk(st, ev, slot, cap, 1);
    evtx_end(&st->event);
    return 0;
}

static void write_payload(evtx_state *st, const etl_decoded_event *ev, size_t cap)
{
    evtx_event *e = &st->event;
    const etl_event_record *r = ev->record;
    if (ev->wpp) {
        write_wpp_debug_data(st, ev, cap);
        return;
    }
    if (ev->status == ETL_DECODE_NO_SCHEMA && r->kind == ETL_KIND_MESSAGE) {
        write_debug_data(st, r);
        return;
    }
    if (ev->status == ETL_DECODE_NO_SCHEMA) {
        write_binary_element(e, EVTX_N_BINARYEVENTDATA, r->user_data, r->user_data_length, cap);
        return;
    }
    if (ev->status == ETL_DECODE_ERROR && !st->options.best_effort) {
        evtx_open(e, EVTX_N_PROCESSINGERRORDATA);
        element_int(e, EVTX_N_ERRORCODE, EVTX_UINT32, PROCESSING_ERROR_CODE, 4);
        empty_element(e, EVTX_N_DATAITEMNAME);
        write_binary_element(e, EVTX_N_EVENTPAYLOAD, r->user_data, r->user_data_length, cap);
        evtx_end(e);
        return;
    }
    if (ev->status == ETL_DECODE_OK && !ev->string_only && ev->info && ev->info->user_data &&
        write_user_data(st, ev, cap) == 0)
        return;
    evtx_open(e, EVTX_N_EVENTDATA);
    if (ev->string_only && ev->field_count > 0 && ev->fields[0].kind == ETL_FIELD_VALUE) {
        element_string(e, EVTX_N_DATA, ev->fields[0].value, cap);  /* Windows: EventData/Data, no name */
        evtx_end(e);
        return;
    }
    write_fields(st, ev, cap);
    if (ev->undecoded_length > 0 && (ev->status == ETL_DECODE_ERROR || st->options.best_effort)) {
        evtx_open(e, EVTX_N_DATA);
        evtx_attr_text(e, EVTX_N_NAME, "win:ExtraPayload");
        evtx_attr_text(e, EVTX_N_TYPE, "win:ErrorMoreData");
        evtx_subst(e, EVTX_BINARY, 0);
        value_binary(e, ev->undecoded, ev->undecoded_length, cap);
        evtx_end(e);
    }
    evtx_end(e);
}

/* RenderingInfo as forwarded events carry it (names resolved from the schema), and the classic event
 * class; both as the XML writer shows them. */
static void write_rendering(evtx_state *st, const etl_decoded_event *ev, size_t cap)
{
    evtx_event *e = &st->event;
    const char *task = fmt_task_display(ev);
    const char *provider = fmt_known_provider(ev);
    etl_guid class_guid;
    int classic = fmt_class_guid(ev, &class_guid);
    int level = ev->level_name && *ev->level_name, opcode = ev->opcode_name && *ev->opcode_name;
    int channel = ev->channel_name && *ev->channel_name;
    int keywords = ev->keyword_name_count > 0 && ev->keyword_names;
    int event_name = classic && ev->task_name && *ev->task_name;
    if (level || opcode || keywords || task || ev->message || channel || provider || event_name) {
        evtx_open(e, EVTX_N_RENDERINGINFO);
        evtx_attr_text(e, EVTX_N_CULTURE, "en-US");
        if (level) element_string(e, EVTX_N_LEVEL, ev->level_name, NO_CAP);
        if (opcode) element_string(e, EVTX_N_OPCODE, ev->opcode_name, NO_CAP);
        if (keywords) {
            evtx_open(e, EVTX_N_KEYWORDS);
            for (uint32_t i = 0; i < ev->keyword_name_count; i++)
                element_string(e, EVTX_N_KEYWORD, ev->keyword_names[i] ? ev->keyword_names[i] : "", NO_CAP);
            evtx_end(e);
        }
        if (task) element_string(e, EVTX_N_TASK, task, NO_CAP);
        if (ev->message) element_string(e, EVTX_N_MESSAGE, ev->message, cap);
        if (channel) element_string(e, EVTX_N_CHANNEL, ev->channel_name, NO_CAP);
        if (provider) element_string(e, EVTX_N_PROVIDER, provider, NO_CAP);
        if (event_name) {
            evtx_open(e, EVTX_N_EVENTNAME);
            evtx_attr_text(e, EVTX_N_XMLNS, TRACE_NS);
            evtx_subst(e, EVTX_STRING, 0);
            value_string(e, ev->task_name, NO_CAP);
            evtx_end(e);
        }
        evtx_end(e);
    }
    if (classic) {
        evtx_open(e, EVTX_N_EXTENDEDTRACINGINFO);
        evtx_attr_text(e, EVTX_N_XMLNS, TRACE_NS);
        evtx_open(e, EVTX_N_EVENTGUID);
        evtx_subst(e, EVTX_GUID, 0);
        value_guid(e, &class_guid);
        evtx_end(e);
        evtx_end(e);
    }
}

/* level 0: the whole event; 1..3: strings, binaries and the message cut to fewer bytes; 4: System and
 * the first bytes of the payload only. */
static void build(evtx_state *st, const etl_decoded_event *ev, int level)
{
    static const size_t caps[] = {NO_CAP, 8192, 1024, 64};
    evtx_event *e = &st->event;
    evtx_event_reset(e);
    evtx_open(e, EVTX_N_EVENT);
    evtx_attr_text(e, EVTX_N_XMLNS, EVENT_NS);
    write_system(st, ev);
    if (level < 4) {
        write_payload(st, ev, caps[level]);
        write_rendering(st, ev, caps[level]);
    } else {
        const etl_event_record *r = ev->record;
        write_binary_element(e, EVTX_N_BINARYEVENTDATA, r->user_data, r->user_data_length, LAST_RESORT_PAYLOAD);
    }
    evtx_end(e);
}

/* ---- chunks and the file ---------------------------------------------------------------------------- */

static int emit(evtx_state *st, const void *data, size_t n)
{
    if (st->spool) return fwrite(data, 1, n, st->spool) == n ? 0 : -1;
    return st->sink.write(st->sink.ctx, data, n);
}

static int flush_chunk(evtx_state *st)
{
    if (evtx_chunk_records(st->chunk) == 0) return 0;
    if (emit(st, evtx_chunk_finish(st->chunk), EVTX_CHUNK_SIZE) != 0) return -1;
    st->chunks++;
    evtx_chunk_reset(st->chunk, st->next_id);
    return 0;
}

static int evtx_event_cb(void *state, const etl_decoded_event *ev)
{
    evtx_state *st = state;
    if (st->failed) return -1;
    for (int level = 0; level <= 4; level++) {
        build(st, ev, level);
        int64_t written = st->options.stable & ETL_STABLE_NO_TIME ? 0 : ev->record->header.timestamp;
        int rc = st->event.too_large ? 1 : evtx_event_write(&st->event, st->chunk, written);
        if (rc == 1 && !st->event.too_large && evtx_chunk_records(st->chunk) > 0) {
            /* the chunk is full: close it and try again in an empty one (same level) */
            if (flush_chunk(st) != 0) break;
            rc = evtx_event_write(&st->event, st->chunk, written);
        }
        if (rc == 0) {
            if (level > 0) st->truncated++;
            st->next_id++;
            return 0;
        }
        if (rc < 0) break;
    }
    st->failed = 1;
    return -1;
}

static int evtx_begin(void *state)
{
    evtx_state *st = state;
    /* --stable: no machine facts */
    if (st->options.trace && !st->options.stable && evtx_computers_find(st->options.trace, &st->computers) != 0)
        return -1;
    if (!st->options.sink_write_at) {
        st->spool = tmpfile();
        if (!st->spool) {
            fprintf(stderr, "etlconv: EVTX to a stream or compressed file needs a temporary file, and none could "
                            "be created; write to a plain file (-o file.evtx)\n");
            return -1;
        }
        return 0;
    }
    uint8_t header[EVTX_FILE_HEADER_BLOCK];
    evtx_file_header(header, 0, 1, 1);  /* rewritten at the end */
    return st->sink.write(st->sink.ctx, header, sizeof header);
}

static int copy_spool(evtx_state *st)
{
    if (fflush(st->spool) != 0 || fseek(st->spool, 0, SEEK_SET) != 0) return -1;
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, st->spool)) > 0)
        if (st->sink.write(st->sink.ctx, buf, n) != 0) return -1;
    return ferror(st->spool) ? -1 : 0;
}

static int evtx_end_cb(void *state, const etl_run_totals *totals)
{
    (void)totals;
    evtx_state *st = state;
    if (st->failed || flush_chunk(st) != 0) return -1;
    if (st->truncated)
        fprintf(stderr, "etlconv: EVTX: %" PRIu64 " event(s) too large for one EVTX record (64 KiB chunk) were "
                        "written with shortened values\n", st->truncated);
    if (st->chunks > 0xFFFF)
        fprintf(stderr, "etlconv: EVTX: %" PRIu64 " chunks: the file header's 16-bit chunk count says 65535; "
                        "readers that trust it stop at 4 GiB\n", st->chunks);
    uint8_t header[EVTX_FILE_HEADER_BLOCK];
    evtx_file_header(header, st->chunks, st->next_id, 0);
    if (st->spool) {
        if (st->sink.write(st->sink.ctx, header, sizeof header) != 0) return -1;
        return copy_spool(st);
    }
    return st->options.sink_write_at(st->sink.ctx, 0, header, sizeof header);
}

static void evtx_destroy(void *state)
{
    evtx_state *st = state;
    if (!st) return;
    evtx_chunk_free(st->chunk);
    evtx_event_free(&st->event);
    evtx_computers_free(&st->computers);
    if (st->spool) fclose(st->spool);
    free(st);
}

static void *evtx_create(const etl_sink *sink, const etl_writer_options *options)
{
    evtx_state *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    st->sink = *sink;
    st->options = *options;
    st->next_id = 1;
    st->chunk = evtx_chunk_new();
    if (!st->chunk) {
        evtx_destroy(st);
        return NULL;
    }
    return st;
}

const etl_writer_format etl_writer_evtx = {
    "evtx", "", ".evtx", "Windows event log (EVTX), as tracerpt -of EVTX; readable by the EVTX tools",
    evtx_create, evtx_begin, evtx_event_cb, evtx_end_cb, evtx_destroy,
    .header_ids_only = 1,
};
