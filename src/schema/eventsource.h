/* Counters and last error of the EventSource in-stream manifest source, for diagnostics and tests. */
#ifndef ETL_SCHEMA_EVENTSOURCE_H
#define ETL_SCHEMA_EVENTSOURCE_H

#include "schema/sources.h"

typedef struct etl_eventsource_stats {
    uint64_t chunks;             /* manifest chunk events seen (valid envelope) */
    uint64_t chunks_dropped;     /* chunks of manifests that could not be completed (lost chunk, bounds) */
    uint64_t manifests_loaded;   /* complete manifests the manifest parser accepted */
    uint64_t manifests_failed;   /* complete manifests the manifest parser refused (see last error) */
    uint64_t manifests_repeated; /* identical re-sends, not parsed again */
    uint64_t manifests_ignored;  /* Microsoft-Windows-DotNETRuntime's own manifest */
} etl_eventsource_stats;

const etl_eventsource_stats *etl_eventsource_get_stats(const etl_eventsource_state *state);
/* One-line message of the last manifest the parser refused, NULL if none. */
const char *etl_eventsource_last_error(const etl_eventsource_state *state);

/* Where lost manifests are reported (one line each, without the file name): a manifest the parser refused,
 * one whose chunks break off (a chunk lost, over the size bounds) or never complete. file_index and offset
 * (of its buffer) are those of the chunk event that showed it (the first chunk for a manifest that never
 * completed). */
typedef void (*etl_eventsource_report_fn)(void *ctx, const etl_record_place *at, const char *message);
void etl_eventsource_set_report(etl_eventsource_state *state, etl_eventsource_report_fn fn, void *ctx);
/* After the last record: reports every manifest still waiting for chunks, and forgets it. */
void etl_eventsource_finish(etl_eventsource_state *state);

#endif
