/* -j N on one trace (issue 14): the run of convert.c becomes worker 0 of the parallel pipeline
 * (src/pipeline/parallel.h); workers 1..N-1 are copies with their own reader, registry and decoder. Every
 * worker observes every record; each decodes, filters and renders only its own batches, with a writer of
 * the run's format that hands each event's text to the batch at once. The run's own writer writes only
 * the beginning and the end of the output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <libxml/parser.h>

#include "convert_internal.h"
#include "pipeline/parallel.h"
#include "threads.h"

/* Writers whose text for an event depends on that event alone (and on begin/end). The others (summary,
 * EVTX, pcapng, tracefmt, ...) keep one thread. */
static int format_is_per_event(const etl_writer_format *format)
{
    static const char *const names[] = {"xml", "csv", "table", "jsonl"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (format && strcmp(format->name, names[i]) == 0) return 1;
    return 0;
}

int etlconv_parallel_eligible(const etlconv_options *opt, const etlconv_job *job)
{
    if (etlconv_threads(opt) < 2 || !job->write_main || job->summary_output || job->export_to ||
        job->report_output || job->interpreted_output || opt->filters.provider_count > 0 ||
        (opt->writer.stable & ETL_STABLE_ON) || /* --stable numbers events in trace order */
        opt->activity_given || opt->group_activity || /* both need the whole trace's activity links */
        !format_is_per_event(opt->format))
        return 0;
    for (size_t i = 0; i < job->input_count; i++) { /* each worker reads the inputs: files only, no pipes */
        struct stat st;
        if (stat(job->inputs[i], &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    }
    return 1;
}

void etlconv_add_decode_stats(etl_decode_stats *sum, const etl_decode_stats *add)
{
    sum->decoded += add->decoded;
    sum->no_schema += add->no_schema;
    sum->decode_errors += add->decode_errors;
    for (size_t i = 0; i < ETL_SOURCE_COUNT; i++) sum->by_source[i] += add->by_source[i];
    sum->extra_payload += add->extra_payload;
}

typedef struct worker {
    run *r;                   /* the primary run (worker 0) or this helper's own */
    run own;
    etl_schema_registry *registry;  /* helpers only */
    etl_writer *batch_writer; /* renders into *batch */
    etl_textbuf *batch;
    etl_writer *saved_writer; /* worker 0: the run's writer, put back at the end */
} worker;

typedef struct shared {
    run *primary;
    etl_schema_registry *registry;
    const etlconv_job *job;
    etlconv_options quiet;    /* the helpers' options: their warnings are the primary's */
    worker *workers;
    unsigned threads;
} shared;

static int batch_sink_write(void *ctx, const void *data, size_t length)
{
    worker *w = ctx;
    etl_textbuf_append(w->batch, data, length);
    return w->batch->failed ? -1 : 0;
}

static void *worker_start(void *ctx, unsigned index, etl_trace *trace)
{
    shared *sh = ctx;
    worker *w = &sh->workers[index];
    if (index == 0) {
        w->r = sh->primary;  /* its first pass runs here, beside the helpers' */
        if (!sh->quiet.one_pass && etlconv_learn_processes(w->r, sh->job) != 0) return NULL;
    } else {
        w->r = &w->own;
        w->own.opt = &sh->quiet;
        w->own.filters = sh->quiet.filters;
        w->own.filtering = sh->primary->filtering;
        w->own.trace = trace;
        if (etlconv_stable_begin(&w->own.stable, &sh->quiet) != 0) return NULL;
        w->registry = etl_schema_registry_new();
        if (!w->registry || etlconv_load_schemas(&sh->quiet, w->registry) == ETLCONV_EXIT_FAILURE) return NULL;
        w->own.decoder = etl_decoder_new(w->registry, trace);
        if (!w->own.decoder) return NULL;
        etl_decoder_set_flags(w->own.decoder, sh->quiet.no_trace_schemas ? ETL_DECODER_NO_TRACE_SCHEMAS : 0);
        if (!sh->quiet.one_pass && etlconv_learn_processes(&w->own, sh->job) != 0) return NULL;
    }
    etl_writer_options options = sh->primary->stable.writer;  /* what the run's own writer got */
    options.trace = trace;
    options.flush_every_event = 1;
    etl_sink sink = {batch_sink_write, w};
    w->batch_writer = etl_writer_new(etl_writer_format_find(sh->primary->stable.format), &sink, &options);
    if (!w->batch_writer) return NULL;
    w->saved_writer = w->r->main_writer;
    w->r->main_writer = w->batch_writer;
    return w;
}

static int worker_record(void *state, const etl_event_record *record, etl_textbuf *out)
{
    worker *w = state;
    if (out) {
        w->batch = out;
        return etlconv_on_event(record, w->r);
    }
    if (etl_decoder_observe(w->r->decoder, record) != ETL_OK) {
        fprintf(stderr, "etlconv: out of memory while decoding\n");
        w->r->failed = 1;
        return 1;
    }
    return 0;
}

static void worker_end(void *ctx, void *state)
{
    (void)ctx;
    worker *w = state;
    w->r->main_writer = w->saved_writer;
}

int etlconv_process_parallel(run *r, etl_schema_registry *registry, const etlconv_job *job, etl_decode_stats *helpers)
{
    shared sh;
    memset(&sh, 0, sizeof sh);
    sh.primary = r;
    sh.registry = registry;
    sh.job = job;
    sh.quiet = *r->opt;
    sh.quiet.quiet = 1;
    sh.threads = etlconv_threads(r->opt);
    sh.workers = calloc(sh.threads, sizeof *sh.workers);
    etl_trace **traces = calloc(sh.threads, sizeof *traces);
    int rc = ETL_ERR_NOMEM;
    if (!sh.workers || !traces) {
        fprintf(stderr, "etlconv: out of memory\n");
        goto done;
    }
    traces[0] = r->trace;
    for (unsigned i = 1; i < sh.threads; i++) {
        etl_error err;
        memset(&err, 0, sizeof err);
        if ((rc = etl_open(&traces[i], job->inputs, job->input_count, NULL, &err)) != ETL_OK) {
            fprintf(stderr, "etlconv: %s\n", err.message[0] ? err.message : etl_status_name(rc));
            goto done;
        }
    }
    xmlInitParser();  /* helpers may parse manifests (deferred bundled ones) on their threads */
    etl_parallel_config config = {sh.threads, 0, 0};
    const char *batch = getenv("ETLCONV_BATCH_RECORDS");  /* tuning and tests: records per batch */
    if (batch && atol(batch) > 0) config.batch_records = (size_t)atol(batch);
    etl_parallel_ops ops = {worker_start, worker_record, worker_end};
    if (etl_parallel_run(traces, &config, &ops, &sh, r->out_sink, &rc) != 0) r->failed = 1;
    for (unsigned i = 1; i < sh.threads; i++) {
        worker *w = &sh.workers[i];
        if (w->own.decoder) etlconv_add_decode_stats(helpers, etl_decoder_get_stats(w->own.decoder));
        if (w->own.failed) r->failed = 1;
    }
done:
    for (unsigned i = 0; sh.workers && i < sh.threads; i++) {
        worker *w = &sh.workers[i];
        etl_writer_free(w->batch_writer);
        etl_decoder_free(w->own.decoder);
        etl_schema_registry_free(w->registry);
        if (i > 0) etlconv_stable_end(&w->own.stable);
        if (i > 0 && traces && traces[i]) etl_close(traces[i]);
    }
    free(sh.workers);
    free(traces);
    return rc;
}
