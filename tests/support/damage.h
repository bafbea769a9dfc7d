/* Damaged and hostile copies of corpus traces, built in the tests: buffer headers, decompression bombs
 * (MS-XCA plain LZ77 streams that expand a few bytes to megabytes) and the log-file header's fields. */
#ifndef ETL_TESTS_DAMAGE_H
#define ETL_TESTS_DAMAGE_H

#include <stddef.h>
#include <stdint.h>

enum {
    DAMAGE_BUFFER_HEADER = 0x48,
    /* TRACE_LOGFILE_HEADER of a 64-bit file: the first record's user data, after the 0x48-byte buffer header
     * and the 0x20-byte SYSTEM64 record header (etl-format.md §1.7.1). */
    DAMAGE_LFH = DAMAGE_BUFFER_HEADER + 0x20,
    DAMAGE_LFH_BUFFER_SIZE = DAMAGE_LFH + 0x00,
    DAMAGE_LFH_BUFFERS_WRITTEN = DAMAGE_LFH + 0x24,
    DAMAGE_LFH_CPU_SPEED = DAMAGE_LFH + 0x34,
    DAMAGE_LFH_PERF_FREQ = DAMAGE_LFH + 0x100,
    DAMAGE_LFH_RESERVED_FLAGS = DAMAGE_LFH + 0x110
};

void damage_put32(uint8_t *p, uint32_t v);
void damage_put64(uint8_t *p, uint64_t v);
uint32_t damage_get32(const uint8_t *p);

/* Plain LZ77 stream that decompresses to `prefix` followed by 0xFF bytes (the end-of-records filler) up to
 * `total` bytes. Returns its length (≤ prefix_len + prefix_len / 32 + 32), 0 when `cap` is too small. */
size_t damage_lz77_bomb(const uint8_t *prefix, size_t prefix_len, size_t total, uint8_t *out, size_t cap);

/* A compressed buffer (header + bomb stream) whose payload is `records` then filler up to `claim` bytes,
 * header included, for processor `processor` with SequenceNumber `sequence`. Returns its size. */
size_t damage_bomb_buffer(uint8_t *out, size_t cap, const uint8_t *records, size_t records_len, uint32_t claim,
                          uint16_t processor, int64_t sequence, uint16_t logger_id);

/* Peak resident set (KiB) of a child process that runs fn(ctx) and exits with its return value; the
 * child's exit status goes to *status (-1 when it died of a signal). */
long damage_child_peak_rss_kib(int (*fn)(void *ctx), void *ctx, int *status);

#endif
