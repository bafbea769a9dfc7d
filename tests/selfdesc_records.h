/* Test-only helper for the self-describing schema tests: delivers every record of a trace (through the
 * reader) to a callback. */
#ifndef TESTS_SELFDESC_RECORDS_H
#define TESTS_SELFDESC_RECORDS_H

#include <stdio.h>

#include "etl/etl.h"

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

#endif
