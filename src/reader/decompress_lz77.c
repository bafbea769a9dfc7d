/* MS-XCA "Plain LZ77" decompression ([MS-XCA] §2.4; etl-format.md §3.3) — the format of compressed ETL
 * buffers. The stream is 32-bit flag words (read most significant bit first: 0 = literal byte,
 * 1 = 16-bit match token) interleaved with the literals and tokens they describe. */
#include "reader/decompress.h"

#include "etl/etl.h"
#include "reader/decompress_match.h"
#include "util/le.h"

#define LZ77_FLAG_WORD_BITS 32
#define LZ77_MIN_MATCH 3
#define LZ77_TOKEN_LENGTH_MASK 7u
#define LZ77_TOKEN_DISTANCE_SHIFT 3
#define LZ77_NIBBLE_ESCAPE 15u
#define LZ77_BYTE_ESCAPE 255u
/* Lengths stored in the 16/32-bit extension already include the 3-bit (7) and nibble (15) parts. */
#define LZ77_EXTENSION_BIAS (15u + 7u)
#define LZ77_SHORT_RUN 16u

/* Number of leading literal flags (zero bits from the top of `flags`), at most `count`. */
static inline unsigned literal_run(uint32_t flags, unsigned count)
{
    if (flags == 0)
        return count;
#if defined(__GNUC__) || defined(__clang__)
    unsigned zeros = (unsigned)__builtin_clz(flags);
#else
    unsigned zeros = 0;
    while (!(flags & 0x80000000u)) {
        flags <<= 1;
        zeros++;
    }
#endif
    return zeros < count ? zeros : count;
}

/* Reads the length extension of a token whose 3-bit length is 7. Returns the full match length, or 0 when the
 * input ends or the extension is invalid. `half_byte_pos` is the byte whose high nibble is still unused
 * (0 = none: position 0 always holds a flag word, never a nibble). */
static uint64_t read_long_length(const uint8_t *in, size_t in_len, size_t *ip, size_t *half_byte_pos)
{
    uint64_t length;
    if (*half_byte_pos == 0) {
        if (*ip >= in_len)
            return 0;
        *half_byte_pos = *ip;
        length = in[(*ip)++] & 0x0Fu;
    } else {
        length = in[*half_byte_pos] >> 4;
        *half_byte_pos = 0;
    }
    if (length == LZ77_NIBBLE_ESCAPE) {
        if (*ip >= in_len)
            return 0;
        length = in[(*ip)++];
        if (length == LZ77_BYTE_ESCAPE) {
            if (in_len - *ip < 2)
                return 0;
            length = etl_le16(in + *ip);
            *ip += 2;
            if (length == 0) { /* 32-bit extension */
                if (in_len - *ip < 4)
                    return 0;
                length = etl_le32(in + *ip);
                *ip += 4;
            }
            if (length < LZ77_EXTENSION_BIAS)
                return 0;
            return length + LZ77_MIN_MATCH;
        }
        length += LZ77_NIBBLE_ESCAPE;
    }
    return length + LZ77_TOKEN_LENGTH_MASK + LZ77_MIN_MATCH;
}

int etl_decompress_plain_lz77(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *produced)
{
    if (!produced || (!in && in_len) || (!out && out_cap))
        return ETL_ERR_ARG;
    *produced = 0;
    size_t ip = 0, op = 0, half_byte_pos = 0;
    uint32_t flags = 0;   /* next flag in the most significant bit */
    unsigned flag_count = 0;
    for (;;) {
        if (flag_count == 0) {
            if (in_len - ip < 4)
                return ETL_ERR_DECOMPRESS;
            flags = etl_le32(in + ip);
            ip += 4;
            flag_count = LZ77_FLAG_WORD_BITS;
        }
        unsigned run = literal_run(flags, flag_count);
        if (run) {
            if (run > in_len - ip || run > out_cap - op)
                return ETL_ERR_DECOMPRESS;
            /* Short runs: one fixed-size copy (may write past the run, never past out_cap; later items
             * overwrite those bytes before anything reads them). */
            if (run <= LZ77_SHORT_RUN && in_len - ip >= LZ77_SHORT_RUN && out_cap - op >= LZ77_SHORT_RUN)
                memcpy(out + op, in + ip, LZ77_SHORT_RUN);
            else
                memcpy(out + op, in + ip, run);
            ip += run;
            op += run;
            flag_count -= run;
            flags = flag_count ? flags << run : 0;
            continue;
        }
        /* A match flag. The compressor fills the unused flags of the last word with ones, so a match flag with
         * no input left is the regular end of the stream. */
        flags <<= 1;
        flag_count--;
        if (ip == in_len)
            break;
        if (in_len - ip < 2)
            return ETL_ERR_DECOMPRESS;
        unsigned token = etl_le16(in + ip);
        ip += 2;
        size_t distance = (token >> LZ77_TOKEN_DISTANCE_SHIFT) + 1;
        uint64_t length = token & LZ77_TOKEN_LENGTH_MASK;
        if (length == LZ77_TOKEN_LENGTH_MASK) {
            length = read_long_length(in, in_len, &ip, &half_byte_pos);
            if (length == 0)
                return ETL_ERR_DECOMPRESS;
        } else {
            length += LZ77_MIN_MATCH;
        }
        if (distance > op || length > out_cap - op)
            return ETL_ERR_DECOMPRESS;
        etl_lz_copy_match(out, op, distance, (size_t)length, out_cap);
        op += (size_t)length;
    }
    *produced = op;
    return ETL_OK;
}
