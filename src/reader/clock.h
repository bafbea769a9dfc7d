/* Conversion of raw record timestamps to FILETIME with the log-file header's clock (etl-format.md §1.9). */
#ifndef ETL_READER_CLOCK_H
#define ETL_READER_CLOCK_H

#include <stdint.h>

#include "etl/etl.h"

typedef struct etl_clock {
    int kind;             /* 1 QPC, 2 system time, 3 CPU cycles; 0 = no header: raw passed through */
    int64_t start_time;   /* FILETIME anchor */
    int64_t anchor_raw;   /* raw timestamp of the header record */
    int64_t ticks_per_second;  /* QPC frequency, or CPU Hz for the cycle clock */
    int hundred_ns;       /* ticks of 100 ns and anchors far from overflow: FILETIME = start + (raw - anchor) */
} etl_clock;

/* Tick rate assumed when the header's clock cannot be used (docs/robustness.md). */
#define ETL_CLOCK_FALLBACK_HZ 10000000

/* Returns NULL, or why the header's clock cannot be used (the clock then counts ETL_CLOCK_FALLBACK_HZ ticks
 * from the header's StartTime). */
const char *etl_clock_init(etl_clock *clock, const etl_logfile_header *header);
int64_t etl_clock_to_filetime(const etl_clock *clock, int64_t raw);

#endif
