/* The first pass (issue 14): WPR and xperf log the process rundown at the end of the trace, so a decoder learns
 * process names (and TID -> PID) from the whole trace before it decodes the first event (etl_decoder_learn on
 * every record, in order). With spare threads, helper threads decompress the buffers ahead of the merge
 * (etl_trace_set_prefetch): the records, their order and so what the decoder learns are those of one thread. */
#ifndef ETL_PIPELINE_LEARN_H
#define ETL_PIPELINE_LEARN_H

#include <stddef.h>

#include "etl/etl.h"
#include "etl/etl_schema.h"

/* Opens `paths` a second time (no diagnostics: the decoding pass reports the same problems once) and has
 * `decoder` learn from every record. `threads` >= 2: threads - 1 decompress ahead. Does nothing when an input is
 * not a regular file (a pipe cannot be read twice) or cannot be opened. ETL_OK, or ETL_ERR_NOMEM. */
int etl_learn_processes(etl_decoder *decoder, const char *const *paths, size_t count, unsigned threads);

#endif
