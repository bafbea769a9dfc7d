/* Test-only helper for the self-describing schema tests: delivers every record of a trace (through the
 * reader) to a callback. */
#ifndef TESTS_SELFDESC_RECORDS_H
#define TESTS_SELFDESC_RECORDS_H

#include <stdio.h>

#include "etl/etl.h"
#include "etl/etl_schema.h"

typedef int (*sd_record_fn)(const etl_event_record *record, void *ctx);

/* Returns the number of records delivered, or -1 if the trace could not be opened. *errors receives the
 * reader's error count. */
static long sd_for_each_record(const char *path, sd_record_fn fn, void *ctx, long *errors)
{
    etl_trace *trace = NULL;
    etl_error err;
    if (etl_open(&trace, &path, 1, NULL, &err) != ETL_OK) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    int rc = etl_process(trace, fn, ctx);
    const etl_trace_stats *st = etl_trace_get_stats(trace);
    long events = (long)st->events;
    if (errors) *errors = (long)st->errors;
    etl_close(trace);
    return rc == ETL_OK || rc == ETL_STOPPED ? events : -1;
}

/* Decodes every record of a trace (fresh registry and decoder) and hands each decoded event to `fn`. */
typedef void (*sd_decoded_fn)(const etl_decoded_event *event, void *ctx);

typedef struct sd_decode_ctx {
    etl_decoder *decoder;
    sd_decoded_fn fn;
    void *ctx;
    int failed;
} sd_decode_ctx;

static int sd_on_decode(const etl_event_record *record, void *vctx)
{
    sd_decode_ctx *d = vctx;
    const etl_decoded_event *event = NULL;
    if (etl_decode_event(d->decoder, record, &event) != ETL_OK) {
        d->failed = 1;
        return 1;
    }
    d->fn(event, d->ctx);
    return 0;
}

/* Returns 0 on success. */
static int sd_decode_trace(const char *path, sd_decoded_fn fn, void *ctx)
{
    etl_trace *trace = NULL;
    etl_error err;
    if (etl_open(&trace, &path, 1, NULL, &err) != ETL_OK) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    etl_schema_registry *registry = etl_schema_registry_new();
    sd_decode_ctx d = {etl_decoder_new(registry, trace), fn, ctx, 0};
    int rc = d.decoder ? etl_process(trace, sd_on_decode, &d) : ETL_ERR_NOMEM;
    etl_decoder_free(d.decoder);
    etl_schema_registry_free(registry);
    etl_close(trace);
    return rc == ETL_OK && !d.failed ? 0 : -1;
}

#endif
