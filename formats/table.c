/* The compact one-line-per-event table: optional time/PID/TID/CPU/provider columns, then the event name,
 * then the payload values ("EventName Data1 Data2 ..."). Tab-separated; backslash, tab, CR, LF and other
 * control characters inside values are written as \\ \t \r \n \xHH, so every event is exactly one line and
 * sort/cut/grep/diff work on the output. Undecoded payloads are one "0x<HEX>" cell. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fast_text.h"
#include "format_util.h"
#include "text_cache.h"

static void hex_cell(fmt_line_writer *st, const uint8_t *bytes, size_t length)
{
    fmt_table_separator(st);
    etl_textbuf_puts(&st->line, "0x");
    fmt_buf_put_hex(&st->line, bytes, length, 1);
}

/* Columns before the provider and event name. */
#define LEADING_COLUMNS (ETL_TABLE_TIME | ETL_TABLE_PID | ETL_TABLE_TID | ETL_TABLE_CPU)

/* The cells fixed by the event's schema: [provider] event name, with the tab before them. */
static void build_static(void *state, const etl_decoded_event *ev, fmt_buf *text, uint32_t *ends)
{
    fmt_line_writer *st = state;
    fmt_line_writer cells = *st;  /* the same cell rules, into `text` */
    cells.line = *text;
    cells.cells = (st->options.table_columns & LEADING_COLUMNS) ? 1 : 0;
    if (st->options.table_columns & ETL_TABLE_PROVIDER) fmt_table_cell(&cells, ev->provider_name);
    fmt_table_cell(&cells, ev->event_name);
    *text = cells.line;
    st->scratch = cells.scratch;
    ends[0] = (uint32_t)text->length;
}

static int table_event(void *state, const etl_decoded_event *ev)
{
    fmt_line_writer *st = state;
    const etl_event_record *r = ev->record;
    unsigned cols = st->options.table_columns;
    const fmt_static_text *s = fmt_text_cache_get(st->cache, ev);
    if (!s) return -1;
    /* time, PID, TID, CPU: digits, '.', ':', '-', '+', 'T', 'Z' only: written as they are */
    char *p = fmt_put_begin(&st->line, FMT_TIME_CAP + 3 * 24);
    if (!p) return -1;
    const char *tab = "";
    if (cols & ETL_TABLE_TIME) {
        if (st->options.raw_timestamps)
            p = fmt_w_i64(p, r->raw_timestamp);
        else
            p = fmt_w_time(&st->clock, r->header.timestamp, 7, p);
        tab = "\t";
    }
    if (cols & ETL_TABLE_PID) p = fmt_w_u64(fmt_w_mem(p, tab, *tab != 0), r->header.process_id), tab = "\t";
    if (cols & ETL_TABLE_TID) p = fmt_w_u64(fmt_w_mem(p, tab, *tab != 0), r->header.thread_id), tab = "\t";
    if (cols & ETL_TABLE_CPU) p = fmt_w_u64(fmt_w_mem(p, tab, *tab != 0), r->buffer_context.processor_index);
    fmt_put_end(&st->line, p);
    size_t n;
    const char *fixed = fmt_static_part(s, 0, &n);
    etl_textbuf_append(&st->line, fixed, n);
    st->cells = 1;
    if (ev->status == ETL_DECODE_NO_SCHEMA) {
        if (r->user_data_length) hex_cell(st, r->user_data, r->user_data_length);
    } else {
        fmt_table_value_cells(st, ev->fields, ev->field_count);
        if (ev->undecoded_length && (ev->status == ETL_DECODE_ERROR || st->options.best_effort)) hex_cell(st, ev->undecoded, ev->undecoded_length);
    }
    etl_textbuf_putc(&st->line, '\n');
    st->cells = 0;
    return fmt_flush_event(&st->line, &st->sink, &st->options);
}

static void *table_create(const etl_sink *sink, const etl_writer_options *options)
{
    return fmt_line_writer_create_cached(sink, options, 1, build_static);
}

const etl_writer_format etl_writer_table = {
    "table", "txt|text", ".txt", "one tab-separated line per event: [columns] EventName Data1 Data2 ...",
    table_create, fmt_begin_nothing, table_event, fmt_end_nothing, fmt_line_writer_destroy,
    .header_ids_only = 1,
};
