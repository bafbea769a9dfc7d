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

/* Flags sit in the top 32 bits of a 64-bit word with a marker bit just below them, so the number of leading
 * zeros is the literal run left in the word (never more than the flags left) and the word is used up when
 * only the marker remains at the top. */
#define LZ77_FLAG_MARKER 0x80000000u
#define LZ77_FLAGS_DONE ((uint64_t)1 << 63)

static inline unsigned leading_zeros64(uint64_t x) /* x != 0 */
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_clzll(x);
#else
    unsigned n = 0;
    while (!(x & LZ77_FLAGS_DONE)) {
        x <<= 1;
        n++;
    }
    return n;
#endif
}

/* Fast path, one whole flag word at a time while far from both ends: every item of a word (a literal, or a
 * token with its longest length extension, 10 bytes) plus one 32-byte literal copy fits in the input left, and
 * 32 bytes of output are free at each literal run (each match keeps that much free after it). No input bounds
 * checks then; output is checked once per match. */
#define LZ77_MAX_MATCH_INPUT 10u
#define LZ77_FAST_INPUT (4u + LZ77_FLAG_WORD_BITS * LZ77_MAX_MATCH_INPUT + 32u)
#define LZ77_FAST_OUTPUT 32u
_Static_assert(LZ77_FAST_OUTPUT >= ETL_LZ_FAST_SLACK, "a match on the fast path leaves etl_lz_copy_match_fast its slack");

typedef struct lz77_state {
    const uint8_t *ip;
    uint8_t *op;
    const uint8_t *half; /* byte whose high nibble is the next length nibble, or NULL */
    uint64_t flags;
} lz77_state;

/* Decodes whole flag words while the margins hold. Returns 0 with st->flags == LZ77_FLAGS_DONE when the
 * margins no longer hold at a word boundary, 0 with flags left when a match came too close to out_end (it is
 * copied exactly; the exact path finishes the word), or ETL_ERR_DECOMPRESS. */
static int lz77_fast_words(lz77_state *st, const uint8_t *in_end, uint8_t *out, uint8_t *out_end)
{
    const uint8_t *ip = st->ip, *half = st->half;
    uint8_t *op = st->op;
    uint64_t flags = LZ77_FLAGS_DONE;
    int rc = 0;
    while ((size_t)(in_end - ip) >= LZ77_FAST_INPUT && (size_t)(out_end - op) >= LZ77_FAST_OUTPUT) {
        flags = (uint64_t)etl_le32(ip) << 32 | LZ77_FLAG_MARKER;
        ip += 4;
        for (;;) {
            unsigned run = leading_zeros64(flags);
            memcpy(op, ip, 16); /* the run (at most 32 bytes) in two fixed copies; the rest is overwritten later */
            memcpy(op + 16, ip + 16, 16);
            op += run;
            ip += run;
            flags <<= run;
            if (flags == LZ77_FLAGS_DONE)
                break;
            flags <<= 1; /* a match */
            unsigned token = etl_le16(ip);
            ip += 2;
            size_t distance = (token >> LZ77_TOKEN_DISTANCE_SHIFT) + 1;
            uint64_t length = token & LZ77_TOKEN_LENGTH_MASK;
            if (length == LZ77_TOKEN_LENGTH_MASK) {
                if (!half) {
                    half = ip;
                    length = *ip++ & 0x0Fu;
                } else {
                    length = *half >> 4;
                    half = NULL;
                }
                if (length == LZ77_NIBBLE_ESCAPE) {
                    length = *ip++;
                    if (length == LZ77_BYTE_ESCAPE) {
                        length = etl_le16(ip);
                        ip += 2;
                        if (length == 0) {
                            length = etl_le32(ip);
                            ip += 4;
                        }
                        if (length < LZ77_EXTENSION_BIAS) {
                            rc = ETL_ERR_DECOMPRESS;
                            goto out;
                        }
                        length -= LZ77_EXTENSION_BIAS; /* the 16/32-bit length includes 15 + 7 */
                    }
                    length += LZ77_NIBBLE_ESCAPE;
                }
                length += LZ77_TOKEN_LENGTH_MASK;
            }
            length += LZ77_MIN_MATCH;
            size_t room = (size_t)(out_end - op);
            if (distance > (size_t)(op - out)) {
                rc = ETL_ERR_DECOMPRESS;
                goto out;
            }
            if (length + LZ77_FAST_OUTPUT > room) { /* near the end: exact copy, exact path from here */
                if (length > room) {
                    rc = ETL_ERR_DECOMPRESS;
                    goto out;
                }
                etl_lz_copy_match(out, (size_t)(op - out), distance, (size_t)length, (size_t)(out_end - out));
                op += (size_t)length;
                goto out;
            }
            etl_lz_copy_match_fast(op, distance, (size_t)length);
            op += (size_t)length;
            if (flags == LZ77_FLAGS_DONE)
                break;
        }
    }
out:
    st->ip = ip;
    st->op = op;
    st->half = half;
    st->flags = flags;
    return rc;
}

int etl_decompress_plain_lz77(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *produced)
{
    if (!produced || (!in && in_len) || (!out && out_cap))
        return ETL_ERR_ARG;
    *produced = 0;
    if (in_len < 4)
        return ETL_ERR_DECOMPRESS; /* not even a flag word */
    uint8_t no_room;
    if (!out)
        out = &no_room; /* out_cap is 0: keeps the pointer arithmetic below defined */
    const uint8_t *in_end = in + in_len;
    uint8_t *out_end = out + out_cap;
    lz77_state st = {in, out, NULL, LZ77_FLAGS_DONE};
    for (;;) {
        if (st.flags == LZ77_FLAGS_DONE) {
            int rc = lz77_fast_words(&st, in_end, out, out_end);
            if (rc != 0)
                return rc;
        }
        /* Exact path: one literal run or one match, every bound checked. */
        size_t ip = (size_t)(st.ip - in), op = (size_t)(st.op - out);
        size_t half_byte_pos = st.half ? (size_t)(st.half - in) : 0;
        if (st.flags == LZ77_FLAGS_DONE) {
            if (in_len - ip < 4)
                return ETL_ERR_DECOMPRESS;
            st.flags = (uint64_t)etl_le32(in + ip) << 32 | LZ77_FLAG_MARKER;
            ip += 4;
        }
        unsigned run = leading_zeros64(st.flags);
        if (run) {
            if (run > in_len - ip || run > out_cap - op)
                return ETL_ERR_DECOMPRESS;
            memcpy(out + op, in + ip, run);
            ip += run;
            op += run;
            st.flags <<= run;
        } else {
            /* A match flag. The compressor fills the unused flags of the last word with ones, so a match flag
             * with no input left is the regular end of the stream. */
            st.flags <<= 1;
            if (ip == in_len) {
                st.op = out + op;
                break;
            }
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
        st.ip = in + ip;
        st.op = out + op;
        st.half = half_byte_pos ? in + half_byte_pos : NULL;
    }
    *produced = (size_t)(st.op - out);
    return ETL_OK;
}
