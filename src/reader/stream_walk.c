/* One stream's records in stream order, unmerged (etl_process_stream in etl/etl.h): for a first pass that
 * orders what it keeps itself, on several threads (each with its own handle on the files). */
#include "reader/clock.h"
#include "reader/logfile_header.h"
#include "reader/trace_internal.h"

size_t etl_trace_stream_count(const etl_trace *t) { return t ? t->stream_count : 0; }

uint64_t etl_trace_stream_bytes(const etl_trace *t, size_t index)
{
    uint64_t bytes = 0;
    if (!t || index >= t->stream_count) return 0;
    for (size_t k = 0; k < t->streams[index].buffer_count; k++) bytes += t->streams[index].buffers[k].disk_size;
    return bytes;
}

size_t etl_trace_stream_buffer_count(const etl_trace *t, size_t index)
{
    return t && index < t->stream_count ? t->streams[index].buffer_count : 0;
}

int etl_trace_stream_share(etl_trace *t, size_t index, size_t run, unsigned which, unsigned of)
{
    if (!t || t->is_view || index >= t->stream_count || run == 0 || of == 0 || which >= of) return ETL_ERR_ARG;
    etl_stream *s = &t->streams[index];
    if (s->current || s->next_buffer) return ETL_ERR_ARG;  /* already started */
    s->share_run = run;
    s->share_which = which;
    s->share_of = of;
    return ETL_OK;
}

int etl_process_stream(etl_trace *t, size_t index, etl_stream_record_fn callback, void *ctx)
{
    if (!t || !callback || t->is_view || index >= t->stream_count) return ETL_ERR_ARG;
    etl_stream *s = &t->streams[index];
    t->processed = 1;  /* no etl_process after this: its streams would not start at their beginning */
    int header_first = 0;
    if (!s->current && !s->next_buffer) {  /* first call: start the stream */
        int rc = etl_stream_start(t, s);
        if (rc != ETL_OK) return rc;
        /* as in etl_process: the first file's log-file header record is delivered before anything else */
        header_first = s->has_record && s->file_index == 0 && t->files[0].have_header &&
                       s->current == &t->files[0].buffers[0] && s->pos == 0 &&
                       etl_is_logfile_header_record(&s->record);
    }
    while (s->has_record) {  /* a later call resumes with the record the callback stopped at */
        if (s->share_of > 1 && s->record.raw_timestamp == ETL_STREAM_TIME_UNKNOWN) return ETL_ERR_FORMAT;
        /* increases along the stream: the buffer's place in it, then the record's offset in the buffer */
        uint64_t position = (uint64_t)(s->current - s->buffers) << 32 | s->pos;
        if (callback(&s->record, position, header_first, ctx) != 0) return ETL_STOPPED;
        t->stats.events++;
        header_first = 0;
        int rc = etl_stream_next(t, s);
        if (rc != ETL_OK) return rc;
    }
    return ETL_OK;
}

/* Buffer stamps count the session's raw clock (etl-format.md §1.9), but some writers stamp FILETIMEs on the
 * buffers of a QPC trace (net.4.5.2.x86, relogged): when the raw reading of every stamp falls outside the
 * log-file header's StartTime..EndTime (a day either side) and the FILETIME reading inside, it is that. */
static int stamps_are_filetimes(const etl_trace_file *f)
{
    const int64_t day = 864000000000;
    const etl_logfile_header *h = &f->header;
    if (!f->have_header || h->start_time <= 0 || h->end_time < h->start_time || h->end_time > INT64_MAX - day)
        return 0;
    int64_t lo = h->start_time - day, hi = h->end_time + day;
    size_t filetime = 0, raw = 0;
    for (size_t k = 0; k < f->buffer_count; k++) {
        int64_t stamp = f->buffers[k].timestamp, at = etl_clock_to_filetime(&f->clock, stamp);
        if (stamp == 0 || f->buffers[k].type == ETL_BUFFER_TYPE_HEADER) continue;  /* the header buffer */
        raw += at >= lo && at <= hi;
        filetime += stamp >= lo && stamp <= hi;
    }
    return raw == 0 && filetime > 0;
}

int etl_trace_time_range(const etl_trace *t, int64_t *first, int64_t *last)
{
    int any = 0;
    for (size_t i = 0; t && i < t->file_count; i++) {
        const etl_trace_file *f = &t->files[i];
        int filetimes = stamps_are_filetimes(f);
        for (size_t k = 0; k < f->buffer_count; k++) {
            if (f->buffers[k].type == ETL_BUFFER_TYPE_HEADER || f->buffers[k].timestamp == 0) continue;  /* no flush time */
            int64_t at = filetimes ? f->buffers[k].timestamp : etl_clock_to_filetime(&f->clock, f->buffers[k].timestamp);
            if (!any || at < *first) *first = at;
            if (!any || at > *last) *last = at;
            any = 1;
        }
    }
    return any;
}
