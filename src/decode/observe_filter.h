/* Which records a decoder that does not decode them must still observe (etl_decoder_observe) to end in the
 * state observing every record gives it: the parallel pipeline's reader lists them per batch as it copies the
 * records, and the workers that do not own a batch observe only those (pipeline/parallel.h).
 *
 * A record is listed when observing it may change anything (observe_filter.c says why the others change
 * nothing): an EventSource manifest chunk (etl_eventsource_takes), a KernelTraceControl MetaData record
 * (etl_embedded_takes) and the record after one (it registers the events held back for maps), a process or
 * thread event (etl_process_table_learns_from), and a record whose header (TID, PID) may be new to the
 * TID -> PID table (etl_process_table_header_thread, not the pair the same TID had last, as far as a bounded
 * cache of the last pair per TID remembers, since the last process or thread event). The tests are the
 * observers' own predicates. */
#ifndef ETL_DECODE_OBSERVE_FILTER_H
#define ETL_DECODE_OBSERVE_FILTER_H

#include "etl/etl_schema.h"

typedef struct etl_observe_filter etl_observe_filter;

/* flags: the observing decoders' ETL_DECODER_* (with ETL_DECODER_NO_TRACE_SCHEMAS they take no schema from the
 * trace: manifest chunks and MetaData records are listed only for their headers). NULL when out of memory. */
etl_observe_filter *etl_observe_filter_new(unsigned flags);
void etl_observe_filter_free(etl_observe_filter *f);

/* Every record of the trace, in trace order (the order the decoders see them): 1 when a decoder that does not
 * decode it must observe it. */
int etl_observe_filter_wants(etl_observe_filter *f, const etl_event_record *record);

/* 1 when `d` must observe every record from now on, the listed ones no longer sufficing: its process table left
 * something out at its bounds (a TID the cache remembers may then be missing from the table), or registering
 * the embedded schemas held back failed (out of memory: the next record retries). Ask after each record `d`
 * observed or decoded; 0 again once the cause is gone (a retry succeeded). */
int etl_decoder_needs_every_record(const etl_decoder *d);

#endif
