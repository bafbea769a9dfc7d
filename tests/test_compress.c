/* Compressed output streams (src/pipeline/compress.c), read back by readers that are not the writer's code:
 * zlib's inflate for the libdeflate gzip members, libzstd's decoder for the zstd frames. Every byte in order at
 * levels across gzip's range (the default, 1, 2, 7, 12), 1-3 threads, writes of any size, an empty stream;
 * members cut at the same input offsets whatever the threads; gzip levels libdeflate does not have refused
 * before anything is written. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>
#include <zstd.h>

#include "pipeline/compress.h"

#define INPUT_BYTES (3u * 1024 * 1024 + 12345) /* three full 1 MiB members and a partial one */

/* Text that compresses like XML does (repeats with varying numbers), plus some incompressible bytes. */
static unsigned char *make_input(size_t n)
{
    unsigned char *p = malloc(n);
    assert_non_null(p);
    uint32_t x = 2463534242u;
    size_t i = 0;
    while (i < n) {
        char line[96];
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        int len = snprintf(line, sizeof line, "<Data Name=\"ThreadID\">%u</Data>\n", x % 100000);
        for (int k = 0; k < len && i < n; k++) p[i++] = (unsigned char)line[k];
        if (x % 97 == 0)
            for (int k = 0; k < 40 && i < n; k++) p[i++] = (unsigned char)(x >> (k % 24));
    }
    return p;
}

/* Everything written to `f`, from the start. */
static unsigned char *slurp(FILE *f, size_t *len)
{
    fflush(f);
    long n = ftell(f);
    assert_true(n >= 0);
    unsigned char *p = malloc((size_t)n + 1);
    assert_non_null(p);
    rewind(f);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    *len = (size_t)n;
    return p;
}

/* Inflates every gzip member in turn (RFC 1952 allows several); returns the bytes, counts the members. */
static unsigned char *gunzip_all(const unsigned char *in, size_t in_len, size_t out_cap, size_t *out_len,
                                 int *members)
{
    unsigned char *out = malloc(out_cap + 1);
    assert_non_null(out);
    size_t used = 0, at = 0;
    *members = 0;
    while (at < in_len) {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
        zs.next_in = (unsigned char *)in + at;
        zs.avail_in = (uInt)(in_len - at);
        zs.next_out = out + used;
        zs.avail_out = (uInt)(out_cap + 1 - used);
        assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
        at += (size_t)(zs.next_in - (in + at));
        used = (size_t)(zs.next_out - out);
        inflateEnd(&zs);
        ++*members;
    }
    *out_len = used;
    return out;
}

/* Writes `input` through a compressor in pieces of `piece` bytes; returns the compressed file's bytes. */
static unsigned char *compress_all(etl_compression kind, int level, int threads, const unsigned char *input,
                                   size_t n, size_t piece, size_t *len)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    etl_compressor *c = etl_compressor_new(kind, level, threads, fileno(f));
    assert_non_null(c);
    for (size_t at = 0; at < n; at += piece)
        assert_int_equal(etl_compressor_write(c, input + at, n - at < piece ? n - at : piece), 0);
    assert_int_equal(etl_compressor_finish(c), 0);
    etl_compressor_free(c);
    unsigned char *out = slurp(f, len);
    fclose(f);
    return out;
}

static void check_gzip(int level, int threads, size_t piece, unsigned char **keep, size_t *keep_len)
{
    unsigned char *input = make_input(INPUT_BYTES);
    size_t len, plain_len;
    int members;
    unsigned char *gz = compress_all(ETL_COMPRESS_GZIP, level, threads, input, INPUT_BYTES, piece, &len);
    assert_true(len < INPUT_BYTES / 2);
    unsigned char *plain = gunzip_all(gz, len, INPUT_BYTES, &plain_len, &members);
    assert_int_equal(plain_len, INPUT_BYTES);
    assert_memory_equal(plain, input, INPUT_BYTES);
    assert_int_equal(members, 4); /* one per started MiB */
    free(plain);
    free(input);
    if (keep) {
        *keep = gz;
        *keep_len = len;
    } else {
        free(gz);
    }
}

static void gzip_levels_read_back(void **state)
{
    (void)state;
    for (int level = 0; level <= ETL_GZIP_MAX_LEVEL; level += level < 2 ? 1 : 5) /* 0 = default, 1, 2, 7, 12 */
        check_gzip(level, 1, 65536, NULL, NULL);
}

static void gzip_threads_write_the_same_bytes(void **state)
{
    (void)state;
    unsigned char *one, *three, *odd;
    size_t one_len, three_len, odd_len;
    check_gzip(1, 1, 256 * 1024, &one, &one_len);
    check_gzip(1, 3, 256 * 1024, &three, &three_len);
    check_gzip(1, 2, 7777, &odd, &odd_len); /* writes that straddle the members' edges */
    assert_int_equal(one_len, three_len);
    assert_memory_equal(one, three, one_len);
    assert_int_equal(one_len, odd_len);
    assert_memory_equal(one, odd, one_len);
    free(one);
    free(three);
    free(odd);
}

static void gzip_empty_stream_is_one_empty_member(void **state)
{
    (void)state;
    for (int threads = 1; threads <= 2; threads++) {
        size_t len, plain_len;
        int members;
        unsigned char *gz = compress_all(ETL_COMPRESS_GZIP, 0, threads, (const unsigned char *)"", 0, 1, &len);
        assert_true(len >= 18); /* header, an empty final block, trailer */
        unsigned char *plain = gunzip_all(gz, len, 16, &plain_len, &members);
        assert_int_equal(plain_len, 0);
        assert_int_equal(members, 1);
        free(plain);
        free(gz);
    }
}

static void zstd_reads_back(void **state)
{
    (void)state;
    unsigned char *input = make_input(INPUT_BYTES);
    for (int threads = 1; threads <= 2; threads++) {
        size_t len;
        unsigned char *z = compress_all(ETL_COMPRESS_ZSTD, 0, threads, input, INPUT_BYTES, 100000, &len);
        unsigned char *plain = malloc(INPUT_BYTES + 1);
        assert_non_null(plain);
        size_t got = ZSTD_decompress(plain, INPUT_BYTES + 1, z, len);
        assert_false(ZSTD_isError(got));
        assert_int_equal(got, INPUT_BYTES);
        assert_memory_equal(plain, input, INPUT_BYTES);
        free(plain);
        free(z);
    }
    free(input);
}

static void gzip_levels_beyond_libdeflate_are_refused(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    for (int threads = 1; threads <= 2; threads++) {
        errno = 0;
        assert_null(etl_compressor_new(ETL_COMPRESS_GZIP, ETL_GZIP_MAX_LEVEL + 1, threads, fileno(f)));
        assert_int_equal(errno, EINVAL);
    }
    fflush(f);
    assert_int_equal(ftell(f), 0); /* nothing written */
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gzip_levels_read_back),
        cmocka_unit_test(gzip_threads_write_the_same_bytes),
        cmocka_unit_test(gzip_empty_stream_is_one_empty_member),
        cmocka_unit_test(zstd_reads_back),
        cmocka_unit_test(gzip_levels_beyond_libdeflate_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
