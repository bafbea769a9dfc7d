/* Two passes, one decompression (etl_trace_hand_over in etl/etl.h). The first pass's handle gives each
 * compressed buffer's payload, when its stream leaves it, to the second handle's slot for that buffer (both
 * handles index the same buffers: checked); the second pass takes it from there instead of decompressing the
 * buffer again. Memory: all or nothing, decided before reading — the payloads of every compressed buffer
 * together fit ETL_HAND_OVER_BYTES, or nothing is kept —, so at most that much is held whatever the trace,
 * and each payload held is freed when the second pass leaves its buffer. Each buffer is read by one handle
 * (a stream is read whole by one, or shared out in runs: etl_trace_stream_share), so handles on several
 * threads fill distinct slots without a lock. */
#include <stdlib.h>

#include "reader/trace_internal.h"

static int is_compressed_payload(const etl_buffer_ref *b)
{
    return (b->flags & ETL_BUFFER_FLAG_COMPRESSED) && b->valid > ETL_BUFFER_HEADER_SIZE;
}

static int same_buffer(const etl_buffer_ref *a, const etl_buffer_ref *b)
{
    return a->offset == b->offset && a->disk_size == b->disk_size && a->valid == b->valid && a->size == b->size &&
           a->sequence == b->sequence && a->processor == b->processor && a->flags == b->flags;
}

int etl_trace_hand_over(etl_trace *first, etl_trace *second)
{
    if (!first || !second || first == second || first->is_view || second->is_view || first->processed ||
        second->processed || first->file_count != second->file_count)
        return 0;
    uint64_t total = 0;
    for (size_t i = 0; i < first->file_count; i++) {
        const etl_trace_file *a = &first->files[i], *b = &second->files[i];
        if (a->buffer_count != b->buffer_count) return 0;
        for (size_t k = 0; k < a->buffer_count; k++) {
            if (!same_buffer(&a->buffers[k], &b->buffers[k])) return 0;
            if (is_compressed_payload(&b->buffers[k])) total += b->buffers[k].valid - ETL_BUFFER_HEADER_SIZE;
        }
    }
    if (total == 0 || total > ETL_HAND_OVER_BYTES) return 0;
    for (size_t i = 0; i < second->file_count; i++) {
        etl_trace_file *f = &second->files[i];
        if (f->kept || !f->buffer_count) continue;  /* another handle hands over to it already */
        if (!(f->kept = calloc(f->buffer_count, sizeof *f->kept))) return ETL_ERR_NOMEM;
    }
    first->hand_to = second;
    return 1;
}

int etl_hand_over_give(etl_trace *t, uint32_t file_index, const etl_buffer_ref *b, uint8_t *data, size_t len,
                       size_t cap)
{
    etl_trace *to = t->hand_to;
    const etl_trace_file *f = &t->files[file_index];
    if (!to || !data || !is_compressed_payload(b) || len != b->valid - ETL_BUFFER_HEADER_SIZE ||
        b < f->buffers || b >= f->buffers + f->buffer_count)
        return 0;
    etl_kept_payload *slot = &to->files[file_index].kept[b - f->buffers];
    if (slot->data) return 0;  /* read twice (a first pass that started over): the first copy stays */
    if (cap > len) {  /* hold what the decision counted, not a larger block's spare room */
        uint8_t *trimmed = realloc(data, len);
        if (trimmed) {
            data = trimmed;
            cap = len;
        }
    }
    *slot = (etl_kept_payload){data, cap};
    return 1;
}

uint8_t *etl_hand_over_take(etl_trace *t, uint32_t file_index, const etl_buffer_ref *b, size_t *cap)
{
    const etl_trace_file *f = &t->files[file_index];
    if (!f->kept || b < f->buffers || b >= f->buffers + f->buffer_count) return NULL;
    etl_kept_payload *slot = &f->kept[b - f->buffers];
    uint8_t *data = slot->data;
    *cap = slot->cap;
    *slot = (etl_kept_payload){NULL, 0};
    return data;
}

int etl_hand_over_has(const etl_trace *t, uint32_t file_index, size_t buffer)
{
    const etl_trace_file *f = &t->files[file_index];
    return f->kept && buffer < f->buffer_count && f->kept[buffer].data;
}

void etl_hand_over_free(etl_trace *t)
{
    for (size_t i = 0; i < t->file_count; i++) {
        etl_trace_file *f = &t->files[i];
        for (size_t k = 0; f->kept && k < f->buffer_count; k++) free(f->kept[k].data);
        free(f->kept);
        f->kept = NULL;
    }
}
