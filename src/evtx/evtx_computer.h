/* The machine a trace was recorded on, for EVTX's System/Computer. */
#ifndef ETL_EVTX_COMPUTER_H
#define ETL_EVTX_COMPUTER_H

#include <stddef.h>

#include "etl/etl.h"

#define EVTX_COMPUTER_MAX 1024  /* bytes of UTF-8: 256 UTF-16 units at most 3 bytes each, and the NUL */

typedef struct evtx_computers {
    size_t count;            /* one per input file of the trace */
    char (*names)[EVTX_COMPUTER_MAX];  /* "" where the file names no machine */
} evtx_computers;

/* Reads each input file of `trace` once more, without decoding, for the kernel's SystemConfig CPU event
 * (class 01853a65-418f-4f36-aefc-dc0f1d2fd235, type 10), whose fixed ComputerName[256] follows five
 * UINT32s in every version (0-3). Kernel sessions log it in their end rundown, so it is found only by
 * reading the whole file. Returns 0, or -1 when out of memory. */
int evtx_computers_find(const etl_trace *trace, evtx_computers *out);
void evtx_computers_free(evtx_computers *c);

#endif
