/* Decompressors for compressed ETL buffers: the worked examples of the MS-XCA specification, every compressed
 * buffer of the real compressed corpus traces, and hostile boundaries. */
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
#include "util/le.h"

/* ---- helpers ---------------------------------------------------------------------------------------------- */

/* Parses whitespace-separated hex byte pairs, as printed in the specification. */
static size_t parse_hex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    unsigned value;
    int used;
    while (sscanf(hex, " %2x%n", &value, &used) == 1) {
        assert_true(n < cap);
        out[n++] = (uint8_t)value;
        hex += used;
    }
    return n;
}

static void repeat(char *out, const char *unit, size_t times)
{
    out[0] = '\0';
    for (size_t i = 0; i < times; i++)
        strcat(out, unit);
}

static uint8_t *load_gz(const char *path, size_t *len)
{
    uint8_t *data = corpus_load(path, len);
    assert_non_null(data);
    return data;
}

typedef int (*decompress_fn)(const uint8_t *, size_t, uint8_t *, size_t, size_t *);

static void expect_output(decompress_fn fn, const uint8_t *in, size_t in_len, const char *expected,
                          size_t expected_len)
{
    uint8_t out[1024];
    size_t produced = 12345;
    assert_true(expected_len <= sizeof out);
    assert_int_equal(fn(in, in_len, out, expected_len, &produced), ETL_OK);
    assert_int_equal(produced, expected_len);
    assert_memory_equal(out, expected, expected_len);
}

static void expect_failure(decompress_fn fn, const uint8_t *in, size_t in_len, size_t out_cap)
{
    uint8_t *out = malloc(out_cap ? out_cap : 1);
    size_t produced = 0;
    assert_int_equal(fn(in, in_len, out, out_cap, &produced), ETL_ERR_DECOMPRESS);
    free(out);
}

/* ---- MS-XCA worked examples ------------------------------------------------------------------------------
 * Source of every vector below: [MS-XCA] "Xpress Compression Algorithm", v20240423 (Microsoft Open
 * Specifications), section 3 "Algorithm Examples": 3.1 LZ77, 3.2 LZ77+Huffman
 * (https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-xca/f59ff967-3032-4331-b108-0d2b4c09ee27)
 * and 3.3 LZNT1
 * (https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-xca/94164d22-2928-4417-876e-d193766c4db6).
 * The hex is transcribed row by row as the specification prints it (31 bytes per row in 3.2). */

static const char ALPHABET[] = "abcdefghijklmnopqrstuvwxyz";

/* §3.1: "abcdefghijklmnopqrstuvwxyz" as 26 literals (26 zero flag bits, then six one bits). */
static const char XCA_PLAIN_ALPHABET[] =
    "3f 00 00 00 61 62 63 64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 71 72 73 74 75 76 77 78 79 7a";
/* §3.1: 100 × "abc" = abc[match: distance = 3, length = 297]. */
static const char XCA_PLAIN_ABC300[] = "ff ff ff 1f 61 62 63 17 00 0f ff 26 01";

#define ZERO_ROW "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 "
/* §3.2: the alphabet as Huffman-coded literals followed by the end-of-file symbol. */
static const char XCA_HUFFMAN_ALPHABET[] =
    ZERO_ROW
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 50 55 55 55 55 55 55 55 55 55 55 45 44 04 "
    ZERO_ROW ZERO_ROW
    "00 00 00 00 04 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 "
    ZERO_ROW ZERO_ROW ZERO_ROW
    "00 00 00 00 00 00 00 00 d8 52 3e d7 94 11 5b e9 19 5f f9 d6 7c df 8d 04 00 00 00 00";
/* §3.2: 100 × "abc" = abc[match: distance=3, length=297][EOF]; the length goes out as ff 26 01. */
static const char XCA_HUFFMAN_ABC300[] =
    ZERO_ROW
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 30 23 00 00 00 00 00 00 00 00 00 00 00 00 "
    ZERO_ROW ZERO_ROW
    "00 00 00 00 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 20 00 00 00 00 00 00 00 00 00 00 00 "
    ZERO_ROW ZERO_ROW ZERO_ROW
    "00 00 00 00 00 00 00 00 a8 dc 00 00 ff 26 01";
/* §3.3: a 142-byte ANSI string (terminal NUL included) compressed into one 59-byte LZNT1 chunk. */
static const char XCA_LZNT1_TUNE[] =
    "38 b0 88 46 23 20 00 20 47 20 41 00 10 a2 47 01 a0 45 20 44 00 08 45 01 50 79 00 c0 45 20 05 24 "
    "13 88 05 b4 02 4a 44 ef 03 58 02 8c 09 16 01 48 45 00 be 00 9e 00 04 01 18 90 00";
static const char LZNT1_TUNE_TEXT[] = "F# F# G A A G F# E D D E F# F# E E F# F# G A A G F# E D D E F# E D D E E "
                                      "F# D E F# G F# D E F# G F# E D E A F# F# G A A G F# E D D E F# E D D";

static void test_xca_plain_lz77_alphabet(void **state)
{
    (void)state;
    uint8_t in[64];
    size_t n = parse_hex(XCA_PLAIN_ALPHABET, in, sizeof in);
    assert_int_equal(n, 30);
    expect_output(etl_decompress_plain_lz77, in, n, ALPHABET, 26);
}

static void test_xca_plain_lz77_abc300(void **state)
{
    (void)state;
    uint8_t in[64];
    char abc[301];
    repeat(abc, "abc", 100);
    size_t n = parse_hex(XCA_PLAIN_ABC300, in, sizeof in);
    assert_int_equal(n, 13);
    expect_output(etl_decompress_plain_lz77, in, n, abc, 300);
}

static void test_xca_huffman_alphabet(void **state)
{
    (void)state;
    uint8_t in[512];
    size_t n = parse_hex(XCA_HUFFMAN_ALPHABET, in, sizeof in);
    assert_int_equal(n, 256 + 20);
    expect_output(etl_decompress_lz77_huffman, in, n, ALPHABET, 26);
    /* With room to spare the end-of-file symbol ends the stream: a short, successful result. */
    uint8_t out[100];
    size_t produced = 0;
    assert_int_equal(etl_decompress_lz77_huffman(in, n, out, sizeof out, &produced), ETL_OK);
    assert_int_equal(produced, 26);
    assert_memory_equal(out, ALPHABET, 26);
}

static void test_xca_huffman_abc300(void **state)
{
    (void)state;
    uint8_t in[512];
    char abc[301];
    repeat(abc, "abc", 100);
    size_t n = parse_hex(XCA_HUFFMAN_ABC300, in, sizeof in);
    assert_int_equal(n, 263);
    expect_output(etl_decompress_lz77_huffman, in, n, abc, 300);
}

static void test_xca_lznt1_example(void **state)
{
    (void)state;
    uint8_t in[64];
    size_t n = parse_hex(XCA_LZNT1_TUNE, in, sizeof in);
    assert_int_equal(n, 59);
    assert_int_equal(sizeof LZNT1_TUNE_TEXT, 142); /* the spec's length, terminal NUL included */
    expect_output(etl_decompress_lznt1, in, n, LZNT1_TUNE_TEXT, sizeof LZNT1_TUNE_TEXT);
}

/* The ETL buffer entry point picks whichever format yields exactly the expected length. */
static void test_etl_buffer_selects_format(void **state)
{
    (void)state;
    static const struct {
        const char *hex;
        size_t expected;
        etl_compression_format format;
    } cases[] = {
        {XCA_PLAIN_ABC300, 300, ETL_COMPRESSION_PLAIN_LZ77},
        {XCA_HUFFMAN_ABC300, 300, ETL_COMPRESSION_LZ77_HUFFMAN},
        {XCA_HUFFMAN_ALPHABET, 26, ETL_COMPRESSION_LZ77_HUFFMAN},
        {XCA_LZNT1_TUNE, 142, ETL_COMPRESSION_LZNT1},
    };
    char abc[301];
    repeat(abc, "abc", 100);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t in[512], out[300];
        size_t n = parse_hex(cases[i].hex, in, sizeof in);
        etl_compression_format used = ETL_COMPRESSION_NONE;
        assert_int_equal(etl_decompress_etl_buffer(in, n, out, cases[i].expected, &used), ETL_OK);
        assert_int_equal(used, cases[i].format);
        const char *want = cases[i].expected == 300 ? abc : cases[i].expected == 26 ? ALPHABET : LZNT1_TUNE_TEXT;
        assert_memory_equal(out, want, cases[i].expected);
        /* One byte more or less than the stream holds is not accepted by any format. */
        assert_int_equal(etl_decompress_etl_buffer(in, n, out, cases[i].expected - 1, &used), ETL_ERR_DECOMPRESS);
    }
}

/* ---- real compressed buffers ------------------------------------------------------------------------------ */

#define BUFFER_HEADER_SIZE 0x48
#define BH_BUFFER_SIZE 0x00
#define BH_OFFSET 0x30
#define BH_FLAGS 0x34
#define BUFFER_FLAG_COMPRESSED 0x0040

/* Walks the records of a decompressed payload (etl-format.md §2.11); returns the offset where the walk
 * stopped, which must be the payload end, and counts records with a marker this walk does not know. */
static size_t walk_records(const uint8_t *p, size_t end, size_t *bad_markers, size_t *records)
{
    size_t off = 0;
    while (end - off >= 4) {
        uint32_t marker = etl_le32(p + off);
        if (marker == 0xFFFFFFFFu)
            break;
        unsigned top = marker >> 24, type = (marker >> 16) & 0xFF;
        size_t size, min_size;
        if (top == 0x90) {
            size = etl_le16(p + off);
            min_size = 8;
        } else if (top == 0xC0 && (type <= 4 || type == 0x10 || type == 0x11) && type != 0) {
            if (end - off < 6)
                break;
            size = etl_le16(p + off + 4);
            min_size = type >= 0x10 ? 0x10 : type >= 3 ? 0x18 : 0x20;
        } else if (top == 0xC0 && (type == 0x0A || type == 0x0B || type == 0x0D || (type >= 0x12 && type <= 0x15))) {
            size = etl_le16(p + off);
            min_size = type == 0x0B || type == 0x15 ? 0x48 : type == 0x12 || type == 0x13 ? 0x50 : 0x30;
            if (type == 0x0D)
                min_size = 8;
        } else {
            (*bad_markers)++;
            break;
        }
        if (size < min_size || size > end - off) {
            (*bad_markers)++;
            break;
        }
        (*records)++;
        off += (size + 7) & ~(size_t)7;
        if (off > end)
            off = end; /* padding of the last record may run to the end */
    }
    return off;
}

/* "N of M buffers compressed" from the corpus manifest row of `name` — the independent count. */
static void manifest_counts(const char *name, unsigned *compressed, unsigned *total)
{
    size_t len;
    FILE *f = fopen("testdata/corpus-MANIFEST.tsv", "r");
    assert_non_null(f);
    char line[8192];
    *compressed = *total = 0;
    len = strlen(name);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, name, len) != 0 || line[len] != '\t')
            continue;
        const char *hit = strstr(line, " buffers compressed");
        assert_non_null(hit);
        const char *start = hit;
        while (start > line && start[-1] != ';' && start[-1] != '\t')
            start--;
        assert_int_equal(sscanf(start, " %u of %u", compressed, total), 2);
    }
    fclose(f);
    assert_true(*total > 0);
}

static void check_real_trace(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "testdata/%s", name);
    size_t len;
    uint8_t *file = load_gz(path, &len);
    uint8_t *payload = malloc(64u << 20);
    assert_non_null(payload);
    unsigned buffers = 0, compressed = 0;
    size_t pos = 0;
    while (len - pos >= BUFFER_HEADER_SIZE) {
        const uint8_t *h = file + pos;
        uint32_t size = etl_le32(h + BH_BUFFER_SIZE), offset = etl_le32(h + BH_OFFSET);
        if (size == 0)
            break;
        assert_true(size >= BUFFER_HEADER_SIZE && size <= len - pos);
        buffers++;
        if (etl_le16(h + BH_FLAGS) & BUFFER_FLAG_COMPRESSED) {
            compressed++;
            assert_true(offset >= BUFFER_HEADER_SIZE && offset - BUFFER_HEADER_SIZE <= (64u << 20));
            size_t expected = offset - BUFFER_HEADER_SIZE;
            const uint8_t *in = h + BUFFER_HEADER_SIZE;
            size_t in_len = size - BUFFER_HEADER_SIZE;
            size_t produced = 0;
            /* Windows writes plain LZ77 (etl-format.md §3.2): the stream must end exactly at Offset. (13 of
             * net.4.5.2.x86's streams hold a multiple of 32 items and end on a fresh all-ones flag word.) */
            if (etl_decompress_plain_lz77(in, in_len, payload, expected, &produced) != ETL_OK ||
                produced != expected)
                fail_msg("%s: buffer at 0x%zx: plain LZ77 produced %zu of %zu bytes", name, pos, produced,
                         expected);
            etl_compression_format used = ETL_COMPRESSION_NONE;
            assert_int_equal(etl_decompress_etl_buffer(in, in_len, payload, expected, &used), ETL_OK);
            assert_int_equal(used, ETL_COMPRESSION_PLAIN_LZ77);
            size_t bad = 0, records = 0;
            size_t stop = walk_records(payload, expected, &bad, &records);
            if (stop != expected || bad != 0 || records == 0)
                fail_msg("%s: buffer at 0x%zx: record walk stopped at %zu of %zu (%zu bad markers)", name, pos,
                         stop, expected, bad);
        }
        pos += size;
    }
    unsigned want_compressed, want_total;
    manifest_counts(name, &want_compressed, &want_total);
    assert_int_equal(compressed, want_compressed);
    assert_int_equal(buffers, want_total);
    free(payload);
    free(file);
}

static void test_real_net452_x86(void **state)
{
    (void)state;
    check_real_trace("perfview/net.4.5.2.x86.etl.gz");
}

static void test_real_self_describing(void **state)
{
    (void)state;
    check_real_trace("perfview/SelfDescribingSingleEvent.etl.gz");
}

static void test_real_small_etl(void **state)
{
    (void)state;
    check_real_trace("perfview/smallEtlFile.etl.gz");
}

static void test_real_pktmon(void **state)
{
    (void)state;
    check_real_trace("demikernel/PktMon.etl.gz");
}

static void test_real_terraingen(void **state)
{
    (void)state;
    check_real_trace("terraingen2d/PerfViewData.etl.gz");
}

/* ---- boundaries and hostile input ------------------------------------------------------------------------- */

/* The first compressed buffer of a real trace: its stream and promised length. */
static uint8_t *first_compressed(const char *path, size_t *stream_off, size_t *stream_len, size_t *expected,
                                 size_t *file_len)
{
    uint8_t *file = load_gz(path, file_len);
    size_t pos = 0;
    while (*file_len - pos >= BUFFER_HEADER_SIZE) {
        uint32_t size = etl_le32(file + pos);
        assert_true(size >= BUFFER_HEADER_SIZE && size <= *file_len - pos);
        if (etl_le16(file + pos + BH_FLAGS) & BUFFER_FLAG_COMPRESSED) {
            *stream_off = pos + BUFFER_HEADER_SIZE;
            *stream_len = size - BUFFER_HEADER_SIZE;
            *expected = etl_le32(file + pos + BH_OFFSET) - BUFFER_HEADER_SIZE;
            return file;
        }
        pos += size;
    }
    fail_msg("%s has no compressed buffer", path);
    return NULL;
}

static void test_empty_input(void **state)
{
    (void)state;
    uint8_t out[16];
    size_t produced = 99;
    /* A plain LZ77 stream has at least one flag word; Huffman needs a 256-byte table when output is due. */
    expect_failure(etl_decompress_plain_lz77, NULL, 0, sizeof out);
    expect_failure(etl_decompress_lz77_huffman, NULL, 0, sizeof out);
    /* LZNT1 without chunks is an empty buffer: nothing produced. */
    assert_int_equal(etl_decompress_lznt1(NULL, 0, out, sizeof out, &produced), ETL_OK);
    assert_int_equal(produced, 0);
    assert_int_equal(etl_decompress_etl_buffer(NULL, 0, out, sizeof out, NULL), ETL_ERR_DECOMPRESS);
    assert_int_equal(etl_decompress_etl_buffer(out, 0, out, sizeof out, NULL), ETL_ERR_DECOMPRESS);
}

/* Every proper prefix of real streams must fail or come up short — never crash (the sanitizer build checks). */
static void check_prefixes(const uint8_t *in, size_t in_len, size_t expected)
{
    uint8_t *out = malloc(expected);
    assert_non_null(out);
    decompress_fn fns[] = {etl_decompress_plain_lz77, etl_decompress_lz77_huffman, etl_decompress_lznt1};
    for (size_t cut = 0; cut < in_len; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1); /* exact-size copy so ASan sees any over-read */
        memcpy(copy, in, cut);
        for (size_t f = 0; f < 3; f++) {
            size_t produced = 0;
            int rc = fns[f](copy, cut, out, expected, &produced);
            if (rc == ETL_OK && produced == expected && f == 0)
                fail_msg("a %zu-byte prefix of a %zu-byte stream decoded fully", cut, in_len);
            assert_true(rc == ETL_OK ? produced <= expected : rc == ETL_ERR_DECOMPRESS);
        }
        assert_int_equal(etl_decompress_etl_buffer(copy, cut, out, expected, NULL), ETL_ERR_DECOMPRESS);
        free(copy);
    }
    free(out);
}

static void test_truncated_input(void **state)
{
    (void)state;
    const char *paths[] = {"testdata/perfview/smallEtlFile.etl.gz", "testdata/perfview/SelfDescribingSingleEvent.etl.gz"};
    for (size_t i = 0; i < 2; i++) {
        size_t off, n, expected, file_len;
        uint8_t *file = first_compressed(paths[i], &off, &n, &expected, &file_len);
        check_prefixes(file + off, n, expected);
        free(file);
    }
    const char *vectors[] = {XCA_PLAIN_ABC300, XCA_HUFFMAN_ABC300, XCA_HUFFMAN_ALPHABET, XCA_LZNT1_TUNE};
    const size_t lengths[] = {300, 300, 26, 142};
    for (size_t i = 0; i < 4; i++) {
        uint8_t in[512];
        size_t n = parse_hex(vectors[i], in, sizeof in);
        check_prefixes(in, n, lengths[i]);
    }
}

/* Every single-bit corruption of a real stream: each decoder fails cleanly or stays within its output (the
 * sanitizer build turns any stray access into a failure). */
static void test_bit_flips(void **state)
{
    (void)state;
    size_t off, n, expected, file_len;
    uint8_t *file = first_compressed("testdata/perfview/smallEtlFile.etl.gz", &off, &n, &expected, &file_len);
    uint8_t *in = malloc(n), *out = malloc(expected);
    assert_non_null(in);
    assert_non_null(out);
    decompress_fn fns[] = {etl_decompress_plain_lz77, etl_decompress_lz77_huffman, etl_decompress_lznt1};
    for (size_t bit = 0; bit < n * 8; bit++) {
        memcpy(in, file + off, n);
        in[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        for (size_t f = 0; f < 3; f++) {
            size_t produced = 0;
            int rc = fns[f](in, n, out, expected, &produced);
            assert_true(rc == ETL_OK ? produced <= expected : rc == ETL_ERR_DECOMPRESS);
        }
        int rc = etl_decompress_etl_buffer(in, n, out, expected, NULL);
        assert_true(rc == ETL_OK || rc == ETL_ERR_DECOMPRESS); /* no checksum: a flipped literal still fits */
    }
    free(out);
    free(in);
    free(file);
}

static void test_output_one_short(void **state)
{
    (void)state;
    size_t off, n, expected, file_len;
    uint8_t *file = first_compressed("testdata/perfview/net.4.5.2.x86.etl.gz", &off, &n, &expected, &file_len);
    uint8_t *exact = malloc(expected - 1); /* exact-size allocation: ASan catches a write past the end */
    assert_non_null(exact);
    expect_failure(etl_decompress_plain_lz77, file + off, n, expected - 1);
    assert_int_equal(etl_decompress_etl_buffer(file + off, n, exact, expected - 1, NULL), ETL_ERR_DECOMPRESS);
    free(exact);
    free(file);

    uint8_t in[512];
    size_t len = parse_hex(XCA_PLAIN_ABC300, in, sizeof in);
    expect_failure(etl_decompress_plain_lz77, in, len, 299);
    len = parse_hex(XCA_PLAIN_ALPHABET, in, sizeof in);
    expect_failure(etl_decompress_plain_lz77, in, len, 25);
    len = parse_hex(XCA_HUFFMAN_ABC300, in, sizeof in);
    expect_failure(etl_decompress_lz77_huffman, in, len, 299);
    len = parse_hex(XCA_LZNT1_TUNE, in, sizeof in);
    expect_failure(etl_decompress_lznt1, in, len, 141);
}

/* Hand-built plain LZ77 streams (MS-XCA §2.4 token layout: distance-1 in the high 13 bits, length-3 in the
 * low 3 bits; 7 escapes to a nibble, 15 to a byte, 255 to 16 bits, 0 to 32 bits). */
static void test_plain_distance_before_start(void **state)
{
    (void)state;
    /* literal 'a', then a match at distance 2 although only one byte exists */
    static const uint8_t two_back[] = {0xff, 0xff, 0xff, 0x7f, 'a', 0x08, 0x00};
    expect_failure(etl_decompress_plain_lz77, two_back, sizeof two_back, 64);
    /* a match as the very first item */
    static const uint8_t first_match[] = {0xff, 0xff, 0xff, 0xff, 0x00, 0x00};
    expect_failure(etl_decompress_plain_lz77, first_match, sizeof first_match, 64);
    /* distance 1 is fine: 'a' + 3 × 'a' */
    static const uint8_t one_back[] = {0xff, 0xff, 0xff, 0x7f, 'a', 0x00, 0x00};
    expect_output(etl_decompress_plain_lz77, one_back, sizeof one_back, "aaaa", 4);
}

static void test_plain_lengths(void **state)
{
    (void)state;
    /* 16-bit length 65535 - 3 from a 1-byte history into a 100-byte output: overlong */
    static const uint8_t overlong16[] = {0xff, 0xff, 0xff, 0x7f, 'x', 0x07, 0x00, 0x0f, 0xff, 0xfc, 0xff};
    expect_failure(etl_decompress_plain_lz77, overlong16, sizeof overlong16, 100);
    /* a 16-bit length below 15 + 7 is invalid */
    static const uint8_t too_small16[] = {0xff, 0xff, 0xff, 0x7f, 'x', 0x07, 0x00, 0x0f, 0xff, 0x15, 0x00};
    expect_failure(etl_decompress_plain_lz77, too_small16, sizeof too_small16, 100);
    /* 32-bit extension: 16-bit zero, then a 32-bit length (100000 - 3) */
    static const uint8_t ext32[] = {0xff, 0xff, 0xff, 0x7f, 'x', 0x07, 0x00, 0x0f, 0xff, 0x00, 0x00,
                                    0x9d, 0x86, 0x01, 0x00};
    size_t cap = 100001, produced = 0;
    uint8_t *out = malloc(cap);
    assert_int_equal(etl_decompress_plain_lz77(ext32, sizeof ext32, out, cap, &produced), ETL_OK);
    assert_int_equal(produced, cap);
    for (size_t i = 0; i < cap; i++)
        assert_int_equal(out[i], 'x');
    /* the same with one byte less of room, and with the 32-bit length cut short */
    assert_int_equal(etl_decompress_plain_lz77(ext32, sizeof ext32, out, cap - 1, &produced), ETL_ERR_DECOMPRESS);
    expect_failure(etl_decompress_plain_lz77, ext32, sizeof ext32 - 1, cap);
    /* a 32-bit length near 4 GiB must be rejected, not wrap around */
    static const uint8_t huge32[] = {0xff, 0xff, 0xff, 0x7f, 'x', 0x07, 0x00, 0x0f, 0xff, 0x00, 0x00,
                                     0xff, 0xff, 0xff, 0xff};
    expect_failure(etl_decompress_plain_lz77, huge32, sizeof huge32, cap);
    free(out);
    /* Two long matches share one length byte: the first takes its low nibble (2 → 7 + 2 + 3 = 12 bytes), the
     * second its high nibble (4 → 14 bytes). */
    static const uint8_t shared_nibble[] = {0xff, 0xff, 0xff, 0x7f, 'y', 0x07, 0x00, 0x42, 0x07, 0x00};
    char want[28];
    memset(want, 'y', sizeof want);
    expect_output(etl_decompress_plain_lz77, shared_nibble, sizeof shared_nibble, want, 27);
}

static void test_huffman_hostile(void **state)
{
    (void)state;
    uint8_t in[512];
    size_t n = parse_hex(XCA_HUFFMAN_ABC300, in, sizeof in);
    /* Same code as §3.2's abc example (c, EOF, match-287 = 2 bits; a, b = 3 bits), but the stream starts with
     * the match symbol (bits 10) and offset bit 1: distance 3 with nothing written yet. */
    uint8_t hostile[263];
    memcpy(hostile, in, 256);
    static const uint8_t bits[] = {0x00, 0xa0, 0x00, 0x00, 0xff, 0x26, 0x01};
    memcpy(hostile + 256, bits, sizeof bits);
    expect_failure(etl_decompress_lz77_huffman, hostile, sizeof hostile, 300);
    /* Incomplete code: drop 'c' (2 bits) — the table no longer fills 2^15 entries. */
    memcpy(hostile, in, n);
    hostile[49] = 0x03;
    expect_failure(etl_decompress_lz77_huffman, hostile, n, 300);
    /* Over-subscribed code: 'b' and 'c' both 1 bit. */
    hostile[49] = 0x11;
    expect_failure(etl_decompress_lz77_huffman, hostile, n, 300);
    /* All-zero table. */
    memset(hostile, 0, sizeof hostile);
    expect_failure(etl_decompress_lz77_huffman, hostile, sizeof hostile, 300);
    /* A table cut short. */
    expect_failure(etl_decompress_lz77_huffman, in, 255, 300);
}

/* Hand-built two-block LZ77+Huffman stream (MS-XCA §2.2.4; etl-format.md §3.4): a block ends once it has
 * produced 65536 bytes, and the next block's table starts right after the last input byte the first block
 * read — here the extra length bytes, since its three code bits never needed a refill.
 *   block 1: 'a' = code 0, EOF = 10, symbol 271 (length escape, 0 offset bits → distance 1) = 11;
 *            bits 0 11 = 'a' + match, length bytes ff fc ff (65532 + 3 = 65535): 65536 × 'a'.
 *   block 2: 'b' = 0, EOF = 1; bits 0 1 = 'b', end of stream. */
static void test_huffman_two_blocks(void **state)
{
    (void)state;
    uint8_t in[256 + 4 + 3 + 256 + 4];
    memset(in, 0, sizeof in);
    in[97 / 2] = 1 << 4;   /* 'a' (odd symbol: high nibble) length 1 */
    in[256 / 2] = 2;       /* EOF length 2 */
    in[271 / 2] = 2 << 4;  /* symbol 271 length 2 */
    static const uint8_t block1[] = {0x00, 0x60, 0x00, 0x00, 0xff, 0xfc, 0xff};
    memcpy(in + 256, block1, sizeof block1);
    uint8_t *t2 = in + 256 + sizeof block1;
    t2[98 / 2] = 1;        /* 'b' length 1 */
    t2[256 / 2] = 1;       /* EOF length 1 */
    t2[256] = 0x00;
    t2[257] = 0x40;        /* first word 0x4000: bits 0 1 */
    size_t cap = 65537, produced = 0;
    uint8_t *out = malloc(cap);
    assert_int_equal(etl_decompress_lz77_huffman(in, sizeof in, out, cap, &produced), ETL_OK);
    assert_int_equal(produced, cap);
    for (size_t i = 0; i < 65536; i++)
        assert_int_equal(out[i], 'a');
    assert_int_equal(out[65536], 'b');
    /* One byte less of room: the second block's literal does not fit. */
    assert_int_equal(etl_decompress_lz77_huffman(in, sizeof in, out, 65536, &produced), ETL_ERR_DECOMPRESS);
    free(out);
}

static void test_lznt1_hostile(void **state)
{
    (void)state;
    /* chunk header announcing more bytes than the input holds */
    static const uint8_t too_long[] = {0x10, 0xb0, 0x00, 'a', 'b'};
    expect_failure(etl_decompress_lznt1, too_long, sizeof too_long, 64);
    /* compressed word at chunk position 1 pointing 2 back (4-bit displacement 1 → distance 2) */
    static const uint8_t before_chunk[] = {0x03, 0xb0, 0x02, 'a', 0x00, 0x10};
    expect_failure(etl_decompress_lznt1, before_chunk, sizeof before_chunk, 64);
    /* compressed word as the first item of a chunk */
    static const uint8_t first_word[] = {0x02, 0xb0, 0x01, 0x00, 0x00};
    expect_failure(etl_decompress_lznt1, first_word, sizeof first_word, 64);
    /* an uncompressed chunk (bit 15 clear) is copied as is, then the end marker */
    static const uint8_t raw[] = {0x02, 0x30, 'x', 'y', 'z', 0x00, 0x00};
    expect_output(etl_decompress_lznt1, raw, sizeof raw, "xyz", 3);
    /* a match running past the output capacity */
    static const uint8_t long_match[] = {0x03, 0xb0, 0x02, 'a', 0xff, 0x0f};
    expect_failure(etl_decompress_lznt1, long_match, sizeof long_match, 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xca_plain_lz77_alphabet),
        cmocka_unit_test(test_xca_plain_lz77_abc300),
        cmocka_unit_test(test_xca_huffman_alphabet),
        cmocka_unit_test(test_xca_huffman_abc300),
        cmocka_unit_test(test_xca_lznt1_example),
        cmocka_unit_test(test_etl_buffer_selects_format),
        cmocka_unit_test(test_real_net452_x86),
        cmocka_unit_test(test_real_self_describing),
        cmocka_unit_test(test_real_small_etl),
        cmocka_unit_test(test_real_pktmon),
        cmocka_unit_test(test_real_terraingen),
        cmocka_unit_test(test_empty_input),
        cmocka_unit_test(test_truncated_input),
        cmocka_unit_test(test_bit_flips),
        cmocka_unit_test(test_output_one_short),
        cmocka_unit_test(test_plain_distance_before_start),
        cmocka_unit_test(test_plain_lengths),
        cmocka_unit_test(test_huffman_hostile),
        cmocka_unit_test(test_huffman_two_blocks),
        cmocka_unit_test(test_lznt1_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
