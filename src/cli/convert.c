/* The conversion pipeline: etl_open → (first pass: etl_decoder_learn) → etl_process → etl_decode_event →
 * filters → writers (and the -export collection). */
#include "convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_internal.h"
#include "export.h"
#include "output.h"
#include "pipeline/learn.h"
#include "pipeline/parallel.h"
#include "stable_run.h"
#include "threads.h"



static void on_diagnostic(const etl_diagnostic *d, void *ctx)
{
    run *r = ctx;
    if (etl_parallel_defer_diagnostic(d)) return;  /* -j: printed in output order by the calling thread */
    if (r->opt->quiet && d->severity != ETL_ERROR) return;  /* -q silences warnings, not errors */
    if (r->diagnostics_printed >= MAX_PRINTED_DIAGNOSTICS) {
        r->diagnostics_suppressed++;
        return;
    }
    r->diagnostics_printed++;
    etlconv_progress_finish(&r->progress);
    fprintf(stderr, "etlconv: %s: %s\n", d->severity == ETL_ERROR ? "error" : "warning", d->message);
}

void etlconv_diagnostic(const etl_diagnostic *d, void *run_ctx) { on_diagnostic(d, run_ctx); }

/* A payload that did not fit its schema (or an event truncated at a cap): one warning line naming the file
 * and the record's offset, among the diagnostics (at most MAX_PRINTED_DIAGNOSTICS lines in all). */
static void report_decode_error(run *r, const etl_event_record *record, const char *why)
{
    const char *path = etl_trace_file_path(r->trace, record->file_index);
    char line[800];
    snprintf(line, sizeof line, "%s: %s", path ? path : "trace", why);
    etl_record_place at = etl_record_place_of(record);
    etl_diagnostic d = {ETL_WARNING, ETL_ERR_SCHEMA, record->file_index, etl_record_place_offset(&at), line};
    on_diagnostic(&d, r);
}

/* Trace start for relative --from/--to: the earliest log-file header start time, else the first event. */
void etlconv_bind_filters(run *r, int64_t first_event_time)
{
    int64_t start = INT64_MAX;
    for (size_t i = 0; i < etl_trace_file_count(r->trace); i++) {
        const etl_logfile_header *h = etl_trace_logfile_header(r->trace, i);
        if (h && h->start_time > 0 && h->start_time < start) start = h->start_time;
    }
    if (start == INT64_MAX) start = first_event_time;
    etlconv_filter_bind(&r->filters, start);
    r->filters_bound = 1;
}

int etlconv_on_event(const etl_event_record *record, void *ctx)
{
    run *r = ctx;
    const etl_decoded_event *ev;
    /* Filters look at what etl_decode_begin gives (header, schema, names): an event they drop is never rendered.
     * --stable numbers the process of every event, so it needs them all decoded. */
    if (!r->filters_bound) etlconv_bind_filters(r, record->header.timestamp);
    int rc = etl_decode_begin(r->decoder, record, &ev);
    int passed = rc == ETL_OK && (!r->filtering || etlconv_filter_match(&r->filters, ev)) &&
                 etlconv_activity_match(&r->activity, record);
    if (rc == ETL_OK)
        rc = passed || r->stable.stable ? etl_decode_complete(r->decoder, &ev) : etl_decode_skip(r->decoder, &ev);
    if (rc != ETL_OK) {
        fprintf(stderr, "etlconv: out of memory while decoding\n");
        r->failed = 1;
        return 1;
    }
    if (ev->status == ETL_DECODE_ERROR && ev->error) report_decode_error(r, record, ev->error);
    if (r->export_to && ev->info) {
        int rc = etl_schema_export_collect(r->export_to, ev->info);
        if (rc < 0) {
            fprintf(stderr, "etlconv: out of memory while collecting schemas for -export\n");
            r->failed = 1;
            return 1;
        }
        r->export_skipped += (uint64_t)rc;
    }
    if (++r->seen % PROGRESS_EVERY_EVENTS == 0) {
        const etl_trace_stats *s = etl_trace_get_stats(r->trace);
        etlconv_progress_update(&r->progress, s->bytes_done, s->bytes_total, r->seen);
    }
    if (etlconv_extras_event(&r->extras, ev, passed) != 0) {
        r->failed = 1;
        return 1;
    }
    etlconv_stable_observe(&r->stable, ev);
    if (!passed) return 0;
    if (!(ev = etlconv_stable_view(&r->stable, ev))) {
        fprintf(stderr, "etlconv: out of memory\n");
        r->failed = 1;
        return 1;
    }
    r->written++;
    if (r->main_writer) {
        if (etlconv_activity_event_begin(&r->activity, record) != 0 || etl_writer_event(r->main_writer, ev) != 0)
            r->failed = 1;
        etlconv_activity_event_end(&r->activity);
    }
    if (r->summary_writer && etl_writer_event(r->summary_writer, ev) != 0) r->failed = 1;
    return r->failed;
}

/* Events get a process name and their own PID (etl_decoded_event.process_name, process_id) from the process
 * table, which the first pass fills: a run whose outputs all show the record header's PID only
 * (etl_writer_format.header_ids_only: xml, csv, table...) does without both. --stable numbers the PIDs events
 * name (diff/stable.c), -report lists the processes. */
static int needs_processes(const etlconv_options *opt, const etlconv_job *job)
{
    if ((opt->writer.stable & ETL_STABLE_ON) || job->report_output) return 1;
    return job->write_main && !opt->format->header_ids_only;
}

/* First pass (pipeline/learn.c): process names from rundowns logged at the end (WPR, xperf). At -j N the
 * spare threads decompress ahead for it. */
int etlconv_learn_processes(run *r, etl_schema_registry *registry, const etlconv_job *job)
{
    if (etl_learn_processes(r->decoder, registry, (const char *const *)job->inputs, job->input_count,
                            etlconv_threads(r->opt), r->trace) == ETL_OK)
        return 0;
    fprintf(stderr, "etlconv: out of memory while learning process names\n");
    r->failed = 1;
    return -1;
}

static etl_writer *start_writer(const char *name, const etl_writer_options *writer, etlconv_output *out,
                                const etl_trace *trace, etlconv_activity_run *group)
{
    etl_writer_options options = *writer;
    options.trace = trace;  /* TimerResolution: KernelTime/UserTime in ms */
    options.sink_write_at = etlconv_output_write_at(out);
    const etl_sink *sink = etlconv_output_sink(out);
    if (group) {  /* --group activity: each event's bytes reach the grouping sink alone */
        sink = etlconv_activity_sink(group, sink, name);
        options.flush_every_event = 1;
        options.sink_write_at = NULL;  /* the grouping sink reorders bytes: no positioned writes through it */
    }
    etl_writer *w = sink ? etl_writer_new(etl_writer_format_find(name), sink, &options) : NULL;
    if (!w) {
        fprintf(stderr, "etlconv: out of memory\n");
        return NULL;
    }
    if (etl_writer_begin(w) != 0) {
        etl_writer_free(w);
        return NULL;
    }
    return w;
}

int etlconv_convert(const etlconv_options *opt, etl_schema_registry *registry, const etlconv_job *job)
{
    run r;
    memset(&r, 0, sizeof r);
    r.opt = opt;
    r.filters = opt->filters;
    r.filtering = etlconv_filter_active(&opt->filters);
    r.export_to = job->export_to;
    double started = etlconv_now();

    etl_open_options open_options = {0, on_diagnostic, &r};
    etl_error err;
    memset(&err, 0, sizeof err);
    int rc = etl_open(&r.trace, (const char *const *)job->inputs, job->input_count, &open_options, &err);
    if (rc != ETL_OK) {
        fprintf(stderr, "etlconv: %s\n", err.message[0] ? err.message : etl_status_name(rc));
        return ETLCONV_EXIT_FAILURE;
    }
    r.decoder = etl_decoder_new(registry, r.trace);
    etlconv_output *main_out = NULL, *summary_out = NULL;
    int status = ETLCONV_EXIT_FAILURE;
    if (etlconv_stable_begin(&r.stable, opt) != 0) goto done;
    if (!r.decoder) {
        fprintf(stderr, "etlconv: out of memory\n");
        goto done;
    }
    int processes = needs_processes(opt, job);
    etl_decoder_set_flags(r.decoder, (opt->no_trace_schemas ? ETL_DECODER_NO_TRACE_SCHEMAS : 0) |
                                         (processes ? 0 : ETL_DECODER_NO_PROCESSES));
    etl_decoder_set_diagnostic(r.decoder, on_diagnostic, &r);
    if (etlconv_extras_start(&r.extras, opt, job->report_output, job->interpreted_output) != 0) goto done;
    int parallel = etlconv_parallel_eligible(opt, job);  /* -j: the workers' decoders copy this first pass */
    if (processes && !opt->one_pass && etlconv_learn_processes(&r, registry, job) != 0) goto done;
    if (etlconv_activity_prepare(&r.activity, opt, job) != 0) goto done;
    if (job->write_main) {
        main_out = etlconv_output_open(job->output, opt->overwrite);
        if (!main_out || !(r.main_writer = start_writer(r.stable.format, &r.stable.writer, main_out, r.trace,
                                                        opt->group_activity ? &r.activity : NULL)))
            goto done;
        r.out_sink = etlconv_output_sink(main_out);
    }
    if (job->summary_output) {
        summary_out = etlconv_output_open(job->summary_output, opt->overwrite);
        if (!summary_out ||
            !(r.summary_writer = start_writer("summary", &r.stable.writer, summary_out, r.trace, NULL)))
            goto done;
    }

    etlconv_progress_start(&r.progress, opt->quiet, opt->progress, etl_trace_get_stats(r.trace)->bytes_total);
    etl_decode_stats helpers;  /* -j: the other workers' decoding counts */
    memset(&helpers, 0, sizeof helpers);
    if (parallel) {
        /* A worker waiting for the reader's turn decompresses the buffers the reader will want next
         * (etl_trace_prefetch_help). From 3 workers on, a thread of its own does too; at -j 2 a third thread
         * on 2 cores only made them take turns (256 MB copy of net.4.5.2.x86: 3.53-4.21 s with it, 3.36-3.98 s
         * without). */
        etl_trace_set_prefetch(r.trace, etlconv_threads(opt) >= 3 ? 1 : 0);
        rc = etlconv_process_parallel(&r, registry, job, &helpers);
    } else {
        rc = etl_process(r.trace, etlconv_on_event, &r);
    }
    etl_decoder_finish(r.decoder);
    etlconv_progress_finish(&r.progress);
    if (r.failed) goto done;
    if (rc < 0) {
        fprintf(stderr, "etlconv: %s: reading stopped: %s\n", job->inputs[0], etl_status_name(rc));
        goto done;
    }

    const etl_trace_stats *ts = etl_trace_get_stats(r.trace);
    etl_decode_stats merged = *etl_decoder_get_stats(r.decoder);
    etlconv_add_decode_stats(&merged, &helpers);
    const etl_decode_stats *ds = &merged;
    etl_run_totals totals = {
        job->input_count, (const char *const *)job->inputs, ts->buffers, ts->events, ts->events_lost,
        ts->buffers_lost, ds->decode_errors + ts->errors, ds->no_schema, etlconv_now() - started,
    };
    if (etlconv_activity_flush(&r.activity) != 0) goto done;
    if (r.main_writer && etl_writer_end(r.main_writer, &totals) != 0) goto done;
    if (r.summary_writer && etl_writer_end(r.summary_writer, &totals) != 0) goto done;
    if (etlconv_extras_finish(&r.extras, &totals) != 0) goto done;
    etl_writer_free(r.main_writer);
    etl_writer_free(r.summary_writer);
    r.main_writer = r.summary_writer = NULL;
    int commit_failed = 0;
    if (main_out && etlconv_output_commit(main_out) != 0) commit_failed = 1;
    main_out = NULL;
    if (summary_out && etlconv_output_commit(summary_out) != 0) commit_failed = 1;
    summary_out = NULL;
    if (commit_failed) goto done;

    status = ETLCONV_EXIT_OK;
    if (r.export_skipped && !opt->quiet)
        fprintf(stderr, "etlconv: warning: -export: %llu events were decoded with classic (MOF) event-class layouts "
                        "from the trace's metadata, which a manifest cannot describe; they are not in %s\n",
                (unsigned long long)r.export_skipped, opt->export_file);
    /* Exit policy (etlconv.1, EXIT STATUS): events the recording session lost are a fact of the capture, not
     * of the file: a note and exit 0, as tracerpt reports success; --strict makes them exit 1. */
    uint64_t lost = ts->events_lost + ts->buffers_lost;
    int damaged = ts->errors || ts->warnings || ds->decode_errors || ds->trace_schemas_lost;
    if (lost || damaged) {
        if (damaged || opt->strict) status = ETLCONV_EXIT_WARNINGS;
        if (!opt->quiet) {
            if (r.diagnostics_suppressed)
                fprintf(stderr, "etlconv: %llu more reader messages not shown\n",
                        (unsigned long long)r.diagnostics_suppressed);
            const struct { uint64_t count; const char *what; } items[] = {
                {ts->events_lost, "events lost"}, {ts->buffers_lost, "buffers lost"},
                {ts->errors, "read errors"}, {ts->warnings, "read warnings"},
                {ds->decode_errors, "payloads did not fit their schema"},
                {ds->trace_schemas_lost, "schemas in the trace refused or incomplete"},
            };
            fprintf(stderr, "etlconv: %s%s: %s:", job->inputs[0], job->input_count > 1 ? " and the other inputs" : "",
                    status == ETLCONV_EXIT_OK ? "converted completely; the recording session reported"
                                              : "converted with warnings");
            const char *sep = " ";
            for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
                if (!items[i].count) continue;
                fprintf(stderr, "%s%llu %s", sep, (unsigned long long)items[i].count, items[i].what);
                sep = ", ";
            }
            fputc('\n', stderr);
        }
    }
done:
    etlconv_extras_free(&r.extras);
    etlconv_activity_free(&r.activity);
    etl_writer_free(r.main_writer);
    etl_writer_free(r.summary_writer);
    etlconv_output_abort(main_out);
    etlconv_output_abort(summary_out);
    etl_decoder_free(r.decoder);
    etl_close(r.trace);
    etlconv_stable_end(&r.stable);
    return status;
}
