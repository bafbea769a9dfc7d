/* Helpers shared by the writers in formats/: a reusable growable text buffer (one per writer, so the hot
 * path does not allocate per event), UTF-8 walking, hex dumps and the event facts every writer prints
 * the same way (times, related activity id, display names). */
#ifndef ETL_FORMATS_FORMAT_UTIL_H
#define ETL_FORMATS_FORMAT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu_time.h"
#include "etl/etl_writer.h"
#include "util/textbuf.h"
#include "util/utf.h"

/* The writers' text buffer is the library's (util/textbuf.h): same growth and sticky failure rules. */
typedef etl_textbuf fmt_buf;

/* Appends the code point as UTF-8. */
void fmt_buf_put_codepoint(fmt_buf *tb, uint32_t cp);
/* Appends bytes as hex without separators. */
void fmt_buf_put_hex(fmt_buf *tb, const uint8_t *bytes, size_t length, int upper);
/* Room for `extra` more bytes at the end (advance `length` by what was used); NULL on failure. */
char *fmt_buf_grow(fmt_buf *tb, size_t extra);
/* NUL-terminated view of the content ("" when empty). */
const char *fmt_buf_cstr(fmt_buf *tb);
/* Writes the content to the sink and empties the buffer; -1 when the sink or an allocation failed. */
int fmt_buf_flush(fmt_buf *tb, const etl_sink *sink);

/* Integer text without printf (the writers' hot path): decimal, and "0x" + upper-case hex without
 * padding. `buf` holds at least FMT_INT_CAP bytes; the result points into it. */
#define FMT_INT_CAP 24
char *fmt_u64(uint64_t value, char *buf);
char *fmt_i64(int64_t value, char *buf);
char *fmt_hex64(uint64_t value, char *buf);

/* Per-writer time formatting state: UTC or local, the local UTC offset of the last half-hour slot asked
 * for (localtime_r is slow and offsets change only on such boundaries), the date text of the last day and
 * the text of the last second (so the hot path formats only the fraction). */
typedef struct fmt_clock {
    int local;
    int stable;  /* --stable: times are relative to the trace's first event, "+S.fffffff" (etl_diff.h) */
    int offset_valid, date_valid;
    int64_t offset_slot;
    long offset_seconds;
    int64_t day;
    char date[11];
    int second_valid;
    int64_t second;         /* the second (after the offset) whose "YYYY-MM-DDTHH:MM:SS" is second_text */
    char second_text[19];
} fmt_clock;

/* `text` itself when it is valid UTF-8, else a copy in `scratch` with each malformed sequence replaced by
 * U+FFFD. */
const char *fmt_valid_utf8(const char *text, fmt_buf *scratch);

/* Event time as ISO-8601 with `digits` fraction digits (0..9; 7 = 100 ns; 9 = tracerpt's form): UTC
 * ("...Z"), or with clock->local the local time of this machine with its exact offset ("...+08:00").
 * cap >= 40. Returns buf. */
char *fmt_event_time(fmt_clock *clock, int64_t filetime, int digits, char *buf, size_t cap);

/* "{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}" in lower case without printf; buf >= 39 bytes. Returns buf. */
char *fmt_guid(const etl_guid *g, char *buf);

/* State shared by the writers that build one line per event (csv, table, jsonl). */
typedef struct fmt_line_writer {
    etl_sink sink;
    etl_writer_options options;
    fmt_clock clock;
    fmt_buf line;
    fmt_buf scratch;
    size_t cells;  /* cells written on the current line */
    struct fmt_text_cache *cache;  /* static text per event kind (text_cache.h), NULL for writers without */
    fmt_cpu_memo cpu;              /* Kernel/User ms of the event before (cpu_time.h) */
} fmt_line_writer;

void *fmt_line_writer_create(const etl_sink *sink, const etl_writer_options *options);
void fmt_line_writer_destroy(void *state);
/* A line writer with a static-text cache of `segments` segments built by `build` (text_cache.h). */
void *fmt_line_writer_create_cached(const etl_sink *sink, const etl_writer_options *options, uint32_t segments,
                                    void (*build)(void *, const etl_decoded_event *, fmt_buf *, uint32_t *));
int fmt_begin_nothing(void *state);
/* The line writers' end: flushes the last block of lines. */
int fmt_end_nothing(void *state, const etl_run_totals *totals);

/* Table cells (table writer, activities list): a tab before every cell but the line's first; backslash, tab,
 * CR, LF and other control characters as \\ \t \r \n \xHH, so a row stays one line. */
void fmt_table_separator(fmt_line_writer *st);
void fmt_table_cell(fmt_line_writer *st, const char *value);
/* fmt_table_cell of the value of each ETL_FIELD_VALUE among fields[0, count), the usual clean values through
 * one local pointer (one room check per cell, no call). */
void fmt_table_value_cells(fmt_line_writer *st, const etl_field *fields, size_t count);
/* The same through the escaping loop only: fmt_table_cell skips it for text that needs no escaping
 * (tests/test_table_cells.c checks both give the same bytes on every corpus value). */
void fmt_table_cell_general(fmt_line_writer *st, const char *value);

/* RelatedActivityID from the record's extended data; 1 when present. */
int fmt_related_activity(const etl_event_record *record, etl_guid *out);

/* The provider name when a real one is known (not just the GUID text), else NULL. */
const char *fmt_known_provider(const etl_decoded_event *event);

/* The name shown as "Task": the task name, or the event name for TraceLogging (tracerpt puts the
 * TraceLogging event name in RenderingInfo/Task). NULL when there is none. */
const char *fmt_task_display(const etl_decoded_event *event);

/* Classic (MOF) events: the event-class GUID; 0 when the event is not a classic one. */
int fmt_class_guid(const etl_decoded_event *event, etl_guid *out);

#endif
