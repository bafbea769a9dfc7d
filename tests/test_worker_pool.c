/* Threads kept across runs (src/pipeline/workers.c) and the parallel pipeline on them (issue 14: --each -j N
 * converts every file on the same N threads: the calling thread and N - 1 kept ones). Oracles: pthread_self()
 * per worker index (the same thread in every run, N distinct threads, worker 0 the calling thread), and the
 * pipeline's own contract on a corpus trace run twice on one pool: every worker observes every record once
 * per run and renders some of the batches, each batch's text is written once and in order (the sink sees the
 * record sequence numbers 0..n-1 in order, twice). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "etl/etl.h"
#include "pipeline/parallel.h"
#include "pipeline/workers.h"

#define THREADS 3
#define RUNS 5

static pthread_t seen[RUNS][THREADS];
static int current_run;

static void note_thread(void *arg, unsigned index)
{
    (void)arg;
    seen[current_run][index] = pthread_self();
}

static void test_same_threads_every_run(void **state)
{
    (void)state;
    etl_worker_pool *pool = etl_worker_pool_new(THREADS);
    assert_non_null(pool);
    assert_int_equal(etl_worker_pool_threads(pool), THREADS);
    for (current_run = 0; current_run < RUNS; current_run++) {
        assert_int_equal(etl_worker_pool_run(pool, note_thread, NULL), 0);
        etl_worker_pool_wait(pool);
    }
    for (int r = 1; r < RUNS; r++)
        for (int i = 0; i < THREADS; i++) assert_true(pthread_equal(seen[r][i], seen[0][i]));
    for (int i = 0; i < THREADS; i++)
        for (int k = i + 1; k < THREADS; k++) assert_false(pthread_equal(seen[0][i], seen[0][k]));
    etl_worker_pool_wait(pool);  /* no run: returns at once */
    etl_worker_pool_free(pool);
}

/* ---- the pipeline on a kept pool ---------------------------------------------------------------------- */

typedef struct pipe_worker {
    pthread_t thread;
    unsigned long observed;
    etl_textbuf held;         /* keep_until_end: the lines of the batch being rendered */
    unsigned long batch_ends;
    unsigned long rendered;   /* records it rendered (its batches') */
    const char *memories[16]; /* the distinct text memories it rendered into (up to 16) */
    size_t memory_count;
    int owns_first;           /* it rendered the trace's first record */
    unsigned long first_batch; /* then: the records of that first batch */
    uint64_t own_ns, observe_ns; /* time in pipe_record for its own records and for the others' */
} pipe_worker;

typedef struct pipe_run {
    int keep_until_end;       /* render into the worker's own buffer, exchanged with the batch's at its end */
    unsigned threads;         /* 0: THREADS */
    size_t batch_records;     /* 0: 7 */
    int hold_reader;          /* list every record, holding the reader at the 50th (pipe_listed_holding) */
    const char *path;         /* NULL: KernelNetwork */
    int timed;                /* config.timed: the workers' etl_parallel_times land in `times` */
    etl_parallel_times times[THREADS];
    uint64_t releases_deferred; /* the trace's etl_trace_stats after the pass */
    etl_parallel *pipeline;
    unsigned long listed;     /* records the reader listed so far */
    int waiter_seen;          /* hold_reader: the reader saw a worker wait for its turn */
    pthread_t holder;         /* hold_reader: the thread that held its reader's turn */
    pipe_worker workers[THREADS];
    unsigned long sequence;   /* records numbered in the order the workers see them */
    unsigned long written;    /* lines the sink got in order */
    uint64_t sink_ns;         /* time in pipe_sink */
    int out_of_order;
} pipe_run;

static void *pipe_start(void *ctx, unsigned index)
{
    pipe_run *run = ctx;
    run->workers[index].thread = pthread_self();
    return &run->workers[index];
}

static int keeping;  /* the run's keep_until_end, for pipe_record */
static uint64_t render_spin_ns;  /* pipe_record spends this long on each record it renders */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* batch_end: the batch's lines move to it by exchanging buffers (as the CLI's workers do) */
static int pipe_batch_end(void *state, etl_textbuf *out)
{
    pipe_worker *w = state;
    w->batch_ends++;
    if (w->owns_first && !w->first_batch) w->first_batch = w->rendered;
    if (out->length) return -1;  /* nothing may have been written to the batch directly */
    etl_textbuf_swap(out, &w->held);
    etl_textbuf_reset(&w->held);
    return 0;
}

/* every worker sees every record in the same order: its own count is the record's number */
static int pipe_record(void *state, const etl_event_record *record, etl_textbuf *out)
{
    (void)record;
    pipe_worker *w = state;
    uint64_t start = now_ns();
    if (out) {
        char line[32];
        int n = snprintf(line, sizeof line, "%lu\n", w->observed);
        etl_textbuf *into = keeping ? &w->held : out;
        etl_textbuf_append(into, line, (size_t)n);
        if (w->observed == 0) w->owns_first = 1;
        w->rendered++;
        size_t k = 0;
        while (k < w->memory_count && w->memories[k] != into->data) k++;
        if (k == w->memory_count && k < sizeof w->memories / sizeof w->memories[0]) w->memories[w->memory_count++] = into->data;
        while (now_ns() - start < render_spin_ns) {
        }
    }
    w->observed++;
    *(out ? &w->own_ns : &w->observe_ns) += now_ns() - start;
    return 0;
}

static void pipe_diagnostic(void *ctx, const etl_diagnostic *d)
{
    (void)ctx;
    (void)d;
}

static int pipe_sink(void *ctx, const void *data, size_t length)
{
    pipe_run *run = ctx;
    uint64_t start = now_ns();
    const char *p = data, *end = p + length;
    while (p < end) {
        unsigned long v = strtoul(p, NULL, 10);
        if (v != run->written) run->out_of_order = 1;
        run->written++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    run->sink_ns += now_ns() - start;
    return 0;
}

/* The reader, every record: all are listed (every worker numbers every record). At the 50th it waits (up to
 * 10 s) until a worker waits for its turn, and then 5 ms more. */
#define HOLD_AFTER_WAITER_NS 5000000

static int pipe_listed_holding(void *ctx, const etl_event_record *record)
{
    (void)record;
    pipe_run *run = ctx;
    if (++run->listed == 50) {
        run->holder = pthread_self();
        for (int ms = 0; ms < 10000 && !(run->waiter_seen = etl_parallel_turn_wanted(run->pipeline)); ms++)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        nanosleep(&(struct timespec){0, HOLD_AFTER_WAITER_NS}, NULL);  /* the waiter now waits that long at least */
    }
    return 1;
}

static void run_pipeline(etl_worker_pool *pool, pipe_run *run)
{
    const char *paths[1] = {run->path ? run->path : "testdata/tx/KernelNetwork.etl.gz"};
    etl_trace *trace;
    etl_error err;
    assert_int_equal(etl_open(&trace, paths, 1, NULL, &err), ETL_OK);
    int keep = run->keep_until_end;
    unsigned threads = run->threads ? run->threads : THREADS;
    size_t batch_records = run->batch_records ? run->batch_records : 7;  /* small batches: every worker owns many */
    int hold = run->hold_reader;
    const char *path = run->path;
    int timed = run->timed;
    memset(run, 0, sizeof *run);
    run->path = path;
    run->timed = timed;
    run->keep_until_end = keeping = keep;
    run->threads = threads;
    run->batch_records = batch_records;
    run->hold_reader = hold;
    etl_parallel_ops ops = {pipe_start, pipe_record, pipe_diagnostic, NULL, keep ? pipe_batch_end : NULL,
                            hold ? pipe_listed_holding : NULL, NULL};
    etl_parallel_config config = {threads, batch_records, 0, 0, pool, timed};
    etl_sink sink = {pipe_sink, run};
    etl_parallel *p = etl_parallel_start(&config, &ops, run, &sink);
    assert_non_null(p);
    run->pipeline = p;
    int status;
    assert_int_equal(etl_parallel_pass(p, trace, &status), 0);
    assert_int_equal(status, ETL_OK);
    assert_int_equal(etl_parallel_finish(p), 0);
    for (unsigned i = 0; i < threads; i++) assert_int_equal(etl_parallel_worker_times(p, i, &run->times[i]), 0);
    etl_parallel_times none;
    assert_int_equal(etl_parallel_worker_times(p, threads, &none), -1);
    etl_parallel_free(p);
    run->releases_deferred = etl_trace_get_stats(trace)->releases_deferred;
    etl_close(trace);
    for (int i = 0; i < THREADS; i++) etl_textbuf_free(&run->workers[i].held);
}

static void test_pipeline_runs_on_a_kept_pool(void **state)
{
    (void)state;
    etl_worker_pool *pool = etl_worker_pool_new(THREADS - 1);  /* worker 0 is the calling thread */
    assert_non_null(pool);
    static pipe_run first, second;
    run_pipeline(pool, &first);
    run_pipeline(pool, &second);
    assert_true(first.written > 1000);
    for (pipe_run *run = &first; run; run = run == &first ? &second : NULL) {
        assert_false(run->out_of_order);
        assert_int_equal(run->written, first.written);
        for (int i = 0; i < THREADS; i++) assert_int_equal(run->workers[i].observed, first.written);
    }
    for (int i = 0; i < THREADS; i++) assert_true(pthread_equal(first.workers[i].thread, second.workers[i].thread));
    assert_true(pthread_equal(first.workers[0].thread, pthread_self()));
    for (int i = 0; i < THREADS; i++) {  /* the calling thread reads and renders too, the others render */
        assert_true(first.workers[i].rendered > 0);
        for (int k = i + 1; k < THREADS; k++) assert_false(pthread_equal(first.workers[i].thread, first.workers[k].thread));
    }
    /* without a pool (or one of another size) a run starts threads of its own */
    static pipe_run own;
    etl_worker_pool *other = etl_worker_pool_new(THREADS - 2);
    run_pipeline(other, &own);
    assert_int_equal(own.written, first.written);
    assert_false(own.out_of_order);
    for (int i = 1; i < THREADS; i++) assert_false(pthread_equal(own.workers[i].thread, first.workers[i].thread));
    etl_worker_pool_free(other);
    etl_worker_pool_free(pool);
    printf("%lu records, 2 runs on one pool of %d threads: same threads, every record observed by each, in order\n",
           first.written, THREADS);
}

/* batch_end (the CLI's workers hand a batch its text at the end, without a copy): every batch's lines reach
 * the sink once and in order, and batch_end ran once per batch, in the worker that rendered it. */
static void test_batch_end_hands_over_the_text(void **state)
{
    (void)state;
    static pipe_run plain, kept;
    run_pipeline(NULL, &plain);
    kept.keep_until_end = 1;
    run_pipeline(NULL, &kept);
    keeping = 0;
    assert_false(kept.out_of_order);
    assert_int_equal(kept.written, plain.written);
    unsigned long ends = 0;
    for (int i = 0; i < THREADS; i++) ends += kept.workers[i].batch_ends;
    assert_int_equal(ends, (plain.written + 6) / 7);  /* batches of 7 records */
    for (int i = 0; i < THREADS; i++) assert_int_equal(plain.workers[i].batch_ends, 0);
}

/* config.timed: each worker's times account for its part. The worker that reads a batch renders it, so the
 * records each one read are the ones it rendered, and together every record, read once; the batches are those
 * of 7 records. Each part holds at least the time the ops spent in it (rendering its own records, observing the
 * others', the sink), and rendering spins 20 us a record, so a part that also counted another (reading that ran
 * on over the rendering, say) would put the parts past the pass. An untimed run keeps the counts but no times. */
static void test_times_account_for_each_worker(void **state)
{
    (void)state;
    static pipe_run timed, untimed;
    timed.timed = 1;
    render_spin_ns = 20000;
    run_pipeline(NULL, &timed);
    render_spin_ns = 0;
    run_pipeline(NULL, &untimed);
    assert_false(timed.out_of_order);
    uint64_t records = 0, batches = 0, writing = 0;
    for (int i = 0; i < THREADS; i++) {
        const etl_parallel_times *t = &timed.times[i];
        const pipe_worker *w = &timed.workers[i];
        assert_int_equal(t->records_read, w->rendered);
        records += t->records_read;
        batches += t->batches_read;
        writing += t->writing;
        assert_true(t->reading > 0);
        assert_true(t->rendering >= w->own_ns && w->own_ns >= 20000 * w->rendered);
        assert_true(t->observing >= w->observe_ns && w->observe_ns > 0);
        assert_true(t->reading + t->rendering + t->observing + t->writing + t->releasing + t->waiting <= t->pass);
        const etl_parallel_times *u = &untimed.times[i];  /* its counts, but no clock readings */
        assert_int_equal(u->records_read, untimed.workers[i].rendered);
        assert_int_equal(u->pass + u->reading + u->rendering + u->observing + u->writing + u->releasing + u->waiting, 0);
    }
    assert_int_equal(records, timed.written);
    assert_int_equal(batches, (timed.written + 6) / 7);
    assert_true(writing >= timed.sink_ns && timed.sink_ns > 0);
}

/* A worker renders a batch into the text memory of the batch it rendered last, once that was written (still in
 * its cache), not into the memory of the batch's slot, which comes round only after `window` batches. One
 * worker writes each batch as soon as it rendered it: every batch after the first is rendered where the first
 * was (7 short lines fit the first allocation: no realloc moves it). */
static void test_batches_are_rendered_into_hot_memory(void **state)
{
    (void)state;
    static pipe_run one;
    one.threads = 1;
    run_pipeline(NULL, &one);
    assert_false(one.out_of_order);
    assert_true(one.written > 1000);  /* over a thousand batches of 7 records, through a window of 6 slots */
    assert_int_equal(one.workers[0].memory_count, 1);
}

/* The mapped pages read go back outside the reader's turn (etl_trace_defer_release): the reader marks a release
 * as due every 4 MiB, and the workers do it after their batches. net.4.5.x86's 26.5 MB of plain buffers: six come
 * due; a pipeline that left them to the reader (no deferral, or no worker calling etl_trace_release_due) does at
 * most the one its pass ends with. */
static void test_workers_release_the_mapped_pages(void **state)
{
    (void)state;
    static pipe_run two;
    two.threads = 2;
    two.batch_records = 256;
    two.path = "testdata/perfview/net.4.5.x86.PerfViewData.etl.gz";
    two.timed = 1;
    run_pipeline(NULL, &two);
    assert_false(two.out_of_order);
    assert_true(two.written > 100000);
    assert_true(two.releases_deferred >= 4);
    assert_true(two.times[0].releasing + two.times[1].releasing > 0);  /* and etl_parallel_times counts them */
}

/* A reader ends its batch early (after at least 32 records) when another worker waits for the reader's turn, so
 * the waiter does not idle for the rest of the batch's reading: the reader holds at the trace's 50th record until
 * the other worker waits, and the first batch ends at its 32nd to 50th record instead of at 1000. When the other
 * worker asked for the turn before that (often, on a fast host), the first batch ends at its 32nd record and the
 * hold falls in the next batch, which the other worker reads: the waiter is whichever worker did not hold. */
static void test_a_waiting_worker_ends_the_readers_batch(void **state)
{
    (void)state;
    static pipe_run two;
    two.threads = 2;
    two.batch_records = 1000;
    two.keep_until_end = 1;
    two.hold_reader = 1;
    two.timed = 1;
    run_pipeline(NULL, &two);
    keeping = 0;
    assert_false(two.out_of_order);
    assert_true(two.written > 2000);
    assert_true(two.waiter_seen);
    pipe_worker *first = two.workers[0].owns_first ? &two.workers[0] : &two.workers[1];
    assert_in_range(first->first_batch, 32, 50);
    /* the worker that held counts the hold as reading; the other waited meanwhile (etl_parallel_times), polling
     * and then asleep */
    int held = pthread_equal(two.holder, two.workers[0].thread) ? 0 : 1;
    assert_true(pthread_equal(two.holder, two.workers[held].thread));
    assert_true(two.times[held].reading >= HOLD_AFTER_WAITER_NS);
    assert_true(two.times[1 - held].waiting >= HOLD_AFTER_WAITER_NS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_threads_every_run),
        cmocka_unit_test(test_pipeline_runs_on_a_kept_pool),
        cmocka_unit_test(test_batch_end_hands_over_the_text),
        cmocka_unit_test(test_batches_are_rendered_into_hot_memory),
        cmocka_unit_test(test_times_account_for_each_worker),
        cmocka_unit_test(test_workers_release_the_mapped_pages),
        cmocka_unit_test(test_a_waiting_worker_ends_the_readers_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
