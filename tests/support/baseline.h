/* PerfView TraceEvent baseline files (`*.baseline.txt`, format: shared/corpus/EXPECTED.md §1): parsing the
 * EVENT and COUNT lines, and the value normalisations needed to compare PerfView's display strings with
 * etlconv's rendered values. */
#ifndef TESTS_SUPPORT_BASELINE_H
#define TESTS_SUPPORT_BASELINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct baseline_field {
    char *name;
    char *value;            /* PerfView's display string, possibly cut to 20 characters + "..." */
} baseline_field;

typedef struct baseline_event {
    int line;               /* 1-based line number in the file */
    int64_t time_us;        /* "<ms>" relative to trace start, in microseconds (ms × 1000, exact) */
    char *provider;         /* text before the first '/' of "<Provider>/<Event>" */
    char *event_name;       /* the rest: "Process/DCStart", "EventTrace", "ImageID/DbgID_RSDS" */
    long pid, tid;          /* -1 when PerfView had none */
    char *pname;
    int proc_num;
    long data_len;
    size_t field_count;
    baseline_field *fields;
    char *container_id;     /* NULL unless the line ends with ContainerID=... */
} baseline_event;

typedef struct baseline_count {
    char *key;              /* "<Provider>/<Event>" */
    unsigned long count;
} baseline_count;

typedef struct baseline {
    baseline_event *events;
    size_t event_count;
    baseline_count *counts;
    size_t count_count;
} baseline;

/* Parses one EVENT line (without its newline) into `ev`; strings are copies owned by `ev`.
 * Returns 0, or -1 with a reason in err. */
int baseline_parse_event_line(const char *line, baseline_event *ev, char *err, size_t errlen);
void baseline_event_free(baseline_event *ev);

/* Loads a whole baseline file. Returns 0, or -1 with "<path>:<line>: reason" in err. */
int baseline_load(const char *path, baseline *out, char *err, size_t errlen);
void baseline_free(baseline *b);

const baseline_field *baseline_find_field(const baseline_event *ev, const char *name);

/* ---- value normalisation ------------------------------------------------------------------------------ */

/* Is `pv` a PerfView-cut value ("<20 characters>...")? */
int baseline_is_cut(const char *pv);

/* PerfView's display of `value`: escape \n and \r, cut to 20 UTF-16 code units + "..." when longer. The
 * result is written to buf (always NUL-terminated). */
void baseline_perfview_cut(const char *value, char *buf, size_t cap);

/* Integer in PerfView form ("65,536", "-1", "0x00187000") or ours ("65536", "0x187000"). Returns 0 and sets
 * *neg and *magnitude, or -1 when the text is not an integer. */
int baseline_parse_integer(const char *text, int *neg, uint64_t *magnitude);

/* PerfView's UTC date form "yy/MM/dd HH:mm:ss.ffffff" of an ISO-8601 UTC text "YYYY-MM-DDThh:mm:ss[.fff]Z"
 * (our FILETIME/SYSTEMTIME rendering) or of a FILETIME number. Returns 0 or -1 when not convertible. */
int baseline_iso_to_perfview_date(const char *iso, char *buf, size_t cap);
int baseline_filetime_to_perfview_date(uint64_t filetime, char *buf, size_t cap);

#endif
