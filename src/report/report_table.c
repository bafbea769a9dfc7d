/* Bounded counter tables for the report (see report_table.h). */
#include "report/report_table.h"

#include <stdlib.h>
#include <string.h>

void rt_init(rt_table *t, size_t max_rows)
{
    memset(t, 0, sizeof *t);
    t->max_rows = max_rows;
}

uint64_t rt_hash_text(const char *s, uint64_t seed)
{
    uint64_t h = 1469598103934665603ull ^ seed;  /* FNV-1a */
    for (; s && *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static size_t slot_of(uint64_t key, size_t cap)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

static int same(const rt_row *r, uint64_t key, const char *name)
{
    if (r->key != key) return 0;
    if (!name) return r->text[0] == NULL;
    return r->text[0] && strcmp(r->text[0], name) == 0;
}

rt_row *rt_find(const rt_table *t, uint64_t key, const char *name)
{
    if (!t->slot_cap) return NULL;
    for (size_t s = slot_of(key, t->slot_cap);; s = (s + 1) & (t->slot_cap - 1)) {
        uint32_t i = t->slots[s];
        if (!i) return NULL;
        if (same(&t->rows[i - 1], key, name)) return &t->rows[i - 1];
    }
}

static int grow(rt_table *t)
{
    size_t cap = t->slot_cap ? t->slot_cap * 2 : 64;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < t->count; i++) {
        size_t s = slot_of(t->rows[i].key, cap);
        while (slots[s]) s = (s + 1) & (cap - 1);
        slots[s] = (uint32_t)(i + 1);
    }
    free(t->slots);
    t->slots = slots;
    t->slot_cap = cap;
    return 0;
}

rt_row *rt_get(rt_table *t, uint64_t key, const char *name, int *nomem)
{
    rt_row *found = rt_find(t, key, name);
    if (found) return found;
    if (t->count >= t->max_rows) {
        t->dropped++;
        return NULL;
    }
    if ((t->count + 1) * 2 > t->slot_cap && grow(t) != 0) {
        *nomem = 1;
        return NULL;
    }
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 32;
        rt_row *rows = realloc(t->rows, cap * sizeof *rows);
        if (!rows) {
            *nomem = 1;
            return NULL;
        }
        t->rows = rows;
        t->cap = cap;
    }
    rt_row *r = &t->rows[t->count];
    memset(r, 0, sizeof *r);
    r->key = key;
    if (name && !(r->text[0] = strdup(name))) {
        *nomem = 1;
        return NULL;
    }
    size_t s = slot_of(key, t->slot_cap);
    while (t->slots[s]) s = (s + 1) & (t->slot_cap - 1);
    t->slots[s] = (uint32_t)++t->count;
    return r;
}

int rt_set_text(rt_row *row, int i, const char *text)
{
    if (row->text[i] || !text) return 0;
    row->text[i] = strdup(text);
    return row->text[i] ? 0 : -1;
}

void rt_free(rt_table *t)
{
    for (size_t i = 0; i < t->count; i++)
        for (int k = 0; k < RT_TEXTS; k++) free(t->rows[i].text[k]);
    free(t->rows);
    free(t->slots);
    memset(t, 0, sizeof *t);
}
