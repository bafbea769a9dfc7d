/* KernelTime/UserTime as tracerpt prints them: milliseconds. EVENT_HEADER holds clock ticks; one tick is
 * the log-file header's TimerResolution in 100 ns units, so ms = ticks × TimerResolution / 10000
 * (truncated). Without a trace in the options, or for events of private sessions / NO_CPUTIME loggers
 * (whose two fields are one ProcessorTime counter), the stored value is returned unchanged. */
#ifndef ETL_FORMATS_CPU_TIME_H
#define ETL_FORMATS_CPU_TIME_H

#include <stdint.h>

#include "etl/etl_writer.h"

uint64_t fmt_cpu_ms(const etl_writer_options *options, const etl_event_record *record, uint32_t ticks);

/* Both times of the event before, kept: most events of a thread in a row carry the same ticks. */
typedef struct fmt_cpu_memo {
    uint32_t kernel, user, flags, file; /* the ticks, header flags and input file they were converted for */
    int valid;
    uint64_t kernel_ms, user_ms;
} fmt_cpu_memo;

/* Brings m to record's times: 1 when they changed (converted again), 0 when they are the ones kept. */
static inline int fmt_cpu_memo_update(fmt_cpu_memo *m, const etl_writer_options *options,
                                      const etl_event_record *record)
{
    const etl_event_header *h = &record->header;
    if (m->valid && m->kernel == h->kernel_time && m->user == h->user_time && m->flags == h->flags &&
        m->file == record->file_index)
        return 0;
    m->kernel = h->kernel_time, m->user = h->user_time, m->flags = h->flags, m->file = record->file_index;
    m->kernel_ms = fmt_cpu_ms(options, record, h->kernel_time);
    m->user_ms = fmt_cpu_ms(options, record, h->user_time);
    m->valid = 1;
    return 1;
}

#endif
