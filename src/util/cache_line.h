/* Structs that different threads write, kept on cache lines of their own. */
#ifndef ETL_UTIL_CACHE_LINE_H
#define ETL_UTIL_CACHE_LINE_H

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

/* 64 bytes on every x86-64 and most arm64 cores. A struct whose first member is `ETL_CACHE_LINE_ALIGNED` has a
 * size that is a multiple of it, so neighbours in an array allocated by etl_calloc_lines never share a line: a
 * thread writing its element per event does not take the line another thread reads its own element from. */
#define ETL_CACHE_LINE 64
#define ETL_CACHE_LINE_ALIGNED alignas(ETL_CACHE_LINE)

/* calloc for such arrays (calloc aligns to 16 only); free with free(). NULL on overflow or no memory. */
static inline void *etl_calloc_lines(size_t n, size_t size)
{
    if (size && n > (size_t)-1 / size) return NULL;
    size_t bytes = (n * size + ETL_CACHE_LINE - 1) / ETL_CACHE_LINE * ETL_CACHE_LINE;
    void *p = aligned_alloc(ETL_CACHE_LINE, bytes ? bytes : ETL_CACHE_LINE);
    if (p) memset(p, 0, bytes ? bytes : ETL_CACHE_LINE);
    return p;
}

#endif
