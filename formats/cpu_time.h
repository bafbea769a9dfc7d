/* KernelTime/UserTime as tracerpt prints them: milliseconds. EVENT_HEADER holds clock ticks; one tick is
 * the log-file header's TimerResolution in 100 ns units, so ms = ticks × TimerResolution / 10000
 * (truncated). Without a trace in the options, or for events of private sessions / NO_CPUTIME loggers
 * (whose two fields are one ProcessorTime counter), the stored value is returned unchanged. */
#ifndef ETL_FORMATS_CPU_TIME_H
#define ETL_FORMATS_CPU_TIME_H

#include <stdint.h>

#include "etl/etl_writer.h"

uint64_t fmt_cpu_ms(const etl_writer_options *options, const etl_event_record *record, uint32_t ticks);

#endif
