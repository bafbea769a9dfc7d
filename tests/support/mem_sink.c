/* In-memory etl_sink for writer tests (see mem_sink.h). */
#include "mem_sink.h"

#include <stdlib.h>
#include <string.h>

int mem_sink_write(void *ctx, const void *data, size_t length)
{
    mem_sink *m = ctx;
    if (m->fail_after > 0 && ++m->writes >= m->fail_after) return -1;
    if (m->length + length + 1 > m->capacity) {
        size_t cap = m->capacity ? m->capacity : 4096;
        while (cap < m->length + length + 1) cap *= 2;
        char *p = realloc(m->data, cap);
        if (!p) return -1;
        m->data = p;
        m->capacity = cap;
    }
    memcpy(m->data + m->length, data, length);
    m->length += length;
    m->data[m->length] = '\0';
    return 0;
}
