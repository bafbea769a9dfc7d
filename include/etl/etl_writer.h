/* libetlformats — pluggable output writers for decoded ETW events (tracerpt XML, CSV, table, JSON Lines,
 * summary). A writer receives etl_decoded_event values (include/etl/etl_schema.h) and never parses bytes.
 *
 * Each writer is one file in formats/ exporting one etl_writer_format; formats/registry.c lists them in one
 * table. Output goes through an etl_sink so the caller decides where bytes land (stdio, gzip, memory).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_ETL_WRITER_H
#define ETL_ETL_WRITER_H

#include <stdio.h>

#include "etl_schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- where the bytes go ------------------------------------------------------------------------------ */

typedef struct etl_sink {
    /* Writes `length` bytes; returns 0 on success, non-zero on failure (the writer then fails too). */
    int (*write)(void *ctx, const void *data, size_t length);
    void *ctx;
} etl_sink;

/* A sink over an open stdio stream (not closed by the writer). */
etl_sink etl_sink_stdio(FILE *stream);

/* A sink that leaves text where the writer built it (issue 14, the -j pipeline): writers that build their
 * output in an etl_textbuf (src/util/textbuf.h) point `kept` at that buffer instead of writing it (at their
 * first flush; fmt_buf_flush), and the caller takes the text later by exchanging the buffer's memory, without
 * a copy. Bytes written otherwise go to write(). etl_sink_keeper(k) is {etl_keeper_write, k}. */
struct etl_textbuf;
typedef struct etl_text_keeper {
    struct etl_textbuf *kept;  /* the writer's buffer, its text so far; NULL until its first flush */
    int (*write)(void *ctx, const void *data, size_t length);
    void *ctx;
} etl_text_keeper;
int etl_keeper_write(void *keeper, const void *data, size_t length);
etl_sink etl_sink_keeper(etl_text_keeper *keeper);

/* ---- options ------------------------------------------------------------------------------------------ */

/* Extra leading columns of the table writer, in this order when selected. */
enum {
    ETL_TABLE_TIME = 0x1,
    ETL_TABLE_PID = 0x2,
    ETL_TABLE_TID = 0x4,
    ETL_TABLE_CPU = 0x8,
    ETL_TABLE_PROVIDER = 0x10,
    ETL_TABLE_DEFAULT = ETL_TABLE_TIME | ETL_TABLE_PID | ETL_TABLE_TID | ETL_TABLE_PROVIDER
};

typedef struct etl_writer_options {
    int local_time;          /* times in the converting machine's local time with its offset; else UTC "Z" */
    int raw_timestamps;      /* -rts: write record->raw_timestamp instead of the converted time */
    int best_effort;         /* -lr: decode errors show the fields that fit + the extra bytes */
    int csv_compat;          /* CSV: tracerpt's ", "-separated, padded, unquoted rows */
    unsigned table_columns;  /* ETL_TABLE_* (0 = event name and values only) */
    /* -- issue 12 (tracerpt) members below; keep this line -- */
    const etl_trace *trace;  /* optional: its TimerResolution turns KernelTime/UserTime ticks into ms */
    /* -- issue 13 (diff) members below; keep this line -- */
    unsigned stable;              /* ETL_STABLE_* (etl_diff.h): events come through etl_stable_apply; leave out
                                   * CPU, kernel/user times, elapsed time and file paths; times are relative */
    const char *stable_options;   /* the options that made the stable output, for the baseline's header line */
    /* -- issue 14 (perf) members below; keep this line -- */
    int flush_every_event;   /* hand each event's text to the sink at once (else in blocks of ~256 KiB and at end) */
    /* -- issue 15 (typed) members below; keep this line -- */
    int json_bigint_string;  /* --json-bigint string: 64-bit integers (and timestamp, keywords) as strings */
    const char *split_dir;   /* --split DIR: the split writers' output folder */
    unsigned split_max_open; /* --split-max-open N: files kept open at once (0: the default, 64) */
    /* -- issue 16 (evtx) members below; keep this line -- */
    /* Optional positional write into the sink's destination (called with the sink's ctx; `offset` counts
     * from the first byte the sink received). Writers that fill in a header last (EVTX) use it; when NULL
     * (pipes, compressed output) they spool to a temporary file and write everything at the end. */
    int (*sink_write_at)(void *ctx, uint64_t offset, const void *data, size_t length);
    /* -- issue 17 (net) members below; keep this line -- */
    int pcapng_events;       /* pcapng: non-packet events as systemd journal export blocks between packets */
    /* -- issue 18 (wpp) members below; keep this line -- */
    const char *wpp_prefix;  /* tracefmt writer: line prefix (TRACE_FORMAT_PREFIX syntax); NULL: the environment's
                              * $TRACE_FORMAT_PREFIX, else tracefmt's "[%9!d!]%8!04X!.%3!04X!::%4!s! [%1!s!]" */
} etl_writer_options;

/* Run totals for writers that report them at the end (summary). Any member may be 0/NULL. */
typedef struct etl_run_totals {
    size_t file_count;
    const char *const *files;
    uint64_t buffers;
    uint64_t events;           /* events read (before filters) */
    uint64_t events_lost;
    uint64_t buffers_lost;
    uint64_t format_errors;    /* decode errors + reader errors */
    uint64_t unknown_formats;  /* events without a schema */
    double elapsed_seconds;
} etl_run_totals;

/* ---- one writer ------------------------------------------------------------------------------------ */

typedef struct etl_writer_format {
    const char *name;          /* canonical name, lower case: "xml", "csv", "table", "jsonl", "summary" */
    const char *aliases;       /* other accepted names separated by '|', or "" */
    const char *extension;     /* file extension for --each: ".xml" */
    const char *description;   /* one line for --help */
    /* Returns the writer's state, NULL on allocation failure. The sink and options are copied. */
    void *(*create)(const etl_sink *sink, const etl_writer_options *options);
    int (*begin)(void *state);                                  /* 0 on success */
    int (*event)(void *state, const etl_decoded_event *event);  /* 0 on success */
    int (*end)(void *state, const etl_run_totals *totals);      /* totals may be NULL */
    void (*destroy)(void *state);
    /* 1: shows the record header's PID and TID only, never event->process_id or event->process_name. The
     * caller may then decode without a process table and skip the first pass that fills it
     * (ETL_DECODER_NO_PROCESSES). 0 (the default): the writer gets them. */
    int header_ids_only;
} etl_writer_format;

/* The registration table (formats/registry.c). */
size_t etl_writer_format_count(void);
const etl_writer_format *etl_writer_format_at(size_t index);
/* Case-insensitive lookup by name or alias; NULL when unknown. */
const etl_writer_format *etl_writer_format_find(const char *name);

/* ---- convenience handle ---------------------------------------------------------------------------- */

typedef struct etl_writer etl_writer;

/* NULL when the format is unknown or memory is short. */
etl_writer *etl_writer_new(const etl_writer_format *format, const etl_sink *sink,
                           const etl_writer_options *options);
int etl_writer_begin(etl_writer *writer);
int etl_writer_event(etl_writer *writer, const etl_decoded_event *event);
int etl_writer_end(etl_writer *writer, const etl_run_totals *totals);
void etl_writer_free(etl_writer *writer);

#ifdef __cplusplus
}
#endif

#endif /* ETL_ETL_WRITER_H */
