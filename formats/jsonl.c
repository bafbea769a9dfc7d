/* JSON Lines: one JSON object per event, one event per line. Members, always in this order:
 *   time, timestamp, provider, provider_guid, event, id, version, level, task, opcode, keywords, pid, tid,
 *   cpu, process, activity_id, related_activity_id, source[, schema_version], status, fields[, extra_payload]
 *   [, payload][, error][, message]
 * `fields` maps names (schema order) to rendered values (strings); arrays become JSON arrays and structs
 * objects, following the decoder's BEGIN/END markers. `payload` is the hex of the undecoded bytes;
 * `extra_payload` the hex of the bytes after the last property of an event that decoded; `message` the
 * schema's event message with its inserts (XML's RenderingInfo/Message), when the schema has one.
 * Strings are escaped per RFC 8259 and malformed UTF-8 becomes U+FFFD, so every line is valid JSON. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl_diff.h"
#include "format_util.h"

#define MAX_NESTING 64

static void put_string(fmt_buf *tb, const char *value)
{
    etl_textbuf_putc(tb, '"');
    const unsigned char *s = (const unsigned char *)(value ? value : "");
    for (;;) {
        size_t run = 0;  /* printable ASCII that needs no escape goes in as one block */
        while (s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\') run++;
        etl_textbuf_append(tb, (const char *)s, run);
        s += run;
        if (*s == '\0') break;
        uint32_t cp;
        size_t used = etl_utf8_decode(s, strlen((const char *)s), &cp);
        switch (cp) {
        case '"': etl_textbuf_puts(tb, "\\\""); break;
        case '\\': etl_textbuf_puts(tb, "\\\\"); break;
        case '\n': etl_textbuf_puts(tb, "\\n"); break;
        case '\r': etl_textbuf_puts(tb, "\\r"); break;
        case '\t': etl_textbuf_puts(tb, "\\t"); break;
        case '\b': etl_textbuf_puts(tb, "\\b"); break;
        case '\f': etl_textbuf_puts(tb, "\\f"); break;
        default:
            if (cp < 0x20)
                etl_textbuf_printf(tb, "\\u%04X", (unsigned)cp);
            else if (cp == 0xFFFD)
                fmt_buf_put_codepoint(tb, cp);
            else
                etl_textbuf_append(tb, (const char *)s, used);
        }
        s += used;
    }
    etl_textbuf_putc(tb, '"');
}

static void put_member(fmt_buf *tb, const char *key, const char *value)
{
    etl_textbuf_puts(tb, ",\"");
    etl_textbuf_puts(tb, key);
    etl_textbuf_puts(tb, "\":");
    if (value)
        put_string(tb, value);
    else
        etl_textbuf_puts(tb, "null");
}

static void put_number(fmt_buf *tb, const char *key, uint64_t value)
{
    char num[FMT_INT_CAP];
    etl_textbuf_puts(tb, ",\"");
    etl_textbuf_puts(tb, key);
    etl_textbuf_puts(tb, "\":");
    etl_textbuf_puts(tb, fmt_u64(value, num));
}

/* The nested `fields` object. Markers that do not match the open container are ignored, and whatever is
 * still open at the end is closed, so the output is valid whatever the decoder delivered. */
static void put_fields(fmt_buf *tb, const etl_decoded_event *ev)
{
    char open[MAX_NESTING];  /* '{' or '[' per open container */
    int first[MAX_NESTING];
    int top = 0, skipped = 0;
    open[0] = '{';
    first[0] = 1;
    etl_textbuf_puts(tb, ",\"fields\":{");
    for (size_t i = 0; i < ev->field_count; i++) {
        const etl_field *f = &ev->fields[i];
        int begins = f->kind == ETL_FIELD_STRUCT_BEGIN || f->kind == ETL_FIELD_ARRAY_BEGIN;
        if (f->kind == ETL_FIELD_STRUCT_END || f->kind == ETL_FIELD_ARRAY_END) {
            char want = f->kind == ETL_FIELD_STRUCT_END ? '{' : '[';
            if (skipped > 0) {
                skipped--;
            } else if (top > 0 && open[top] == want) {
                etl_textbuf_putc(tb, want == '{' ? '}' : ']');
                top--;
            }
            continue;
        }
        if (begins && (skipped > 0 || top + 1 >= MAX_NESTING)) {
            skipped++;  /* too deep: its members are written flat into the current container */
            continue;
        }
        if (!first[top]) etl_textbuf_putc(tb, ',');
        first[top] = 0;
        if (open[top] == '{') {
            put_string(tb, f->name);
            etl_textbuf_putc(tb, ':');
        }
        if (begins) {
            top++;
            open[top] = f->kind == ETL_FIELD_STRUCT_BEGIN ? '{' : '[';
            first[top] = 1;
            etl_textbuf_putc(tb, open[top]);
        } else {
            put_string(tb, f->value);
        }
    }
    while (top > 0) etl_textbuf_putc(tb, open[top--] == '{' ? '}' : ']');
    etl_textbuf_putc(tb, '}');
}

static int jsonl_event(void *state, const etl_decoded_event *ev)
{
    fmt_line_writer *st = state;
    fmt_buf *tb = &st->line;
    const etl_event_record *r = ev->record;
    const etl_event_header *h = &r->header;
    char text[64], guid[40];

    char num[FMT_INT_CAP];
    if (st->options.stable) {  /* relative time (or none), no raw timestamp */
        etl_textbuf_puts(tb, "{\"time\":");
        if (st->options.stable & ETL_STABLE_NO_TIME) etl_textbuf_puts(tb, "null");
        else put_string(tb, etl_stable_time(h->timestamp, text));
    } else {
        fmt_event_time(&st->clock, h->timestamp, 7, text, sizeof text);
        etl_textbuf_puts(tb, "{\"time\":");
        put_string(tb, text);
        etl_textbuf_puts(tb, ",\"timestamp\":");
        etl_textbuf_puts(tb, fmt_i64(r->raw_timestamp, num));
    }
    put_member(tb, "provider", ev->provider_name);
    put_member(tb, "provider_guid", fmt_guid(&ev->record->header.provider_id, guid));
    put_member(tb, "event", ev->event_name);
    put_number(tb, "id", h->descriptor.id);
    put_number(tb, "version", h->descriptor.version);
    put_number(tb, "level", h->descriptor.level);
    put_number(tb, "task", h->descriptor.task);
    put_number(tb, "opcode", h->descriptor.opcode);
    put_member(tb, "keywords", fmt_hex64(h->descriptor.keyword, num));
    put_number(tb, "pid", h->process_id);
    put_number(tb, "tid", h->thread_id);
    if (!st->options.stable) put_number(tb, "cpu", r->buffer_context.processor_index);
    put_member(tb, "process", ev->process_name);
    put_member(tb, "activity_id", fmt_guid(&h->activity_id, guid));
    etl_guid related;
    put_member(tb, "related_activity_id",
               fmt_related_activity(r, &related) ? fmt_guid(&related, guid) : NULL);
    put_member(tb, "source", etl_schema_source_name(ev->source));
    /* decoded with the nearest older version the schema knows: the fields of the newer version may be missing */
    if (ev->info && ev->info->descriptor.version != h->descriptor.version)
        put_number(tb, "schema_version", ev->info->descriptor.version);
    put_member(tb, "status", ev->status == ETL_DECODE_OK ? "ok" : ev->status == ETL_DECODE_NO_SCHEMA ? "no_schema"
                                                                                                   : "error");
    if (ev->status == ETL_DECODE_NO_SCHEMA) {
        etl_textbuf_puts(tb, ",\"fields\":{}");
        etl_textbuf_puts(tb, ",\"payload\":\"");
        fmt_buf_put_hex(tb, r->user_data, r->user_data_length, 1);
        etl_textbuf_putc(tb, '"');
    } else {
        put_fields(tb, ev);
        if (ev->status == ETL_DECODE_OK && ev->undecoded_length) {
            /* bytes after the last property (a newer event version); tracerpt drops them, we keep them */
            etl_textbuf_puts(tb, ",\"extra_payload\":\"");
            fmt_buf_put_hex(tb, ev->undecoded, ev->undecoded_length, 1);
            etl_textbuf_putc(tb, '"');
        }
        if (ev->status == ETL_DECODE_ERROR) {
            etl_textbuf_puts(tb, ",\"payload\":\"");
            fmt_buf_put_hex(tb, ev->undecoded, ev->undecoded_length, 1);
            etl_textbuf_putc(tb, '"');
            put_member(tb, "error", ev->error ? ev->error : "");
        }
    }
    if (ev->message) put_member(tb, "message", ev->message);
    etl_textbuf_puts(tb, "}\n");
    return fmt_buf_flush(tb, &st->sink);
}

/* --stable: a first line that makes the file a baseline for `etlconv diff` (etl_baseline_from_json). */
static int jsonl_begin(void *state)
{
    fmt_line_writer *st = state;
    if (!st->options.stable || !st->options.stable_options) return 0;
    etl_textbuf_puts(&st->line, "{\"etlconv_baseline\":1");
    put_member(&st->line, "options", st->options.stable_options);
    etl_textbuf_puts(&st->line, "}\n");
    return fmt_buf_flush(&st->line, &st->sink);
}

const etl_writer_format etl_writer_jsonl = {
    "jsonl", "json|ndjson", ".jsonl", "JSON Lines: one object per event with nested fields",
    fmt_line_writer_create, jsonl_begin, jsonl_event, fmt_end_nothing, fmt_line_writer_destroy,
};
