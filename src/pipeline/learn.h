/* The first pass (issue 14): WPR and xperf log the process rundown at the end of the trace, so a decoder learns
 * process names (and TID -> PID) from the whole trace before it decodes the first event, ending with the table
 * etl_decoder_learn on every record in etl_process's order gives. learn.c explains the two ways there. */
#ifndef ETL_PIPELINE_LEARN_H
#define ETL_PIPELINE_LEARN_H

#include <stddef.h>

#include "etl/etl.h"
#include "etl/etl_schema.h"

/* Opens `paths` again (no diagnostics: the decoding pass reports the same problems once) and has `decoder`
 * (made on `registry`) learn from every record, on `threads` threads: by stream when it can, else merged. Does
 * nothing when an input is not a regular file (a pipe cannot be read twice) or cannot be opened. `decoder` must
 * not have learnt anything yet. `next`: the handle on the same paths the decoding pass reads afterwards (not
 * read yet), or NULL; the buffers this pass decompresses are handed over to it when they all fit
 * ETL_HAND_OVER_BYTES (etl_trace_hand_over), so that pass does not decompress them again. ETL_OK, or
 * ETL_ERR_NOMEM. */
int etl_learn_processes(etl_decoder *decoder, etl_schema_registry *registry, const char *const *paths, size_t count,
                        unsigned threads, etl_trace *next);

/* The two ways (tests compare them). By stream returns ETL_LEARN_BY_STREAM_NOT, having learnt nothing, when the
 * trace does not allow it (several files, a stream out of time order, too many process/thread events in one
 * round, a run of a shared stream that begins with a record without a time of its own); `round_bytes`: trace
 * bytes per round (0: 64 MiB); `run_bytes`: on several threads, every stream is read by all of them, each in
 * turn a run of about this many bytes of buffers (0: 1 MiB). `decoder` must not have learnt anything yet. */
#define ETL_LEARN_BY_STREAM_NOT 1
int etl_learn_processes_by_stream(etl_decoder *decoder, etl_schema_registry *registry, const char *const *paths,
                                  size_t count, unsigned threads, uint64_t round_bytes, uint64_t run_bytes);
/* Merged: etl_process; at threads >= 2, threads - 1 of them decompress ahead (etl_trace_set_prefetch). */
int etl_learn_processes_merged(etl_decoder *decoder, const char *const *paths, size_t count, unsigned threads);

#endif
