/* One reader, N workers over its batches, batches written in order (see parallel.h). */
#include "pipeline/parallel.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/batch.h"
#include "pipeline/workers.h"

#define DEFAULT_BATCH_RECORDS 1024
#define DEFAULT_BATCH_BYTES ((size_t)1 << 20)
#define PROGRESS_EVERY 4096
/* The calling thread renders the batch it just read itself when the pool's threads have this many read and not
 * rendered yet per thread: it reads and renders, they render, and no thread waits for a core (one thread more
 * than the cores, a reader of its own, had them take turns: context switches, preemption of a batch's owner).
 * Two was too few: while the calling thread rendered a batch of its own, a pool thread ran out of batches about
 * once in five (0.10-0.19 s idle in a 1.6 s -j 2 run); with three it waits a few times a run. */
#define QUEUED_PER_THREAD 3

typedef struct worker {
    etl_parallel *p;
    void *state;
} worker;

struct etl_parallel {
    const etl_parallel_ops *ops;
    void *ctx;
    const etl_sink *sink;
    unsigned threads;         /* worker states: [0] the calling thread's, [1..] the pool's threads' */
    size_t window;
    etl_batch *slots;         /* batch `seq` lives in slots[seq % window] */
    worker *workers;
    etl_worker_pool *pool;    /* the threads: the config's (kept across runs), else own_pool */
    etl_worker_pool *own_pool;
    int running;              /* the pool runs this pipeline's workers */
    pthread_mutex_t mu;
    pthread_cond_t work_cv;   /* a batch was published, or the run closed or stopped */
    pthread_cond_t done_cv;   /* a worker finished a batch, or the run stopped */
    uint64_t published;       /* batches 0..published-1 are readable by the workers */
    unsigned queued;          /* published batches left to the pool's threads, not rendered yet */
    unsigned ready;           /* workers that ran worker_start */
    int closed, stop;
    /* the calling thread's own (no lock needed) */
    uint64_t next_write;
    etl_batch *filling;
    uint64_t read_records;
    const etl_trace *trace;   /* being read (etl_parallel_pass): tells which records are read in place */
    etl_textbuf pending_notes; /* reader diagnostics raised between two batches: they go to the next one */
};

/* What a diagnostic raised on this thread belongs to (etl_parallel_defer_diagnostic). */
enum { ON_NONE, ON_READER, ON_OWNER, ON_DROP };
static _Thread_local struct {
    int mode;
    etl_parallel *p;
    etl_batch *batch;
    size_t position;
} here;

int etl_parallel_defer_diagnostic(const etl_diagnostic *d)
{
    switch (here.mode) {
    case ON_DROP: return 1;
    case ON_OWNER: return etl_batch_note(&here.batch->owner_notes, here.position, d) == 0;
    case ON_READER: {
        etl_batch *b = here.p->filling;
        return etl_batch_note(b ? &b->reader_notes : &here.p->pending_notes, b ? b->count : 0, d) == 0;
    }
    default: return 0;
    }
}

static void stop_run(etl_parallel *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work_cv);
    pthread_cond_broadcast(&p->done_cv);
    pthread_mutex_unlock(&p->mu);
}

/* ---- workers ------------------------------------------------------------------------------------------- */

/* A batch the worker does not own: the records the reader listed, or every record while the worker says it
 * needs them all (asked before the batch and after each record). */
static int observe_batch(worker *w, etl_batch *b)
{
    const etl_parallel_ops *ops = w->p->ops;
    int rc = 0;
    size_t next = 0;  /* in b->listed */
    for (size_t i = 0; i < b->count && rc == 0; i++) {
        if (ops->listed && !(ops->needs_every && ops->needs_every(w->state))) {
            while (next < b->listed_count && b->listed[next] < i) next++;
            if (next == b->listed_count) break;
            i = b->listed[next++];
        }
        here.position = i;
        rc = ops->record(w->state, &b->records[i], NULL);
    }
    return rc;
}

static int run_batch(worker *w, etl_batch *b, int own)
{
    const etl_parallel_ops *ops = w->p->ops;
    here.mode = own ? ON_OWNER : ON_DROP;
    here.batch = b;
    int rc = 0;
    if (!own) rc = observe_batch(w, b);
    for (size_t i = 0; own && i < b->count && rc == 0; i++) {
        here.position = i;
        rc = ops->record(w->state, &b->records[i], &b->text);
    }
    if (own && rc == 0 && ops->batch_end) rc = ops->batch_end(w->state, &b->text);
    here.mode = ON_NONE;
    return rc;
}

static void worker_main(void *arg, unsigned index)
{
    etl_parallel *p = arg;
    worker *w = &p->workers[index + 1];  /* [0] is the calling thread's */
    w->state = p->ops->worker_start(p->ctx, index + 1);
    if (!w->state) stop_run(p);
    pthread_mutex_lock(&p->mu);
    p->ready++;
    pthread_cond_broadcast(&p->done_cv);
    pthread_mutex_unlock(&p->mu);
    for (uint64_t seq = 0; w->state; seq++) {
        pthread_mutex_lock(&p->mu);
        while (!p->stop && !p->closed && p->published <= seq) pthread_cond_wait(&p->work_cv, &p->mu);
        if (p->stop || p->published <= seq) {
            pthread_mutex_unlock(&p->mu);
            break;
        }
        etl_batch *b = &p->slots[seq % p->window];
        int own = !b->claimed;  /* the first worker to reach a batch renders it */
        if (own) b->claimed = 1;
        pthread_mutex_unlock(&p->mu);
        if (run_batch(w, b, own) != 0) {
            stop_run(p);
            break;
        }
        pthread_mutex_lock(&p->mu);
        if (own) b->rendered = 1, p->queued--;
        /* the calling thread waits for a rendered batch to write or a free slot to fill: only those wake it
         * (a worker passing a batch another renders would wake it for nothing, twice a batch at -j 2) */
        int wake = --b->pending == 0 || own;
        pthread_mutex_unlock(&p->mu);
        if (wake) pthread_cond_broadcast(&p->done_cv);  /* after unlocking: woken, it need not wait for the lock */
    }
}

/* ---- the calling thread: reading and writing --------------------------------------------------------- */

static void emit_diagnostic(void *ctx, const etl_diagnostic *d)
{
    etl_parallel *p = ctx;
    int mode = here.mode;
    here.mode = ON_NONE;  /* printing, not raising */
    p->ops->diagnostic(p->ctx, d);
    here.mode = mode;
}

static int write_batch(etl_parallel *p, etl_batch *b)
{
    etl_batch_emit_notes(b, emit_diagnostic, p);
    if (b->text.failed) {
        fprintf(stderr, "etlconv: out of memory\n");
        return -1;
    }
    return b->text.length && p->sink->write(p->sink->ctx, b->text.data, b->text.length) != 0 ? -1 : 0;
}

/* Writes every batch that is ready, in order; then, when `want` is given, waits (writing what becomes ready)
 * until it holds. 0, or -1 when the run stopped. */
static int pump(etl_parallel *p, int (*want)(etl_parallel *p, uint64_t arg), uint64_t arg)
{
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->stop) break;
        etl_batch *b = &p->slots[p->next_write % p->window];
        if (p->next_write < p->published && b->rendered) {
            pthread_mutex_unlock(&p->mu);
            int rc = write_batch(p, b);
            if (rc != 0) stop_run(p);
            pthread_mutex_lock(&p->mu);
            b->pending--;
            p->next_write++;
            continue;
        }
        if (!want || want(p, arg)) break;
        pthread_cond_wait(&p->done_cv, &p->mu);
    }
    int stopped = p->stop;
    pthread_mutex_unlock(&p->mu);
    return stopped ? -1 : 0;
}

static int slot_free(etl_parallel *p, uint64_t seq) { return p->slots[seq % p->window].pending == 0; }
static int all_written(etl_parallel *p, uint64_t unused) { (void)unused; return p->next_write == p->published; }

/* The batch the reader fills next (waiting for its slot), or NULL when the run stopped. */
static etl_batch *open_batch(etl_parallel *p)
{
    uint64_t seq = p->published;
    if (pump(p, slot_free, seq) != 0) return NULL;
    etl_batch *b = &p->slots[seq % p->window];
    etl_batch_reset(b, seq);
    if (p->pending_notes.length) {  /* reader diagnostics raised before this batch's first record */
        etl_textbuf_append(&b->reader_notes, p->pending_notes.data, p->pending_notes.length);
        etl_textbuf_reset(&p->pending_notes);
    }
    p->filling = b;
    return b;
}

/* The batch goes to the workers; the calling thread's own state passes it at once, in order: it renders it
 * (when the pool's threads have enough queued) or observes it. */
static int publish(etl_parallel *p)
{
    etl_batch *b = p->filling;
    p->filling = NULL;
    etl_batch_seal(b);
    pthread_mutex_lock(&p->mu);
    int self = p->queued >= QUEUED_PER_THREAD * (p->threads - 1);
    b->pending = p->threads + 1;  /* every worker, then the writer */
    b->claimed = self;
    b->rendered = 0;
    p->queued += !self;
    p->published++;
    pthread_mutex_unlock(&p->mu);
    pthread_cond_broadcast(&p->work_cv);
    int rc = run_batch(&p->workers[0], b, self);
    here.mode = ON_READER;
    pthread_mutex_lock(&p->mu);
    if (self) b->rendered = 1;
    b->pending--;
    pthread_mutex_unlock(&p->mu);
    if (rc != 0) {
        stop_run(p);
        return -1;
    }
    return pump(p, NULL, 0);
}

static int on_read(const etl_event_record *record, void *arg)
{
    etl_parallel *p = arg;
    if (!p->filling && !open_batch(p)) return 1;
    if (etl_batch_add(p->filling, record, etl_trace_record_in_place(p->trace, record)) != 0) {
        fprintf(stderr, "etlconv: out of memory\n");
        stop_run(p);
        return 1;
    }
    if (p->ops->listed && p->ops->listed(p->ctx, record)) etl_batch_list_last(p->filling);
    if (++p->read_records % PROGRESS_EVERY == 0 && p->ops->progress)
        p->ops->progress(p->ctx, p->read_records);
    return etl_batch_full(p->filling) && publish(p) != 0;
}

int etl_parallel_pass(etl_parallel *p, etl_trace *trace, int *process_status)
{
    here.mode = ON_READER;
    here.p = p;
    p->trace = trace;
    *process_status = etl_process(trace, on_read, p);
    /* the last batch, or one without records for diagnostics raised after the last record */
    if (!p->filling && p->pending_notes.length && !open_batch(p)) *process_status = ETL_STOPPED;
    if (p->filling && publish(p) != 0) *process_status = ETL_STOPPED;
    here.mode = ON_NONE;
    return pump(p, NULL, 0);
}

/* ---- start and end ------------------------------------------------------------------------------------- */

etl_parallel *etl_parallel_start(const etl_parallel_config *config, const etl_parallel_ops *ops, void *ctx,
                                 const etl_sink *sink)
{
    etl_parallel *p = calloc(1, sizeof *p);
    if (!p) {
        fprintf(stderr, "etlconv: out of memory\n");
        return NULL;
    }
    p->ops = ops;
    p->ctx = ctx;
    p->sink = sink;
    p->threads = config->threads ? config->threads : 1;
    /* the queued batches, one being rendered by each thread, one being filled, one written out of order */
    p->window = config->window ? config->window : QUEUED_PER_THREAD * (size_t)p->threads + 2;
    size_t records = config->batch_records ? config->batch_records : DEFAULT_BATCH_RECORDS;
    size_t bytes = config->batch_bytes ? config->batch_bytes : DEFAULT_BATCH_BYTES;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work_cv, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    p->slots = etl_calloc_lines(p->window, sizeof *p->slots);
    p->workers = calloc(p->threads, sizeof *p->workers);
    int rc = p->slots && p->workers ? 0 : ETL_ERR_NOMEM;
    for (size_t i = 0; i < p->window && rc == 0; i++) rc = etl_batch_init(&p->slots[i], records, bytes);
    if (rc != 0) {
        fprintf(stderr, "etlconv: out of memory\n");
        etl_parallel_free(p);
        return NULL;
    }
    for (unsigned i = 0; i < p->threads; i++) p->workers[i].p = p;
    unsigned helpers = p->threads - 1;  /* worker 0 is the calling thread */
    p->pool = config->pool;
    if (helpers && (!p->pool || etl_worker_pool_threads(p->pool) != helpers))
        p->pool = p->own_pool = etl_worker_pool_new(helpers);
    if (helpers && (!p->pool || etl_worker_pool_run(p->pool, worker_main, p) != 0)) {
        fprintf(stderr, "etlconv: cannot start %u threads\n", helpers);
        etl_parallel_free(p);
        return NULL;
    }
    p->running = helpers > 0;
    if (!(p->workers[0].state = ops->worker_start(ctx, 0))) stop_run(p);
    pthread_mutex_lock(&p->mu);
    p->ready++;
    while (p->ready < p->threads) pthread_cond_wait(&p->done_cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    if (!p->workers[0].state) {
        etl_parallel_free(p);
        return NULL;
    }
    return p;
}

int etl_parallel_finish(etl_parallel *p)
{
    int rc = pump(p, all_written, 0);
    pthread_mutex_lock(&p->mu);
    p->closed = 1;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    if (p->running) etl_worker_pool_wait(p->pool);  /* the threads stay for the pool's next run */
    p->running = 0;
    return rc != 0 || p->stop ? -1 : 0;
}

void *etl_parallel_worker(const etl_parallel *p, unsigned index)
{
    return p && p->workers && index < p->threads ? p->workers[index].state : NULL;
}

void etl_parallel_free(etl_parallel *p)
{
    if (!p) return;
    if (p->running) {  /* not finished: stop the workers, whose threads may belong to a kept pool */
        stop_run(p);
        etl_worker_pool_wait(p->pool);
    }
    etl_worker_pool_free(p->own_pool);
    for (size_t i = 0; p->slots && i < p->window; i++) etl_batch_free(&p->slots[i]);
    free(p->slots);
    free(p->workers);
    etl_textbuf_free(&p->pending_notes);
    pthread_cond_destroy(&p->work_cv);
    pthread_cond_destroy(&p->done_cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
