/* -of activities: one tab-separated line per activity (src/activity groups the events), in order of the
 * activity's first event, after a header line:
 *   activity_id  first  last  duration_s  events  parent  providers  first_message
 * first/last are the times of its first and last event (UTC unless --local), duration_s their difference in
 * seconds with 7 decimals, parent the RelatedActivityId of its first event that carries one ("" when none),
 * providers the distinct provider names in first-seen order separated by ',' (",+N" events of more
 * providers), first_message the first event's message or, without one, its event name. Cells are escaped as
 * the table writer escapes them. Events without an activity id are not listed. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "etl/etl_activity.h"
#include "format_util.h"

typedef struct activities_state {
    fmt_line_writer line;     /* first member: the line-writer helpers take it */
    etl_activity_table *table;
} activities_state;

static void *activities_create(const etl_sink *sink, const etl_writer_options *options)
{
    activities_state *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    fmt_line_writer *lw = fmt_line_writer_create(sink, options);
    st->table = etl_activity_table_new();
    if (!lw || !st->table) {
        fmt_line_writer_destroy(lw);
        etl_activity_table_free(st->table);
        free(st);
        return NULL;
    }
    st->line = *lw;
    free(lw);  /* its buffers now belong to st->line */
    return st;
}

static int activities_event(void *state, const etl_decoded_event *ev)
{
    activities_state *st = state;
    return etl_activity_observe(st->table, ev) == ETL_OK ? 0 : -1;
}

static int activities_end(void *state, const etl_run_totals *totals)
{
    (void)totals;
    activities_state *st = state;
    fmt_line_writer *lw = &st->line;
    static const char *const header[] = {"activity_id", "first", "last", "duration_s", "events", "parent",
                                         "providers", "first_message"};
    for (size_t i = 0; i < sizeof header / sizeof header[0]; i++) fmt_table_cell(lw, header[i]);
    etl_textbuf_putc(&lw->line, '\n');
    lw->cells = 0;
    char text[64], guid[40], num[FMT_INT_CAP];
    for (size_t i = 0; i < etl_activity_count(st->table); i++) {
        const etl_activity *a = etl_activity_at(st->table, i);
        fmt_table_cell(lw, fmt_guid(&a->id, guid));
        fmt_table_cell(lw, fmt_event_time(&lw->clock, a->first_time, 7, text, sizeof text));
        fmt_table_cell(lw, fmt_event_time(&lw->clock, a->last_time, 7, text, sizeof text));
        int64_t d = a->last_time - a->first_time;
        snprintf(text, sizeof text, "%" PRId64 ".%07" PRId64, d / 10000000, d % 10000000);
        fmt_table_cell(lw, text);
        fmt_table_cell(lw, fmt_u64(a->event_count, num));
        fmt_table_cell(lw, a->has_parent ? fmt_guid(&a->parent, guid) : "");
        etl_textbuf_reset(&lw->scratch);
        for (uint32_t k = 0; k < a->provider_count; k++) {
            if (k) etl_textbuf_putc(&lw->scratch, ',');
            etl_textbuf_puts(&lw->scratch, a->providers[k]);
        }
        if (a->more_providers) etl_textbuf_printf(&lw->scratch, ",+%u", (unsigned)a->more_providers);
        fmt_table_cell(lw, fmt_buf_cstr(&lw->scratch));
        fmt_table_cell(lw, a->first_message);
        etl_textbuf_putc(&lw->line, '\n');
        lw->cells = 0;
        if (lw->line.length >= (1u << 16) && fmt_buf_flush(&lw->line, &lw->sink) != 0) return -1;
    }
    if (etl_activity_overflow(st->table))
        fprintf(stderr, "etlconv: warning: activities: %llu events of activities beyond the first %u are not listed\n",
                (unsigned long long)etl_activity_overflow(st->table), ETL_ACTIVITY_MAX);
    return fmt_buf_flush(&lw->line, &lw->sink);
}

static void activities_destroy(void *state)
{
    activities_state *st = state;
    if (!st) return;
    etl_activity_table_free(st->table);
    etl_textbuf_free(&st->line.line);
    etl_textbuf_free(&st->line.scratch);
    free(st);
}

const etl_writer_format etl_writer_activities = {
    "activities", "", ".activities.tsv", "one line per activity: first/last time, duration, events, parent, providers",
    activities_create, fmt_begin_nothing, activities_event, activities_end, activities_destroy,
    .header_ids_only = 1,
};
