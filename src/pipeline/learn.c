/* The first pass (pipeline/learn.h). */
#include "pipeline/learn.h"

#include <sys/stat.h>

static int on_learn_record(const etl_event_record *record, void *ctx)
{
    return etl_decoder_learn(ctx, record) != ETL_OK;
}

int etl_learn_processes(etl_decoder *decoder, const char *const *paths, size_t count, unsigned threads)
{
    for (size_t i = 0; i < count; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0 || !S_ISREG(st.st_mode)) return ETL_OK;
    }
    etl_trace *trace;
    etl_error err;
    if (etl_open(&trace, paths, count, NULL, &err) != ETL_OK) return ETL_OK;
    if (threads >= 2) etl_trace_set_prefetch(trace, threads - 1);
    int rc = etl_process(trace, on_learn_record, decoder);
    etl_close(trace);
    return rc == ETL_STOPPED ? ETL_ERR_NOMEM : ETL_OK;
}
