/* The golden baseline (what `--stable` makes of the table form, include/etl/etl_diff.h): a header line with
 * the options used, then one line per stable event, "TIME Pn Tn PROCESS PROVIDER EVENT Name=Value ...". The
 * line itself is the library's (src/diff/baseline.c), so `etlconv diff` reads back exactly what it writes. */
#include <stdlib.h>
#include <string.h>

#include "etl/etl_diff.h"
#include "format_util.h"

static int baseline_begin(void *state)
{
    fmt_line_writer *st = state;
    etl_textbuf_puts(&st->line, ETL_BASELINE_MAGIC " ");
    etl_textbuf_puts(&st->line, st->options.stable_options ? st->options.stable_options : "--stable");
    etl_textbuf_putc(&st->line, '\n');
    return fmt_buf_flush(&st->line, &st->sink);
}

static int baseline_event(void *state, const etl_decoded_event *ev)
{
    fmt_line_writer *st = state;
    etl_baseline_render(ev, st->options.stable, &st->line);
    return fmt_buf_flush(&st->line, &st->sink);
}

const etl_writer_format etl_writer_baseline = {
    "baseline", "golden", ".txt", "golden baseline for `etlconv diff` (the table form of --stable, field names)",
    fmt_line_writer_create, baseline_begin, baseline_event, fmt_end_nothing, fmt_line_writer_destroy,
    .header_ids_only = 0,  /* its process column is event->process_name */
};
