/* The diff engine's tables, shared by ingest (diff.c) and the report (report.c). */
#ifndef ETL_DIFF_INTERNAL_H
#define ETL_DIFF_INTERNAL_H

#include <stdio.h>

#include "etl/etl_diff.h"
#include "diff/strmap.h"
#include "util/textbuf.h"

/* One event of a side: 32 bytes in memory, its text in the side's file at `offset`. */
typedef struct diff_event {
    uint64_t hash;    /* everything compared except the time */
    int64_t time;     /* relative time, 100 ns ticks */
    uint64_t offset;  /* of its baseline line in the side's text file */
    uint32_t stream;
    uint32_t type;
} diff_event;

typedef struct diff_side {
    FILE *text;              /* spill file (trace side) or the baseline itself */
    diff_event *events;
    size_t count, capacity;
    strmap members;          /* "group\x1fmember" → slot in member_index */
    uint32_t *member_index;  /* order of first appearance of the member inside its group (1, 2, ...) */
    strmap groups;
    uint32_t *group_size;
    size_t member_capacity, group_capacity;
    uint64_t lines_read;
} diff_side;

struct etl_diff {
    etl_diff_options opt;
    etl_stable *stable[2];
    diff_side side[2];
    strmap streams;          /* pairing key → stream id */
    char **stream_names;     /* display name per stream id */
    strmap types;            /* "provider\tevent" → type id */
    uint64_t *type_count[2];
    size_t type_capacity;
    etl_textbuf line, key, group, content, json;
};

/* Splits a baseline line (no '\n') at tabs into at most `max` cells; returns how many. */
typedef struct diff_cell {
    const char *text;
    size_t length;
} diff_cell;
size_t diff_split(const char *line, size_t length, diff_cell *cells, size_t max);

/* Baseline column positions. */
enum { COL_TIME = 0, COL_PROCESS_ID, COL_THREAD_ID, COL_PROCESS_NAME, COL_PROVIDER, COL_EVENT, COL_FIRST_FIELD };

/* Stream key, display name and hash of one baseline line (no '\n'); appends the event to side s. 1 when
 * the line is ignored (--ignore-event), 0 when added, -1 when out of memory, -2 when it is no event line. */
int diff_ingest_line(etl_diff *d, int s, const char *line, size_t length, uint64_t offset);

/* Reads the line at `offset` of a side's text (without '\n') into buf; -1 on failure. */
int diff_read_line(diff_side *side, uint64_t offset, etl_textbuf *buf);

/* Appends text escaped for a JSON string (with the quotes). */
void diff_json_string(etl_textbuf *out, const char *text, size_t length);

#endif
