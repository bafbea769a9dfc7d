/* Counters of the embedded-metadata source (KernelTraceControl MetaData events), for diagnostics and tests. */
#ifndef ETL_SCHEMA_EMBEDDED_TDH_H
#define ETL_SCHEMA_EMBEDDED_TDH_H

#include "schema/sources.h"

typedef struct etl_embedded_stats {
    uint64_t event_infos;           /* EventInfo blobs accepted */
    uint64_t events_registered;     /* of those, registered in the registry */
    uint64_t maps;                  /* EventMapInfo blobs accepted */
    uint64_t malformed;             /* blobs refused: an offset, count or index out of bounds */
    uint64_t skipped_other_sources; /* EventInfo of WPP / TraceLogging events (not used) */
    uint64_t dropped_for_memory;    /* blobs ignored once the memory bound was reached */
    uint64_t register_failures;
} etl_embedded_stats;

const etl_embedded_stats *etl_embedded_get_stats(const etl_embedded_state *state);

#endif
