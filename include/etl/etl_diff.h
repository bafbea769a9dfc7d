/* libetl — trace diffing for test pipelines: the stable view of decoded events (the same bytes on every
 * machine, time zone, locale and run), the text baseline form, and the diff engine with its reports.
 *
 * Stable view (etl_stable): times relative to the first event of the trace; process, thread and activity
 * ids replaced by ordinals in order of first appearance (P1, T3, A2 — the numbers 1, 3, 2 in the record);
 * CPU numbers, kernel/user times, buffer and sequence numbers zeroed (writers leave them out); the log-file
 * header's volatile facts dropped; pointer-valued fields masked (see etl_stable_apply); fields chosen with
 * masks shown as "*".
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_ETL_DIFF_H
#define ETL_ETL_DIFF_H

#include <stdio.h>

#include "etl_schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* etl_writer_options.stable and etl_stable_new flags. */
enum {
    ETL_STABLE_ON = 0x1,      /* the stable view is in use: writers leave out CPU, kernel/user times, ... */
    ETL_STABLE_NO_TIME = 0x2  /* --mask time: writers leave the time out too */
};

/* The text a masked value is replaced with. */
#define ETL_STABLE_MASKED "*"

typedef struct etl_stable etl_stable;

etl_stable *etl_stable_new(unsigned flags);
void etl_stable_free(etl_stable *stable);
/* A mask: "time" (drop times), "NAME" (a field of that name in any event, case-insensitive) or
 * "PROVIDER:EVENT:FIELD" (provider name or GUID, event name, field; "*" matches any). Several may be given
 * separated by commas. Returns 0, or -1 (bad spec or out of memory). */
int etl_stable_add_mask(etl_stable *stable, const char *spec);
unsigned etl_stable_flags(const etl_stable *stable);

/* Registers the event's time, process, thread and activity ids (first appearance decides the ordinals).
 * Call it for every event in trace order, also those a filter then drops, so ordinals do not depend on
 * filters. */
void etl_stable_observe(etl_stable *stable, const etl_decoded_event *event);

/* The stable view of `event` (observed first when it was not). Valid until the next call. Pointer rule:
 * in-types POINTER and SIZET and out-type CODE_POINTER are masked always; HEXINT32/HEXINT64 values (in-
 * or out-type) are masked when their width equals the record's pointer size and the value is at least
 * 0x10000 (Windows never maps the lowest 64 KiB, so smaller values are flags or codes, not addresses).
 * FILETIME/SYSTEMTIME in-types and ETWTIME out-types (absolute times) are masked; PID/TID out-types
 * become ordinals ("P3", "T5"). Returns ETL_OK or ETL_ERR_NOMEM. */
int etl_stable_apply(etl_stable *stable, const etl_decoded_event *event, const etl_decoded_event **out);

/* "+12.3456789": a relative time in 100 ns ticks as seconds; buf >= 32 bytes. Returns buf. */
char *etl_stable_time(int64_t ticks, char *buf);

/* ---- baseline text form ------------------------------------------------------------------------------
 * First line "# etlconv baseline 1: OPTIONS" (the stable and filter options used, words separated by
 * spaces, escaped as values are); then one line per event, tab-separated:
 *   TIME  Pn  Tn  PROCESS  PROVIDER  EVENT  [@activity=An]  [@related=An]  Name=Value ...  [@payload=0xHEX]
 * TIME is "+S.fffffff" or "-" (time masked), Pn/Tn "P-"/"T-" when the record has none, PROCESS "-" when
 * unknown. Struct members are "Struct.Member", array elements "Name[i]". Backslash, tab, CR, LF, '=' in
 * names and other control characters are written \\ \t \r \n \x3D \xHH. */
#define ETL_BASELINE_MAGIC "# etlconv baseline 1:"

/* Appends the baseline line of a stable event (with its '\n') to `out` (an etl_textbuf). */
struct etl_textbuf;
void etl_baseline_render(const etl_decoded_event *stable_event, unsigned stable_flags, struct etl_textbuf *out);
/* Appends `text` escaped as baseline cells are. */
void etl_baseline_escape(const char *text, int is_name, struct etl_textbuf *out);

/* A JSON Lines baseline (`--stable -of jsonl`): its first line is {"etlconv_baseline":1,"options":"..."},
 * then one event per line. One line → its baseline text line (with '\n') appended to `out`. Returns 0; 1 for
 * the header object (its options copied to `options` when not NULL); -1 when the line is no such JSON. */
int etl_baseline_from_json(const char *line, size_t length, struct etl_textbuf *out, char *options, size_t cap);

/* ---- diff -------------------------------------------------------------------------------------------- */

typedef enum etl_diff_by {
    ETL_DIFF_BY_THREAD = 0,  /* provider + process + thread (default) */
    ETL_DIFF_BY_PROCESS,     /* provider + process */
    ETL_DIFF_BY_PROVIDER,    /* provider */
    ETL_DIFF_BY_NONE         /* one stream */
} etl_diff_by;

enum {
    ETL_DIFF_REPORT_TEXT = 0,
    ETL_DIFF_REPORT_JSON = 1
};

typedef struct etl_diff_options {
    etl_diff_by by;
    int compare_time;             /* compare relative times too */
    int64_t time_tolerance;       /* 100 ns ticks */
    double count_tolerance;       /* percent: a count change within it is no difference */
    int counts_only;              /* report the count table only */
    int all_counts;               /* text report: unchanged counts too */
    unsigned context;             /* events of context around a hunk (default 3) */
    int color;                    /* ANSI colours in the text report */
    const char *const *ignore_fields;   /* field names left out of the comparison */
    size_t ignore_field_count;
    const char *const *ignore_events;   /* "EVENT" or "PROVIDER:EVENT" ("*" matches any) */
    size_t ignore_event_count;
    /* Called for each decoded event of a trace side before the stable view; 0 drops it (filters). */
    int (*accept)(void *ctx, const etl_decoded_event *event);
    void *accept_ctx;
    /* Called now and then while sides are read (bytes done/total of the current side); may be NULL. */
    void (*progress)(void *ctx, uint64_t done, uint64_t total, uint64_t events);
    void *progress_ctx;
    /* How a trace side's stable event becomes its baseline line; NULL: etl_baseline_render. (etlconv compares a
     * trace with a JSON Lines baseline by writing its events as JSON Lines and reading them back with
     * etl_baseline_from_json, so both sides take the same path.) Returns 0, or -1 on failure. */
    int (*render)(void *ctx, const etl_decoded_event *stable_event, unsigned stable_flags, struct etl_textbuf *line);
    void *render_ctx;
    /* Problems met while reading trace sides (see etl_open_options); may be NULL. */
    etl_diagnostic_fn on_diagnostic;
    void *diagnostic_ctx;
} etl_diff_options;

typedef struct etl_diff etl_diff;

/* The stable flags and masks apply to trace sides; a baseline side was written with its own. */
etl_diff *etl_diff_new(const etl_diff_options *options, etl_stable *old_stable, etl_stable *new_stable);
void etl_diff_free(etl_diff *diff);

/* side: 0 = old, 1 = new. Reads one or more .etl files merged as one trace: first pass for process names,
 * decoding with `registry`, the accept filter, the stable view, the baseline line. Events are spilled to a
 * temporary file; memory keeps 24 bytes per event. Returns ETL_OK or an error in err. */
int etl_diff_read_trace(etl_diff *diff, int side, const char *const *files, size_t count,
                        etl_schema_registry *registry, etl_error *err);
/* A baseline file: text (etl_baseline_render lines after the "# etlconv baseline" line) or JSON Lines (see
 * etl_baseline_from_json). Lines of other shapes are refused with the line number. */
int etl_diff_read_baseline(etl_diff *diff, int side, const char *path, etl_error *err);
/* The OPTIONS of a baseline file's first line into buf ("" when none); 0 for a text baseline, 1 for a JSON
 * Lines baseline, -1 when the file is no baseline. */
int etl_baseline_read_options(const char *path, char *buf, size_t cap);

/* Aligns and writes the report (text or JSON) to `out`, and the JUnit XML to `junit` when not NULL.
 * Returns 0 when the sides are the same, 1 when they differ, -1 on failure (err). */
int etl_diff_report(etl_diff *diff, int format, FILE *out, FILE *junit, const char *old_name,
                    const char *new_name, etl_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ETL_ETL_DIFF_H */
