/* One processor's buffers of one file, read one buffer at a time (memory: one buffer per stream). */
#include <stdlib.h>
#include <string.h>

#include "reader/decompress.h"
#include "reader/record.h"
#include "reader/trace_internal.h"

static int ensure(uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    uint8_t *nb = realloc(*buf, need);
    if (!nb) return -1;
    *buf = nb;
    *cap = need;
    return 0;
}

/* Loads buffers until one has a readable payload. Returns ETL_OK (has_record may be 0 at the end). */
static int load_next_buffer(etl_trace *t, etl_stream *s)
{
    etl_trace_file *f = &t->files[s->file_index];
    while (s->next_buffer < s->buffer_count) {
        const etl_buffer_ref *b = &s->buffers[s->next_buffer++];
        s->current = b;
        s->pos = 0;
        s->payload_len = 0;
        t->stats.bytes_done += b->disk_size;
        size_t expected = b->valid - ETL_BUFFER_HEADER_SIZE;
        if (b->flags & ETL_BUFFER_FLAG_COMPRESSED) {
            size_t in_len = b->disk_size - ETL_BUFFER_HEADER_SIZE;
            if (ensure(&t->scratch, &t->scratch_cap, in_len ? in_len : 1) || ensure(&s->payload, &s->payload_cap, expected ? expected : 1))
                return ETL_ERR_NOMEM;
            if (etl_input_read(&f->input, b->offset + ETL_BUFFER_HEADER_SIZE, t->scratch, in_len) != ETL_OK) {
                etl_trace_diag(t, ETL_ERROR, ETL_ERR_IO, s->file_index, b->offset, "cannot read buffer");
                continue;
            }
            etl_compression_format used;
            if (etl_decompress_etl_buffer(t->scratch, in_len, s->payload, expected, &used) != ETL_OK) {
                etl_trace_diag(t, ETL_ERROR, ETL_ERR_DECOMPRESS, s->file_index, b->offset,
                               "compressed buffer does not decompress to its stated %zu bytes; its events are lost",
                               expected);
                continue;
            }
        } else {
            if (ensure(&s->payload, &s->payload_cap, expected ? expected : 1)) return ETL_ERR_NOMEM;
            if (etl_input_read(&f->input, b->offset + ETL_BUFFER_HEADER_SIZE, s->payload, expected) != ETL_OK) {
                etl_trace_diag(t, ETL_ERROR, ETL_ERR_IO, s->file_index, b->offset, "cannot read buffer");
                continue;
            }
        }
        s->payload_len = expected;
        if (s->last_raw == 0) s->last_raw = b->timestamp;
        return ETL_OK;
    }
    s->current = NULL;
    return ETL_OK;
}

/* Parses the record at s->pos, moving to later buffers as needed. */
static int position(etl_trace *t, etl_stream *s)
{
    etl_trace_file *f = &t->files[s->file_index];
    s->has_record = 0;
    for (;;) {
        if (!s->current) return ETL_OK;
        const char *why = NULL;
        int has_ts = 1;
        etl_record_result r = etl_record_parse(s->payload, s->payload_len, s->pos, f->pointer_size, &s->record,
                                               s->items, ETL_MAX_EXTENDED_ITEMS, &s->advance, &has_ts, &why);
        if (r == ETL_RECORD_OK) {
            etl_event_record *rec = &s->record;
            if (has_ts) s->last_raw = rec->raw_timestamp;
            else rec->raw_timestamp = s->last_raw;
            rec->buffer_context.processor_index = s->current->processor;
            rec->buffer_context.logger_id = s->current->logger_id;
            rec->file_index = s->file_index;
            rec->file_offset = s->current->offset;
            s->key_filetime = etl_clock_to_filetime(&f->clock, rec->raw_timestamp);
            rec->header.timestamp = (t->options.flags & ETL_OPEN_RAW_TIMESTAMP) ? rec->raw_timestamp : s->key_filetime;
            s->has_record = 1;
            return ETL_OK;
        }
        if (r == ETL_RECORD_BAD) {
            int compressed = (s->current->flags & ETL_BUFFER_FLAG_COMPRESSED) != 0;
            if (compressed)
                etl_trace_diag(t, ETL_ERROR, ETL_ERR_FORMAT, s->file_index, s->current->offset,
                               "compressed buffer, record at payload offset 0x%zx: %s; rest of buffer skipped",
                               s->pos, why);
            else
                etl_trace_diag(t, ETL_ERROR, ETL_ERR_FORMAT, s->file_index,
                               s->current->offset + ETL_BUFFER_HEADER_SIZE + s->pos, "%s; rest of buffer skipped", why);
        }
        int rc = load_next_buffer(t, s);
        if (rc != ETL_OK) return rc;
    }
}

int etl_stream_start(etl_trace *t, etl_stream *s)
{
    int rc = load_next_buffer(t, s);
    if (rc != ETL_OK) return rc;
    return position(t, s);
}

int etl_stream_next(etl_trace *t, etl_stream *s)
{
    s->pos += s->advance;
    s->order++;
    return position(t, s);
}
