/* Process context learnt from the events themselves (docs/etl-format.md §4.6): process lifetimes and names
 * from process start/end/rundown events (PerfView's PName), TID → PID from thread events and record headers,
 * so kernel events whose header has no PID can still be attributed. */
#ifndef ETL_DECODE_PROCESS_TABLE_H
#define ETL_DECODE_PROCESS_TABLE_H

#include <string.h>

#include "etl/etl_schema.h"
#include "util/textbuf.h"

typedef struct etl_process_table etl_process_table;

etl_process_table *etl_process_table_new(void);
void etl_process_table_free(etl_process_table *t);

/* kernel Process and Thread classes, Microsoft-Windows-Kernel-Process */
static const etl_guid etl_process_class_guid = {0x3d6fa8d0, 0xfe05, 0x11d0,
                                                {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
static const etl_guid etl_thread_class_guid = {0x3d6fa8d1, 0xfe05, 0x11d0,
                                               {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
static const etl_guid etl_kernel_process_guid = {0x22fb2cd6, 0x0e7b, 0x422b,
                                                 {0xa0, 0xc7, 0x2f, 0xad, 0x1f, 0xd0, 0xe7, 0x16}};

/* Records whose decoded fields the table learns from (kernel Process and Thread classes,
 * Microsoft-Windows-Kernel-Process): the only ones a first pass needs to decode. Inline, as
 * etl_process_table_header_thread: the parallel reader asks them of every record (decode/observe_filter.c). */
static inline int etl_process_table_wants(const etl_event_record *record)
{
    const etl_guid *g = &record->header.provider_id;
    switch (g->data1) { /* most records are none of these: one compare */
    case 0x3d6fa8d0: return memcmp(g, &etl_process_class_guid, sizeof *g) == 0;
    case 0x3d6fa8d1: return memcmp(g, &etl_thread_class_guid, sizeof *g) == 0;
    case 0x22fb2cd6: return memcmp(g, &etl_kernel_process_guid, sizeof *g) == 0;
    default: return 0;
    }
}

/* Among those, the ones whose decoded fields can change the table (the events etl_process_table_observe lists
 * below); observing any other record amounts to etl_process_table_observe_header. */
int etl_process_table_learns_from(const etl_event_record *record);

/* Learns from a decoded event: kernel Process Start/End/DCStart/DCEnd/Defunct (ImageFileName, whatever the
 * layout version), Microsoft-Windows-Kernel-Process ProcessStart/ProcessStop/ProcessRundown (ImageName),
 * kernel Thread Start/End/DCStart/DCEnd (ProcessId, TThreadId), and the PID/TID pair of any record header that
 * has both (TID 0, the idle threads of every CPU, excepted). Observing an event twice changes nothing.
 * Returns ETL_OK or ETL_ERR_NOMEM. */
int etl_process_table_observe(etl_process_table *t, const etl_decoded_event *event);
/* The part of etl_process_table_observe a record's header alone gives (its PID/TID pair): all that observing a
 * record etl_process_table_wants does not want amounts to. */
int etl_process_table_observe_header(etl_process_table *t, const etl_event_record *record);
/* 1 when the record's header names a thread and its process (TID 0 excepted): the only headers
 * etl_process_table_observe_header learns from (TID -> PID); it changes nothing for the others. */
static inline int etl_process_table_header_thread(const etl_event_record *record)
{
    const etl_event_header *h = &record->header;
    return h->process_id != UINT32_MAX && h->thread_id != UINT32_MAX && h->thread_id != 0;
}

/* The PID an event belongs to: for classic (kernel) records, the payload's ProcessId/PID/StackProcess field
 * when there is one (the process the event is about; the header holds the logging context), else the
 * record's PID, else the process of the payload's ThreadId/TThreadId/IssuingThreadId or of the record's TID;
 * for other records the record's PID. UINT32_MAX when unknown. Which properties those are is cached per
 * description (registry entries live as long as the registry). */
uint32_t etl_process_table_event_pid(etl_process_table *t, const etl_decoded_event *event);

/* Display name (image name without directory and extension, as TraceEvent's ProcessName) of the process
 * that had `pid` at `timestamp` (same clock as the records), NULL if unknown. Valid until the next observe.
 * Not const: each PID remembers its last answer and the times it holds for (lookups in time order walk no
 * list), so one table is used by one thread at a time. */
const char *etl_process_table_name(etl_process_table *t, uint32_t pid, int64_t timestamp);

/* dst becomes what src knows (processes, lifetimes, names, TID -> PID), as if it had observed the same events.
 * ETL_OK, or ETL_ERR_NOMEM (dst unchanged). */
int etl_process_table_copy(etl_process_table *dst, const etl_process_table *src);

/* Appends a canonical text of everything the table knows (per PID, sorted: its lifetimes and names in list
 * order; per TID, sorted: its PID): equal texts, equal tables for every lookup. ETL_OK or ETL_ERR_NOMEM. */
int etl_process_table_describe(const etl_process_table *t, etl_textbuf *out);
/* The table a decoder learns into (decoder.c). */
const etl_process_table *etl_decoder_process_table(const etl_decoder *decoder);
/* Its ETL_DECODER_* flags (a first pass learning on a decoder of its own decodes as this one does). */
unsigned etl_decoder_flags(const etl_decoder *decoder);
/* Observations left out because they did not fit the table's bounds (see process_table.c): a hostile or
 * extreme trace; the events they concern may then show no or an older process name. */
uint64_t etl_process_table_dropped(const etl_process_table *t);

/* "Idle" from "Idle", "Test.x86" from "\Device\...\Test.x86.exe": writes at most cap-1 bytes, cut on a
 * character boundary. */
void etl_process_display_name(const char *image, char *out, size_t cap);

#endif
