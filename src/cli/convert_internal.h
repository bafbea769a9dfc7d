/* What convert.c shares with the -j path (convert_parallel.c): the state of one conversion run. */
#ifndef ETLCONV_CONVERT_INTERNAL_H
#define ETLCONV_CONVERT_INTERNAL_H

#include "activity_cli.h"
#include "convert.h"
#include "filter.h"
#include "progress.h"
#include "run_extras.h"
#include "stable_run.h"

#define MAX_PRINTED_DIAGNOSTICS 20
#define PROGRESS_EVERY_EVENTS 4096

typedef struct run {
    const etlconv_options *opt;
    etl_trace *trace;
    etl_decoder *decoder;
    etl_writer *main_writer;
    const etl_sink *out_sink;  /* where main_writer writes (-j: the batches go there directly) */
    etl_writer *summary_writer;
    etl_schema_registry *export_to;
    etlconv_filters filters;
    int filtering;
    int filters_bound;
    etlconv_progress progress;
    etlconv_extras extras;  /* -report, -int, the --provider check */
    etlconv_activity_run activity;  /* --activity, --group activity */
    uint64_t seen;
    uint64_t written;
    uint64_t export_skipped;  /* events whose classic layout -export cannot describe */
    uint64_t diagnostics_printed, diagnostics_suppressed;
    int failed;  /* a writer or the decoder failed: stop */
    etlconv_stable_run stable;  /* --stable: the view the writers get */
} run;

/* The per-record step of a conversion: decode, filter, write (etl_process callback, ctx = run). */
int etlconv_on_event(const etl_event_record *record, void *ctx);
/* The first pass that learns process names; 0, or -1 after a message. */
int etlconv_learn_processes(run *r, etl_schema_registry *registry, const etlconv_job *job);
/* Relative --from/--to become times: from the files' StartTime, else from the trace's first event. */
void etlconv_bind_filters(run *r, int64_t first_event_time);
/* The run's diagnostic callback (ctx = run): prints, or under -j keeps the message for the output order. */
void etlconv_diagnostic(const etl_diagnostic *d, void *run_ctx);

/* -j (convert_parallel.c): whether this job can run on several threads with the same output, and the
 * parallel replacement of etl_process(r->trace, etlconv_on_event, r). `helpers` receives the decoding counts
 * of the other workers (r's decoder counts only the events r decoded). */
int etlconv_parallel_eligible(const etlconv_options *opt, const etlconv_job *job);
int etlconv_process_parallel(run *r, etl_schema_registry *registry, const etlconv_job *job, etl_decode_stats *helpers);
/* sum += add, except trace_schemas_lost (every worker observes every schema the trace carries). */
void etlconv_add_decode_stats(etl_decode_stats *sum, const etl_decode_stats *add);

#endif
