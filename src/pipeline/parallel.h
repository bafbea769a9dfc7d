/* One trace converted on N threads with the output of one (issue 14).
 *
 * Every worker opens the inputs itself and sees every record in order, so the state later records depend on
 * (process table, EventSource manifests, embedded schemas: whatever the decoder observes) is built by each
 * worker exactly as a single-threaded run builds it. Records are cut into batches of `batch_records` by
 * their position in the merged stream; batch b belongs to worker b mod N, which decodes, filters and
 * renders its records into the batch's text. The other workers only observe those records. The calling
 * thread writes the batches' text to the sink in batch order, so the output is byte for byte that of one
 * thread.
 *
 * Memory: each worker holds at most `window` finished batches that the writer has not taken yet, plus the
 * one it is filling; a worker that is that far ahead waits. Bound: N x (one reader + one decoder + one
 * registry) + N x (window + 1) x (text of one batch). */
#ifndef ETL_PIPELINE_PARALLEL_H
#define ETL_PIPELINE_PARALLEL_H

#include <stddef.h>

#include "etl/etl.h"
#include "etl/etl_writer.h"
#include "util/textbuf.h"

typedef struct etl_parallel_ops {
    /* In the worker's thread, before its first record: its state (NULL stops the run). */
    void *(*worker_start)(void *ctx, unsigned index, etl_trace *trace);
    /* Every record of the trace, in order, in every worker. `out` is non-NULL when the record belongs to this
     * worker: decode, filter and render it there. NULL: only observe it. Non-zero stops the whole run. */
    int (*record)(void *worker, const etl_event_record *record, etl_textbuf *out);
    /* After all workers ended, in the calling thread, in worker order. */
    void (*worker_end)(void *ctx, void *worker);
} etl_parallel_ops;

typedef struct etl_parallel_config {
    unsigned threads;        /* >= 1: traces[0..threads) */
    size_t batch_records;    /* 0: 1024 */
    size_t window;           /* 0: 4 */
} etl_parallel_config;

/* Runs worker i over traces[i] (each an etl_open of the same inputs; the caller opens and closes them) and
 * writes the batches to sink. Returns 0 with *process_status = what etl_process returned for worker 0, or -1
 * when a worker stopped the run, the sink failed or a thread could not start (a message was printed). */
int etl_parallel_run(etl_trace *const *traces, const etl_parallel_config *config, const etl_parallel_ops *ops,
                     void *ctx, const etl_sink *sink, int *process_status);

#endif
