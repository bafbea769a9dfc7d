/* Benchmark input generator (test tooling, not part of libetl): builds a large trace from a real one by
 * writing its event buffers N times. Copy k (k = 0..N-1) has every record timestamp and buffer timestamp
 * shifted by k × (the source's time span of that kind of stamp + 1) and every buffer SequenceNumber shifted by k × (largest + 1),
 * so each processor's stream stays in order and the copies follow each other in time. Buffers keep their
 * processor, flags and compression: a compressed source buffer is decompressed, shifted and compressed again
 * (MS-XCA plain LZ77, greedy, what the reader decodes first). Buffers of type "header" (the log-file header)
 * are written once, unchanged, so census(N) = census(0) + N × (census(source) - census(0)), which
 * tests/cli_bench_gen.sh checks against `etlconv --info`.
 *
 * Usage: gen_trace SOURCE.etl[.gz] OUT.etl COPIES      (COPIES may be 0: the header buffers only)
 *        gen_trace SOURCE.etl[.gz] OUT.etl --mb SIZE   (copies chosen so OUT reaches about SIZE MB) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "etl/etl.h"
#include "reader/decompress.h"
#include "reader/record.h"
#include "util/le.h"

enum {
    BH_SIZE = 0x48, BH_BUFFER_SIZE = 0x00, BH_TIMESTAMP = 0x10, BH_SEQUENCE = 0x18, BH_OFFSET = 0x30,
    BH_FLAGS = 0x34, BH_TYPE = 0x36, FLAG_COMPRESSED = 0x0040, TYPE_HEADER = 4,
    MAX_BUFFER = 64 << 20, MAX_ITEMS = 32,
    /* BuffersWritten in the log-file header: the first record's user data (after the 0x20-byte SYSTEM
     * record header) + 0x24, the same in the 32- and 64-bit layouts */
    LFH_BUFFERS_WRITTEN = BH_SIZE + 0x20 + 0x24
};

static void put_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put_le32(uint8_t *p, uint32_t v) { put_le16(p, (uint16_t)v); put_le16(p + 2, (uint16_t)(v >> 16)); }
static void put_le64(uint8_t *p, uint64_t v) { put_le32(p, (uint32_t)v); put_le32(p + 4, (uint32_t)(v >> 32)); }

static uint8_t *load(const char *path, size_t *len)
{
    gzFile gz = gzopen(path, "rb"); /* reads plain files too */
    if (!gz) return NULL;
    size_t cap = 1 << 20, n = 0;
    uint8_t *data = malloc(cap);
    int got;
    while (data && (got = gzread(gz, data + n, (unsigned)(cap - n))) > 0) {
        n += (size_t)got;
        if (n == cap) {
            uint8_t *bigger = realloc(data, cap *= 2);
            if (!bigger) free(data);
            data = bigger;
        }
    }
    gzclose(gz);
    *len = n;
    return data;
}

/* ---- MS-XCA plain LZ77 compression (the inverse of src/reader/decompress_lz77.c) ---------------------- */

#define HASH_BITS 14
#define MAX_DISTANCE 8192

typedef struct lz_out {
    uint8_t *p;
    size_t n;
    size_t flag_pos;    /* where the current flag word goes */
    uint32_t flags;
    unsigned flag_count;
    size_t half_byte;   /* byte whose high nibble is free, 0 = none */
} lz_out;

static void lz_flag(lz_out *o, int match)
{
    if (o->flag_count == 32) {
        put_le32(o->p + o->flag_pos, o->flags);
        o->flag_pos = o->n;
        o->n += 4;
        o->flags = 0;
        o->flag_count = 0;
    }
    if (match) o->flags |= 1u << (31 - o->flag_count);
    o->flag_count++;
}

static void lz_match(lz_out *o, size_t distance, size_t length)
{
    lz_flag(o, 1);
    size_t l = length - 3;
    uint16_t token = (uint16_t)((distance - 1) << 3 | (l < 7 ? l : 7));
    put_le16(o->p + o->n, token);
    o->n += 2;
    if (l < 7) return;
    l -= 7;
    unsigned nibble = l < 15 ? (unsigned)l : 15;
    if (o->half_byte == 0) {
        o->half_byte = o->n;
        o->p[o->n++] = (uint8_t)nibble;
    } else {
        o->p[o->half_byte] |= (uint8_t)(nibble << 4);
        o->half_byte = 0;
    }
    if (l < 15) return;
    l -= 15;
    if (l < 255) {
        o->p[o->n++] = (uint8_t)l;
        return;
    }
    o->p[o->n++] = 255;
    if (length - 3 <= 0xFFFF) {
        put_le16(o->p + o->n, (uint16_t)(length - 3));
        o->n += 2;
    } else {
        put_le16(o->p + o->n, 0);
        put_le32(o->p + o->n + 2, (uint32_t)(length - 3));
        o->n += 6;
    }
}

/* Compresses in[0..len) into out (capacity len + len / 8 + 16). Returns the compressed length. */
static size_t lz77_compress(const uint8_t *in, size_t len, uint8_t *out, int32_t *head)
{
    lz_out o = {out, 4, 0, 0, 0, 0};
    for (size_t i = 0; i < (1u << HASH_BITS); i++) head[i] = -1;
    size_t i = 0;
    while (i < len) {
        size_t best = 0, dist = 0;
        if (i + 3 <= len) {
            uint32_t h = ((uint32_t)in[i] | (uint32_t)in[i + 1] << 8 | (uint32_t)in[i + 2] << 16) * 2654435761u >>
                         (32 - HASH_BITS);
            int32_t cand = head[h];
            head[h] = (int32_t)i;
            if (cand >= 0 && i - (size_t)cand <= MAX_DISTANCE) {
                size_t m = 0;
                while (i + m < len && in[(size_t)cand + m] == in[i + m]) m++;
                if (m >= 3) best = m, dist = i - (size_t)cand;
            }
        }
        if (best) {
            lz_match(&o, dist, best);
            i += best;
        } else {
            lz_flag(&o, 0);
            o.p[o.n++] = in[i++];
        }
    }
    /* unused flags are ones: a match flag with no input left ends the stream; a full last word needs one more */
    if (o.flag_count == 32) lz_flag(&o, 1);
    for (unsigned k = o.flag_count; k < 32; k++) o.flags |= 1u << (31 - k);
    put_le32(o.p + o.flag_pos, o.flags);
    return o.n;
}

/* ---- record walking --------------------------------------------------------------------------------- */

/* Offset of the record's timestamp inside the record, or 0 when it has none. */
static size_t timestamp_offset(const etl_event_record *rec, int has_timestamp)
{
    if (!has_timestamp) return 0;
    if (rec->kind == ETL_KIND_PERFINFO32 || rec->kind == ETL_KIND_PERFINFO64) return 8;
    if (rec->kind != ETL_KIND_MESSAGE) return 16;
    for (size_t off = 8; off + 8 <= rec->raw_size; off += 4) /* WPP: after the optional sequence/GUID items */
        if (etl_les64(rec->raw + off) == rec->raw_timestamp) return off;
    return 0;
}

/* Calls fn for each record's timestamp in the payload; returns -1 on a record the reader would refuse. */
static int walk_records(uint8_t *payload, size_t len, void (*fn)(uint8_t *ts, void *ctx), void *ctx)
{
    etl_event_record rec;
    etl_extended_item items[MAX_ITEMS];
    size_t off = 0, advance;
    int has_ts;
    const char *why;
    for (;;) {
        etl_record_result r = etl_record_parse(payload, len, off, 8, &rec, items, MAX_ITEMS, &advance, &has_ts, &why);
        if (r == ETL_RECORD_END) return 0;
        if (r != ETL_RECORD_OK) return -1;
        size_t at = timestamp_offset(&rec, has_ts);
        if (at) fn(payload + off + at, ctx);
        off += advance;
        if (off >= len) return 0;
    }
}

typedef struct span { int64_t lo, hi; } span;

static void widen(uint8_t *ts, void *ctx)
{
    span *s = ctx;
    int64_t t = etl_les64(ts);
    if (t < s->lo) s->lo = t;
    if (t > s->hi) s->hi = t;
}

static void shift(uint8_t *ts, void *ctx)
{
    put_le64(ts, (uint64_t)(etl_les64(ts) + *(int64_t *)ctx));
}

/* Buffer-stamp units per raw record tick: 1 when the buffers are stamped with the session's raw clock (the
 * format's rule), 1e7 / PerfFreq when a QPC trace's buffers carry FILETIMEs: the reader decides that
 * (etl_trace_time_range then gives the stamps as they are). */
static double buffer_units_per_tick(const char *path, const span *stamps)
{
    etl_trace *t;
    etl_error err;
    double per_tick = 1;
    if (etl_open(&t, &path, 1, NULL, &err) != ETL_OK) return per_tick;
    const etl_logfile_header *h = etl_trace_logfile_header(t, 0);
    int64_t first, last;
    if (h && h->reserved_flags != 2 && h->perf_freq > 0 && etl_trace_time_range(t, &first, &last) &&
        first == stamps->lo && last == stamps->hi)
        per_tick = 1e7 / (double)h->perf_freq;
    etl_close(t);
    return per_tick;
}

int main(int argc, char **argv)
{
    if (argc != 4 && !(argc == 5 && strcmp(argv[3], "--mb") == 0)) {
        fprintf(stderr, "usage: gen_trace SOURCE.etl[.gz] OUT.etl COPIES | --mb SIZE\n");
        return 2;
    }
    size_t len = 0;
    uint8_t *file = load(argv[1], &len);
    uint8_t *payload = malloc(MAX_BUFFER), *packed = malloc(MAX_BUFFER + MAX_BUFFER / 8 + 16);
    int32_t *head = malloc(sizeof(int32_t) << HASH_BITS);
    if (!file || !payload || !packed || !head) {
        fprintf(stderr, "gen_trace: cannot read %s\n", argv[1]);
        return 1;
    }
    /* pass 1: time spans and sequence range of the event buffers. Records and buffer headers get a span each:
     * a trace whose records count QPC ticks stamps its buffers with FILETIMEs (~1.3e17), and one step over both
     * would wrap int64 after ~70 copies */
    span s = {INT64_MAX, INT64_MIN}, sb = {INT64_MAX, INT64_MIN};
    int64_t max_sequence = 0;
    size_t header_bytes = 0, header_buffers = 0, event_buffers = 0;
    for (size_t pos = 0; len - pos >= BH_SIZE;) {
        uint8_t *b = file + pos;
        uint32_t size = etl_le32(b + BH_BUFFER_SIZE), valid = etl_le32(b + BH_OFFSET);
        if (size < BH_SIZE || size > len - pos || valid < BH_SIZE || valid > MAX_BUFFER) break;
        if (etl_le16(b + BH_TYPE) == TYPE_HEADER) {
            header_bytes += size;
            header_buffers++;
        } else {
            event_buffers++;
            size_t n = valid - BH_SIZE;
            if (etl_le16(b + BH_FLAGS) & FLAG_COMPRESSED) {
                if (etl_decompress_etl_buffer(b + BH_SIZE, size - BH_SIZE, payload, n, NULL) != ETL_OK) n = 0;
            } else {
                if (n > size - BH_SIZE) n = size - BH_SIZE;
                memcpy(payload, b + BH_SIZE, n);
            }
            walk_records(payload, n, widen, &s);
            widen(b + BH_TIMESTAMP, &sb);
            if (etl_les64(b + BH_SEQUENCE) > max_sequence) max_sequence = etl_les64(b + BH_SEQUENCE);
        }
        pos += size;
    }
    long copies = atol(argv[argc - 1]);
    if (argc == 5) {
        double per_copy = (double)(len - header_bytes);
        copies = per_copy > 0 ? (long)(atof(argv[4]) * 1e6 / per_copy + 0.999) : 0;
        if (copies < 1) copies = 1;
    }
    FILE *out = fopen(argv[2], "wb");
    if (!out || copies < 0 || sb.lo > sb.hi) {
        fprintf(stderr, "gen_trace: cannot write %s (or no event buffers in %s)\n", argv[2], argv[1]);
        return 1;
    }
    if (s.lo > s.hi) s = sb; /* no record has a timestamp */
    /* One shift in time for records and buffers, so that flush times stay with the records they flushed (the
     * first pass plans its rounds by them). Buffer stamps count the records' raw clock, or (relogged traces
     * such as net.4.5.2.x86) FILETIME: then a record tick is 1e7 / PerfFreq buffer units. */
    double per_tick = buffer_units_per_tick(argv[1], &sb);
    int64_t time_step = s.hi - s.lo + 1, seq_step = max_sequence + 1;
    if ((double)(sb.hi - sb.lo + 1) / per_tick > (double)time_step) time_step = (int64_t)((double)(sb.hi - sb.lo + 1) / per_tick) + 1;
    int64_t buffer_step = (int64_t)((double)time_step * per_tick);
    /* the last copy's stamps must still fit int64 */
    if (copies > 1 && ((s.hi > 0 && (INT64_MAX - s.hi) / time_step < copies - 1) ||
                       (sb.hi > 0 && (INT64_MAX - sb.hi) / buffer_step < copies - 1) ||
                       (INT64_MAX - max_sequence) / seq_step < copies - 1)) {
        fprintf(stderr, "gen_trace: %ld copies of %s would overflow its 64-bit timestamps or sequence numbers\n", copies, argv[1]);
        return 1;
    }
    for (long k = -1; k < copies; k++) { /* k = -1: the header buffers, once */
        if (ferror(out)) break; /* a full disk stops the run at the copy it failed in */
        for (size_t pos = 0; len - pos >= BH_SIZE;) {
            uint8_t *b = file + pos;
            uint32_t size = etl_le32(b + BH_BUFFER_SIZE), valid = etl_le32(b + BH_OFFSET);
            if (size < BH_SIZE || size > len - pos || valid < BH_SIZE || valid > MAX_BUFFER) break;
            pos += size;
            if ((etl_le16(b + BH_TYPE) == TYPE_HEADER) != (k < 0)) continue;
            if (k < 0 && copies != 1 && size >= LFH_BUFFERS_WRITTEN + 4 && !(etl_le16(b + BH_FLAGS) & FLAG_COMPRESSED)) {
                /* the log-file header's BuffersWritten counts the buffers written, else the reader reports
                 * the missing (or extra) ones */
                memcpy(payload, b, size);
                put_le32(payload + LFH_BUFFERS_WRITTEN, (uint32_t)(header_buffers + (size_t)copies * event_buffers));
                fwrite(payload, 1, size, out);
                continue;
            }
            if (k <= 0) { /* the source's own buffers, byte for byte */
                fwrite(b, 1, size, out);
                continue;
            }
            uint8_t header[BH_SIZE];
            memcpy(header, b, BH_SIZE);
            int64_t dt = k * time_step, dtb = k * buffer_step;
            shift(header + BH_TIMESTAMP, &dtb);
            put_le64(header + BH_SEQUENCE, (uint64_t)(etl_les64(b + BH_SEQUENCE) + k * seq_step));
            size_t n = valid - BH_SIZE;
            if (etl_le16(b + BH_FLAGS) & FLAG_COMPRESSED) {
                if (etl_decompress_etl_buffer(b + BH_SIZE, size - BH_SIZE, payload, n, NULL) != ETL_OK) {
                    fwrite(b, 1, size, out); /* as the source has it: the reader reports it the same way */
                    continue;
                }
                walk_records(payload, n, shift, &dt);
                size_t packed_len = lz77_compress(payload, n, packed, head);
                put_le32(header + BH_BUFFER_SIZE, (uint32_t)(BH_SIZE + packed_len));
                fwrite(header, 1, BH_SIZE, out);
                fwrite(packed, 1, packed_len, out);
            } else {
                memcpy(payload, b + BH_SIZE, size - BH_SIZE);
                walk_records(payload, n > size - BH_SIZE ? size - BH_SIZE : n, shift, &dt);
                fwrite(header, 1, BH_SIZE, out);
                fwrite(payload, 1, size - BH_SIZE, out);
            }
        }
    }
    if (ferror(out) | fclose(out)) {
        fprintf(stderr, "gen_trace: %s: write failed\n", argv[2]);
        return 1;
    }
    printf("%ld\n", copies);
    free(file);
    free(payload);
    free(packed);
    free(head);
    return 0;
}
