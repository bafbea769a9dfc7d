/* Decompress-ahead (issue 14): helper threads decompress a trace's compressed buffers before the merge asks for
 * them, so the thread that merges records only copies a ready payload instead of running LZ77 itself. Only
 * WHEN a buffer is decompressed changes: the bytes, the records, their order and the diagnostics (raised by the
 * reading thread when it takes the buffer) are those of a run without it.
 *
 * Order: a stream's buffer k is needed once the merge has passed the records of buffer k-1, whose last one is
 * at most that buffer's flush time; so buffers are decompressed in the order their predecessors were flushed
 * (a stream's first buffer: at once): by the predecessor's SequenceNumber in a single file (one counter per
 * session, which also orders each stream), by its flush time across files. A buffer asked for before its turn
 * is decompressed by the reading thread, as without read-ahead; one being decompressed is waited for.
 * Besides its own threads, any thread may decompress the next buffer due (etl_trace_prefetch_help): the -j
 * workers do while another holds the reader's turn.
 *
 * Memory: the payloads decompressed ahead, being decompressed or kept for reuse together stay within
 * ETL_PREFETCH_BYTES, or one buffer when a single buffer is larger (at most 16 MiB), whatever the trace. */
#ifndef ETL_READER_PREFETCH_H
#define ETL_READER_PREFETCH_H

#include <stddef.h>
#include <stdint.h>

#include "reader/trace_internal.h"

#define ETL_PREFETCH_BYTES ((size_t)4 << 20)
#define ETL_PREFETCH_MISS 1   /* etl_prefetch_take: not decompressed ahead, decompress it yourself */

typedef struct etl_prefetch etl_prefetch;

/* Starts `threads` helper threads over t's compressed mapped buffers (0: none; the buffers are decompressed
 * ahead by the threads that call etl_trace_prefetch_help). NULL when there is nothing to do or no thread
 * could start (reading then works as without read-ahead). */
etl_prefetch *etl_prefetch_start(etl_trace *t, unsigned threads);
/* The reading thread wants buffer b (of file `file_index`): ETL_OK when it was decompressed ahead — then
 * *payload (its payload_len bytes) is that buffer and *cap its capacity, the old *payload going to the helpers
 * for reuse —, ETL_PREFETCH_MISS (decompress it yourself), or the decompressor's error for that buffer (the
 * caller reports it). */
int etl_prefetch_take(etl_prefetch *pf, uint32_t file_index, const etl_buffer_ref *b, uint8_t **payload,
                      size_t *cap);
/* Tests: waits until every thread has filled the budget or run out of buffers, so that etl_process then
 * finds the first buffers decompressed ahead whatever the scheduling. */
void etl_prefetch_settle(etl_trace *t);
/* Stops and joins the threads, frees everything. */
void etl_prefetch_free(etl_prefetch *pf);

#endif
