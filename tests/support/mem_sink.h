/* A growable in-memory etl_sink for writer tests. */
#ifndef TESTS_SUPPORT_MEM_SINK_H
#define TESTS_SUPPORT_MEM_SINK_H

#include <stddef.h>

typedef struct mem_sink {
    char *data;      /* NUL-terminated content */
    size_t length, capacity;
    int fail_after;  /* > 0: the n-th write (and every later one) fails */
    int writes;
} mem_sink;

/* etl_sink write callback; ctx is a mem_sink. */
int mem_sink_write(void *ctx, const void *data, size_t length);

#endif
