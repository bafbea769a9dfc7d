/* What the decoder remembers between events so that the steady state does per event only what depends on
 * the event: schema lookups by key, the names of an event type, and the walk plan of each description.
 *
 * Lookups are valid while the registry's generation is unchanged (every addition or replacement changes it,
 * so EventSource manifests and embedded metadata arriving mid-trace are seen at once). Names and plans are
 * keyed by description address: registry descriptions live as long as the registry, TraceLogging ones until
 * the TraceLogging cache flushes — the decoder calls etl_decode_cache_forget then. Memory is fixed: lookups are
 * direct-mapped, names and plans two-way (the older entry replaced), a collision replaces an entry. */
#ifndef ETL_DECODE_DECODE_CACHE_H
#define ETL_DECODE_DECODE_CACHE_H

#include "decode/message.h"
#include "decode/walk.h"
#include "etl/etl_schema.h"

typedef struct etl_decode_cache etl_decode_cache;

etl_decode_cache *etl_decode_cache_new(void);
void etl_decode_cache_free(etl_decode_cache *c);
/* Descriptions may have been freed: drop names and plans keyed by their addresses. */
void etl_decode_cache_forget(etl_decode_cache *c);

/* etl_schema_registry_find, remembered until the registry changes. */
const etl_event_info *etl_decode_cache_find(etl_decode_cache *c, const etl_schema_registry *registry,
                                            etl_schema_key_kind kind, const etl_guid *guid, uint16_t id_or_opcode,
                                            uint8_t version);

/* The names of an event type: everything of etl_decoded_event's names that depends only on the description and
 * on the record's kind (classic or not), id, opcode, level, channel and reserved keyword bits (48..55). */
typedef struct etl_event_names {
    const char *task_name, *opcode_name, *level_name, *channel_name;
    const char *const *keyword_names;
    uint32_t keyword_name_count;
    const char *event_name;
} etl_event_names;

typedef struct etl_names_key {
    const etl_event_info *info;
    uint16_t id;
    uint8_t opcode, level, channel, keyword_bits, classic;
} etl_names_key;

/* NULL when not remembered. */
const etl_event_names *etl_decode_cache_names(etl_decode_cache *c, const etl_names_key *key);
/* Remembers a copy of `names` (event name and keyword list copied); returns the copy, or NULL when it could not
 * be kept (out of memory, a very long name): the caller keeps using its own. */
const etl_event_names *etl_decode_cache_keep_names(etl_decode_cache *c, const etl_names_key *key,
                                                   const etl_event_names *names);

/* The walk plan of a description (built on first use); NULL when out of memory. */
const etl_walk_plan *etl_decode_cache_plan(etl_decode_cache *c, const etl_event_info *info);
/* Its message template compiled for `insert_count` inserts (on first use, after etl_decode_cache_plan for the
 * same description); NULL when it has none, out of memory or no plan (etl_message_format_lengths then does the
 * same work). */
const etl_message_plan *etl_decode_cache_message(etl_decode_cache *c, const etl_event_info *info,
                                                 size_t insert_count);

#endif
