/* tracerpt's dumpfile.xml layout (docs/tracerpt.md §1.3): root <Events>, one <Event> per record with
 * System, one payload form (EventData | bare Data | DebugData for WPP without TMF | BinaryEventData |
 * ProcessingErrorData), RenderingInfo
 * and, for classic events, ExtendedTracingInfo. Tab-indented, LF line ends, UTF-8 without declaration.
 *
 * Text goes through libxml2's attribute serializer (it escapes & < > " and CR/LF/TAB as character
 * references), after characters XML 1.0 forbids (C0 controls, U+FFFE/U+FFFF, malformed UTF-8) have been
 * replaced by U+FFFD, so every output is well-formed. The structure is written directly so that empty
 * elements keep tracerpt's "<Channel />" spelling, which xmlTextWriter cannot produce. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_time.h"
#include "decode/render.h"
#include "etl/etl_diff.h"
#include "format_util.h"
#include "fast_text.h"
#include "text_cache.h"
#include "xml_escape.h"
#include "util/le.h"

#define EVENT_NS "http://schemas.microsoft.com/win/2004/08/events/event"
#define TRACE_NS "http://schemas.microsoft.com/win/2004/08/events/trace"
/* tracerpt's ErrorCode for a payload that does not match its schema (R7 in docs/tracerpt.md). */
#define PROCESSING_ERROR_CODE 15005

typedef struct xml_state {
    etl_sink sink;
    etl_writer_options options;
    fmt_clock clock;
    fmt_buf out;            /* events, flushed to the sink in blocks of FMT_FLUSH_BLOCK */
    fmt_text_cache *cache;  /* the static parts of each event kind (text_cache.h) */
    /* KernelTime and UserTime of the event before: they change seldom (most events of a thread in a row) */
    struct {
        fmt_cpu_memo memo;
        size_t length;
        char text[64];      /* "\" KernelTime=\"K\" UserTime=\"U" (at most 59 bytes) */
    } cpu;
    /* ProcessID and ThreadID of the event before: the same for most events (runs of one thread) */
    struct {
        uint32_t pid, tid;
        int valid;
        size_t length;
        char text[48];      /* "P\" ThreadID=\"T" (at most 32 bytes) */
    } ids;
} xml_state;

/* The static segments of an event (built by build_static, copied by xml_event). */
enum {
    SEG_HEAD,          /* <Event> up to the TimeCreated attribute's name */
    SEG_CHANNEL,       /* Channel and Computer */
    SEG_RENDER_HEAD,   /* RenderingInfo up to Task (empty: no static RenderingInfo) */
    SEG_RENDER_TAIL,   /* after the Message: Channel, Provider, EventName, the closing tag */
    SEG_TAIL,          /* ExtendedTracingInfo and </Event> */
    SEGMENTS
};

/* Room for the per-event text of the System block around its static segments: time (FMT_TIME_CAP), two
 * GUIDs, five numbers of at most 20 digits and the literals between them. */
#define SYSTEM_ROOM 512

#define PUTL(st, literal) FMT_PUT_LIT(&(st)->out, literal)

static void put(xml_state *st, const char *text)
{
    fmt_put_str(&st->out, text);
}

static void put_indent(fmt_buf *b, int depth)
{
    static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
    if (depth > (int)sizeof tabs - 1) depth = (int)sizeof tabs - 1;
    etl_textbuf_append(b, tabs, (size_t)depth);
}

/* Escaped text (element content or attribute value): forbidden characters → U+FFFD, then libxml2's
 * attribute escaping (formats/xml_escape.c, proven equal to libxml2 by tests/test_xml_escape.c). */
static void put_text(xml_state *st, const char *text)
{
    fmt_xml_escape(&st->out, text);
}

/* <name>text</name> on its own line; name is a literal. */
#define put_element(b, depth, name, text) put_element_n(b, depth, name, sizeof(name) - 1, text)
static void put_element_n(fmt_buf *b, int depth, const char *name, size_t name_length, const char *text)
{
    put_indent(b, depth);
    FMT_PUT_LIT(b, "<");
    etl_textbuf_append(b, name, name_length);
    FMT_PUT_LIT(b, ">");
    fmt_xml_escape(b, text);
    FMT_PUT_LIT(b, "</");
    etl_textbuf_append(b, name, name_length);
    FMT_PUT_LIT(b, ">\n");
}

/* \t\t<name>value</name>\n; name is a literal. */
#define put_number_element(b, name, value) \
    do { \
        FMT_PUT_LIT(b, "\t\t<" name ">"); \
        fmt_put_u64(b, value); \
        FMT_PUT_LIT(b, "</" name ">\n"); \
    } while (0)

static void put_hex(xml_state *st, const uint8_t *bytes, size_t length)
{
    fmt_buf_put_hex(&st->out, bytes, length, 1);
}

/* The part of the System block fixed by the event's schema and descriptor (SEG_HEAD, SEG_CHANNEL). */
static void build_system(xml_state *st, const etl_decoded_event *ev, fmt_buf *t, uint32_t *ends)
{
    const etl_event_header *h = &ev->record->header;
    /* Provider Guid is EVENT_RECORD's ProviderId, which for classic events is the event-class GUID
     * (docs/tracerpt.md: the header event shows {68fdd900-...}, EventTrace's class). */
    FMT_PUT_LIT(t, "<Event xmlns=\"" EVENT_NS "\">\n\t<System>\n\t\t<Provider");
    const char *provider = fmt_known_provider(ev);
    if (provider) {
        FMT_PUT_LIT(t, " Name=\"");
        fmt_xml_escape(t, provider);
        FMT_PUT_LIT(t, "\"");
    }
    FMT_PUT_LIT(t, " Guid=\"");
    fmt_put_guid(t, &h->provider_id);
    FMT_PUT_LIT(t, "\" />\n");
    put_number_element(t, "EventID", h->descriptor.id);
    put_number_element(t, "Version", h->descriptor.version);
    put_number_element(t, "Level", h->descriptor.level);
    put_number_element(t, "Task", h->descriptor.task);
    put_number_element(t, "Opcode", h->descriptor.opcode);
    char num[FMT_INT_CAP];
    FMT_PUT_LIT(t, "\t\t<Keywords>");
    fmt_put_str(t, fmt_hex64(h->descriptor.keyword, num));
    FMT_PUT_LIT(t, "</Keywords>\n");
    if (st->options.stable & ETL_STABLE_NO_TIME)
        FMT_PUT_LIT(t, "\t\t<TimeCreated");  /* --mask time: no time at all */
    else if (st->options.raw_timestamps)
        FMT_PUT_LIT(t, "\t\t<TimeCreated RawTime=\"");
    else
        FMT_PUT_LIT(t, "\t\t<TimeCreated SystemTime=\"");
    ends[SEG_HEAD] = (uint32_t)t->length;
    if (ev->channel_name && ev->channel_name[0])
        put_element(t, 2, "Channel", ev->channel_name);
    else
        FMT_PUT_LIT(t, "\t\t<Channel />\n");
    FMT_PUT_LIT(t, "\t\t<Computer />\n");
    ends[SEG_CHANNEL] = (uint32_t)t->length;
}

/* "\" KernelTime=\"K\" UserTime=\"U" at p, from the text of the event before when its ticks, file (whose
 * timer resolution converts them) and header flags are the same. */
static char *write_cpu_times(xml_state *st, const etl_event_record *r, char *p)
{
    if (fmt_cpu_memo_update(&st->cpu.memo, &st->options, r)) {
        char *q = st->cpu.text;
        FMT_W_LIT(q, "\" KernelTime=\"");
        q = fmt_w_u64(q, st->cpu.memo.kernel_ms);
        FMT_W_LIT(q, "\" UserTime=\"");
        q = fmt_w_u64(q, st->cpu.memo.user_ms);
        st->cpu.length = (size_t)(q - st->cpu.text);
    }
    memcpy(p, st->cpu.text, sizeof st->cpu.text); /* room: SYSTEM_ROOM */
    return p + st->cpu.length;
}

static void write_system(xml_state *st, const etl_decoded_event *ev, const fmt_static_text *s)
{
    const etl_event_record *r = ev->record;
    const etl_event_header *h = &r->header;
    size_t head_length, channel_length;
    const char *head = fmt_static_part(s, SEG_HEAD, &head_length);
    const char *channel = fmt_static_part(s, SEG_CHANNEL, &channel_length);
    char *p = fmt_put_begin(&st->out, head_length + channel_length + SYSTEM_ROOM);
    if (!p) return;
    p = fmt_w_mem(p, head, head_length);
    if (!(st->options.stable & ETL_STABLE_NO_TIME)) {
        if (st->options.raw_timestamps)
            p = fmt_w_i64(p, r->raw_timestamp);
        else
            p = fmt_w_time(&st->clock, h->timestamp, 9, p);
        *p++ = '"';
    }
    FMT_W_LIT(p, " />\n\t\t<Correlation ActivityID=\"");
    p = fmt_w_guid(p, &h->activity_id);
    etl_guid related;
    if (r->extended_data_count && fmt_related_activity(r, &related)) {
        FMT_W_LIT(p, "\" RelatedActivityID=\"");
        p = fmt_w_guid(p, &related);
    }
    FMT_W_LIT(p, "\" />\n\t\t<Execution ProcessID=\"");
    if (!st->ids.valid || st->ids.pid != h->process_id || st->ids.tid != h->thread_id) {
        char *q = fmt_w_u64(st->ids.text, h->process_id);
        FMT_W_LIT(q, "\" ThreadID=\"");
        q = fmt_w_u64(q, h->thread_id);
        st->ids.length = (size_t)(q - st->ids.text);
        st->ids.pid = h->process_id, st->ids.tid = h->thread_id, st->ids.valid = 1;
    }
    memcpy(p, st->ids.text, sizeof st->ids.text); /* room: SYSTEM_ROOM */
    p += st->ids.length;
    if (!st->options.stable) {  /* machine facts: not in stable output */
        FMT_W_LIT(p, "\" ProcessorID=\"");
        p = fmt_w_u64(p, r->buffer_context.processor_index);
        p = write_cpu_times(st, r, p);
    }
    FMT_W_LIT(p, "\" />\n");
    p = fmt_w_mem(p, channel, channel_length);
    size_t sid_size;
    const uint8_t *sid = r->extended_data_count ? etl_record_sid(r, &sid_size) : NULL;
    if (!sid) {
        FMT_W_LIT(p, "\t</System>\n");
        fmt_put_end(&st->out, p);
        return;
    }
    fmt_put_end(&st->out, p);
    /* one SID text for payload and header: ConvertSidToStringSid's form */
    PUTL(st, "\t\t<Security UserID=\"");
    etl_render_sid(&st->out, sid, sid_size);
    PUTL(st, "\" />\n");
    PUTL(st, "\t</System>\n");
}

/* Room for one <Data> of a cached name besides its escaped value: indent, the padded copy of the tag (up to
 * 32 bytes past its end) and "</Data>\n". */
#define DATA_ROOM (16 + 32 + 8)
/* The room reserved at once for the fields (grown as needed): most events fit, one reserve per event. */
#define FIELDS_ROOM 4096

/* "\t<EventData>\n" and the decoded fields: structs become ComplexData, array elements repeat their Data
 * name. The usual field, whose opening tag "\t\t<Data Name=\"NAME\">" is cached (escape_name), is written
 * through a local pointer: the tag in 16-byte blocks, the value scanned once and copied as is when it needs
 * no escaping. */
static void write_fields(xml_state *st, const etl_decoded_event *ev, const fmt_static_text *s)
{
    static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
    int depth = 2;
    fmt_static_names names = fmt_static_names_of(s, ev);
    char *limit, *p = fmt_room(&st->out, FIELDS_ROOM, &limit);
    if (!p) return;
    FMT_W_LIT(p, "\t<EventData>\n");
    /* no fields: `fields` may be NULL, and NULL + 0 is undefined */
    const etl_field *f = ev->fields, *end = f ? f + ev->field_count : f;
    for (; f < end; f++) {
        size_t open_length;
        const char *open;
        if (f->kind == ETL_FIELD_VALUE && (open = fmt_static_name(&names, f, &open_length)) != NULL) {
            const char *value = f->value ? f->value : "";
            int clean;
            size_t value_length = fmt_xml_scan(value, &clean);
            if (value_length > SIZE_MAX / 8) break; /* need cannot wrap: open_length is a part of the cached text */
            size_t need = open_length + value_length * FMT_XML_ESCAPE_GROWTH + DATA_ROOM;
            if ((size_t)(limit - p) <= need) {
                fmt_put_end(&st->out, p);
                if (!(p = fmt_room(&st->out, need + FIELDS_ROOM, &limit))) return;
            }
            if (depth != 2) { /* the cached tag carries two tabs: other depths write their own */
                size_t indent = depth > 0 && depth < (int)sizeof tabs - 1 ? (size_t)depth : sizeof tabs - 1;
                p = fmt_w_mem(p, tabs, indent);
                open += 2, open_length -= 2;
            }
            p = fmt_w_padded(p, open, open_length);
            p = clean ? fmt_w_short(p, value, value_length) : fmt_xml_escape_to(p, value, value_length);
            FMT_W_LIT(p, "</Data>\n");
            continue;
        }
        fmt_put_end(&st->out, p); /* the rest goes through the buffer's own appends */
        switch (f->kind) {
        case ETL_FIELD_VALUE:
            put_indent(&st->out, depth);
            PUTL(st, "<Data Name=\"");
            put_text(st, f->name);
            PUTL(st, "\">");
            put_text(st, f->value);
            PUTL(st, "</Data>\n");
            break;
        case ETL_FIELD_STRUCT_BEGIN:
            put_indent(&st->out, depth);
            PUTL(st, "<ComplexData Name=\"");
            put_text(st, f->name);
            PUTL(st, "\">\n");
            depth++;
            break;
        case ETL_FIELD_STRUCT_END:
            if (depth > 2) depth--;
            put_indent(&st->out, depth);
            PUTL(st, "</ComplexData>\n");
            break;
        default: /* array markers: elements repeat the array's name */
            break;
        }
        if (!(p = fmt_room(&st->out, FIELDS_ROOM, &limit))) return;
    }
    fmt_put_end(&st->out, p);
    while (depth-- > 2) { /* unbalanced markers from a truncated decode: close what was opened */
        put_indent(&st->out, depth);
        PUTL(st, "</ComplexData>\n");
    }
}

/* A WPP message without its TMF, as tracerpt writes it (R2 in docs/tracerpt.md). */
static void write_debug_data(xml_state *st, const etl_event_record *r)
{
    char num[FMT_INT_CAP], guid[40], message[160];
    PUTL(st, "\t<DebugData>\n\t\t<SequenceNumber>");
    put(st, fmt_u64(r->wpp_sequence, num));
    PUTL(st, "</SequenceNumber>\n\t\t<FlagsName></FlagsName>\n\t\t<LevelName></LevelName>\n"
            "\t\t<Component></Component>\n\t\t<SubComponent></SubComponent>\n\t\t<FileLine></FileLine>\n"
            "\t\t<Function></Function>\n");
    fmt_guid(&r->header.provider_id, guid);
    guid[37] = '\0';  /* tracerpt prints this GUID without braces */
    snprintf(message, sizeof message, "Unknown(%3u): GUID=%s (No Format Information found).",
             (unsigned)r->header.descriptor.id, guid + 1);
    put_element(&st->out, 2, "Message", message);
    PUTL(st, "\t</DebugData>\n");
}

/* A WPP message decoded with its TMF: the same DebugData, filled in (FileLine is the TMF's file_line tag). */
static void write_wpp_debug_data(xml_state *st, const etl_decoded_event *ev)
{
    char num[FMT_INT_CAP];
    const etl_wpp_event *w = ev->wpp;
    put(st, "\t<DebugData>\n");
    put_element(&st->out, 2, "SequenceNumber", fmt_u64(ev->record->wpp_sequence, num));
    put_element(&st->out, 2, "FlagsName", w->flags);
    put_element(&st->out, 2, "LevelName", w->level);
    put_element(&st->out, 2, "Component", w->component);
    put_element(&st->out, 2, "SubComponent", "");
    put_element(&st->out, 2, "FileLine", w->tag);
    put_element(&st->out, 2, "Function", w->function);
    put_element(&st->out, 2, "Message", ev->message ? ev->message : "");
    put(st, "\t</DebugData>\n");
}

static void write_payload(xml_state *st, const etl_decoded_event *ev, const fmt_static_text *s)
{
    const etl_event_record *r = ev->record;
    if (ev->wpp) {
        write_wpp_debug_data(st, ev);
        return;
    }
    if (ev->status == ETL_DECODE_NO_SCHEMA && r->kind == ETL_KIND_MESSAGE) {
        write_debug_data(st, r);
        return;
    }
    if (ev->status == ETL_DECODE_NO_SCHEMA) {
        PUTL(st, "\t<BinaryEventData>");
        put_hex(st, r->user_data, r->user_data_length);
        PUTL(st, "</BinaryEventData>\n");
        return;
    }
    if (ev->status == ETL_DECODE_ERROR && !st->options.best_effort) {
        char code[64];
        snprintf(code, sizeof code, "\t\t<ErrorCode>%d</ErrorCode>\n", PROCESSING_ERROR_CODE);
        PUTL(st, "\t<ProcessingErrorData>\n");
        put(st, code);
        PUTL(st, "\t\t<DataItemName />\n\t\t<EventPayload>");
        put_hex(st, r->user_data, r->user_data_length);
        PUTL(st, "</EventPayload>\n\t</ProcessingErrorData>\n");
        return;
    }
    if (ev->string_only && ev->field_count > 0 && ev->fields[0].kind == ETL_FIELD_VALUE) {
        put_element(&st->out, 1, "Data", ev->fields[0].value);
        return;
    }
    /* -lr also shows the bytes after the last property of an event that decoded (newer versions) */
    int extra = ev->undecoded_length > 0 && (ev->status == ETL_DECODE_ERROR || st->options.best_effort);
    if (ev->field_count == 0 && !extra) {
        PUTL(st, "\t<EventData />\n");
        return;
    }
    write_fields(st, ev, s); /* from <EventData> on */
    if (extra) {
        PUTL(st, "\t\t<Data Name=\"win:ExtraPayload\" Type=\"win:ErrorMoreData\">0x");
        put_hex(st, ev->undecoded, ev->undecoded_length);
        PUTL(st, "</Data>\n");
    }
    PUTL(st, "\t</EventData>\n");
}

/* RenderingInfo without its Message (SEG_RENDER_HEAD, SEG_RENDER_TAIL; both empty when the schema gives no
 * names) and ExtendedTracingInfo with </Event> (SEG_TAIL). */
static void build_rendering(const etl_decoded_event *ev, fmt_buf *t, uint32_t *ends)
{
    const char *task = fmt_task_display(ev);
    const char *provider = fmt_known_provider(ev);
    etl_guid class_guid;
    int classic = fmt_class_guid(ev, &class_guid);
    int any = (ev->level_name && *ev->level_name) || (ev->opcode_name && *ev->opcode_name) ||
              ev->keyword_name_count > 0 || task || (ev->channel_name && *ev->channel_name) || provider ||
              (classic && ev->task_name);
    if (any) {
        FMT_PUT_LIT(t, "\t<RenderingInfo Culture=\"en-US\">\n");
        if (ev->level_name && *ev->level_name) put_element(t, 2, "Level", ev->level_name);
        if (ev->opcode_name && *ev->opcode_name) put_element(t, 2, "Opcode", ev->opcode_name);
        if (ev->keyword_name_count > 0 && ev->keyword_names) {
            FMT_PUT_LIT(t, "\t\t<Keywords>\n");
            for (uint32_t i = 0; i < ev->keyword_name_count; i++) put_element(t, 3, "Keyword", ev->keyword_names[i]);
            FMT_PUT_LIT(t, "\t\t</Keywords>\n");
        }
        if (task) put_element(t, 2, "Task", task);
    }
    ends[SEG_RENDER_HEAD] = (uint32_t)t->length;
    if (any) {
        if (ev->channel_name && *ev->channel_name) put_element(t, 2, "Channel", ev->channel_name);
        if (provider) put_element(t, 2, "Provider", provider);
        if (classic && ev->task_name && *ev->task_name) {
            FMT_PUT_LIT(t, "\t\t<EventName xmlns=\"" TRACE_NS "\">");
            fmt_xml_escape(t, ev->task_name);
            FMT_PUT_LIT(t, "</EventName>\n");
        }
        FMT_PUT_LIT(t, "\t</RenderingInfo>\n");
    }
    ends[SEG_RENDER_TAIL] = (uint32_t)t->length;
    if (classic) {
        FMT_PUT_LIT(t, "\t<ExtendedTracingInfo xmlns=\"" TRACE_NS "\">\n\t\t<EventGuid>");
        fmt_put_guid(t, &class_guid);
        FMT_PUT_LIT(t, "</EventGuid>\n\t</ExtendedTracingInfo>\n");
    }
    FMT_PUT_LIT(t, "</Event>\n");
    ends[SEG_TAIL] = (uint32_t)t->length;
}

static void build_static(void *state, const etl_decoded_event *ev, fmt_buf *t, uint32_t *ends)
{
    build_system(state, ev, t, ends);
    build_rendering(ev, t, ends);
}

/* \t\t<Message>text</Message>\n at p (room: 32 + FMT_XML_ESCAPE_GROWTH * length). */
static char *write_message(char *p, const char *text, size_t length)
{
    FMT_W_LIT(p, "\t\t<Message>");
    p = fmt_xml_escape_to(p, text, length);
    FMT_W_LIT(p, "</Message>\n");
    return p;
}

/* RenderingInfo (its Message is the event's own text) and the end of the event, through one reservation. */
static void write_rendering(xml_state *st, const etl_decoded_event *ev, const fmt_static_text *s)
{
    size_t head_length, tail_length, end_length;
    const char *head = fmt_static_part(s, SEG_RENDER_HEAD, &head_length);
    const char *tail = fmt_static_part(s, SEG_RENDER_TAIL, &tail_length);
    fmt_static_part(s, SEG_TAIL, &end_length); /* right after SEG_RENDER_TAIL: copied with it */
    const char *message = ev->message;
    size_t message_length = message ? strlen(message) : 0;
    if (message_length > SIZE_MAX / 8) return;
    char *p = fmt_put_begin(&st->out, head_length + tail_length + end_length +
                                          message_length * FMT_XML_ESCAPE_GROWTH + 64);
    if (!p) return;
    if (!message) { /* the three parts follow each other in the cache: one copy */
        p = fmt_w_mem(p, head, head_length + tail_length + end_length);
    } else if (head_length) { /* the schema's RenderingInfo: the Message between its parts */
        p = fmt_w_mem(p, head, head_length);
        p = write_message(p, message, message_length);
        p = fmt_w_mem(p, tail, tail_length + end_length);
    } else { /* no RenderingInfo from the schema (then its tail is empty too): one for the Message */
        FMT_W_LIT(p, "\t<RenderingInfo Culture=\"en-US\">\n");
        p = write_message(p, message, message_length);
        FMT_W_LIT(p, "\t</RenderingInfo>\n");
        p = fmt_w_mem(p, tail, tail_length + end_length);
    }
    fmt_put_end(&st->out, p);
}

/* The cached per-property text: the opening tag of its Data elements, with the indent of depth 2. */
static void escape_name(fmt_buf *t, const char *name)
{
    FMT_PUT_LIT(t, "\t\t<Data Name=\"");
    fmt_xml_escape(t, name);
    FMT_PUT_LIT(t, "\">");
}

static int flush(xml_state *st)
{
    return fmt_buf_flush(&st->out, &st->sink);
}

static int xml_event(void *state, const etl_decoded_event *ev)
{
    xml_state *st = state;
    const fmt_static_text *s = fmt_text_cache_get(st->cache, ev);
    if (!s) return -1;
    write_system(st, ev, s);
    write_payload(st, ev, s);
    write_rendering(st, ev, s);
    return fmt_flush_event(&st->out, &st->sink, &st->options);
}

static int xml_begin(void *state)
{
    xml_state *st = state;
    PUTL(st, "<Events>\n");
    return flush(st);
}

static int xml_end(void *state, const etl_run_totals *totals)
{
    (void)totals;
    xml_state *st = state;
    PUTL(st, "</Events>\n");
    return flush(st);
}

static void xml_destroy(void *state)
{
    xml_state *st = state;
    if (!st) return;
    etl_textbuf_free(&st->out);
    fmt_text_cache_free(st->cache);
    free(st);
}

static void *xml_create(const etl_sink *sink, const etl_writer_options *options)
{
    xml_state *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    st->sink = *sink;
    st->options = *options;
    st->clock.local = options->local_time;
    st->clock.stable = options->stable != 0;
    memset(&st->out, 0, sizeof st->out);
    st->cache = fmt_text_cache_new(SEGMENTS, build_static, escape_name, st);
    if (!st->cache) {
        free(st);
        return NULL;
    }
    return st;
}

const etl_writer_format etl_writer_xml = {
    "xml", "dumpfile", ".xml", "tracerpt dumpfile.xml layout (default)",
    xml_create, xml_begin, xml_event, xml_end, xml_destroy,
    .header_ids_only = 1,
};
