/* MS-XCA LZNT1 decompression ([MS-XCA] §2.5; etl-format.md §3.5) — the last-resort fallback for ETL
 * buffers. A series of chunks, each with a 16-bit header (bit 15 compressed, bits 11..0 chunk size − 3),
 * each decompressing to at most 4096 bytes independently of the others. */
#include "reader/decompress.h"

#include "etl/etl.h"
#include "reader/decompress_match.h"
#include "util/le.h"

#define LZNT1_HEADER_BYTES 2
#define LZNT1_CHUNK_COMPRESSED 0x8000u
#define LZNT1_CHUNK_SIZE_MASK 0x0FFFu
#define LZNT1_CHUNK_OUTPUT 4096u
#define LZNT1_MIN_MATCH 3
/* A compressed word splits 16 bits into displacement (high) and length (low); the displacement takes 4 bits
 * plus one for every doubling of the chunk position past 16. */
#define LZNT1_BASE_LENGTH_BITS 12
#define LZNT1_SMALL_POSITION 0x10u

static int decode_compressed_chunk(const uint8_t *in, size_t chunk_end, size_t ip, uint8_t *out, size_t out_cap,
                                   size_t *op_io)
{
    size_t op = *op_io;
    const size_t chunk_start = op;
    while (ip < chunk_end) {
        unsigned flags = in[ip++];
        for (unsigned bit = 0; bit < 8 && ip < chunk_end; bit++, flags >>= 1) {
            if (!(flags & 1)) {
                if (op >= out_cap)
                    return ETL_ERR_DECOMPRESS;
                out[op++] = in[ip++];
                continue;
            }
            if (chunk_end - ip < 2)
                return ETL_ERR_DECOMPRESS;
            unsigned word = etl_le16(in + ip);
            ip += 2;
            size_t pos = op - chunk_start;
            /* pos is at most 4096 here, so shift <= 8 and the split below stays in range. */
            if (pos == 0 || pos > LZNT1_CHUNK_OUTPUT)
                return ETL_ERR_DECOMPRESS;
            unsigned shift = 0;
            for (size_t p = pos - 1; p >= LZNT1_SMALL_POSITION; p >>= 1)
                shift++;
            unsigned length_bits = LZNT1_BASE_LENGTH_BITS - shift;
            size_t distance = (word >> length_bits) + 1;
            size_t length = (word & ((1u << length_bits) - 1)) + LZNT1_MIN_MATCH;
            if (distance > pos || length > out_cap - op)
                return ETL_ERR_DECOMPRESS;
            etl_lz_copy_match(out, op, distance, length, out_cap);
            op += length;
        }
    }
    if (op - chunk_start > LZNT1_CHUNK_OUTPUT)
        return ETL_ERR_DECOMPRESS;
    *op_io = op;
    return ETL_OK;
}

int etl_decompress_lznt1(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *produced)
{
    if (!produced || (!in && in_len) || (!out && out_cap))
        return ETL_ERR_ARG;
    *produced = 0;
    size_t ip = 0, op = 0;
    while (in_len - ip >= LZNT1_HEADER_BYTES) {
        unsigned header = etl_le16(in + ip);
        ip += LZNT1_HEADER_BYTES;
        if (header == 0) /* End_of_buffer */
            break;
        size_t chunk_len = (header & LZNT1_CHUNK_SIZE_MASK) + 1;
        if (chunk_len > in_len - ip)
            return ETL_ERR_DECOMPRESS;
        if (header & LZNT1_CHUNK_COMPRESSED) {
            int rc = decode_compressed_chunk(in, ip + chunk_len, ip, out, out_cap, &op);
            if (rc != ETL_OK)
                return rc;
        } else {
            if (chunk_len > out_cap - op)
                return ETL_ERR_DECOMPRESS;
            memcpy(out + op, in + ip, chunk_len);
            op += chunk_len;
        }
        ip += chunk_len;
    }
    *produced = op;
    return ETL_OK;
}
