/* The plain LZ77 decoder's fast path (whole flag words without input checks, 32-byte literal copies, 8- and
 * 16-byte match copies) against a byte-at-a-time reference decoder (tests/support/lz77_reference.h) that shares
 * no code with it: every compressed buffer of the compressed corpus traces, every output capacity and every
 * input length near the ends of real buffers, and hand-encoded streams with overlapping matches of distance
 * 1..20, lengths across each length-escape boundary, literal runs of 1..40 bytes across flag words, and every
 * prefix of a mixed stream (input ending mid-token). Outputs and inputs are exact-size heap blocks, so the
 * sanitizer build sees any access past either end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etl/etl.h"
#include "reader/decompress.h"
#include "support/corpus.h"
#include "support/lz77_reference.h"
#include "util/le.h"

enum { BUFFER_HEADER_SIZE = 0x48, BH_OFFSET = 0x30, BH_FLAGS = 0x34, BUFFER_FLAG_COMPRESSED = 0x0040 };

/* Decodes in[0..in_len) into `cap` bytes with both decoders (each from an exact-size copy into an exact-size
 * output) and fails unless they agree: same result code, and on success the same length and bytes. Returns the
 * reference's result. */
static int agree(const uint8_t *in, size_t in_len, size_t cap, const char *what, size_t detail)
{
    uint8_t *copy = malloc(in_len ? in_len : 1), *fast = malloc(cap ? cap : 1), *ref = malloc(cap ? cap : 1);
    assert_non_null(copy);
    assert_non_null(fast);
    assert_non_null(ref);
    if (in_len)
        memcpy(copy, in, in_len);
    size_t fast_len = 0, ref_len = 0;
    int fast_rc = etl_decompress_plain_lz77(in_len ? copy : NULL, in_len, cap ? fast : NULL, cap, &fast_len);
    int ref_rc = reference_plain_lz77(copy, in_len, ref, cap, &ref_len);
    if (fast_rc != ref_rc)
        fail_msg("%s %zu (input %zu bytes, output room %zu): result %d, reference %d", what, detail, in_len, cap,
                 fast_rc, ref_rc);
    if (ref_rc == ETL_OK) {
        if (fast_len != ref_len)
            fail_msg("%s %zu: produced %zu bytes, reference %zu", what, detail, fast_len, ref_len);
        for (size_t i = 0; i < ref_len; i++)
            if (fast[i] != ref[i])
                fail_msg("%s %zu: byte %zu of %zu is 0x%02x, reference 0x%02x", what, detail, i, ref_len, fast[i],
                         ref[i]);
    }
    free(ref);
    free(fast);
    free(copy);
    return ref_rc;
}

/* ---- real buffers ------------------------------------------------------------------------------------------ */

typedef struct real_buffer {
    const uint8_t *in;
    size_t in_len, expected;
} real_buffer;

/* The compressed buffers of a corpus trace (pointers into *file, which the caller frees). */
static size_t compressed_buffers(const char *path, uint8_t **file, real_buffer *out, size_t max)
{
    size_t len, n = 0;
    *file = corpus_load(path, &len);
    assert_non_null(*file);
    for (size_t pos = 0; len - pos >= BUFFER_HEADER_SIZE;) {
        const uint8_t *h = *file + pos;
        uint32_t size = etl_le32(h), offset = etl_le32(h + BH_OFFSET);
        if (size < BUFFER_HEADER_SIZE || size > len - pos)
            break;
        if ((etl_le16(h + BH_FLAGS) & BUFFER_FLAG_COMPRESSED) && offset >= BUFFER_HEADER_SIZE && n < max)
            out[n++] = (real_buffer){h + BUFFER_HEADER_SIZE, size - BUFFER_HEADER_SIZE, offset - BUFFER_HEADER_SIZE};
        pos += size;
    }
    return n;
}

static const char *const COMPRESSED_TRACES[] = {
    "testdata/perfview/net.4.5.2.x86.etl.gz", "testdata/perfview/SelfDescribingSingleEvent.etl.gz",
    "testdata/perfview/smallEtlFile.etl.gz", "testdata/demikernel/PktMon.etl.gz",
    "testdata/terraingen2d/PerfViewData.etl.gz"};

static void test_real_buffers_equal_reference(void **state)
{
    (void)state;
    static real_buffer buffers[4096];
    size_t total = 0;
    for (size_t t = 0; t < sizeof COMPRESSED_TRACES / sizeof *COMPRESSED_TRACES; t++) {
        uint8_t *file;
        size_t n = compressed_buffers(COMPRESSED_TRACES[t], &file, buffers, 4096);
        assert_true(n > 0);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(agree(buffers[i].in, buffers[i].in_len, buffers[i].expected, COMPRESSED_TRACES[t], i),
                             ETL_OK);
        total += n;
        free(file);
    }
    assert_true(total >= 275 + 4); /* net.4.5.2.x86 alone has 275 */
}

/* Output room from 300 bytes short to 40 bytes spare, and input cut anywhere in its last 400 bytes: the fast
 * path hands over to the exact one at every distance from both ends. */
static void test_real_buffers_near_the_ends(void **state)
{
    (void)state;
    real_buffer buffers[300];
    uint8_t *file;
    size_t n = compressed_buffers("testdata/perfview/net.4.5.2.x86.etl.gz", &file, buffers, 300);
    assert_true(n >= 2);
    const real_buffer *picks[] = {&buffers[0], &buffers[n / 2]};
    for (size_t k = 0; k < 2; k++) {
        const real_buffer *b = picks[k];
        size_t ok = 0;
        for (size_t cap = b->expected - 300; cap <= b->expected + 40; cap++)
            ok += agree(b->in, b->in_len, cap, "output room", cap) == ETL_OK;
        assert_int_equal(ok, 41); /* only room for the whole buffer (or more) succeeds */
        for (size_t cut = b->in_len - 400; cut < b->in_len; cut++)
            agree(b->in, cut, b->expected, "input cut at", cut);
    }
    free(file);
}

/* ---- hand-encoded streams ---------------------------------------------------------------------------------- */

/* A plain LZ77 encoder for chosen items (MS-XCA §2.4 layout), written independently of both decoders. */
typedef struct encoder {
    uint8_t *buf;
    size_t len, cap;
    size_t flag_pos, half_pos;
    unsigned flag_count;
    uint32_t flags;
    int have_half;
} encoder;

static void put(encoder *e, uint8_t byte)
{
    if (e->len == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 4096;
        e->buf = realloc(e->buf, e->cap);
        assert_non_null(e->buf);
    }
    e->buf[e->len++] = byte;
}

static void put_le(encoder *e, uint32_t value, int bytes)
{
    for (int i = 0; i < bytes; i++)
        put(e, (uint8_t)(value >> (8 * i)));
}

static void store_flags(encoder *e)
{
    for (int i = 0; i < 4; i++)
        e->buf[e->flag_pos + i] = (uint8_t)(e->flags >> (8 * i));
}

static void encoder_init(encoder *e)
{
    memset(e, 0, sizeof *e);
    put_le(e, 0, 4); /* first flag word, filled in later */
}

/* Starts a new flag word when the current one is full. */
static void next_word_if_full(encoder *e)
{
    if (e->flag_count == 32) {
        store_flags(e);
        e->flag_pos = e->len;
        put_le(e, 0, 4);
        e->flag_count = 0;
        e->flags = 0;
    }
}

static void flag(encoder *e, unsigned bit)
{
    next_word_if_full(e);
    e->flags |= bit << (31 - e->flag_count++);
}

static void literal(encoder *e, uint8_t byte)
{
    flag(e, 0);
    put(e, byte);
}

static void match(encoder *e, size_t distance, size_t length)
{
    assert_true(distance >= 1 && distance <= 8192 && length >= 3);
    flag(e, 1);
    size_t extra = length - 3;
    put_le(e, (uint32_t)((distance - 1) << 3 | (extra < 7 ? extra : 7)), 2);
    if (extra < 7)
        return;
    size_t nibble = extra - 7 < 15 ? extra - 7 : 15;
    if (!e->have_half) {
        e->half_pos = e->len;
        put(e, (uint8_t)nibble);
    } else {
        e->buf[e->half_pos] |= (uint8_t)(nibble << 4);
    }
    e->have_half = !e->have_half;
    if (nibble < 15)
        return;
    if (extra - 22 < 255) {
        put(e, (uint8_t)(extra - 22));
        return;
    }
    put(e, 255);
    if (extra < 65536) {
        put_le(e, (uint32_t)extra, 2);
    } else {
        put_le(e, 0, 2);
        put_le(e, (uint32_t)extra, 4);
    }
}

/* Ends the stream: the unused flags of the last word are ones (a fresh word when the last one is full). */
static void finish(encoder *e)
{
    next_word_if_full(e);
    e->flags |= e->flag_count ? 0xFFFFFFFFu >> e->flag_count : 0xFFFFFFFFu;
    store_flags(e);
}

static uint32_t rng = 12345;
static uint8_t next_byte(void)
{
    rng = rng * 1103515245u + 12345u;
    return (uint8_t)(rng >> 16);
}

static void literals(encoder *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        literal(e, next_byte());
}

/* The size of the output of an encoded stream, by the reference. */
static size_t reference_size(const encoder *e)
{
    size_t cap = 1u << 20, produced = 0;
    uint8_t *out = malloc(cap);
    assert_non_null(out);
    assert_int_equal(reference_plain_lz77(e->buf, e->len, out, cap, &produced), ETL_OK);
    free(out);
    return produced;
}

/* Every distance 1..20 (and 31, 32, 100, 8192) with lengths on both sides of each length-escape boundary:
 * a match far from both ends (fast path), one ending exactly at the end of the output, and the same with one
 * byte of room too few. */
static void test_overlapping_matches(void **state)
{
    (void)state;
    static const size_t distances[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                                       31, 32, 100, 8192};
    static const size_t lengths[] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 23, 24, 25, 31, 32, 33,
                                     40, 64, 65, 279, 280, 281, 300, 1000, 65538, 65539, 70000};
    for (size_t d = 0; d < sizeof distances / sizeof *distances; d++) {
        for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
            size_t history = distances[d] > 700 ? distances[d] + 10 : 700;
            for (int at_end = 0; at_end < 2; at_end++) {
                encoder e;
                encoder_init(&e);
                literals(&e, history);
                match(&e, distances[d], lengths[l]);
                if (!at_end)
                    literals(&e, 500);
                finish(&e);
                size_t size = reference_size(&e);
                assert_int_equal(size, history + lengths[l] + (at_end ? 0 : 500));
                size_t detail = distances[d] * 100000 + lengths[l];
                assert_int_equal(agree(e.buf, e.len, size, "distance*100000+length", detail), ETL_OK);
                assert_int_equal(agree(e.buf, e.len, size - 1, "one byte short, distance*100000+length", detail),
                                 ETL_ERR_DECOMPRESS);
                agree(e.buf, e.len, size + 1, "one byte spare, distance*100000+length", detail);
                free(e.buf);
            }
        }
    }
}

/* Literal runs of 1..40 bytes between matches of several distances, so runs start and end at every position
 * of a flag word and cross word boundaries; long enough (40 KiB of output) to stay on the fast path. */
static void test_literal_runs(void **state)
{
    (void)state;
    for (size_t run = 1; run <= 40; run++) {
        encoder e;
        encoder_init(&e);
        literals(&e, 64);
        for (size_t i = 0; i < 400; i++) {
            literals(&e, run);
            match(&e, 1 + i % 40, 3 + i % 29);
        }
        literals(&e, run);
        finish(&e);
        size_t size = reference_size(&e);
        assert_int_equal(agree(e.buf, e.len, size, "literal run", run), ETL_OK);
        assert_int_equal(agree(e.buf, e.len, size - 1, "one byte short, literal run", run), ETL_ERR_DECOMPRESS);
        free(e.buf);
    }
}

/* Every prefix of a mixed stream (long and short matches, shared length nibbles, runs): the input ends inside a
 * flag word, a token, a nibble byte, a length byte or a 16/32-bit length, at every distance from the start. */
static void test_every_prefix(void **state)
{
    (void)state;
    encoder e;
    encoder_init(&e);
    literals(&e, 20);
    for (size_t i = 0; i < 120; i++) {
        literals(&e, i % 5);
        static const size_t lengths[] = {3, 9, 10, 24, 25, 40, 280, 300, 17, 6};
        match(&e, 1 + (i * 7) % 20, i == 60 ? 70000 : lengths[i % 10]); /* one 32-bit length */
    }
    finish(&e);
    size_t size = reference_size(&e);
    for (size_t cut = 0; cut <= e.len; cut++)
        agree(e.buf, cut, size, "prefix of", cut);
    free(e.buf);
}

/* An invalid 16-bit length (below 15 + 7) and a match before the start, each deep inside the fast path. */
static void test_invalid_items_on_the_fast_path(void **state)
{
    (void)state;
    for (int kind = 0; kind < 2; kind++) {
        encoder e;
        encoder_init(&e);
        literals(&e, 700);
        if (kind == 0) {
            flag(&e, 1);
            put_le(&e, 7, 2); /* distance 1, length escape */
            e.half_pos = e.len;
            put(&e, 15);
            put(&e, 255);
            put_le(&e, 21, 2);
            e.have_half = 1;
        } else {
            match(&e, 701, 3); /* one byte before the start */
        }
        literals(&e, 600);
        finish(&e);
        assert_int_equal(agree(e.buf, e.len, 2000, "invalid item", (size_t)kind), ETL_ERR_DECOMPRESS);
        free(e.buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_buffers_equal_reference),
        cmocka_unit_test(test_real_buffers_near_the_ends),
        cmocka_unit_test(test_overlapping_matches),
        cmocka_unit_test(test_literal_runs),
        cmocka_unit_test(test_every_prefix),
        cmocka_unit_test(test_invalid_items_on_the_fast_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
