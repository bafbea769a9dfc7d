/* Ordinals in order of first appearance (see ordinal_map.h). */
#include "ordinal_map.h"

#include <stdlib.h>
#include <string.h>

/* Eight bytes per step (multiply and xor-shift), then the tail byte by byte: a hash of every line of a trace
 * is on the diff's hot path. */
uint64_t etl_diff_hash_bytes(uint64_t h, const void *data, size_t n)
{
    const uint8_t *p = data;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 32;
    }
    for (; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static size_t slot_of(const ordinal_map *map, const uint8_t *key)
{
    uint64_t h = etl_diff_hash_bytes(ETL_DIFF_HASH_SEED, key, 16);
    h ^= h >> 29;
    return (size_t)h & (map->slots - 1);
}

static int grow(ordinal_map *map)
{
    size_t slots = map->slots ? map->slots * 2 : 64;
    uint8_t (*keys)[16] = calloc(slots, sizeof *keys);
    uint32_t *values = calloc(slots, sizeof *values);
    if (!keys || !values) {
        free(keys);
        free(values);
        return -1;
    }
    ordinal_map bigger = {keys, values, slots, map->count};
    for (size_t i = 0; i < map->slots; i++) {
        if (!map->values[i]) continue;
        size_t j = slot_of(&bigger, map->keys[i]);
        while (values[j]) j = (j + 1) & (slots - 1);
        memcpy(keys[j], map->keys[i], 16);
        values[j] = map->values[i];
    }
    free(map->keys);
    free(map->values);
    *map = bigger;
    return 0;
}

uint32_t ordinal_map_get(ordinal_map *map, const void *key16)
{
    if (map->slots) {
        for (size_t i = slot_of(map, key16);; i = (i + 1) & (map->slots - 1)) {
            if (!map->values[i]) break;
            if (memcmp(map->keys[i], key16, 16) == 0) return map->values[i];
        }
    }
    if (map->count >= ORDINAL_MAP_MAX) return 0;
    if ((size_t)(map->count + 1) * 2 > map->slots && grow(map) != 0) return 0;
    size_t i = slot_of(map, key16);
    while (map->values[i]) i = (i + 1) & (map->slots - 1);
    memcpy(map->keys[i], key16, 16);
    map->values[i] = ++map->count;
    return map->count;
}

uint32_t ordinal_map_get32(ordinal_map *map, uint32_t id)
{
    uint8_t key[16] = {0};
    memcpy(key, &id, sizeof id);
    return ordinal_map_get(map, key);
}

void ordinal_map_free(ordinal_map *map)
{
    free(map->keys);
    free(map->values);
    memset(map, 0, sizeof *map);
}
