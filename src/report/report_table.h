/* Bounded hash tables of counter rows for the report: a 64-bit key (plus an optional text that must match
 * too), up to ETL_REPORT_MAX_ROWS rows; rows that do not fit are counted, never stored. */
#ifndef ETL_REPORT_TABLE_H
#define ETL_REPORT_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define RT_TEXTS 3
#define RT_VALUES 10

typedef struct rt_row {
    uint64_t key;
    char *text[RT_TEXTS];     /* text[0] takes part in the key when given at insertion */
    uint64_t value[RT_VALUES];
} rt_row;

typedef struct rt_table {
    rt_row *rows;             /* insertion order */
    size_t count, cap;
    uint32_t *slots;          /* 1-based row index, 0 = empty */
    size_t slot_cap;
    uint64_t dropped;         /* lookups that found the table full */
    size_t max_rows;
} rt_table;

void rt_init(rt_table *t, size_t max_rows);
/* The row for (key, name): found, or inserted with zero counters and a copy of name as text[0]. NULL when
 * the table is full (dropped is counted) or memory ran out (*nomem set). */
rt_row *rt_get(rt_table *t, uint64_t key, const char *name, int *nomem);
rt_row *rt_find(const rt_table *t, uint64_t key, const char *name);
/* Stores a copy of text as row->text[i] (once; later calls keep the first). 0, or -1 when out of memory. */
int rt_set_text(rt_row *row, int i, const char *text);
void rt_free(rt_table *t);
uint64_t rt_hash_text(const char *s, uint64_t seed);

#endif
