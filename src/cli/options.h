/* etlconv command line: tracerpt's single-dash options plus GNU long options, parsed into one struct. */
#ifndef ETLCONV_OPTIONS_H
#define ETLCONV_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl_writer.h"

/* Exit status (documented in etlconv.1 and --help). */
enum {
    ETLCONV_EXIT_OK = 0,       /* every event converted */
    ETLCONV_EXIT_WARNINGS = 1, /* output written, but events were lost, skipped or not decodable */
    ETLCONV_EXIT_FAILURE = 2   /* bad usage, unreadable input, or the output could not be written */
};

typedef enum etlconv_mode { MODE_CONVERT = 0, MODE_HELP, MODE_VERSION, MODE_INFO } etlconv_mode;

typedef struct etlconv_filters {
    /* each list is "any of"; an empty list does not filter */
    char **providers;        /* names (case-insensitive) or GUID text */
    size_t provider_count;
    etl_guid *provider_guids;/* parsed where the text is a GUID, else zero */
    uint32_t *event_ids;
    size_t event_id_count;
    uint32_t *pids;
    size_t pid_count;
    uint32_t *tids;
    size_t tid_count;
    int level;               /* -1: no filter; else events with level <= N (0 = always logged) */
    uint64_t keywords;       /* 0: no filter; else events with any of these keyword bits */
    int has_from, has_to;
    int from_relative, to_relative;  /* seconds from trace start */
    int64_t from, to;        /* FILETIME, or 100 ns units from trace start when relative */
} etlconv_filters;

typedef struct etlconv_options {
    etlconv_mode mode;
    char **inputs;
    size_t input_count;
    const char *output;            /* -o; NULL = stdout */
    const etl_writer_format *format;
    int summary;                   /* -summary given */
    int summary_only;              /* --format summary: the summary is the only output */
    const char *summary_file;      /* its FILE, or NULL */
    int overwrite;                 /* -y */
    int each;                      /* --each: one output per input, -o names a directory */
    int quiet;
    int progress;                  /* --progress: draw the bar whatever the size and terminal */
    char **imports;                /* -import / --manifest: manifests, PE binaries or folders */
    size_t import_count;
    const char *export_file;       /* -export */
    int no_bundled;                /* --no-bundled-schemas */
    int no_trace_schemas;          /* --no-trace-schemas: ignore TraceLogging/EventSource/embedded metadata */
    int one_pass;                  /* --one-pass: no first pass to learn process names */
    etl_writer_options writer;
    etlconv_filters filters;
    /* One block per feature area, so that areas grow without touching each other's lines. */
    /* -- issue 12 (tracerpt) members below; keep this line -- */
    int tracerpt;                  /* tracerpt-compatible mode (options_tracerpt.h) */
    int report;                    /* -report given */
    const char *report_file;       /* its FILE, or NULL: workload.xml / workload.html */
    int report_html;               /* -f HTML */
    int report_level;              /* -rl 1..5 */
    const char *counting_schema;   /* -df FILE */
    const char *interpreted_file;  /* -int FILE */
    int output_default;            /* -o without a name: dumpfile.EXT */
    int gzip_output;               /* -of FMT.gz or --gzip */
    int strict;                    /* --strict: events the session lost also exit 1 */
    unsigned jobs;                 /* --jobs N: --each converts N files at once */
    char default_output[32];
    /* -- issue 13 (diff) members below; keep this line -- */
    struct etlconv_diff_options {  /* --stable, --mask and the `etlconv diff` options (options_diff.c) */
        char **masks;                  /* --mask specs as given */
        size_t mask_count;
        size_t new_from;               /* diff: index of the first NEW input (--new), 0 = not given */
        int by;                        /* etl_diff_by */
        int compare_time;
        int64_t time_tolerance;        /* 100 ns ticks */
        double count_tolerance;        /* percent */
        int counts_only, all_counts, json;
        int context, context_set;      /* --context N (default 3) */
        int color;                     /* 0 auto, 1 always, 2 never */
        const char *junit;
        char **ignore_fields;
        size_t ignore_field_count;
        char **ignore_events;
        size_t ignore_event_count;
        int failed;                    /* a diff option was bad (message printed) */
    } diff;
    /* -- issue 14 (perf) members below; keep this line -- */
    unsigned threads;              /* -j N: threads for one conversion (0 = the number of cores) */
    int compress_level;            /* --compress-level N for .gz/.zst output (0 = fast default) */
    /* -- issue 15 (typed) members below; keep this line -- */
    const char *json_style;        /* --style ecs: "ecs", else NULL */
    /* -- issue 16 (evtx) members below; keep this line -- */
    /* -- issue 17 (net) members below; keep this line -- */
    int activity_given;            /* --activity ID: that activity and the ones linked to it */
    etl_guid activity;
    int group_activity;            /* --group activity */
    /* -- issue 18 (wpp) members below; keep this line -- */
    char **wpp_tmf;                /* -tmf FILE, -tp DIR (options_wpp.c) */
    size_t wpp_tmf_count;
    char **wpp_pdb;                /* -pdb FILE|DIR */
    size_t wpp_pdb_count;
    char **wpp_images;             /* -i IMAGE: the PDB its CodeView record names */
    size_t wpp_image_count;
} etlconv_options;

/* Parses argv. Returns 0, or prints a one-line error to stderr and returns ETLCONV_EXIT_FAILURE. */
int etlconv_parse_options(int argc, char **argv, etlconv_options *out);
void etlconv_free_options(etlconv_options *opt);
void etlconv_print_help(FILE *out);

#endif
