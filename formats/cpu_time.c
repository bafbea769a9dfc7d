/* KernelTime/UserTime ticks → milliseconds (see cpu_time.h). */
#include "cpu_time.h"

uint64_t fmt_cpu_ms(const etl_writer_options *options, const etl_event_record *record, uint32_t ticks)
{
    if (!options->trace || (record->header.flags & (ETL_EVENT_FLAG_PRIVATE_SESSION | ETL_EVENT_FLAG_NO_CPUTIME)))
        return ticks;
    const etl_logfile_header *h = etl_trace_logfile_header(options->trace, record->file_index);
    if (!h || h->timer_resolution == 0) return ticks;
    return (uint64_t)ticks * h->timer_resolution / 10000u;  /* < 2^64: both factors are 32-bit */
}
