/* First pass over a file: read only the 0x48-byte header of every buffer, stepping by each buffer's own
 * BufferSize (compressed buffers vary in size), and check every field before trusting it (§1.2, §1.5). */
#include <stdlib.h>
#include <string.h>

#include "reader/diag.h"
#include "reader/trace_internal.h"
#include "util/le.h"

enum {
    BH_BUFFER_SIZE = 0x00, BH_SAVED_OFFSET = 0x04, BH_TIMESTAMP = 0x10, BH_SEQUENCE = 0x18,
    BH_PROCESSOR = 0x28, BH_LOGGER_ID = 0x2A, BH_OFFSET = 0x30, BH_FLAGS = 0x34, BH_TYPE = 0x36,
    PROCESSOR_INDEX_MASK = 0x07FF
};

static int all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

/* Offset of the first non-zero byte at or after `from`, or `size` when none. Reads in 64 KiB chunks: only
 * ever called on zero-filled stretches. */
static uint64_t next_nonzero(const etl_input *in, uint64_t from, uint64_t size)
{
    uint8_t chunk[65536];
    uint64_t pos = from;
    while (pos < size) {
        size_t n = size - pos < sizeof chunk ? (size_t)(size - pos) : sizeof chunk;
        if (etl_input_read(in, pos, chunk, n) != ETL_OK) return size;
        for (size_t i = 0; i < n; i++)
            if (chunk[i]) return pos + i;
        pos += n;
    }
    return size;
}

/* Valid-bytes field: Offset (0x30), or SavedOffset (0x04) when Offset is out of range. 0 if neither fits. */
static uint32_t valid_bytes(const uint8_t *h, uint32_t buffer_size, int compressed)
{
    uint32_t limit = compressed ? ETL_MAX_BUFFER_SIZE : buffer_size;
    uint32_t offset = etl_le32(h + BH_OFFSET), saved = etl_le32(h + BH_SAVED_OFFSET);
    if (offset >= ETL_BUFFER_HEADER_SIZE && offset <= limit) return offset;
    if (saved >= ETL_BUFFER_HEADER_SIZE && saved <= limit) return saved;
    return 0;
}

int etl_index_buffers(etl_trace *t, uint32_t file_index, etl_error *err)
{
    etl_trace_file *f = &t->files[file_index];
    uint64_t size = f->input.size;
    uint64_t pos = 0;
    size_t cap = 0;
    uint8_t h[ETL_BUFFER_HEADER_SIZE];
    uint32_t fallback_step = 0; /* uniform buffer size of the file, to step over a corrupt header */
    while (pos + ETL_BUFFER_HEADER_SIZE <= size) {
        if (etl_input_read(&f->input, pos, h, sizeof h) != ETL_OK) {
            etl_trace_diag(t, ETL_ERROR, ETL_ERR_IO, file_index, pos, "cannot read buffer header");
            break;
        }
        uint32_t buffer_size = etl_le32(h + BH_BUFFER_SIZE);
        if (buffer_size == 0 && all_zero(h, sizeof h)) {
            /* Zeros: the unused tail of a preallocated file, or a hole inside the file. */
            uint64_t next = next_nonzero(&f->input, pos, size);
            if (next >= size) {
                etl_trace_diag(t, ETL_WARNING, ETL_OK, file_index, pos,
                               "zero-filled tail of %llu bytes ignored (preallocated or unfinished file)",
                               (unsigned long long)(size - pos));
                pos = size;
                break;
            }
            /* Uniform buffers: the zeros wiped this buffer's header (a zeroed sector, say), so skip whole
             * buffers up to the data, at least one. Otherwise resume at the 8-byte boundary before the data.
             * Either way the walk advances (the 0x48 bytes at `pos` are zero, so next ≥ pos + 0x48). */
            uint64_t resume = next & ~(uint64_t)7;
            f->damaged_buffers++;
            if (fallback_step) {
                uint64_t skip = (next - pos) / fallback_step;
                resume = pos + (skip ? skip : 1) * fallback_step;
                if (skip > 1) f->damaged_buffers += (size_t)(skip - 1);
            }
            etl_trace_diag(t, ETL_ERROR, ETL_ERR_FORMAT, file_index, pos,
                           "zero bytes where a buffer should start (%llu bytes skipped); reading resumes at offset 0x%llx",
                           (unsigned long long)(resume - pos), (unsigned long long)resume);
            pos = resume;
            continue;
        }
        uint16_t flags = etl_le16(h + BH_FLAGS);
        int compressed = (flags & ETL_BUFFER_FLAG_COMPRESSED) != 0;
        uint32_t valid = 0;
        if (buffer_size >= ETL_BUFFER_HEADER_SIZE && buffer_size <= ETL_MAX_BUFFER_SIZE)
            valid = valid_bytes(h, buffer_size, compressed);
        if (valid == 0) {
            if (f->buffer_count == 0) {
                free(f->buffers);
                f->buffers = NULL;
                return etl_error_set(err, ETL_ERR_FORMAT, f->path, pos,
                                            "not an ETL file (no valid buffer header at the start)");
            }
            uint64_t step = fallback_step ? fallback_step : 0;
            etl_trace_diag(t, ETL_ERROR, ETL_ERR_FORMAT, file_index, pos,
                           "corrupt buffer header (BufferSize %u)%s", (unsigned)buffer_size,
                           step ? "; skipped by the file's buffer size" : "; rest of file skipped");
            f->damaged_buffers++;
            if (!step) break;
            pos += step;
            continue;
        }
        uint32_t disk_size = buffer_size;
        if (pos + buffer_size > size) {
            disk_size = (uint32_t)(size - pos);
            etl_trace_diag(t, compressed ? ETL_ERROR : ETL_WARNING, ETL_ERR_TRUNCATED, file_index, pos,
                           "file ends inside a buffer (%u of %u bytes present)%s", (unsigned)disk_size,
                           (unsigned)buffer_size, compressed ? "; compressed buffer skipped" : "");
            if (compressed) {
                f->damaged_buffers++;
                break;
            }
            if (valid > disk_size) valid = disk_size;
        }
        if (f->buffer_count == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            etl_buffer_ref *nb = realloc(f->buffers, ncap * sizeof *nb);
            if (!nb) return etl_error_set(err, ETL_ERR_NOMEM, f->path, pos, "out of memory");
            f->buffers = nb;
            cap = ncap;
        }
        etl_buffer_ref *b = &f->buffers[f->buffer_count++];
        b->offset = pos;
        b->disk_size = disk_size;
        b->valid = valid;
        b->size = buffer_size;
        b->sequence = etl_les64(h + BH_SEQUENCE);
        b->timestamp = etl_les64(h + BH_TIMESTAMP);
        uint16_t proc = etl_le16(h + BH_PROCESSOR);
        b->processor = (flags & ETL_BUFFER_FLAG_PROC_INDEX) ? (uint16_t)(proc & PROCESSOR_INDEX_MASK) : (uint8_t)proc;
        b->flags = flags;
        b->type = etl_le16(h + BH_TYPE);
        b->logger_id = etl_le16(h + BH_LOGGER_ID);
        t->stats.buffers++;
        if (compressed) t->stats.buffers_compressed++;
        if (flags & ETL_BUFFER_FLAG_EVENTS_LOST) t->stats.buffers_flag_events_lost++;
        if (flags & ETL_BUFFER_FLAG_BUFFER_LOST) t->stats.buffers_flag_buffer_lost++;
        if (!compressed && f->buffer_count == 1) fallback_step = buffer_size;
        if (compressed) fallback_step = 0; /* sizes vary: a corrupt header cannot be stepped over */
        pos += disk_size;
    }
    if (pos < size && pos + ETL_BUFFER_HEADER_SIZE > size) {
        uint8_t tail[ETL_BUFFER_HEADER_SIZE];
        size_t n = (size_t)(size - pos);
        if (etl_input_read(&f->input, pos, tail, n) == ETL_OK && !all_zero(tail, n))
            etl_trace_diag(t, ETL_WARNING, ETL_ERR_TRUNCATED, file_index, pos,
                           "%zu trailing bytes too short for a buffer header ignored", n);
    }
    if (f->buffer_count == 0)
        return etl_error_set(err, size == 0 ? ETL_ERR_EMPTY : ETL_ERR_FORMAT, f->path, 0,
                                    size == 0 ? "empty file (0 bytes): not an ETL trace"
                                              : "no ETL buffer found");
    return ETL_OK;
}
