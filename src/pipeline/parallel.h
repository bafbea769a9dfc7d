/* One trace converted on N threads with the output of one (issue 14).
 *
 * N workers: worker 0 is the calling thread, 1..N-1 are threads. They take turns reading the trace (one at a
 * time, each turn one batch: etl_process paused when the batch is full, etl_process_pause), so the trace is
 * read once, in order, each buffer decompressed once (a worker waiting for the turn decompresses the buffers
 * the reader will want next: etl_trace_prefetch_help). The worker that read a batch renders it itself: the
 * records it copied (their structs, and their bytes unless they were read in place from the mapped file,
 * etl_trace_record_in_place) and the payloads it just parsed are in its own core's caches. (A reader of its
 * own handing batches to the others made every record cross between cores: written on one, read on the other,
 * and each slot's lines taken back when reused; when the host put the two cores far apart, the reader's stores
 * waited behind those transfers.) Every worker goes through every batch in order, so the state later records
 * depend on (process table, EventSource manifests, embedded schemas: whatever the decoder observes) is built in
 * each worker exactly as a single-threaded run builds it: the batches others read, it only observes (the ops'
 * `record` with out == NULL), and only the records the reader listed while copying them (the ops' `listed`:
 * those whose observation can change a worker's state), before it reads a later batch. The worker that
 * finishes a batch writes the batches that are next in order (one writer at a time), so the output is byte
 * for byte that of one thread.
 *
 * Diagnostics raised while reading and while a worker renders its own records (etl_parallel_defer_diagnostic)
 * are kept with the batch at the record they belong to and given to the ops' `diagnostic` by the writing
 * worker in the order one thread would print them; those raised while a worker only observes are dropped (the
 * owner of the record raises them).
 *
 * Memory: `window` batches (default 4 x threads + 2); a batch holds at most `batch_records` records (default 256; a
 * reader ends its batch after 32 when another worker waits for the turn) and at most `batch_bytes` of record bytes
 * (default 1 MiB, plus one record of at most 64 KiB), plus the text its owner rendered (the CLI's workers render a
 * batch into their writer's buffer and exchange it with the batch's at the end: batch_end). A worker renders each
 * batch into the text memory of the last batch it rendered, once that one was written: it is still in its core's
 * cache (a slot's own memory comes round only after `window` batches); a reader copies records into the record
 * memory of the last batch it read (once every worker and the writer passed that one; else an older one). Bound:
 * window x (batch bytes + record headers and list + batch text) + N x (one batch text being rendered + one batch
 * text kept for the next batch + one batch's record memory kept for the next batch read + one decoder + one overlay
 * registry: what the trace teaches) + one base registry (the schemas the command line names, parsed once and shared
 * read-only by all workers; it was one full registry per worker) + one reader (and, for compressed traces, the
 * 4 MiB of payloads decompressed ahead: reader/prefetch.h) + the pages of the mapped files read since their
 * last release: the reader only marks a release as due (etl_trace_defer_release), and every worker, once it
 * rendered a batch of its own, does one that is due (the first to get there), outside the reader's turn, which
 * the 0.2-0.3 ms of a release held up (the other worker waited it out, 250 times per GB); a release that comes
 * due while the last is still due or being done is done by the reader at once, so about 8 MiB of reading plus
 * the current buffer's pages per stream, against 4 MiB at -j 1.
 *
 * Threads: a run starts its own N - 1 (joined by etl_parallel_finish), or runs on a pool of N - 1 kept across
 * runs (config.pool, pipeline/workers.h): --each converts every file on the same threads. */
#ifndef ETL_PIPELINE_PARALLEL_H
#define ETL_PIPELINE_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl.h"
#include "etl/etl_writer.h"
#include "util/textbuf.h"

typedef struct etl_parallel_ops {
    /* In the worker's thread (worker 0: the calling thread, in etl_parallel_start), before its first batch: its
     * state (NULL stops the run). etl_parallel_start returns once every worker has run it. */
    void *(*worker_start)(void *ctx, unsigned index);
    /* Every record, in order, in every worker. `out` is non-NULL when the record's batch
     * belongs to this worker: decode, filter and render it there. NULL: only observe it. Non-zero stops. */
    int (*record)(void *worker, const etl_event_record *record, etl_textbuf *out);
    /* The writing worker (one at a time), in output order: a diagnostic kept by etl_parallel_defer_diagnostic. */
    void (*diagnostic)(void *ctx, const etl_diagnostic *d);
    /* The reading worker (one at a time), every 4096 records read (may be NULL). */
    void (*progress)(void *ctx, uint64_t records);
    /* In the worker that rendered a batch, after its last record (may be NULL): text the worker kept back
     * goes to `out` now (e.g. by exchanging buffers, see etl_sink_keeper). Non-zero stops. */
    int (*batch_end)(void *worker, etl_textbuf *out);
    /* The reading worker, every record as it is read, in order (may be NULL: every record is listed): 1 when the
     * workers that do not own its batch must observe it (`record` with out == NULL; e.g. etl_observe_filter).
     * They observe only the listed records of the batches they do not own... */
    int (*listed)(void *ctx, const etl_event_record *record);
    /* ...unless this says, in the worker, after any record it was given (may be NULL), that it must observe
     * every record for now (e.g. etl_decoder_needs_every_record). */
    int (*needs_every)(void *worker);
} etl_parallel_ops;

typedef struct etl_parallel_config {
    unsigned threads;        /* workers, >= 1: the calling thread and threads - 1 others */
    size_t batch_records;    /* 0: 256 */
    size_t batch_bytes;      /* 0: 1 MiB */
    size_t window;           /* batches in flight; 0: 4 x threads + 2 */
    struct etl_worker_pool *pool; /* threads kept across runs (pipeline/workers.h) when it has `threads` - 1;
                                   * NULL: the run starts and joins its own */
    int timed;               /* keep etl_parallel_times (two clock readings per step of a worker; 0: none) */
} etl_parallel_config;

/* Where one worker's time in a pass went: nanoseconds of CLOCK_MONOTONIC with config.timed (the counts are kept
 * always). What `pass` holds beyond the parts is the pipeline's own bookkeeping (its mutex, handing memory and
 * batches on). Whether -j N gains what the cores allow shows here: a worker that reads and renders nearly all of
 * its pass is held up by nothing but its core's speed. */
typedef struct etl_parallel_times {
    uint64_t pass;         /* from the worker's start in the pass to its end (worker 0's then waits, uncounted,
                            * for the others' last batches to be written) */
    uint64_t reading;      /* its turns of reading (parsing, decompressing, copying records into batches, and a
                            * release of mapped pages the reader does itself) */
    uint64_t rendering;    /* decoding and rendering the batches it read */
    uint64_t observing;    /* the listed records of the batches the others read (every record while the ops'
                            * needs_every says so) */
    uint64_t writing;      /* handing rendered batches to the sink, in order */
    uint64_t releasing;    /* giving mapped pages back (etl_trace_release_due) */
    uint64_t waiting;      /* for the reader's turn, a free slot or the others: polling (on a compressed trace
                            * also decompressing the buffers the reader will want next) and sleeping */
    uint64_t batches_read, records_read;
} etl_parallel_times;

typedef struct etl_parallel etl_parallel;

/* Starts the workers and waits until each has its state. NULL after a message when out of memory or a
 * thread could not start. */
etl_parallel *etl_parallel_start(const etl_parallel_config *config, const etl_parallel_ops *ops, void *ctx,
                                 const etl_sink *sink);
/* Reads `trace` (etl_process, in turns) and renders and writes it on the workers, the calling thread one of
 * them; returns when everything is written. 0 with *process_status = what etl_process returned at the end,
 * or -1 when the run stopped (a worker failed, the sink failed, out of memory). */
int etl_parallel_pass(etl_parallel *p, etl_trace *trace, int *process_status);
/* Stops and joins the workers. 0, or -1 when the run failed. */
int etl_parallel_finish(etl_parallel *p);
/* 1 while a worker waits for the reader's turn: the reader then ends its batch once it holds 32 records. */
int etl_parallel_turn_wanted(const etl_parallel *p);
/* Worker `index`'s times of the last pass (its counts always, the times only with config.timed); 0, or -1 when
 * there is no such worker.
 * Read them after etl_parallel_finish. */
int etl_parallel_worker_times(const etl_parallel *p, unsigned index, etl_parallel_times *out);
/* A worker's state (after etl_parallel_finish: its thread has ended); NULL when it never started. */
void *etl_parallel_worker(const etl_parallel *p, unsigned index);
void etl_parallel_free(etl_parallel *p);

/* For diagnostic callbacks: 1 when the calling thread is a pipeline thread and the diagnostic was kept (or
 * dropped, see above) — the caller then prints nothing; 0 otherwise. */
int etl_parallel_defer_diagnostic(const etl_diagnostic *d);

#endif
