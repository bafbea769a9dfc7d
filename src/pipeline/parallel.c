/* N workers that take turns reading a trace in batches, each renders what it read, written in order (see
 * parallel.h). */
#include "pipeline/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipeline/batch.h"
#include "pipeline/workers.h"
#include "util/cache_line.h"

/* 256 records: a batch's records, payloads and text (about 0.4 MB on net.4.5.x86) stay in the renderer's L2
 * cache between reading and rendering; 1024 took 12-13 % more CPU at -j 2 (perf, 8 alternating runs on the
 * 1 GB net.4.5.x86 and 5 on the 256 MB net.4.5.2.x86 copy), 512 3 % more, 128 6 % more (wake-ups). */
#define DEFAULT_BATCH_RECORDS 256
#define DEFAULT_BATCH_BYTES ((size_t)1 << 20)
#define PROGRESS_EVERY 4096
/* A worker whose next step is the reader's turn, taken, polls for it this many times (tens of microseconds, a
 * batch's reading) before it sleeps: with 256-record batches the turn is often taken for a moment, and a sleep
 * and a wake-up per batch cost more than the wait (8,600 context switches in a -j 2 run of the 256 MB
 * compressed net.4.5.2.x86 copy). */
#define SPIN_FOR_TURN 2000
/* A reader ends its batch early, once it holds this many records, when another worker waits for the turn: the
 * waiter reads the next batch at once instead of idling for the rest of this one's reading (net.4.5.x86 1 GB
 * copy at -j 2: the workers waited 1.3 % of their time, 0.45 % with the cut; 30 k batches instead of 28 k). The
 * floor keeps batches long enough that the turn's hand-over stays cheap. */
#define CUT_MIN_RECORDS 32

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* A file's mapping (etl_trace_file_mapping): the reader tests every record against it inline. */
typedef struct mapping {
    const uint8_t *base;  /* NULL: not mapped */
    uint64_t size;
} mapping;

typedef struct worker {
    etl_parallel *p;
    void *state;
    uint64_t passed;  /* batches 0..passed-1 rendered or observed by this worker */
    etl_textbuf spare;  /* (under `mu`) empty text memory this worker rendered into last: see lend_hot_text */
    etl_parallel_times times;  /* its own: written by its thread only */
} worker;

struct etl_parallel {
    const etl_parallel_ops *ops;
    void *ctx;
    const etl_sink *sink;
    unsigned threads;         /* worker states: [0] the calling thread's, [1..] the pool's threads' */
    size_t window;
    etl_batch *slots;         /* batch `seq` lives in slots[seq % window] */
    etl_batch *spares;        /* per worker: record memory it filled last, for its next batch (lend_hot_records) */
    worker *workers;
    etl_worker_pool *pool;    /* the threads: the config's (kept across runs), else own_pool */
    etl_worker_pool *own_pool;
    int running;              /* the pool runs this pipeline's workers */
    pthread_mutex_t mu;
    pthread_cond_t cv;        /* the reader's turn came free, a batch was published, rendered or written, a slot
                               * came free, the pass began or ended, or the run stopped */
    etl_trace *trace;         /* being read; NULL until etl_parallel_pass */
    uint64_t published;       /* batches 0..published-1 are readable by the workers */
    uint64_t next_write;
    unsigned ready;           /* workers that ran worker_start */
    _Atomic int reading;      /* a worker has the reader's turn (written under `mu`; read without it to spin) */
    _Atomic int turn_wanted;  /* another worker waits for that turn (written under `mu`; the reader reads it) */
    int writing;              /* a worker has the writer's turn */
    int finished;             /* the trace was read to its end (or reading failed) */
    int process_status;       /* what the last etl_process returned */
    int closed, stop;
    int timed;                /* config.timed */
    /* the reading worker's, used at every record (its turn under `mu` passes them on): on a line of their own,
     * or each ++read_records took the line from a worker spinning on `reading` and gave it back */
    ETL_CACHE_LINE_ALIGNED etl_batch *filling;
    uint64_t read_records;
    mapping *maps;            /* the trace's files' (etl_parallel_pass) */
    size_t map_count;
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
        return etl_batch_note(&b->reader_notes, b->count, d) == 0;
    }
    default: return 0;
    }
}

/* A reading of the clock for etl_parallel_times, 0 when the run is not timed (no call then). */
static uint64_t clock_now(const etl_parallel *p)
{
    if (!p->timed) return 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Adds the time since `since` (a clock_now) to one of worker w's parts. */
#define SPENT(w, part, since) \
    do { \
        if ((w)->p->timed) (w)->times.part += clock_now((w)->p) - (since); \
    } while (0)

static void stop_run(etl_parallel *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* ---- a batch in one worker --------------------------------------------------------------------------- */

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

/* ---- reading: one worker at a time ---------------------------------------------------------------------- */

/* etl_trace_record_in_place, inline: a call per record cost 29 instructions (net.4.5.x86, one worker). */
static inline int in_place(const etl_parallel *p, const etl_event_record *r)
{
    const mapping *m = r->file_index < p->map_count ? &p->maps[r->file_index] : NULL;
    return m && etl_span_holds(m->base, m->size, r->raw, r->raw_size);
}

static int on_read(const etl_event_record *record, void *arg)
{
    etl_parallel *p = arg;
    etl_batch *b = p->filling;
    if (etl_batch_add(b, record, in_place(p, record)) != 0) {
        fprintf(stderr, "etlconv: out of memory\n");
        stop_run(p);
        return 1;
    }
    if (p->ops->listed && p->ops->listed(p->ctx, record)) etl_batch_list_last(b);
    if (++p->read_records % PROGRESS_EVERY == 0 && p->ops->progress) p->ops->progress(p->ctx, p->read_records);
    if (etl_batch_full(b) ||
        (b->count >= CUT_MIN_RECORDS && atomic_load_explicit(&p->turn_wanted, memory_order_relaxed)))
        etl_process_pause(p->trace);
    return 0;
}

/* Reads the next batch into slot `seq` (the caller has the reader's turn); 1 when it holds records or notes. */
static int read_batch(etl_parallel *p, uint64_t seq, int *status)
{
    etl_batch *b = &p->slots[seq % p->window];
    etl_batch_reset(b);
    p->filling = b;
    here.mode = ON_READER;
    here.p = p;
    *status = etl_process(p->trace, on_read, p);
    here.mode = ON_NONE;
    p->filling = NULL;
    etl_batch_seal(b);
    return b->count > 0 || b->reader_notes.length > 0;
}

/* ---- text memory ----------------------------------------------------------------------------------------- */

/* A batch's text is rendered into the memory its renderer rendered into last, when that batch was written
 * already (else into the slot's own): it is still in the renderer's cache. A slot's own memory comes round
 * again only after `window` batches, long evicted: each line of text then cost a cache miss to write
 * (cachegrind, one worker, 2 MiB L2: 3.4 M write misses of the last level for 190 k events of net.4.5.x86 to
 * XML, against 29 k at -j 1, whose one buffer is reused). The pipeline's text buffers stay window + threads
 * (besides the ops' own, e.g. the CLI's writers'): each exchange swaps two. With `mu` held. */
static void exchange_text(etl_textbuf *a, etl_textbuf *b)
{
    etl_textbuf_swap(a, b);
    etl_textbuf_reset(a);
    etl_textbuf_reset(b);
}

/* Before worker w renders batch b. */
static void lend_hot_text(worker *w, etl_batch *b)
{
    if (w->spare.data) exchange_text(&b->text, &w->spare);
}

/* After batch b was written: its memory goes back to its renderer, for its next batch. */
static void return_hot_text(etl_parallel *p, etl_batch *b)
{
    if (b->text.data) exchange_text(&b->text, &p->workers[b->renderer].spare);
}

/* The same for the memory a batch's records are copied into (records, places, arena): a reader filling its
 * slot's own memory wrote into lines the other core had read last (it rendered or observed that slot's batch
 * `window` batches before), each store a transfer between cores. With `mu` held, the slot free. */
static void lend_hot_records(etl_parallel *p, worker *w, etl_batch *slot)
{
    etl_batch_swap_memory(slot, &p->spares[w - p->workers]);
}

/* One of batch b's workers or its writer passed it; when it was the last, its record memory goes back to its
 * renderer. With `mu` held; 1 when the batch is free. */
static int pass_batch(etl_parallel *p, etl_batch *b)
{
    if (--b->pending) return 0;
    etl_batch_swap_memory(b, &p->spares[b->renderer]);
    return 1;
}

/* ---- writing: one worker at a time, in batch order -------------------------------------------------------- */

static int write_batch(etl_parallel *p, etl_batch *b)
{
    etl_batch_emit_notes(b, p->ops->diagnostic, p->ctx);
    if (b->text.failed) {
        fprintf(stderr, "etlconv: out of memory\n");
        return -1;
    }
    return b->text.length && p->sink->write(p->sink->ctx, b->text.data, b->text.length) != 0 ? -1 : 0;
}

/* With `mu` held: writes every rendered batch that is next in order, unless another worker is writing (it
 * writes them then: it looks again before it gives the turn up). */
static void write_ready(etl_parallel *p, worker *w)
{
    if (p->writing) return;
    p->writing = 1;
    for (;;) {
        etl_batch *b = &p->slots[p->next_write % p->window];
        if (p->stop || p->next_write >= p->published || !b->rendered) break;
        pthread_mutex_unlock(&p->mu);
        uint64_t since = clock_now(p);
        int rc = write_batch(p, b);
        SPENT(w, writing, since);
        pthread_mutex_lock(&p->mu);
        if (rc != 0) p->stop = 1;
        return_hot_text(p, b);
        pass_batch(p, b);
        p->next_write++;
    }
    p->writing = 0;
    pthread_cond_broadcast(&p->cv);
}

/* ---- every worker's loop --------------------------------------------------------------------------------- */

/* A worker takes whatever comes first: the batches others read, which it observes in order (only their listed
 * records); else the reader's turn, when free and the next batch's slot is free: it reads that batch and
 * renders it itself, so that the records and the payloads a batch's renderer reads are those its own core
 * just read and wrote (a reader of its own handing every batch to other cores made their records cross
 * between cores twice: written there, read here, and each slot's lines taken back when reused). Returns when
 * the trace is read and the worker passed every batch, or the run stopped. */
static void take_part(etl_parallel *p, worker *w)
{
    uint64_t start = clock_now(p);
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        if (w->passed < p->published) {  /* a batch another worker read: observe it before anything later */
            etl_batch *b = &p->slots[w->passed % p->window];
            pthread_mutex_unlock(&p->mu);
            uint64_t since = clock_now(p);
            int rc = run_batch(w, b, 0);
            SPENT(w, observing, since);
            pthread_mutex_lock(&p->mu);
            if (rc != 0) p->stop = 1;
            w->passed++;
            if (pass_batch(p, b)) pthread_cond_broadcast(&p->cv);
            continue;
        }
        uint64_t seq = p->published;
        if (!p->reading && !p->finished && p->slots[seq % p->window].pending == 0) {
            p->reading = 1;
            lend_hot_records(p, w, &p->slots[seq % p->window]);
            pthread_mutex_unlock(&p->mu);
            int status;
            uint64_t since = clock_now(p);
            int any = read_batch(p, seq, &status);
            etl_batch *b = &p->slots[seq % p->window];
            SPENT(w, reading, since);
            w->times.batches_read += any;
            w->times.records_read += b->count;
            pthread_mutex_lock(&p->mu);
            p->reading = 0;
            p->turn_wanted = 0;
            if (status != ETL_PAUSED) {
                p->finished = 1;
                p->process_status = status;
            }
            if (any) {
                b->pending = p->threads + 1;  /* every worker, then the writer */
                b->rendered = 0;
                b->renderer = (unsigned)(w - p->workers);
                lend_hot_text(w, b);
                p->published++;
                w->passed = p->published;  /* it renders the batch: it has passed it */
            }
            pthread_cond_broadcast(&p->cv);
            if (!any) continue;
            pthread_mutex_unlock(&p->mu);
            since = clock_now(p);
            int rc = run_batch(w, b, 1);
            SPENT(w, rendering, since);
            since = clock_now(p);
            etl_trace_release_due(p->trace);  /* a release the reader marked as due, outside its turn */
            SPENT(w, releasing, since);
            pthread_mutex_lock(&p->mu);
            if (rc != 0) p->stop = 1;
            b->rendered = 1;
            pass_batch(p, b);
            write_ready(p, w);
            continue;
        }
        if (p->finished && !p->reading) break;  /* and every published batch passed (above) */
        if (p->reading && !p->finished) {  /* the turn comes free within one batch's reading: wait awake */
            p->turn_wanted = 1;  /* and the reader ends its batch soon (CUT_MIN_RECORDS) */
            pthread_mutex_unlock(&p->mu);
            uint64_t since = clock_now(p);
            /* meanwhile, decompress the buffers the reader will want next (a compressed trace's reading is
             * mostly decompression: its turns get shorter) */
            int help = 1;
            for (int spin = 0; spin < SPIN_FOR_TURN && atomic_load_explicit(&p->reading, memory_order_relaxed); spin++) {
                /* no room or nothing due: ask again now and then, as the reader takes buffers and frees room */
                if ((help || spin % 256 == 0) && (help = etl_trace_prefetch_help(p->trace))) continue;
                cpu_relax();
            }
            SPENT(w, waiting, since);
            pthread_mutex_lock(&p->mu);
            if (!p->reading) continue;
        }
        uint64_t since = clock_now(p);
        pthread_cond_wait(&p->cv, &p->mu);
        SPENT(w, waiting, since);
    }
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    SPENT(w, pass, start);
}

static void worker_main(void *arg, unsigned index)
{
    etl_parallel *p = arg;
    worker *w = &p->workers[index + 1];  /* [0] is the calling thread's */
    w->state = p->ops->worker_start(p->ctx, index + 1);
    if (!w->state) stop_run(p);
    pthread_mutex_lock(&p->mu);
    p->ready++;
    pthread_cond_broadcast(&p->cv);
    while (!p->stop && !p->closed && !p->trace) pthread_cond_wait(&p->cv, &p->mu);
    int take = w->state && p->trace && !p->stop;
    pthread_mutex_unlock(&p->mu);
    if (take) take_part(p, w);
}

int etl_parallel_pass(etl_parallel *p, etl_trace *trace, int *process_status)
{
    size_t files = etl_trace_file_count(trace);
    mapping *maps = calloc(files ? files : 1, sizeof *maps);
    if (!maps) {
        fprintf(stderr, "etlconv: out of memory\n");
        stop_run(p);
        *process_status = ETL_STOPPED;
        return -1;
    }
    for (size_t i = 0; i < files; i++)  /* an unmapped file's entry stays {NULL, 0}: nothing is in place there */
        etl_trace_file_mapping(trace, i, &maps[i].base, &maps[i].size);
    free(p->maps);
    p->maps = maps;
    p->map_count = files;
    etl_trace_defer_release(trace, 1);
    etl_trace_read_ahead(trace, 1);  /* the reader only copies: the renderer reads the records later */
    for (unsigned i = 0; i < p->threads; i++) memset(&p->workers[i].times, 0, sizeof p->workers[i].times);
    pthread_mutex_lock(&p->mu);
    p->trace = trace;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    take_part(p, &p->workers[0]);
    /* the others may still render the last batches: whoever renders one writes it (write_ready) */
    pthread_mutex_lock(&p->mu);
    while (!p->stop && (p->writing || p->next_write < p->published)) pthread_cond_wait(&p->cv, &p->mu);
    int stopped = p->stop;
    *process_status = p->finished ? p->process_status : ETL_STOPPED;
    pthread_mutex_unlock(&p->mu);
    etl_trace_release_due(trace);  /* the last one due */
    return stopped ? -1 : 0;
}

/* ---- start and end ------------------------------------------------------------------------------------- */

etl_parallel *etl_parallel_start(const etl_parallel_config *config, const etl_parallel_ops *ops, void *ctx,
                                 const etl_sink *sink)
{
    etl_parallel *p = etl_calloc_lines(1, sizeof *p);
    if (!p) {
        fprintf(stderr, "etlconv: out of memory\n");
        return NULL;
    }
    p->ops = ops;
    p->ctx = ctx;
    p->sink = sink;
    p->threads = config->threads ? config->threads : 1;
    p->timed = config->timed;
    /* one being read, one being rendered by each worker, and room for those waiting to be written in order
     * while a worker whose core the host took away holds one up; record memory for window + threads batches */
    p->window = config->window ? config->window : 4 * (size_t)p->threads + 2;
    size_t records = config->batch_records ? config->batch_records : DEFAULT_BATCH_RECORDS;
    size_t bytes = config->batch_bytes ? config->batch_bytes : DEFAULT_BATCH_BYTES;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->slots = etl_calloc_lines(p->window, sizeof *p->slots);
    p->spares = etl_calloc_lines(p->threads, sizeof *p->spares);
    p->workers = calloc(p->threads, sizeof *p->workers);
    int rc = p->slots && p->spares && p->workers ? 0 : ETL_ERR_NOMEM;
    for (size_t i = 0; i < p->window && rc == 0; i++) rc = etl_batch_init(&p->slots[i], records, bytes);
    for (unsigned i = 0; i < p->threads && rc == 0; i++) rc = etl_batch_init(&p->spares[i], records, bytes);
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
    while (p->ready < p->threads) pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    if (!p->workers[0].state) {
        etl_parallel_free(p);
        return NULL;
    }
    return p;
}

int etl_parallel_finish(etl_parallel *p)
{
    pthread_mutex_lock(&p->mu);
    p->closed = 1;  /* for workers still waiting for a pass that did not come */
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    if (p->running) etl_worker_pool_wait(p->pool);  /* the threads stay for the pool's next run */
    p->running = 0;
    return p->stop ? -1 : 0;
}

int etl_parallel_turn_wanted(const etl_parallel *p)
{
    return atomic_load_explicit(&p->turn_wanted, memory_order_relaxed);
}

int etl_parallel_worker_times(const etl_parallel *p, unsigned index, etl_parallel_times *out)
{
    if (!p || !p->workers || index >= p->threads) return -1;
    *out = p->workers[index].times;
    return 0;
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
    for (unsigned i = 0; p->spares && i < p->threads; i++) etl_batch_free(&p->spares[i]);
    for (unsigned i = 0; p->workers && i < p->threads; i++) etl_textbuf_free(&p->workers[i].spare);
    free(p->slots);
    free(p->spares);
    free(p->workers);
    free(p->maps);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
