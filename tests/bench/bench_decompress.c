/* Decompression throughput over every compressed buffer of a real trace (default
 * testdata/perfview/net.4.5.2.x86.etl.gz), best of several rounds. Built and run by tests/bench.sh; not a
 * test. Usage: bench_decompress [trace.etl[.gz]] [rounds] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zlib.h>

#include "etl/etl.h"
#include "reader/decompress.h"
#include "util/le.h"

#define BUFFER_HEADER_SIZE 0x48
#define BH_OFFSET 0x30
#define BH_FLAGS 0x34
#define BUFFER_FLAG_COMPRESSED 0x0040
#define MAX_PAYLOAD (64u << 20)

static uint8_t *load(const char *path, size_t *len)
{
    gzFile gz = gzopen(path, "rb"); /* reads plain files too */
    if (!gz)
        return NULL;
    size_t cap = 1 << 20, n = 0;
    uint8_t *data = malloc(cap);
    int got;
    while (data && (got = gzread(gz, data + n, (unsigned)(cap - n))) > 0) {
        n += (size_t)got;
        if (n == cap)
            data = realloc(data, cap *= 2);
    }
    gzclose(gz);
    *len = n;
    return data;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "testdata/perfview/net.4.5.2.x86.etl.gz";
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    size_t len;
    uint8_t *file = load(path, &len);
    uint8_t *out = malloc(MAX_PAYLOAD);
    if (!file || !out) {
        fprintf(stderr, "bench_decompress: cannot read %s\n", path);
        return 1;
    }
    double best = 1e30;
    size_t buffers = 0, in_bytes = 0, out_bytes = 0;
    for (int r = 0; r < rounds; r++) {
        buffers = in_bytes = out_bytes = 0;
        double t0 = now();
        for (size_t pos = 0; len - pos >= BUFFER_HEADER_SIZE;) {
            uint32_t size = etl_le32(file + pos), offset = etl_le32(file + pos + BH_OFFSET);
            if (size < BUFFER_HEADER_SIZE || size > len - pos)
                break;
            if ((etl_le16(file + pos + BH_FLAGS) & BUFFER_FLAG_COMPRESSED) && offset >= BUFFER_HEADER_SIZE &&
                offset - BUFFER_HEADER_SIZE <= MAX_PAYLOAD) {
                size_t expected = offset - BUFFER_HEADER_SIZE;
                if (etl_decompress_etl_buffer(file + pos + BUFFER_HEADER_SIZE, size - BUFFER_HEADER_SIZE, out,
                                              expected, NULL) != ETL_OK) {
                    fprintf(stderr, "bench_decompress: %s: buffer at 0x%zx does not decompress\n", path, pos);
                    return 1;
                }
                buffers++;
                in_bytes += size - BUFFER_HEADER_SIZE;
                out_bytes += expected;
            }
            pos += size;
        }
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    if (!buffers) {
        printf("decompress\t%s\tno compressed buffers\n", path);
        return 0;
    }
    printf("decompress\t%s\tbuffers %zu\tin %.2f MB\tout %.2f MB\tbest of %d: %.3f ms\t%.0f MB/s out\t%.0f MB/s in\n",
           path, buffers, in_bytes / 1e6, out_bytes / 1e6, rounds, best * 1e3, out_bytes / 1e6 / best,
           in_bytes / 1e6 / best);
    free(out);
    free(file);
    return 0;
}
