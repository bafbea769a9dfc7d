/* Schema files whose loading waits until a lookup names one of their GUIDs (the bundled manifests: most
 * traces use none of them, and parsing them all costs more than converting a small trace). The registry
 * resolves them before any find/provider-name lookup of such a GUID and before a visit, so what a caller sees
 * is what it would see had the files been loaded up front (precedence is by source, not by loading order). */
#ifndef ETL_SCHEMA_DEFERRED_FILES_H
#define ETL_SCHEMA_DEFERRED_FILES_H

#include <stddef.h>

#include "etl/etl_schema.h"

typedef struct etl_deferred_files etl_deferred_files;

/* Loads one deferred file into the registry; failures are the loader's to report or ignore. */
typedef void (*etl_deferred_loader)(etl_schema_registry *registry, const char *path);

/* Remembers `path` with every GUID it names (providers, task event GUIDs). *set is created on first use. */
int etl_deferred_add(etl_deferred_files **set, const char *path, const etl_guid *guids, size_t guid_count,
                     etl_deferred_loader loader);

/* Loads, once each, the pending files naming `guid` (NULL: every pending file). Cheap when none is pending
 * for that GUID. */
void etl_deferred_load(etl_deferred_files *set, etl_schema_registry *registry, const etl_guid *guid);

void etl_deferred_free(etl_deferred_files *set);

/* Every GUID a manifest (UTF-8 or UTF-16 text) writes as the value of an attribute whose name ends in "guid"
 * (provider guid, task eventGUID, controlGuid…), found without parsing the document: naming too many only
 * loads a file early. Returns the distinct GUIDs in out, 0 when there are none or more than `max`. */
#define ETL_DEFERRED_MAX_GUIDS 4096
size_t etl_deferred_scan_guids(const unsigned char *data, size_t size, etl_guid *out, size_t max);

/* Registry side (registry.c): hands `path` to the registry's deferred set. */
int etl_schema_registry_defer_file(etl_schema_registry *registry, const char *path, const etl_guid *guids,
                                   size_t guid_count, etl_deferred_loader loader);

#endif
