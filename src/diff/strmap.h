/* A string → index table (stream keys, event types, per-side process and thread indices): keys are copied,
 * indices count up from 0 in order of insertion. */
#ifndef ETL_DIFF_STRMAP_H
#define ETL_DIFF_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct strmap {
    char **keys;        /* by index */
    uint32_t count;
    uint32_t capacity;  /* of keys */
    uint32_t *slots;    /* index + 1, 0 = empty */
    size_t slot_count;  /* power of two */
} strmap;

/* The key's index; a new key is added when `added` is not NULL (*added = 1 then). UINT32_MAX when absent
 * (lookup only) or memory is short. */
uint32_t strmap_find(strmap *map, const char *key, size_t len, int *added);
const char *strmap_key(const strmap *map, uint32_t index);
void strmap_free(strmap *map);

#endif
