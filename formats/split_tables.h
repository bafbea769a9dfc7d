/* The tables of --split: one per (provider, event name, version, column list), each a file in the split
 * folder. Keeps at most `max_open` files open (LRU: the least recently written one is closed and reopened in
 * append mode when its next row comes), so thousands of event types need no more file descriptors. */
#ifndef ETL_FORMATS_SPLIT_TABLES_H
#define ETL_FORMATS_SPLIT_TABLES_H

#include <stdint.h>
#include <stdio.h>

#include "format_util.h"

#define SPLIT_DEFAULT_MAX_OPEN 64
#define SPLIT_MAX_TABLES 10000  /* more event types than this go to the undecoded table (raw payload) */
#define SPLIT_MAX_COLUMNS 4096

/* SQL column types of schema.sql (every one accepted by SQLite, DuckDB and ClickHouse). */
typedef enum split_sql_type { SPLIT_TEXT = 0, SPLIT_BIGINT, SPLIT_UBIGINT, SPLIT_DOUBLE, SPLIT_BOOLEAN } split_sql_type;

typedef struct split_table {
    char *key;          /* identity: provider, event, version, column names */
    char *name;         /* file stem and SQL table name: [A-Za-z0-9._-] only, unique without regard to case */
    char **columns;     /* column names (common columns first), unique */
    uint8_t *types;     /* split_sql_type per column */
    size_t column_count;
    FILE *fp;           /* NULL while closed */
    int created;        /* the file exists (later opens append) */
    uint64_t last_use;
    uint64_t rows;
} split_table;

typedef struct split_tables {
    char *dir;
    const char *extension;   /* ".csv" or ".jsonl" */
    unsigned max_open;
    split_table *tables;
    size_t count, capacity;
    size_t *slots;           /* hash index over tables (count + 1 marks an empty slot) */
    size_t slot_count;
    size_t *open;            /* indexes of the tables with an open file */
    size_t open_count;
    uint64_t clock;
    uint64_t reopens;        /* files closed by the LRU and opened again */
} split_tables;

/* Creates `dir` when missing. Returns 0, or -1 after printing a one-line error. */
int split_tables_init(split_tables *t, const char *dir, const char *extension, unsigned max_open);
/* Finds the table of `key`, or NULL. */
split_table *split_tables_find(split_tables *t, const char *key);
/* Adds a table (copies everything); `base` is the wished name before sanitising. NULL when out of memory or
 * SPLIT_MAX_TABLES is reached. */
split_table *split_tables_add(split_tables *t, const char *key, const char *base, const char *const *columns,
                              const uint8_t *types, size_t column_count);
/* The open stream of a table (opened, or reopened in append mode, closing the least recently used one when
 * max_open are open). `header` (may be NULL) is written when the file is created. NULL after an error message. */
FILE *split_tables_stream(split_tables *t, split_table *table, const char *header, size_t header_length);
/* Closes every file. Returns 0, or -1 when a write failed (message printed). */
int split_tables_close_all(split_tables *t);
/* Removes every file created (a run that failed leaves no half folder of tables). */
void split_tables_remove_files(split_tables *t);
void split_tables_free(split_tables *t);
/* "DIR/NAME.EXT" in a malloc'd string. */
char *split_tables_path(const split_tables *t, const char *name, const char *extension);

#endif
