/* libetlformats — listings of event schemas (`etlconv schemas`): providers, their events and fields, as text
 * or JSON, from any set of event descriptions (include/etl/etl_schema.h).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_ETL_SCHEMA_LIST_H
#define ETL_ETL_SCHEMA_LIST_H

#include <stdio.h>

#include "etl_schema.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etl_schema_list_format { ETL_SCHEMA_LIST_TEXT = 0, ETL_SCHEMA_LIST_JSON } etl_schema_list_format;

/* Writes the providers of `infos` (grouped by provider GUID and name, sorted by name), each with its events
 * (sorted by id, version, opcode, name) and their fields (schema order, struct members nested). The JSON form
 * is one document {"providers":[...]} (layout in etlconv.1, SCHEMA LISTING). Returns 0, -1 when out of memory
 * or the stream failed. */
int etl_schema_list_write(FILE *out, const etl_event_info *const *infos, size_t count, etl_schema_list_format format);

/* Per-provider counts of a trace (`etlconv schemas --info`). */
typedef struct etl_provider_count {
    etl_guid guid;
    const char *name;          /* provider name, or NULL when no source names it */
    etl_schema_source source;  /* the source that decoded its last decoded event (NONE when none did) */
    uint64_t events, decoded, errors, undecoded;
} etl_provider_count;

/* Writes the table (text: one tab-separated line per provider after a header line; JSON: one document
 * {"providers":[...]}), sorted by event count, highest first. */
int etl_provider_counts_write(FILE *out, const etl_provider_count *counts, size_t count, etl_schema_list_format format);

#ifdef __cplusplus
}
#endif

#endif /* ETL_ETL_SCHEMA_LIST_H */
