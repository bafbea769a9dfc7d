/* Internal interfaces between the decoder (src/decode/) and the schema sources (src/schema/).
 * Public entry points live in include/etl/etl_schema.h; these are the pieces the decoder wires together. */
#ifndef ETL_SCHEMA_SOURCES_H
#define ETL_SCHEMA_SOURCES_H

#include <string.h>

#include "etl/etl_schema.h"

/* Changes with every addition or replacement a find or provider-name lookup could return (deferred loads
 * included): a decoder caches lookups until it changes. */
uint64_t etl_schema_registry_generation(const etl_schema_registry *registry);

/* Built-in kernel MOF classes (NT Kernel Logger, KernelTraceControl synthetic events): registers every
 * (class GUID, type, version) as ETL_KEY_CLASSIC with source ETL_SOURCE_KERNEL_MOF. */
int etl_kernel_mof_register(etl_schema_registry *registry);

/* TraceLogging: the schema travels in the record (EVENT_SCHEMA_TL + PROV_TRAITS extended items). The cache
 * is keyed by the metadata bytes, so each distinct event shape is parsed once. */
typedef struct etl_tracelogging_cache etl_tracelogging_cache;
etl_tracelogging_cache *etl_tracelogging_cache_new(void);
void etl_tracelogging_cache_free(etl_tracelogging_cache *cache);
/* NULL when the record carries no TraceLogging metadata. When the metadata is malformed, returns NULL and
 * sets *error to a static one-line reason. */
const etl_event_info *etl_tracelogging_lookup(etl_tracelogging_cache *cache, const etl_event_record *record,
                                              const char **error);
/* How many times the cache was flushed (descriptions it handed out freed): callers that key anything by a
 * description's address forget it when this changes. */
uint64_t etl_tracelogging_cache_flushes(const etl_tracelogging_cache *cache);

/* .NET EventSource manifests written into the trace (event id 0xFFFE, chunked): reassembled per provider
 * and loaded into the registry as ETL_SOURCE_EVENTSOURCE once complete. */
typedef struct etl_eventsource_state etl_eventsource_state;
etl_eventsource_state *etl_eventsource_new(etl_schema_registry *registry);
void etl_eventsource_free(etl_eventsource_state *state);
/* Call for every record before lookup; returns 1 when the record was a manifest chunk. */
int etl_eventsource_observe(etl_eventsource_state *state, const etl_event_record *record);
/* 1 when the record is one etl_eventsource_observe takes (a manifest chunk); observing any other changes
 * nothing (decode/observe_filter.h). */
int etl_eventsource_takes(const etl_event_record *record);

/* KernelTraceControl MetaData events (EventInfo = TRACE_EVENT_INFO blob, EventMapInfo = EVENT_MAP_INFO blob):
 * loaded into the registry as ETL_SOURCE_EMBEDDED_TDH. Returns 1 when the record was such an event. */
typedef struct etl_embedded_state etl_embedded_state;
etl_embedded_state *etl_embedded_new(etl_schema_registry *registry);
void etl_embedded_free(etl_embedded_state *state);
int etl_embedded_observe(etl_embedded_state *state, const etl_event_record *record);
/* The MetaData task's classic records: opcode 32 EventInfo, 33 EventMapInfo. */
static const etl_guid etl_metadata_task_guid = {0xbbccf6c1, 0x6cd1, 0x48c4,
                                                {0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71}};
enum { ETL_METADATA_EVENT_INFO = 32, ETL_METADATA_EVENT_MAP_INFO = 33 };
/* 1 when the record is a MetaData event etl_embedded_observe takes. Observing any other record registers the
 * events held back for maps (embedded_tdh.c) and changes nothing else; once they are registered, nothing at
 * all (decode/observe_filter.h). Inline: the parallel reader asks it of every record. */
static inline int etl_embedded_takes(const etl_event_record *record)
{
    const etl_guid *g = &record->header.provider_id;
    if (g->data1 != etl_metadata_task_guid.data1) return 0;  /* most records: one compare */
    int classic = record->kind == ETL_KIND_FULL32 || record->kind == ETL_KIND_FULL64 ||
                  (record->header.flags & ETL_EVENT_FLAG_CLASSIC_HEADER);
    uint8_t opcode = record->header.descriptor.opcode;
    return classic && memcmp(g, &etl_metadata_task_guid, sizeof *g) == 0 &&
           (opcode == ETL_METADATA_EVENT_INFO || opcode == ETL_METADATA_EVENT_MAP_INFO);
}
/* Events held back and not registered yet: after observing a record it does not take, nonzero only when
 * registering failed (out of memory). */
uint32_t etl_embedded_pending(const etl_embedded_state *state);

#endif
