/* tracefmt's text: one line per event, "<prefix><message>". The prefix is TRACE_FORMAT_PREFIX's syntax
 * (default "[%9!d!]%8!04X!.%3!04X!::%4!s! [%1!s!]" → "[CPU]PID.TID::MM/DD/YYYY-HH:MM:SS.mmm [component]"),
 * expanded by the WPP layer that also expands messages. WPP messages decoded with a TMF print their message;
 * WPP messages without one print tracefmt's own "Unknown( N): GUID=... (No Format Information found)."
 * line; other events print the prefix (component = provider name) and their message, else the event name
 * and its fields. Times are UTC unless --local (tracefmt prints the converting machine's local time). */
#include <stdlib.h>
#include <string.h>

#include "format_util.h"
#include "schema/wpp/wpp.h"

typedef struct tracefmt_state {
    fmt_line_writer base;
    const char *prefix;
    etl_textbuf prefix_scratch;
} tracefmt_state;

static void *tracefmt_create(const etl_sink *sink, const etl_writer_options *options)
{
    tracefmt_state *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    fmt_line_writer *base = fmt_line_writer_create(sink, options);
    if (!base) {
        free(st);
        return NULL;
    }
    st->base = *base;
    free(base);
    st->prefix = options && options->wpp_prefix ? options->wpp_prefix : getenv("TRACE_FORMAT_PREFIX");
    if (!st->prefix || !*st->prefix) st->prefix = WPP_DEFAULT_PREFIX;
    return st;
}

static void tracefmt_destroy(void *state)
{
    tracefmt_state *st = state;
    if (!st) return;
    etl_textbuf_free(&st->base.line);
    etl_textbuf_free(&st->base.scratch);
    etl_textbuf_free(&st->prefix_scratch);
    free(st);
}

/* "2026-07-31T09:02:55.916Z" → tracefmt's "07/31/2026-09:02:55.916" */
static const char *tracefmt_time(tracefmt_state *st, int64_t filetime, char *out, size_t cap)
{
    char iso[48];
    fmt_event_time(&st->base.clock, filetime, 3, iso, sizeof iso);
    if (strlen(iso) < 23) {
        snprintf(out, cap, "%s", iso);
        return out;
    }
    snprintf(out, cap, "%.2s/%.2s/%.4s-%.12s", iso + 5, iso + 8, iso, iso + 11);
    return out;
}

static void put_clean(fmt_line_writer *b, const char *text)
{
    /* one event per line: line breaks inside messages are written as spaces */
    for (const char *c = fmt_valid_utf8(text, &b->scratch); *c; c++)
        etl_textbuf_putc(&b->line, *c == '\n' || *c == '\r' ? ' ' : *c);
}

static int tracefmt_event(void *state, const etl_decoded_event *ev)
{
    tracefmt_state *st = state;
    fmt_line_writer *b = &st->base;
    const etl_event_record *r = ev->record;
    if (!ev->wpp && ev->status == ETL_DECODE_NO_SCHEMA && r->kind == ETL_KIND_MESSAGE) {
        char guid[40];
        fmt_guid(&r->header.provider_id, guid);
        guid[37] = '\0';
        etl_textbuf_printf(&b->line, "Unknown(%3u): GUID=%s (No Format Information found).\n",
                           (unsigned)r->header.descriptor.id, guid + 1);
        return fmt_buf_flush(&b->line, &b->sink);
    }
    char time_text[48];
    etl_textbuf_reset(&b->scratch);
    wpp_expand_prefix(&b->scratch, st->prefix, ev, tracefmt_time(st, r->header.timestamp, time_text, sizeof time_text),
                      &st->prefix_scratch);
    etl_textbuf_append(&b->line, b->scratch.data ? b->scratch.data : "", b->scratch.length);
    if (ev->message) {
        put_clean(b, ev->message);
    } else {
        put_clean(b, ev->event_name);
        const char *sep = ": ";
        for (size_t i = 0; i < ev->field_count; i++) {
            const etl_field *f = &ev->fields[i];
            if (f->kind != ETL_FIELD_VALUE) continue;
            etl_textbuf_puts(&b->line, sep);
            put_clean(b, f->name ? f->name : "");
            etl_textbuf_putc(&b->line, '=');
            put_clean(b, f->value);
            sep = ", ";
        }
        if (ev->status == ETL_DECODE_NO_SCHEMA && r->user_data_length) {
            etl_textbuf_puts(&b->line, sep);
            etl_textbuf_puts(&b->line, "0x");
            fmt_buf_put_hex(&b->line, r->user_data, r->user_data_length, 1);
        }
    }
    etl_textbuf_putc(&b->line, '\n');
    return fmt_buf_flush(&b->line, &b->sink);
}

const etl_writer_format etl_writer_tracefmt = {
    "tracefmt", "wpp", ".txt", "tracefmt's text: [CPU]PID.TID::time [component]message ($TRACE_FORMAT_PREFIX)",
    tracefmt_create, fmt_begin_nothing, tracefmt_event, fmt_end_nothing, tracefmt_destroy,
    .header_ids_only = 1,
};
