/* A diff side read from .etl files: the conversion pipeline (first pass for process names, decoding, the
 * caller's filter, the stable view) ending in baseline lines spilled to a temporary file. */
#include "diff/diff_internal.h"
#include "pipeline/learn.h"

#include <stdlib.h>
#include <string.h>

#define PROGRESS_EVERY 4096

typedef struct trace_run {
    etl_diff *diff;
    int side;
    etl_trace *trace;
    etl_decoder *decoder;
    etl_stable *stable;
    FILE *spill;
    uint64_t seen;
    int failed;  /* an etl_status */
} trace_run;

static int on_event(const etl_event_record *record, void *ctx)
{
    trace_run *r = ctx;
    etl_diff *d = r->diff;
    const etl_decoded_event *ev, *view;
    if (etl_decode_event(r->decoder, record, &ev) != ETL_OK) {
        r->failed = ETL_ERR_NOMEM;
        return 1;
    }
    if (++r->seen % PROGRESS_EVERY == 0 && d->opt.progress) {
        const etl_trace_stats *st = etl_trace_get_stats(r->trace);
        d->opt.progress(d->opt.progress_ctx, st->bytes_done, st->bytes_total, r->seen);
    }
    etl_stable_observe(r->stable, ev);
    if (d->opt.accept && !d->opt.accept(d->opt.accept_ctx, ev)) return 0;
    if (etl_stable_apply(r->stable, ev, &view) != ETL_OK) {
        r->failed = ETL_ERR_NOMEM;
        return 1;
    }
    etl_textbuf_reset(&d->line);
    if (d->opt.render) {
        if (d->opt.render(d->opt.render_ctx, view, etl_stable_flags(r->stable), &d->line) != 0) d->line.failed = 1;
    } else {
        etl_baseline_render(view, etl_stable_flags(r->stable), &d->line);
    }
    if (d->line.failed || d->line.length == 0) {
        r->failed = ETL_ERR_NOMEM;
        return 1;
    }
    uint64_t offset = (uint64_t)ftello(r->spill);
    if (fwrite(d->line.data, 1, d->line.length, r->spill) != d->line.length) {
        r->failed = ETL_ERR_IO;
        return 1;
    }
    int rc = diff_ingest_line(d, r->side, d->line.data, d->line.length - 1, offset);
    if (rc < 0) {
        r->failed = ETL_ERR_NOMEM;
        return 1;
    }
    return 0;
}

int etl_diff_read_trace(etl_diff *d, int s, const char *const *files, size_t count, etl_schema_registry *registry,
                        etl_error *err)
{
    trace_run r;
    memset(&r, 0, sizeof r);
    r.diff = d;
    r.side = s;
    r.stable = d->stable[s];
    etl_stable *own = NULL;
    if (!r.stable && !(r.stable = own = etl_stable_new(0))) {
        snprintf(err->message, sizeof err->message, "out of memory");
        return err->code = ETL_ERR_NOMEM;
    }
    etl_open_options oo = {0, d->opt.on_diagnostic, d->opt.diagnostic_ctx};
    int rc = etl_open(&r.trace, files, count, &oo, err);
    if (rc != ETL_OK) {
        etl_stable_free(own);
        return rc;
    }
    r.decoder = etl_decoder_new(registry, r.trace);
    r.spill = tmpfile();
    if (!r.decoder || !r.spill) {
        rc = r.decoder ? ETL_ERR_IO : ETL_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "%s: %s", files[0],
                 r.decoder ? "cannot create a temporary file" : "out of memory");
    } else if ((rc = etl_learn_processes(r.decoder, registry, files, count, 1, r.trace)) == ETL_OK) {
        rc = etl_process(r.trace, on_event, &r);
        if (r.failed) rc = r.failed;
        if (rc == ETL_STOPPED) rc = ETL_OK;
        if (rc == ETL_OK && fflush(r.spill) != 0) rc = ETL_ERR_IO;
        if (rc != ETL_OK)
            snprintf(err->message, sizeof err->message, "%s: reading stopped: %s", files[0], etl_status_name(rc));
    }
    err->code = rc;
    if (rc == ETL_OK) {
        d->side[s].text = r.spill;  /* the report reads event lines back from it */
        r.spill = NULL;
    }
    if (r.spill) fclose(r.spill);
    etl_decoder_free(r.decoder);
    etl_close(r.trace);
    etl_stable_free(own);
    return rc;
}
