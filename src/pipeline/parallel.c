/* N workers over the same trace, batches written in order (see parallel.h). */
#include "pipeline/parallel.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BATCH_RECORDS 1024
#define DEFAULT_WINDOW 4

typedef struct slot {
    uint64_t batch;
    etl_textbuf text;
} slot;

typedef struct run_state run_state;

typedef struct worker {
    run_state *run;
    unsigned index;
    etl_trace *trace;
    void *state;
    pthread_t thread;
    int started;
    int process_status;
    slot *slots;            /* ring of `window` finished batches + the one being filled */
    size_t head, count;     /* finished batches waiting for the writer (under the run's mutex) */
    size_t tail;            /* the slot filled next; the worker's own, never read by the writer */
    slot *filling;          /* slots[tail] while a batch is being filled, else NULL */
    uint64_t seq;           /* records seen */
    int done;
} worker;

struct run_state {
    const etl_parallel_ops *ops;
    void *ctx;
    unsigned threads;
    size_t batch_records, window, ring;
    worker *workers;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
};

/* The batch being filled is complete: hand it to the writer. */
static void publish(worker *w)
{
    run_state *r = w->run;
    w->filling = NULL;
    w->tail = (w->tail + 1) % r->ring;
    pthread_mutex_lock(&r->mu);
    w->count++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* Starts filling a slot for `batch`, waiting while `window` batches are still unwritten. 0, or -1 to stop. */
static int open_batch(worker *w, uint64_t batch)
{
    run_state *r = w->run;
    pthread_mutex_lock(&r->mu);
    while (!r->stop && w->count >= r->window) pthread_cond_wait(&r->cv, &r->mu);
    int stop = r->stop;
    pthread_mutex_unlock(&r->mu);
    if (stop) return -1;
    slot *s = &w->slots[w->tail];
    s->batch = batch;
    etl_textbuf_reset(&s->text);
    w->filling = s;
    return 0;
}

static int on_record(const etl_event_record *record, void *arg)
{
    worker *w = arg;
    run_state *r = w->run;
    uint64_t batch = w->seq++ / r->batch_records;
    int own = batch % r->threads == w->index;
    if (w->filling && w->filling->batch != batch) publish(w);
    if (own && !w->filling && open_batch(w, batch) != 0) return 1;
    if (r->ops->record(w->state, record, own ? &w->filling->text : NULL) != 0) {
        pthread_mutex_lock(&r->mu);
        r->stop = 1;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        return 1;
    }
    if ((w->seq & 1023) == 0) { /* a stop asked by the writer or another worker */
        pthread_mutex_lock(&r->mu);
        int stop = r->stop;
        pthread_mutex_unlock(&r->mu);
        if (stop) return 1;
    }
    return 0;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    run_state *r = w->run;
    w->state = r->ops->worker_start(r->ctx, w->index, w->trace);
    if (w->state) {
        w->process_status = etl_process(w->trace, on_record, w);
        if (w->filling) publish(w);
    }
    pthread_mutex_lock(&r->mu);
    if (!w->state) r->stop = 1;
    w->done = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* The calling thread: batches in order to the sink until every worker is done. */
static int write_batches(run_state *r, const etl_sink *sink)
{
    int rc = 0;
    for (uint64_t next = 0;; next++) {
        worker *w = &r->workers[next % r->threads];
        pthread_mutex_lock(&r->mu);
        while (!r->stop && w->count == 0 && !w->done) pthread_cond_wait(&r->cv, &r->mu);
        int have = w->count > 0 && !r->stop;
        pthread_mutex_unlock(&r->mu);
        if (!have) break; /* stopped, or the owner of `next` is done: no such batch */
        slot *s = &w->slots[w->head];
        if (s->batch != next || s->text.failed ||
            (s->text.length && sink->write(sink->ctx, s->text.data, s->text.length) != 0)) {
            if (s->text.failed) fprintf(stderr, "etlconv: out of memory\n");
            rc = -1;
        }
        etl_textbuf_reset(&s->text);
        pthread_mutex_lock(&r->mu);
        w->head = (w->head + 1) % r->ring;
        w->count--;
        if (rc) r->stop = 1;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        if (rc) break;
    }
    return rc;
}

int etl_parallel_run(etl_trace *const *traces, const etl_parallel_config *config, const etl_parallel_ops *ops,
                     void *ctx, const etl_sink *sink, int *process_status)
{
    run_state r;
    memset(&r, 0, sizeof r);
    r.ops = ops;
    r.ctx = ctx;
    r.threads = config->threads ? config->threads : 1;
    r.batch_records = config->batch_records ? config->batch_records : DEFAULT_BATCH_RECORDS;
    r.window = config->window ? config->window : DEFAULT_WINDOW;
    r.ring = r.window + 1;
    r.workers = calloc(r.threads, sizeof *r.workers);
    if (!r.workers) {
        fprintf(stderr, "etlconv: out of memory\n");
        return -1;
    }
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    int rc = 0;
    for (unsigned i = 0; i < r.threads && rc == 0; i++) {
        worker *w = &r.workers[i];
        w->run = &r;
        w->index = i;
        w->trace = traces[i];
        if (!(w->slots = calloc(r.ring, sizeof *w->slots))) {
            fprintf(stderr, "etlconv: out of memory\n");
            rc = -1;
        }
    }
    unsigned started = 0;
    for (unsigned i = 0; i < r.threads && rc == 0; i++) {
        if (pthread_create(&r.workers[i].thread, NULL, worker_main, &r.workers[i]) != 0) {
            fprintf(stderr, "etlconv: cannot start %u threads\n", r.threads);
            rc = -1;
            break;
        }
        r.workers[i].started = 1;
        started++;
    }
    if (rc == 0 && write_batches(&r, sink) != 0) rc = -1;
    pthread_mutex_lock(&r.mu);
    if (rc) r.stop = 1;
    pthread_cond_broadcast(&r.cv);
    pthread_mutex_unlock(&r.mu);
    for (unsigned i = 0; i < r.threads; i++)
        if (r.workers[i].started) pthread_join(r.workers[i].thread, NULL);
    if (r.stop) rc = -1;
    *process_status = r.workers[0].process_status;
    for (unsigned i = 0; i < r.threads; i++) {
        worker *w = &r.workers[i];
        if (w->state) ops->worker_end(ctx, w->state);
        for (size_t k = 0; w->slots && k < r.ring; k++) etl_textbuf_free(&w->slots[k].text);
        free(w->slots);
    }
    pthread_cond_destroy(&r.cv);
    pthread_mutex_destroy(&r.mu);
    free(r.workers);
    return rc;
}
