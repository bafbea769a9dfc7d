/* JSON Lines: one JSON object per event, one event per line. Members, always in this order:
 *   time, timestamp, provider, provider_guid, event, id, version, level, task, opcode, keywords,
 *   keyword_names, pid, tid, cpu, process, activity_id, related_activity_id, source[, schema_version], status,
 *   fields[, extra_payload][, payload][, error][, message][, wpp], schema
 * `fields` maps names (schema order) to typed values (json_value.c: numbers, booleans, strings, arrays,
 * objects; a mapped value is followed by "NAME.value" with its number). `keywords` is the 64-bit mask as a
 * number, `keyword_names` the names the schema gives its bits. `schema` is the layout version (1), last so
 * that existing readers matching the line start keep working. `payload` is the hex of the undecoded bytes;
 * `extra_payload` the hex of the bytes after the last property of an event that decoded; `message` the
 * schema's event message with its inserts. --json-bigint string writes every 64-bit integer (and
 * `timestamp`, `keywords`) as a decimal string. Every line is valid JSON (RFC 8259). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl_diff.h"
#include "fast_text.h"
#include "json_value.h"

static void put_member(fmt_buf *tb, const char *key, const char *value)
{
    etl_textbuf_puts(tb, ",\"");
    etl_textbuf_puts(tb, key);
    etl_textbuf_puts(tb, "\":");
    if (value)
        fmt_json_string(tb, value);
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

void fmt_jsonl_line(fmt_buf *tb, fmt_clock *clock, const etl_writer_options *options, const etl_decoded_event *ev)
{
    const etl_event_record *r = ev->record;
    const etl_event_header *h = &r->header;
    char text[64], guid[40];

    int wide = options->json_bigint_string;
    char num[FMT_INT_CAP];
    if (options->stable) {  /* relative time (or none), no raw timestamp */
        etl_textbuf_puts(tb, "{\"time\":");
        if (options->stable & ETL_STABLE_NO_TIME) etl_textbuf_puts(tb, "null");
        else fmt_json_string(tb, etl_stable_time(h->timestamp, text));
    } else {
        fmt_event_time(clock, h->timestamp, 7, text, sizeof text);
        etl_textbuf_puts(tb, "{\"time\":");
        fmt_json_string(tb, text);
        etl_textbuf_puts(tb, ",\"timestamp\":");
        if (wide) etl_textbuf_putc(tb, '"');
        etl_textbuf_puts(tb, fmt_i64(r->raw_timestamp, num));
        if (wide) etl_textbuf_putc(tb, '"');
    }
    put_member(tb, "provider", ev->provider_name);
    put_member(tb, "provider_guid", fmt_guid(&ev->record->header.provider_id, guid));
    put_member(tb, "event", ev->event_name);
    put_number(tb, "id", h->descriptor.id);
    put_number(tb, "version", h->descriptor.version);
    put_number(tb, "level", h->descriptor.level);
    put_number(tb, "task", h->descriptor.task);
    put_number(tb, "opcode", h->descriptor.opcode);
    etl_textbuf_puts(tb, ",\"keywords\":");
    fmt_json_u64(tb, h->descriptor.keyword, wide);
    etl_textbuf_puts(tb, ",\"keyword_names\":[");
    for (uint32_t k = 0; k < ev->keyword_name_count; k++) {
        if (k) etl_textbuf_putc(tb, ',');
        fmt_json_string(tb, ev->keyword_names[k]);
    }
    etl_textbuf_putc(tb, ']');
    put_number(tb, "pid", h->process_id);
    put_number(tb, "tid", h->thread_id);
    if (!options->stable) put_number(tb, "cpu", r->buffer_context.processor_index);
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
        etl_textbuf_puts(tb, ",\"fields\":{");
        fmt_json_members(tb, ev, 0, ev->field_count, wide ? FMT_JSON_WIDE_STRINGS : 0);
        etl_textbuf_putc(tb, '}');
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
    if (ev->wpp) { /* WPP message decoded with its TMF: what tracerpt's DebugData and tracefmt's %!...! show */
        const etl_wpp_event *w = ev->wpp;
        etl_textbuf_puts(tb, ",\"wpp\":{\"component\":");
        fmt_json_string(tb, w->component ? w->component : "");
        put_member(tb, "tag", w->tag);
        put_member(tb, "file", w->file);
        put_number(tb, "line", w->line);
        put_member(tb, "function", w->function);
        put_member(tb, "level", w->level);
        put_member(tb, "flags", w->flags);
        put_number(tb, "sequence", r->wpp_sequence);
        etl_textbuf_putc(tb, '}');
    }
    etl_textbuf_puts(tb, ",\"schema\":" FMT_JSON_SCHEMA_TEXT "}\n");
}

static int jsonl_event(void *state, const etl_decoded_event *ev)
{
    fmt_line_writer *st = state;
    fmt_jsonl_line(&st->line, &st->clock, &st->options, ev);
    return fmt_flush_event(&st->line, &st->sink, &st->options);
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
    "jsonl", "json|ndjson", ".jsonl", "JSON Lines: one object per event with typed, nested fields",
    fmt_line_writer_create, jsonl_begin, jsonl_event, fmt_end_nothing, fmt_line_writer_destroy,
};
