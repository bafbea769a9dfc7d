/* -j N on one trace (issue 14): the first pass (process names) ran once, as with -j 1, into the run's
 * decoder. Then N workers (the calling thread and N - 1 threads), each with its own run (decoder, filters,
 * writer), take turns reading the trace into the batches of the parallel pipeline (src/pipeline/parallel.h),
 * observe every record and decode, filter and render the batches they read, with a writer of the run's format
 * whose
 * buffer collects a batch's text and is exchanged with the batch's at its end (no copy). Worker 0 uses the run's decoder (its counts and the end-of-trace
 * report are the run's); the others have their own decoder and an overlay over the run's base registry
 * (schemas parsed once, shared read-only), and start with a copy of what the first pass learnt. The run's own writer writes only the beginning and the end of the output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>

#include "convert_internal.h"
#include "decode/observe_filter.h"
#include "decode/process_table.h"
#include "pipeline/parallel.h"
#include "pipeline/workers.h"
#include "threads.h"
#include "util/cache_line.h"

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
    return etlconv_threads(opt) >= 2 && job->write_main && !job->summary_output && !job->export_to &&
           !job->report_output && !job->interpreted_output && opt->filters.provider_count == 0 &&
           !(opt->writer.stable & ETL_STABLE_ON) && /* --stable numbers events in trace order */
           !opt->activity_given && !opt->group_activity && /* both need the whole trace's activity links */
           format_is_per_event(opt->format);
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
    /* its own cache lines: a worker writes its struct per event (counts), its neighbour reads its own */
    ETL_CACHE_LINE_ALIGNED run own; /* this worker's run; own.decoder is the primary's for worker 0 */
    etl_schema_registry *registry;  /* workers 1..N-1 */
    etl_writer *batch_writer;       /* renders into its own buffer, which goes to the batch at its end */
    etl_textbuf *batch;
    etl_text_keeper keeper;         /* keeper.kept: the writer's buffer, this batch's text so far */
    int stable_started;
} worker;

typedef struct shared {
    run *primary;
    const etl_schema_registry *registry;  /* the primary's: an overlay whose base the workers share */
    const etlconv_job *job;
    etlconv_options quiet;    /* the workers' options: schema-loading warnings are the primary's */
    etl_trace *view;          /* what the workers' runs name files and clocks with (etl_trace_view) */
    worker *workers;
    unsigned threads;
    etl_observe_filter *filter;  /* the reader's: which records the workers that do not decode them observe */
    int first_listed;
} shared;

/* What the writer kept goes to the batch: its memory when the batch has no text yet (no copy), else a copy.
 * A batch's first record gave the writer the batch's memory (worker_record) and the batch the writer's, so
 * the exchange gives each its own back: the batches' buffers stay the only large ones. */
static void hand_kept_text(worker *w, etl_textbuf *out)
{
    etl_textbuf *kept = w->keeper.kept;
    if (!kept || !kept->length) return;
    if (!out->length && !out->failed) {
        etl_textbuf_swap(kept, out);
        etl_textbuf_reset(kept);
    } else {
        etl_textbuf_append(out, kept->data, kept->length);
        etl_textbuf_reset(kept);
    }
}

static int batch_sink_write(void *ctx, const void *data, size_t length)
{
    worker *w = ctx;
    hand_kept_text(w, w->batch);  /* in order */
    etl_textbuf_append(w->batch, data, length);
    return w->batch->failed ? -1 : 0;
}

static int worker_batch_end(void *state, etl_textbuf *out)
{
    worker *w = state;
    hand_kept_text(w, out);
    w->batch = NULL;  /* its slot comes back with a later batch */
    return out->failed ? -1 : 0;
}

static void *worker_start(void *ctx, unsigned index)
{
    shared *sh = ctx;
    worker *w = &sh->workers[index];
    run *own = &w->own;
    own->opt = &sh->quiet;
    own->filters = sh->quiet.filters;
    own->filtering = sh->primary->filtering;
    own->trace = sh->view;
    if (etlconv_stable_begin(&own->stable, &sh->quiet) != 0) return NULL;
    w->stable_started = 1;
    if (index == 0) {
        own->decoder = sh->primary->decoder;
    } else {
        /* an overlay over the run's base (schemas parsed once, shared read-only); a plain registry loads them */
        const etl_schema_registry *base = etl_schema_registry_base(sh->registry);
        w->registry = base ? etl_schema_registry_new_overlay(base) : etl_schema_registry_new();
        if (!w->registry || (!base && etlconv_load_schemas(&sh->quiet, w->registry) == ETLCONV_EXIT_FAILURE))
            return NULL;
        own->decoder = etl_decoder_new(w->registry, sh->view);
        if (!own->decoder) return NULL;
        etl_decoder_set_flags(own->decoder, etl_decoder_flags(sh->primary->decoder));  /* as the run's decoder */
        etl_decoder_set_diagnostic(own->decoder, etlconv_diagnostic, own);
        /* worker 0 decodes nothing before every worker started: the primary's decoder is still */
        if (etl_decoder_copy_processes(own->decoder, sh->primary->decoder) != ETL_OK) return NULL;
    }
    etl_writer_options options = sh->primary->stable.writer;  /* what the run's own writer got */
    options.trace = sh->view;
    options.flush_every_event = 1;
    w->keeper = (etl_text_keeper){NULL, batch_sink_write, w};  /* the event's text stays in the writer's buffer */
    etl_sink sink = etl_sink_keeper(&w->keeper);
    w->batch_writer = etl_writer_new(etl_writer_format_find(sh->primary->stable.format), &sink, &options);
    if (!w->batch_writer) return NULL;
    own->main_writer = w->batch_writer;
    return w;
}

/* ETLCONV_PIPELINE_TIMES set: where each worker's time went (one line each, on stderr), to tell a host whose
 * cores slow each other (the workers busy nearly all their pass) from a pipeline that holds them up. */
static void print_times(const etl_parallel *p, unsigned threads, const etlconv_job *job)
{
    const char *name = job->input_count ? job->inputs[0] : "-";  /* --each: which file; merged: the first */
    for (unsigned i = 0; i < threads; i++) {
        etl_parallel_times t;
        if (etl_parallel_worker_times(p, i, &t) != 0) continue;
        uint64_t parts = t.reading + t.rendering + t.observing + t.writing + t.releasing + t.waiting;
        fprintf(stderr,
                "etlconv: %s: -j worker %u: %.3f s: reading %.3f s (%llu batches, %llu records), rendering %.3f s, "
                "observing %.3f s, writing %.3f s, releasing %.3f s, waiting %.3f s, other %.3f s\n",
                name, i, t.pass / 1e9, t.reading / 1e9, (unsigned long long)t.batches_read,
                (unsigned long long)t.records_read, t.rendering / 1e9, t.observing / 1e9, t.writing / 1e9,
                t.releasing / 1e9, t.waiting / 1e9, (t.pass > parts ? t.pass - parts : 0) / 1e9);
    }
}

static int worker_record(void *state, const etl_event_record *record, etl_textbuf *out)
{
    worker *w = state;
    /* every worker sees the trace's first record: relative times bind as with one thread */
    if (!w->own.filters_bound) etlconv_bind_filters(&w->own, record->header.timestamp);
    if (out) {
        if (w->batch != out) {  /* a batch begins: the writer renders into the batch's memory (see hand_kept_text) */
            etl_textbuf *kept = w->keeper.kept;
            if (kept && !kept->length && !out->length) etl_textbuf_swap(kept, out);
            w->batch = out;
        }
        return etlconv_on_event(record, &w->own);
    }
    if (etl_decoder_observe(w->own.decoder, record) != ETL_OK) {
        fprintf(stderr, "etlconv: out of memory while decoding\n");
        w->own.failed = 1;
        return 1;
    }
    return 0;
}

/* The reader: the records a worker that does not own them must observe (decode/observe_filter.h), and the
 * trace's first record, where each worker binds relative times (worker_record). */
static int listed(void *ctx, const etl_event_record *record)
{
    shared *sh = ctx;
    int wanted = etl_observe_filter_wants(sh->filter, record);
    if (sh->first_listed) return wanted;
    sh->first_listed = 1;
    return 1;
}

static int needs_every(void *state)
{
    worker *w = state;
    return etl_decoder_needs_every_record(w->own.decoder);
}

static void run_diagnostic(void *ctx, const etl_diagnostic *d)
{
    shared *sh = ctx;
    etlconv_diagnostic(d, sh->primary);
}

static void run_progress(void *ctx, uint64_t records)
{
    run *r = ((shared *)ctx)->primary;
    const etl_trace_stats *s = etl_trace_get_stats(r->trace);
    etlconv_progress_update(&r->progress, s->bytes_done, s->bytes_total, records);
}

int etlconv_process_parallel(run *r, etl_schema_registry *registry, const etlconv_job *job, etl_decode_stats *helpers)
{
    shared sh;  /* worker 0 decodes with r->decoder, which uses `registry` */
    memset(&sh, 0, sizeof sh);
    sh.primary = r;
    sh.registry = registry;
    sh.job = job;
    sh.quiet = *r->opt;
    sh.quiet.quiet = 1;
    sh.threads = etlconv_threads(r->opt);
    sh.workers = etl_calloc_lines(sh.threads, sizeof *sh.workers);
    int rc = ETL_ERR_NOMEM;
    if (!sh.workers) {
        fprintf(stderr, "etlconv: out of memory\n");
        return rc;
    }
    /* The workers' runs name files and convert clocks with a view of the trace: the reader's counters change
     * while they work. */
    if (!(sh.view = etl_trace_view(r->trace))) {
        fprintf(stderr, "etlconv: out of memory\n");
        free(sh.workers);
        return rc;
    }
    if (!(sh.filter = etl_observe_filter_new(etl_decoder_flags(r->decoder)))) {
        fprintf(stderr, "etlconv: out of memory\n");
        free(sh.workers);
        etl_close(sh.view);
        return rc;
    }
    xmlInitParser();  /* workers may parse manifests (deferred bundled ones) on their threads */
    etl_parallel_config config = {sh.threads, 0, 0, 0, NULL, 0};
    if (job->workers && !*job->workers) *job->workers = etl_worker_pool_new(sh.threads - 1);  /* NULL: own threads */
    if (job->workers) config.pool = *job->workers;
    const char *batch = getenv("ETLCONV_BATCH_RECORDS");  /* tuning and tests: records per batch */
    if (batch && atol(batch) > 0) config.batch_records = (size_t)atol(batch);
    const char *timed = getenv("ETLCONV_PIPELINE_TIMES");
    config.timed = timed && *timed && strcmp(timed, "0") != 0;
    etl_parallel_ops ops = {worker_start, worker_record, run_diagnostic, run_progress, worker_batch_end, listed,
                            needs_every};
    etl_parallel *p = etl_parallel_start(&config, &ops, &sh, r->out_sink);
    if (!p || etl_parallel_pass(p, r->trace, &rc) != 0) r->failed = 1;
    if (p && etl_parallel_finish(p) != 0) r->failed = 1;
    for (unsigned i = 0; i < sh.threads; i++) {
        worker *w = &sh.workers[i];
        if (!etl_parallel_worker(p, i) && !r->failed) r->failed = 1;
        if (w->own.failed) r->failed = 1;
        r->written += w->own.written;
        if (i > 0 && w->own.decoder) etlconv_add_decode_stats(helpers, etl_decoder_get_stats(w->own.decoder));
    }
    if (p && config.timed) {
        etlconv_progress_finish(&r->progress);  /* the lines start on a line of their own */
        print_times(p, sh.threads, job);
    }
    etl_parallel_free(p);
    for (unsigned i = 0; i < sh.threads; i++) {
        worker *w = &sh.workers[i];
        etl_writer_free(w->batch_writer);
        if (i > 0) etl_decoder_free(w->own.decoder);
        etl_schema_registry_free(w->registry);
        if (w->stable_started) etlconv_stable_end(&w->own.stable);
    }
    free(sh.workers);
    etl_observe_filter_free(sh.filter);
    etl_close(sh.view);
    return rc;
}
