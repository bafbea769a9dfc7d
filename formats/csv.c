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

#include <csv.h>

#include "cpu_time.h"
#include "etl/etl_diff.h"
#include "fast_text.h"
#include "format_util.h"

/* Widths seen in real tracerpt rows ("            PageFault,     VirtualAlloc, ..."). */
#define COMPAT_NAME_WIDTH 21
#define COMPAT_TYPE_WIDTH 16

static const char *const header_columns[] = {
    "Event Name", "Type", "Event ID", "Version", "Channel", "Level", "Opcode", "Task", "Keyword", "PID", "TID",
    "Processor Number", "Instance ID", "Parent Instance ID", "Activity ID", "Related Activity ID", "Clock-Time",
    "Kernel(ms)", "User(ms)", "User Data",
};

static int needs_quotes(const char *s, size_t n)
{
    if (n == 0) return 0;
    if (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t') return 1;
    return strpbrk(s, ",\"\r\n") != NULL;
}

/* One cell; `width` > 0 right-aligns it in compat mode. */
static void cell_w(fmt_line_writer *st, const char *value, int width)
{
    value = fmt_valid_utf8(value ? value : "", &st->scratch);  /* the file stays valid UTF-8 */
    size_t n = strlen(value);
    if (st->cells++ > 0) etl_textbuf_puts(&st->line, st->options.csv_compat ? ", " : ",");
    if (st->options.csv_compat) {
        for (int pad = width - (int)n; pad > 0; pad--) etl_textbuf_putc(&st->line, ' ');
        size_t start = st->line.length;
        etl_textbuf_append(&st->line, value, n);
        for (size_t i = start; i < st->line.length && !st->line.failed; i++)
            if (st->line.data[i] == '\r' || st->line.data[i] == '\n') st->line.data[i] = ' ';
        return;
    }
    if (!needs_quotes(value, n)) {
        etl_textbuf_append(&st->line, value, n);
        return;
    }
    char *dst = fmt_buf_grow(&st->line, 2 * n + 2);
    if (dst) st->line.length += csv_write(dst, 2 * n + 2, value, n);
}

static void cell(fmt_line_writer *st, const char *value)
{
    cell_w(st, value, 0);
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
    return end_line(st);
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

static int csv_event(void *state, const etl_decoded_event *ev)
{
    fmt_line_writer *st = state;
    const etl_event_record *r = ev->record;
    const etl_event_header *h = &r->header;
    char guid[40];

    cell_w(st, event_name_cell(ev, guid), COMPAT_NAME_WIDTH);
    cell_w(st, ev->opcode_name, COMPAT_TYPE_WIDTH);
    cell_u(st, h->descriptor.id);
    cell_u(st, h->descriptor.version);
    cell_u(st, h->descriptor.channel);
    cell_u(st, h->descriptor.level);
    cell_u(st, h->descriptor.opcode);
    cell_u(st, h->descriptor.task);
    cell_hex_fixed(st, h->descriptor.keyword, 16);
    cell_hex_fixed(st, h->process_id, 8);
    cell_hex_fixed(st, h->thread_id, 8);
    int stable = st->options.stable != 0;  /* machine facts are left out of stable output */
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

const etl_writer_format etl_writer_csv = {
    "csv", "", ".csv", "tracerpt CSV columns, RFC 4180 quoting (--csv-compat: tracerpt's exact form)",
    fmt_line_writer_create, csv_begin, csv_event, fmt_end_nothing, fmt_line_writer_destroy,
};
