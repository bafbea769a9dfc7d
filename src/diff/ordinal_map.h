/* Ordinals in order of first appearance for 16-byte keys (process ids, thread ids, activity GUIDs): an
 * open-addressing hash that stops growing at ORDINAL_MAP_MAX entries (later new keys get ordinal 0), so
 * memory never depends on how many distinct ids a file holds. */
#ifndef ETL_DIFF_ORDINAL_MAP_H
#define ETL_DIFF_ORDINAL_MAP_H

#include <stddef.h>
#include <stdint.h>

#define ORDINAL_MAP_MAX (1u << 20)

typedef struct ordinal_map {
    uint8_t (*keys)[16];
    uint32_t *values;  /* 0 = empty slot */
    size_t slots;      /* power of two */
    uint32_t count;
} ordinal_map;

/* The key's ordinal (1, 2, ...), assigning the next one when new; 0 when the map is full or memory short. */
uint32_t ordinal_map_get(ordinal_map *map, const void *key16);
/* Like ordinal_map_get for a 32-bit id. */
uint32_t ordinal_map_get32(ordinal_map *map, uint32_t id);
void ordinal_map_free(ordinal_map *map);

/* 64-bit FNV-1a over bytes, shared by the diff's hashes. */
uint64_t etl_diff_hash_bytes(uint64_t h, const void *data, size_t n);
#define ETL_DIFF_HASH_SEED 1469598103934665603ULL

#endif
