/* The compact one-line-per-event table: optional time/PID/TID/CPU/provider columns, then the event name,
 * then the payload values ("EventName Data1 Data2 ..."). Tab-separated; backslash, tab, CR, LF and other
 * control characters inside values are written as \\ \t \r \n \xHH, so every event is exactly one line and
 * sort/cut/grep/diff work on the output. Undecoded payloads are one "0x<HEX>" cell. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fast_text.h"
#include "format_util.h"

static void separator(fmt_line_writer *st)
{
    if (st->cells++ > 0) etl_textbuf_putc(&st->line, '\t');
}

static void cell(fmt_line_writer *st, const char *value)
{
    separator(st);
    if (!value) return;
    const unsigned char *s = (const unsigned char *)value;
    size_t n = strlen(value);
    for (size_t i = 0; i < n;) {
        size_t run = i;  /* printable ASCII other than the backslash goes in as one block */
        while (run < n && s[run] >= 0x20 && s[run] < 0x7F && s[run] != '\\') run++;
        etl_textbuf_append(&st->line, value + i, run - i);
        i = run;
        if (i >= n) break;
        uint32_t cp;
        size_t used = etl_utf8_decode(s + i, n - i, &cp);
        switch (cp) {
        case '\\': etl_textbuf_puts(&st->line, "\\\\"); break;
        case '\t': etl_textbuf_puts(&st->line, "\\t"); break;
        case '\n': etl_textbuf_puts(&st->line, "\\n"); break;
        case '\r': etl_textbuf_puts(&st->line, "\\r"); break;
        default:
            if (cp < 0x20 || cp == 0x7F)
                etl_textbuf_printf(&st->line, "\\x%02X", (unsigned)cp);
            else if (cp == 0xFFFD)
                fmt_buf_put_codepoint(&st->line, cp);
            else
                etl_textbuf_append(&st->line, (const char *)s + i, used);
        }
        i += used;
    }
}

static void hex_cell(fmt_line_writer *st, const uint8_t *bytes, size_t length)
{
    separator(st);
    etl_textbuf_puts(&st->line, "0x");
    fmt_buf_put_hex(&st->line, bytes, length, 1);
}

static int table_event(void *state, const etl_decoded_event *ev)
{
    fmt_line_writer *st = state;
    const etl_event_record *r = ev->record;
    unsigned cols = st->options.table_columns;
    char text[64], num[FMT_INT_CAP];
    if (cols & ETL_TABLE_TIME) {
        if (st->options.raw_timestamps)
            cell(st, fmt_i64(r->raw_timestamp, num));
        else
            cell(st, fmt_event_time(&st->clock, r->header.timestamp, 7, text, sizeof text));
    }
    if (cols & ETL_TABLE_PID) cell(st, fmt_u64(r->header.process_id, num));
    if (cols & ETL_TABLE_TID) cell(st, fmt_u64(r->header.thread_id, num));
    if (cols & ETL_TABLE_CPU) cell(st, fmt_u64(r->buffer_context.processor_index, num));
    if (cols & ETL_TABLE_PROVIDER) cell(st, ev->provider_name);
    cell(st, ev->event_name);
    if (ev->status == ETL_DECODE_NO_SCHEMA) {
        if (r->user_data_length) hex_cell(st, r->user_data, r->user_data_length);
    } else {
        for (size_t i = 0; i < ev->field_count; i++)
            if (ev->fields[i].kind == ETL_FIELD_VALUE) cell(st, ev->fields[i].value);
        if (ev->undecoded_length && (ev->status == ETL_DECODE_ERROR || st->options.best_effort)) hex_cell(st, ev->undecoded, ev->undecoded_length);
    }
    etl_textbuf_putc(&st->line, '\n');
    st->cells = 0;
    return fmt_flush_event(&st->line, &st->sink, &st->options);
}

const etl_writer_format etl_writer_table = {
    "table", "txt|text", ".txt", "one tab-separated line per event: [columns] EventName Data1 Data2 ...",
    fmt_line_writer_create, fmt_begin_nothing, table_event, fmt_end_nothing, fmt_line_writer_destroy,
};
