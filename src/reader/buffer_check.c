/* The buffer index of one file checked against its log-file header before any payload is read
 * (docs/robustness.md). Everything dropped here is reported with the buffer's file offset:
 *  - a compressed buffer that claims more decompressed bytes than the header's BufferSize (clamped to
 *    ETL_MAX_BUFFER_SIZE): damaged or a decompression bomb;
 *  - a buffer of another trace: another LoggerId than the file's other event buffers, or another BufferSize
 *    than the header's (uncompressed files: every buffer has exactly BufferSize bytes; compressed files: at
 *    most BufferSize);
 *  - a repeated buffer (same processor and SequenceNumber as one already indexed): delivered once.
 * And what cannot be dropped is reported: fewer buffers than the header's BuffersWritten (a file cut at a
 * buffer boundary, or whose end was zeroed), in files that are not circular. */
#include <stdio.h>
#include <stdlib.h>

#include "reader/trace_internal.h"

enum {
    LOG_FILE_MODE_CIRCULAR = 0x00000002,
    LOG_FILE_MODE_COMPRESSED = 0x04000000
};

static int compare_buffers(const void *a, const void *b)
{
    const etl_buffer_ref *x = a, *y = b;
    if (x->processor != y->processor) return x->processor < y->processor ? -1 : 1;
    if (x->sequence != y->sequence) return x->sequence < y->sequence ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The file's LoggerId: the header buffer's, unless it is 0 (relogged files, e.g. PerfView's, give the header
 * buffer LoggerId 0); then the one held by more than half of the event buffers, or -1 when none is. */
static long file_logger(const etl_trace_file *f)
{
    if (f->buffer_count && f->buffers[0].type == ETL_BUFFER_TYPE_HEADER && f->buffers[0].logger_id != 0)
        return f->buffers[0].logger_id;
    uint16_t candidate = 0;
    size_t votes = 0, total = 0, count = 0;
    for (size_t k = 0; k < f->buffer_count; k++) {
        if (f->buffers[k].type == ETL_BUFFER_TYPE_HEADER) continue;
        total++;
        if (votes == 0) candidate = f->buffers[k].logger_id;
        votes += f->buffers[k].logger_id == candidate ? 1 : (size_t)-1;
    }
    for (size_t k = 0; k < f->buffer_count; k++)
        if (f->buffers[k].type != ETL_BUFFER_TYPE_HEADER && f->buffers[k].logger_id == candidate) count++;
    return total && count * 2 > total ? (long)candidate : -1;
}

/* Sets f->buffer_bound from the header; reports a BufferSize that cannot be used. */
static uint32_t header_buffer_size(etl_trace *t, uint32_t fi)
{
    etl_trace_file *f = &t->files[fi];
    f->buffer_bound = ETL_MAX_BUFFER_SIZE;
    if (!f->have_header) return 0;
    uint32_t hb = f->header.buffer_size;
    if (hb > ETL_MAX_BUFFER_SIZE || hb < ETL_BUFFER_HEADER_SIZE) {
        etl_trace_diag(t, ETL_WARNING, ETL_ERR_FORMAT, fi, f->buffers[0].offset + ETL_BUFFER_HEADER_SIZE,
                       "log-file header BufferSize %u is outside 72 bytes .. 16 MiB; buffers are bounded by "
                       "16 MiB instead", (unsigned)hb);
        return 0;
    }
    f->buffer_bound = hb;
    return hb;
}

/* Why buffer k must not be read, or NULL. */
static const char *refuse(const etl_trace_file *f, size_t k, uint32_t hb, int compressed_file, long logger,
                          char *why, size_t why_size)
{
    const etl_buffer_ref *b = &f->buffers[k];
    if ((b->flags & ETL_BUFFER_FLAG_COMPRESSED) && b->valid > f->buffer_bound) {
        snprintf(why, why_size, "compressed buffer claims %u bytes once decompressed, more than the %u of the "
                 "log-file header's BufferSize (damaged, or a decompression bomb); skipped", (unsigned)b->valid,
                 (unsigned)f->buffer_bound);
        return why;
    }
    if (k == 0) return NULL; /* the buffer that holds the header defines the trace */
    if (logger >= 0 && b->type != ETL_BUFFER_TYPE_HEADER && b->logger_id != (uint16_t)logger) {
        snprintf(why, why_size, "buffer of another trace (LoggerId %u; this file's buffers have %ld); skipped",
                 (unsigned)b->logger_id, logger);
        return why;
    }
    if (hb && (compressed_file ? b->size > hb : b->size != hb)) {
        snprintf(why, why_size, "buffer of another trace (BufferSize %u; the log-file header says %u%s); skipped",
                 (unsigned)b->size, (unsigned)hb, compressed_file ? " at most" : "");
        return why;
    }
    return NULL;
}

static void check_count(etl_trace *t, uint32_t fi, size_t found, uint32_t hb, int compressed_file)
{
    etl_trace_file *f = &t->files[fi];
    if (!f->have_header) return;
    uint32_t written = f->header.buffers_written;
    /* Buffers skipped with a report already count: only the silent loss at the end is reported here. */
    found += f->damaged_buffers;
    if (written == 0 || (f->header.log_file_mode & LOG_FILE_MODE_CIRCULAR) || found >= written) return;
    uint64_t end = 0;
    for (size_t k = 0; k < f->buffer_count; k++)
        if (f->buffers[k].offset + f->buffers[k].disk_size > end) end = f->buffers[k].offset + f->buffers[k].disk_size;
    if (hb && !compressed_file)
        etl_trace_diag(t, ETL_ERROR, ETL_ERR_TRUNCATED, fi, end,
                       "the log-file header says %u buffers were written (%llu bytes), the file holds %zu "
                       "(%llu bytes): the file is cut or its end was lost; the events of %llu buffers are missing",
                       (unsigned)written, (unsigned long long)written * hb, found,
                       (unsigned long long)f->input.size, (unsigned long long)(written - found));
    else
        etl_trace_diag(t, ETL_ERROR, ETL_ERR_TRUNCATED, fi, end,
                       "the log-file header says %u buffers were written, the file holds %zu: the file is cut or "
                       "its end was lost; the events of %llu buffers are missing",
                       (unsigned)written, found, (unsigned long long)(written - found));
}

int etl_check_buffers(etl_trace *t, uint32_t fi)
{
    etl_trace_file *f = &t->files[fi];
    size_t found = f->buffer_count;
    uint32_t hb = header_buffer_size(t, fi);
    int compressed_file = f->have_header && (f->header.log_file_mode & LOG_FILE_MODE_COMPRESSED);
    for (size_t k = 0; k < f->buffer_count; k++)
        if (f->buffers[k].flags & ETL_BUFFER_FLAG_COMPRESSED) compressed_file = 1;
    long logger = file_logger(f);
    check_count(t, fi, found, hb, compressed_file);
    char why[200];
    size_t kept = 0;
    for (size_t k = 0; k < f->buffer_count; k++) {
        if (refuse(f, k, hb, compressed_file, logger, why, sizeof why)) {
            etl_trace_diag(t, ETL_ERROR, ETL_ERR_FORMAT, fi, f->buffers[k].offset, "%s", why);
            continue;
        }
        f->buffers[kept++] = f->buffers[k];
    }
    f->buffer_count = kept;
    qsort(f->buffers, f->buffer_count, sizeof *f->buffers, compare_buffers);
    kept = 0;
    for (size_t k = 0; k < f->buffer_count; k++) {
        const etl_buffer_ref *b = &f->buffers[k];
        if (kept && b->processor == f->buffers[kept - 1].processor && b->sequence == f->buffers[kept - 1].sequence) {
            etl_trace_diag(t, ETL_ERROR, ETL_ERR_FORMAT, fi, b->offset,
                           "buffer repeats the one at offset 0x%llx (processor %u, SequenceNumber %lld); skipped",
                           (unsigned long long)f->buffers[kept - 1].offset, (unsigned)b->processor,
                           (long long)b->sequence);
            continue;
        }
        f->buffers[kept++] = *b;
    }
    f->buffer_count = kept;
    return ETL_OK;
}
