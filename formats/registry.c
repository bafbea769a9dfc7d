/* The one table of writers (one line per writer) and the small handle that drives one. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "etl/etl_writer.h"

extern const etl_writer_format etl_writer_xml;
extern const etl_writer_format etl_writer_csv;
extern const etl_writer_format etl_writer_table;
extern const etl_writer_format etl_writer_jsonl;
extern const etl_writer_format etl_writer_summary;
/* -- issue 12 (tracerpt) writers below; keep this line -- */
/* -- issue 13 (diff) writers below; keep this line -- */
extern const etl_writer_format etl_writer_baseline;
/* -- issue 14 (perf) writers below; keep this line -- */
/* -- issue 15 (typed) writers below; keep this line -- */
extern const etl_writer_format etl_writer_csv_split;
extern const etl_writer_format etl_writer_jsonl_split;
extern const etl_writer_format etl_writer_ecs;
/* -- issue 16 (evtx) writers below; keep this line -- */
extern const etl_writer_format etl_writer_evtx;
/* -- issue 17 (net) writers below; keep this line -- */
extern const etl_writer_format etl_writer_pcapng;
extern const etl_writer_format etl_writer_activities;
/* -- issue 18 (wpp) writers below; keep this line -- */
extern const etl_writer_format etl_writer_tracefmt;

static const etl_writer_format *const formats[] = {
    &etl_writer_xml,
    &etl_writer_csv,
    &etl_writer_table,
    &etl_writer_jsonl,
    &etl_writer_summary,
    /* -- issue 12 (tracerpt) writers below; keep this line -- */
    /* -- issue 13 (diff) writers below; keep this line -- */
    &etl_writer_baseline,
    /* -- issue 14 (perf) writers below; keep this line -- */
    /* -- issue 15 (typed) writers below; keep this line -- */
    &etl_writer_csv_split,
    &etl_writer_jsonl_split,
    &etl_writer_ecs,
    /* -- issue 16 (evtx) writers below; keep this line -- */
    &etl_writer_evtx,
    /* -- issue 17 (net) writers below; keep this line -- */
    &etl_writer_pcapng,
    &etl_writer_activities,
    /* -- issue 18 (wpp) writers below; keep this line -- */
    &etl_writer_tracefmt,
};

size_t etl_writer_format_count(void)
{
    return sizeof formats / sizeof formats[0];
}

const etl_writer_format *etl_writer_format_at(size_t index)
{
    return index < etl_writer_format_count() ? formats[index] : NULL;
}

/* Is `name` one of the '|'-separated words of `list`? */
static int in_alias_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    while (list && *list) {
        const char *bar = strchr(list, '|');
        size_t len = bar ? (size_t)(bar - list) : strlen(list);
        if (len == n && strncasecmp(list, name, n) == 0) return 1;
        list = bar ? bar + 1 : NULL;
    }
    return 0;
}

const etl_writer_format *etl_writer_format_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < etl_writer_format_count(); i++)
        if (strcasecmp(formats[i]->name, name) == 0 || in_alias_list(formats[i]->aliases, name))
            return formats[i];
    return NULL;
}

struct etl_writer {
    const etl_writer_format *format;
    void *state;
};

etl_writer *etl_writer_new(const etl_writer_format *format, const etl_sink *sink,
                           const etl_writer_options *options)
{
    static const etl_writer_options defaults;
    if (!format || !sink || !sink->write) return NULL;
    etl_writer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->format = format;
    w->state = format->create(sink, options ? options : &defaults);
    if (!w->state) {
        free(w);
        return NULL;
    }
    return w;
}

int etl_writer_begin(etl_writer *writer)
{
    return writer->format->begin(writer->state);
}

int etl_writer_event(etl_writer *writer, const etl_decoded_event *event)
{
    return writer->format->event(writer->state, event);
}

int etl_writer_end(etl_writer *writer, const etl_run_totals *totals)
{
    return writer->format->end(writer->state, totals);
}

void etl_writer_free(etl_writer *writer)
{
    if (!writer) return;
    writer->format->destroy(writer->state);
    free(writer);
}
