/* The compact one-line-per-event table: optional time/PID/TID/CPU/provider columns, then the event name,
 * then the payload values ("EventName Data1 Data2 ..."). Tab-separated; backslash, tab, CR, LF and other
 * control characters inside values are written as \\ \t \r \n \xHH, so every event is exactly one line and
 * sort/cut/grep/diff work on the output. Undecoded payloads are one "0x<HEX>" cell. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fast_text.h"
#include "format_util.h"

static void hex_cell(fmt_line_writer *st, const uint8_t *bytes, size_t length)
{
    fmt_table_separator(st);
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
            fmt_table_cell(st, fmt_i64(r->raw_timestamp, num));
        else
            fmt_table_cell(st, fmt_event_time(&st->clock, r->header.timestamp, 7, text, sizeof text));
    }
    if (cols & ETL_TABLE_PID) fmt_table_cell(st, fmt_u64(r->header.process_id, num));
    if (cols & ETL_TABLE_TID) fmt_table_cell(st, fmt_u64(r->header.thread_id, num));
    if (cols & ETL_TABLE_CPU) fmt_table_cell(st, fmt_u64(r->buffer_context.processor_index, num));
    if (cols & ETL_TABLE_PROVIDER) fmt_table_cell(st, ev->provider_name);
    fmt_table_cell(st, ev->event_name);
    if (ev->status == ETL_DECODE_NO_SCHEMA) {
        if (r->user_data_length) hex_cell(st, r->user_data, r->user_data_length);
    } else {
        for (size_t i = 0; i < ev->field_count; i++)
            if (ev->fields[i].kind == ETL_FIELD_VALUE) fmt_table_cell(st, ev->fields[i].value);
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
