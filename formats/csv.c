/* tracerpt's CSV dump (docs/tracerpt.md §1.4): the 20 header columns in tracerpt's order, then one row per
 * event whose payload fields spill into further cells after column 19 ("User Data"), as tracerpt does.
 *
 * Malformed UTF-8 in values becomes U+FFFD. Default: RFC 4180 — ',' separators, a cell is quoted (by libcsv's csv_write) when it holds a comma,
 * quote, CR, LF or leading/trailing space. --csv-compat: tracerpt's ", " separators, the two name columns
 * right-aligned with spaces as in real tracerpt rows, nothing quoted; CR/LF inside values become spaces so
 * that one event stays one line (tracerpt would break the row). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_time.h"
#include "csv_cell.h"
#include "etl/etl_diff.h"
#include "fast_text.h"
#include "format_util.h"
#include "text_cache.h"

/* Widths seen in real tracerpt rows ("            PageFault,     VirtualAlloc, ..."). */
#define COMPAT_NAME_WIDTH 21
#define COMPAT_TYPE_WIDTH 16

static const char *const header_columns[] = {
    "Event Name", "Type", "Event ID", "Version", "Channel", "Level", "Opcode", "Task", "Keyword", "PID", "TID",
    "Processor Number", "Instance ID", "Parent Instance ID", "Activity ID", "Related Activity ID", "Clock-Time",
    "Kernel(ms)", "User(ms)", "User Data",
};

static void cell_w(fmt_line_writer *st, const char *value, int width)
{
    fmt_csv_cell(st, value, width);
}

static void cell(fmt_line_writer *st, const char *value)
{
    fmt_csv_cell(st, value, 0);
}

static void cell_u(fmt_line_writer *st, uint64_t v)
{
    char num[FMT_INT_CAP];
    cell(st, fmt_u64(v, num));
}

static void cell_hex(fmt_line_writer *st, uint64_t v)
{
    char num[FMT_INT_CAP];
    cell(st, fmt_hex64(v, num));
}

/* --csv-compat: tracerpt's fixed-width hex, Keyword 0x%016llX and PID/TID 0x%08X (docs/tracerpt-compat.md) */
static void cell_hex_fixed(fmt_line_writer *st, uint64_t v, int digits)
{
    if (!st->options.csv_compat) {
        cell_hex(st, v);
        return;
    }
    char num[24];
    snprintf(num, sizeof num, "0x%0*" PRIX64, digits, v);
    cell(st, num);
}

static int end_line(fmt_line_writer *st)
{
    etl_textbuf_putc(&st->line, '\n');
    st->cells = 0;
    return fmt_flush_event(&st->line, &st->sink, &st->options);
}

static int csv_begin(void *state)
{
    fmt_line_writer *st = state;
    for (size_t i = 0; i < sizeof header_columns / sizeof header_columns[0]; i++) cell(st, header_columns[i]);
    end_line(st);
    return fmt_buf_flush(&st->line, &st->sink);  /* begin hands over all it wrote (-j writes batches after it) */
}

static const char *event_name_cell(const etl_decoded_event *ev, char *guid_buf)
{
    const char *name = fmt_task_display(ev);
    if (name) return name;
    if (ev->info && ev->info->event_name && ev->info->event_name[0]) return ev->info->event_name;
    if (!ev->info) {
        return fmt_guid(&ev->record->header.provider_id, guid_buf);
    }
    return ev->event_name;
}

static void hex_cell(fmt_line_writer *st, const uint8_t *bytes, size_t length)
{
    etl_textbuf_puts(&st->line, st->cells++ > 0 ? (st->options.csv_compat ? ", " : ",") : "");
    etl_textbuf_puts(&st->line, "0x");
    fmt_buf_put_hex(&st->line, bytes, length, 1);
}

/* The cells fixed by the event's schema and descriptor: Event Name .. Keyword (one segment). */
static void build_static(void *state, const etl_decoded_event *ev, fmt_buf *text, uint32_t *ends)
{
    fmt_line_writer *st = state;
    const etl_event_header *h = &ev->record->header;
    char guid[40];
    fmt_line_writer cells = *st;  /* the same cell rules, into `text` */
    cells.line = *text;
    cells.cells = 0;
    cell_w(&cells, event_name_cell(ev, guid), COMPAT_NAME_WIDTH);
    cell_w(&cells, ev->opcode_name, COMPAT_TYPE_WIDTH);
    cell_u(&cells, h->descriptor.id);
    cell_u(&cells, h->descriptor.version);
    cell_u(&cells, h->descriptor.channel);
    cell_u(&cells, h->descriptor.level);
    cell_u(&cells, h->descriptor.opcode);
    cell_u(&cells, h->descriptor.task);
    cell_hex_fixed(&cells, h->descriptor.keyword, 16);
    *text = cells.line;
    st->scratch = cells.scratch;
    ends[0] = (uint32_t)text->length;
}

#define STATIC_CELLS 9

static int csv_event(void *state, const etl_decoded_event *ev)
{
    fmt_line_writer *st = state;
    const etl_event_record *r = ev->record;
    const etl_event_header *h = &r->header;
    char guid[40];

    const fmt_static_text *s = fmt_text_cache_get(st->cache, ev);
    if (!s) return -1;
    size_t n;
    const char *fixed = fmt_static_part(s, 0, &n);
    etl_textbuf_append(&st->line, fixed, n);
    st->cells = STATIC_CELLS;
    int stable = st->options.stable != 0;  /* machine facts are left out of stable output */
    if (!st->options.csv_compat) {
        /* PID .. User(ms): hex and decimal numbers, GUIDs, relative times, empty cells: never quoted */
        char *p = fmt_put_begin(&st->line, 256);
        if (!p) return -1;
        *p++ = ',';
        p = fmt_w_hex64(p, h->process_id);
        *p++ = ',';
        p = fmt_w_hex64(p, h->thread_id);
        *p++ = ',';
        if (!stable) p = fmt_w_u64(p, r->buffer_context.processor_index);
        FMT_W_LIT(p, ",,,");  /* Instance ID and Parent Instance ID: classic instance events only */
        p = fmt_w_guid(p, &h->activity_id);
        *p++ = ',';
        etl_guid related;
        if (r->extended_data_count && fmt_related_activity(r, &related)) p = fmt_w_guid(p, &related);
        *p++ = ',';
        if (stable) {
            if (!(st->options.stable & ETL_STABLE_NO_TIME)) {
                etl_stable_time(h->timestamp, p);
                p += strlen(p);
            }
            FMT_W_LIT(p, ",,");
        } else {
            p = fmt_w_i64(p, st->options.raw_timestamps ? r->raw_timestamp : h->timestamp);
            *p++ = ',';
            fmt_cpu_memo_update(&st->cpu, &st->options, r);
            p = fmt_w_u64(p, st->cpu.kernel_ms);
            *p++ = ',';
            p = fmt_w_u64(p, st->cpu.user_ms);
        }
        fmt_put_end(&st->line, p);
        st->cells += 10;
    } else {
        cell_hex_fixed(st, h->process_id, 8);
        cell_hex_fixed(st, h->thread_id, 8);
        if (stable) cell(st, ""); else cell_u(st, r->buffer_context.processor_index);
        cell(st, "");  /* Instance ID: classic instance events only */
        cell(st, "");  /* Parent Instance ID */
        cell(st, fmt_guid(&h->activity_id, guid));
        etl_guid related;
        cell(st, fmt_related_activity(r, &related) ? fmt_guid(&related, guid) : "");
        char num[FMT_INT_CAP];
        if (stable) {
            char rel[32];
            cell(st, st->options.stable & ETL_STABLE_NO_TIME ? "" : etl_stable_time(h->timestamp, rel));
            cell(st, "");
            cell(st, "");
        } else {
            cell(st, fmt_i64(st->options.raw_timestamps ? r->raw_timestamp : h->timestamp, num));
            cell_u(st, fmt_cpu_ms(&st->options, r, h->kernel_time));
            cell_u(st, fmt_cpu_ms(&st->options, r, h->user_time));
        }
    }

    size_t before = st->cells;
    if (ev->status == ETL_DECODE_NO_SCHEMA) {
        if (r->user_data_length) hex_cell(st, r->user_data, r->user_data_length);
    } else {
        for (size_t i = 0; i < ev->field_count; i++)
            if (ev->fields[i].kind == ETL_FIELD_VALUE) cell(st, ev->fields[i].value);
        if (ev->undecoded_length && (ev->status == ETL_DECODE_ERROR || st->options.best_effort))
            hex_cell(st, ev->undecoded, ev->undecoded_length);
    }
    if (st->cells == before) cell(st, "");  /* the User Data column is always present */
    return end_line(st);
}

static void *csv_create(const etl_sink *sink, const etl_writer_options *options)
{
    return fmt_line_writer_create_cached(sink, options, 1, build_static);
}

const etl_writer_format etl_writer_csv = {
    "csv", "", ".csv", "tracerpt CSV columns, RFC 4180 quoting (--csv-compat: tracerpt's exact form)",
    csv_create, csv_begin, csv_event, fmt_end_nothing, fmt_line_writer_destroy,
    .header_ids_only = 1,
};
