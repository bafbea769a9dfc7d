/* A byte-at-a-time transcription of the MS-XCA §2.4.4 plain LZ77 pseudocode: the oracle the fast decoder
 * (src/reader/decompress_lz77.c) is checked against by tests/test_lz77_fast.c and the fuzz target
 * tests/fuzz/fuzz_decompress.c. Deliberately simple: one flag, one byte at a time, every bound checked. */
#ifndef ETL_TESTS_LZ77_REFERENCE_H
#define ETL_TESTS_LZ77_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl.h"
#include "util/le.h"

/* MS-XCA §2.4.4, literally: one flag, one byte at a time. Same acceptance rules as the real decoder. */
static inline int reference_plain_lz77(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *produced)
{
    size_t ip = 0, op = 0, half = 0;
    uint32_t flags = 0;
    int count = 0;
    for (;;) {
        if (count == 0) {
            if (n - ip < 4)
                return ETL_ERR_DECOMPRESS;
            flags = etl_le32(in + ip);
            ip += 4;
            count = 32;
        }
        count--;
        if (!(flags & (1u << count))) {
            if (ip >= n || op >= cap)
                return ETL_ERR_DECOMPRESS;
            out[op++] = in[ip++];
            continue;
        }
        if (ip == n)
            break;
        if (n - ip < 2)
            return ETL_ERR_DECOMPRESS;
        uint32_t token = etl_le16(in + ip);
        ip += 2;
        uint64_t length = token % 8, offset = token / 8 + 1;
        if (length == 7) {
            if (half == 0) {
                if (ip >= n)
                    return ETL_ERR_DECOMPRESS;
                length = in[ip] % 16;
                half = ip++;
            } else {
                length = in[half] / 16;
                half = 0;
            }
            if (length == 15) {
                if (ip >= n)
                    return ETL_ERR_DECOMPRESS;
                length = in[ip++];
                if (length == 255) {
                    if (n - ip < 2)
                        return ETL_ERR_DECOMPRESS;
                    length = etl_le16(in + ip);
                    ip += 2;
                    if (length == 0) {
                        if (n - ip < 4)
                            return ETL_ERR_DECOMPRESS;
                        length = etl_le32(in + ip);
                        ip += 4;
                    }
                    if (length < 15 + 7)
                        return ETL_ERR_DECOMPRESS;
                    length -= 15 + 7;
                }
                length += 15;
            }
            length += 7;
        }
        length += 3;
        if (offset > op || length > cap - op)
            return ETL_ERR_DECOMPRESS;
        for (uint64_t i = 0; i < length; i++, op++)
            out[op] = out[op - offset];
    }
    *produced = op;
    return ETL_OK;
}

#endif
