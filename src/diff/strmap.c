/* String → index table (see strmap.h). */
#include "strmap.h"

#include <stdlib.h>
#include <string.h>

#include "diff/ordinal_map.h"

static size_t slot_of(const strmap *map, const char *key, size_t len)
{
    uint64_t h = etl_diff_hash_bytes(ETL_DIFF_HASH_SEED, key, len);
    h ^= h >> 31;
    return (size_t)h & (map->slot_count - 1);
}

static int rehash(strmap *map)
{
    size_t n = map->slot_count ? map->slot_count * 2 : 64;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots) return -1;
    free(map->slots);
    map->slots = slots;
    map->slot_count = n;
    for (uint32_t k = 0; k < map->count; k++) {
        size_t i = slot_of(map, map->keys[k], strlen(map->keys[k]));
        while (slots[i]) i = (i + 1) & (n - 1);
        slots[i] = k + 1;
    }
    return 0;
}

uint32_t strmap_find(strmap *map, const char *key, size_t len, int *added)
{
    if (added) *added = 0;
    if (map->slot_count) {
        for (size_t i = slot_of(map, key, len);; i = (i + 1) & (map->slot_count - 1)) {
            uint32_t v = map->slots[i];
            if (!v) break;
            const char *k = map->keys[v - 1];
            if (strncmp(k, key, len) == 0 && k[len] == '\0') return v - 1;
        }
    }
    if (!added || map->count == UINT32_MAX - 1) return UINT32_MAX;
    if (((size_t)map->count + 1) * 2 > map->slot_count && rehash(map) != 0) return UINT32_MAX;
    if (map->count == map->capacity) {
        uint32_t cap = map->capacity ? map->capacity * 2 : 32;
        char **keys = realloc(map->keys, (size_t)cap * sizeof *keys);
        if (!keys) return UINT32_MAX;
        map->keys = keys;
        map->capacity = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy) return UINT32_MAX;
    memcpy(copy, key, len);
    copy[len] = '\0';
    size_t i = slot_of(map, key, len);
    while (map->slots[i]) i = (i + 1) & (map->slot_count - 1);
    map->keys[map->count] = copy;
    map->slots[i] = ++map->count;
    *added = 1;
    return map->count - 1;
}

const char *strmap_key(const strmap *map, uint32_t index)
{
    return index < map->count ? map->keys[index] : "";
}

void strmap_free(strmap *map)
{
    for (uint32_t k = 0; k < map->count; k++) free(map->keys[k]);
    free(map->keys);
    free(map->slots);
    memset(map, 0, sizeof *map);
}
