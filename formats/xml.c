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
} xml_state;

#define PUTL(st, literal) FMT_PUT_LIT(&(st)->out, literal)

static void put(xml_state *st, const char *text)
{
    fmt_put_str(&st->out, text);
}

static void put_indent(xml_state *st, int depth)
{
    static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
    if (depth > (int)sizeof tabs - 1) depth = (int)sizeof tabs - 1;
    etl_textbuf_append(&st->out, tabs, (size_t)depth);
}

/* Escaped text (element content or attribute value): forbidden characters → U+FFFD, then libxml2's
 * attribute escaping (formats/xml_escape.c, proven equal to libxml2 by tests/test_xml_escape.c). */
static void put_text(xml_state *st, const char *text)
{
    fmt_xml_escape(&st->out, text);
}

/* <name>text</name> on its own line; name is a literal. */
#define put_element(st, depth, name, text) put_element_n(st, depth, name, sizeof(name) - 1, text)
static void put_element_n(xml_state *st, int depth, const char *name, size_t name_length, const char *text)
{
    put_indent(st, depth);
    PUTL(st, "<");
    etl_textbuf_append(&st->out, name, name_length);
    PUTL(st, ">");
    put_text(st, text);
    PUTL(st, "</");
    etl_textbuf_append(&st->out, name, name_length);
    PUTL(st, ">\n");
}

/* \t\t<name>value</name>\n; name is a literal. */
#define put_number_element(st, name, value) \
    do { \
        PUTL(st, "\t\t<" name ">"); \
        fmt_put_u64(&(st)->out, value); \
        PUTL(st, "</" name ">\n"); \
    } while (0)

/* name="value" with a leading space, for numeric attributes; name is a literal. */
#define put_number_attribute(st, name, value) \
    do { \
        PUTL(st, " " name "=\""); \
        fmt_put_u64(&(st)->out, value); \
        PUTL(st, "\""); \
    } while (0)

static void put_hex(xml_state *st, const uint8_t *bytes, size_t length)
{
    fmt_buf_put_hex(&st->out, bytes, length, 1);
}

static void write_system(xml_state *st, const etl_decoded_event *ev)
{
    const etl_event_record *r = ev->record;
    const etl_event_header *h = &r->header;
    char text[64];

    /* Provider Guid is EVENT_RECORD's ProviderId, which for classic events is the event-class GUID
     * (docs/tracerpt.md: the header event shows {68fdd900-...}, EventTrace's class). */
    PUTL(st, "\t<System>\n\t\t<Provider");
    const char *provider = fmt_known_provider(ev);
    if (provider) {
        PUTL(st, " Name=\"");
        put_text(st, provider);
        PUTL(st, "\"");
    }
    PUTL(st, " Guid=\"");
    fmt_put_guid(&st->out, &ev->record->header.provider_id);
    PUTL(st, "\" />\n");
    put_number_element(st, "EventID", h->descriptor.id);
    put_number_element(st, "Version", h->descriptor.version);
    put_number_element(st, "Level", h->descriptor.level);
    put_number_element(st, "Task", h->descriptor.task);
    put_number_element(st, "Opcode", h->descriptor.opcode);
    char num[FMT_INT_CAP];
    PUTL(st, "\t\t<Keywords>");
    put(st, fmt_hex64(h->descriptor.keyword, num));
    PUTL(st, "</Keywords>\n");
    if (st->options.stable & ETL_STABLE_NO_TIME) {
        PUTL(st, "\t\t<TimeCreated");  /* --mask time: no time at all */
    } else if (st->options.raw_timestamps) {
        PUTL(st, "\t\t<TimeCreated RawTime=\"");
        put(st, fmt_i64(r->raw_timestamp, num));
    } else {
        fmt_event_time(&st->clock, h->timestamp, 9, text, sizeof text);
        PUTL(st, "\t\t<TimeCreated SystemTime=\"");
        put(st, text);
    }
    if (!(st->options.stable & ETL_STABLE_NO_TIME)) PUTL(st, "\"");
    PUTL(st, " />\n\t\t<Correlation ActivityID=\"");
    fmt_put_guid(&st->out, &h->activity_id);
    etl_guid related;
    if (fmt_related_activity(r, &related)) {
        PUTL(st, "\" RelatedActivityID=\"");
        fmt_put_guid(&st->out, &related);
    }
    PUTL(st, "\" />\n\t\t<Execution");
    put_number_attribute(st, "ProcessID", h->process_id);
    put_number_attribute(st, "ThreadID", h->thread_id);
    if (!st->options.stable) {  /* machine facts: not in stable output */
        put_number_attribute(st, "ProcessorID", r->buffer_context.processor_index);
        put_number_attribute(st, "KernelTime", fmt_cpu_ms(&st->options, r, h->kernel_time));
        put_number_attribute(st, "UserTime", fmt_cpu_ms(&st->options, r, h->user_time));
    }
    PUTL(st, " />\n");
    if (ev->channel_name && ev->channel_name[0])
        put_element(st, 2, "Channel", ev->channel_name);
    else
        PUTL(st, "\t\t<Channel />\n");
    PUTL(st, "\t\t<Computer />\n");
    size_t sid_size;
    const uint8_t *sid = etl_record_sid(r, &sid_size);
    if (sid) {  /* one SID text for payload and header: ConvertSidToStringSid's form */
        PUTL(st, "\t\t<Security UserID=\"");
        etl_render_sid(&st->out, sid, sid_size);
        PUTL(st, "\" />\n");
    }
    PUTL(st, "\t</System>\n");
}

/* Decoded fields: structs become ComplexData, array elements repeat their Data name. */
static void write_fields(xml_state *st, const etl_decoded_event *ev)
{
    int depth = 2;
    for (size_t i = 0; i < ev->field_count; i++) {
        const etl_field *f = &ev->fields[i];
        switch (f->kind) {
        case ETL_FIELD_VALUE:
            put_indent(st, depth);
            PUTL(st, "<Data Name=\"");
            put_text(st, f->name);
            PUTL(st, "\">");
            put_text(st, f->value);
            PUTL(st, "</Data>\n");
            break;
        case ETL_FIELD_STRUCT_BEGIN:
            put_indent(st, depth);
            PUTL(st, "<ComplexData Name=\"");
            put_text(st, f->name);
            PUTL(st, "\">\n");
            depth++;
            break;
        case ETL_FIELD_STRUCT_END:
            if (depth > 2) depth--;
            put_indent(st, depth);
            PUTL(st, "</ComplexData>\n");
            break;
        case ETL_FIELD_ARRAY_BEGIN:
        case ETL_FIELD_ARRAY_END:
            break;
        }
    }
    while (depth-- > 2) { /* unbalanced markers from a truncated decode: close what was opened */
        put_indent(st, depth);
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
    put_element(st, 2, "Message", message);
    PUTL(st, "\t</DebugData>\n");
}

/* A WPP message decoded with its TMF: the same DebugData, filled in (FileLine is the TMF's file_line tag). */
static void write_wpp_debug_data(xml_state *st, const etl_decoded_event *ev)
{
    char num[FMT_INT_CAP];
    const etl_wpp_event *w = ev->wpp;
    put(st, "\t<DebugData>\n");
    put_element(st, 2, "SequenceNumber", fmt_u64(ev->record->wpp_sequence, num));
    put_element(st, 2, "FlagsName", w->flags);
    put_element(st, 2, "LevelName", w->level);
    put_element(st, 2, "Component", w->component);
    put_element(st, 2, "SubComponent", "");
    put_element(st, 2, "FileLine", w->tag);
    put_element(st, 2, "Function", w->function);
    put_element(st, 2, "Message", ev->message ? ev->message : "");
    put(st, "\t</DebugData>\n");
}

static void write_payload(xml_state *st, const etl_decoded_event *ev)
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
        put_element(st, 1, "Data", ev->fields[0].value);
        return;
    }
    /* -lr also shows the bytes after the last property of an event that decoded (newer versions) */
    int extra = ev->undecoded_length > 0 && (ev->status == ETL_DECODE_ERROR || st->options.best_effort);
    if (ev->field_count == 0 && !extra) {
        PUTL(st, "\t<EventData />\n");
        return;
    }
    PUTL(st, "\t<EventData>\n");
    write_fields(st, ev);
    if (extra) {
        PUTL(st, "\t\t<Data Name=\"win:ExtraPayload\" Type=\"win:ErrorMoreData\">0x");
        put_hex(st, ev->undecoded, ev->undecoded_length);
        PUTL(st, "</Data>\n");
    }
    PUTL(st, "\t</EventData>\n");
}

static void write_rendering(xml_state *st, const etl_decoded_event *ev)
{
    const char *task = fmt_task_display(ev);
    const char *provider = fmt_known_provider(ev);
    etl_guid class_guid;
    int classic = fmt_class_guid(ev, &class_guid);
    int any = (ev->level_name && *ev->level_name) || (ev->opcode_name && *ev->opcode_name) ||
              ev->keyword_name_count > 0 || task || ev->message || (ev->channel_name && *ev->channel_name) ||
              provider || (classic && ev->task_name);
    if (!any) return;
    PUTL(st, "\t<RenderingInfo Culture=\"en-US\">\n");
    if (ev->level_name && *ev->level_name) put_element(st, 2, "Level", ev->level_name);
    if (ev->opcode_name && *ev->opcode_name) put_element(st, 2, "Opcode", ev->opcode_name);
    if (ev->keyword_name_count > 0 && ev->keyword_names) {
        PUTL(st, "\t\t<Keywords>\n");
        for (uint32_t i = 0; i < ev->keyword_name_count; i++) put_element(st, 3, "Keyword", ev->keyword_names[i]);
        PUTL(st, "\t\t</Keywords>\n");
    }
    if (task) put_element(st, 2, "Task", task);
    if (ev->message) put_element(st, 2, "Message", ev->message);
    if (ev->channel_name && *ev->channel_name) put_element(st, 2, "Channel", ev->channel_name);
    if (provider) put_element(st, 2, "Provider", provider);
    if (classic && ev->task_name && *ev->task_name) {
        PUTL(st, "\t\t<EventName xmlns=\"" TRACE_NS "\">");
        put_text(st, ev->task_name);
        PUTL(st, "</EventName>\n");
    }
    PUTL(st, "\t</RenderingInfo>\n");
}

static int flush(xml_state *st)
{
    return fmt_buf_flush(&st->out, &st->sink);
}

static int xml_event(void *state, const etl_decoded_event *ev)
{
    xml_state *st = state;
    PUTL(st, "<Event xmlns=\"" EVENT_NS "\">\n");
    write_system(st, ev);
    write_payload(st, ev);
    write_rendering(st, ev);
    etl_guid class_guid;
    if (fmt_class_guid(ev, &class_guid)) {
        PUTL(st, "\t<ExtendedTracingInfo xmlns=\"" TRACE_NS "\">\n\t\t<EventGuid>");
        fmt_put_guid(&st->out, &class_guid);
        PUTL(st, "</EventGuid>\n\t</ExtendedTracingInfo>\n");
    }
    PUTL(st, "</Event>\n");
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
    return st;
}

const etl_writer_format etl_writer_xml = {
    "xml", "dumpfile", ".xml", "tracerpt dumpfile.xml layout (default)",
    xml_create, xml_begin, xml_event, xml_end, xml_destroy,
};
