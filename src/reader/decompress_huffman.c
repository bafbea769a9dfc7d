/* MS-XCA "LZ77+Huffman" decompression ([MS-XCA] §2.2; etl-format.md §3.4) — a fallback for ETL buffers.
 * The stream is a series of blocks, each a 256-byte table of 4-bit code lengths for 512 symbols followed by a
 * bit stream read in 16-bit little-endian words, that together produce up to 65536 output bytes. Because
 * there is no stored end, the output capacity is taken as the expected size. */
#include "reader/decompress.h"

#include <stdlib.h>

#include "etl/etl.h"
#include "reader/decompress_match.h"
#include "util/le.h"

#define HUFF_SYMBOLS 512
#define HUFF_TABLE_BYTES (HUFF_SYMBOLS / 2)
#define HUFF_MAX_BITS 15
#define HUFF_LOOKUP_SIZE (1u << HUFF_MAX_BITS)
#define HUFF_BLOCK_OUTPUT 65536u
#define HUFF_LITERALS 256u
#define HUFF_END_OF_STREAM 256u
#define HUFF_MIN_MATCH 3
#define HUFF_LENGTH_ESCAPE 15u
#define HUFF_BYTE_ESCAPE 255u
/* Lookup entries pack the symbol above its 4-bit code length. */
#define HUFF_ENTRY_LEN_BITS 4
#define HUFF_ENTRY_LEN_MASK 0x0Fu

/* Builds the canonical decoding table: codes sorted by (length, symbol), each symbol of length L filling
 * 2^(15-L) consecutive entries. The code must fill the table exactly (MS-XCA rejects both over- and
 * under-subscribed tables); this also guarantees every entry has a non-zero length, so decoding always
 * consumes bits. */
static int build_lookup(const uint8_t *lengths_table, uint16_t *lookup)
{
    uint16_t count_by_length[HUFF_MAX_BITS + 1] = {0};
    for (unsigned sym = 0; sym < HUFF_SYMBOLS; sym++)
        count_by_length[(lengths_table[sym / 2] >> (4 * (sym & 1))) & 0x0F]++;
    uint32_t next = 0;
    for (unsigned len = 1; len <= HUFF_MAX_BITS; len++) {
        if (!count_by_length[len])
            continue;
        uint32_t span = 1u << (HUFF_MAX_BITS - len);
        for (unsigned sym = 0; sym < HUFF_SYMBOLS; sym++) {
            if (((lengths_table[sym / 2] >> (4 * (sym & 1))) & 0x0F) != len)
                continue;
            if (span > HUFF_LOOKUP_SIZE - next)
                return ETL_ERR_DECOMPRESS;
            uint16_t entry = (uint16_t)(sym << HUFF_ENTRY_LEN_BITS | len);
            for (uint32_t i = 0; i < span; i++)
                lookup[next + i] = entry;
            next += span;
        }
    }
    return next == HUFF_LOOKUP_SIZE ? ETL_OK : ETL_ERR_DECOMPRESS;
}

/* The 32-bit bit window of MS-XCA. `extra` is ExtraBitCount (bits buffered beyond the current 16); `real`
 * counts how many bits at the top of the window came from the input — refills past the end shift in zeros
 * that must never be consumed. */
typedef struct bit_reader {
    const uint8_t *in;
    size_t in_len, ip;
    uint32_t bits;
    int extra;
    unsigned real;
} bit_reader;

static uint32_t next_word(bit_reader *br)
{
    if (br->in_len - br->ip < 2)
        return 0;
    br->real += 16;
    uint32_t w = etl_le16(br->in + br->ip);
    br->ip += 2;
    return w;
}

static void bit_reader_start(bit_reader *br)
{
    br->real = 0;
    br->bits = next_word(br) << 16;
    br->bits |= next_word(br);
    br->extra = 16;
}

/* Drops `n` (<= 15) bits; fails if that would consume bits the input never supplied. */
static int consume(bit_reader *br, unsigned n)
{
    if (n > br->real)
        return ETL_ERR_DECOMPRESS;
    br->real -= n;
    br->bits <<= n;
    br->extra -= (int)n;
    if (br->extra < 0) {
        br->bits |= next_word(br) << (unsigned)(-br->extra);
        br->extra += 16;
    }
    return ETL_OK;
}

/* Extra length bytes sit in the byte stream at the reader's position, not in the bit window. */
static int read_match_length(bit_reader *br, unsigned short_length, uint64_t *length)
{
    uint64_t len = short_length;
    if (len == HUFF_LENGTH_ESCAPE) {
        if (br->ip >= br->in_len)
            return ETL_ERR_DECOMPRESS;
        len = br->in[br->ip++];
        if (len == HUFF_BYTE_ESCAPE) {
            if (br->in_len - br->ip < 2)
                return ETL_ERR_DECOMPRESS;
            len = etl_le16(br->in + br->ip);
            br->ip += 2;
            if (len == 0) { /* 32-bit extension written by the MS-XCA §2.1.4.3 encoder */
                if (br->in_len - br->ip < 4)
                    return ETL_ERR_DECOMPRESS;
                len = etl_le32(br->in + br->ip);
                br->ip += 4;
            }
            if (len < HUFF_LENGTH_ESCAPE)
                return ETL_ERR_DECOMPRESS;
            *length = len + HUFF_MIN_MATCH;
            return ETL_OK;
        }
        len += HUFF_LENGTH_ESCAPE;
    }
    *length = len + HUFF_MIN_MATCH;
    return ETL_OK;
}

/* Decodes one block into out[op..). Returns ETL_OK with *done set when the end-of-stream symbol closed the
 * stream early. */
static int decode_block(bit_reader *br, const uint16_t *lookup, uint8_t *out, size_t out_cap, size_t *op_io,
                        int *done)
{
    size_t op = *op_io;
    size_t block_end = out_cap - op > HUFF_BLOCK_OUTPUT ? op + HUFF_BLOCK_OUTPUT : out_cap;
    while (op < block_end) {
        uint16_t entry = lookup[br->bits >> (32 - HUFF_MAX_BITS)];
        unsigned sym = entry >> HUFF_ENTRY_LEN_BITS;
        if (consume(br, entry & HUFF_ENTRY_LEN_MASK) != ETL_OK)
            return ETL_ERR_DECOMPRESS;
        if (sym < HUFF_LITERALS) {
            out[op++] = (uint8_t)sym;
            continue;
        }
        if (sym == HUFF_END_OF_STREAM && br->ip >= br->in_len) {
            *done = 1;
            break;
        }
        sym -= HUFF_LITERALS;
        unsigned offset_bits = sym >> 4;
        uint64_t length;
        if (read_match_length(br, sym & 15u, &length) != ETL_OK)
            return ETL_ERR_DECOMPRESS;
        /* 64-bit shift: offset_bits may be 0, and a 32-bit shift by 32 is undefined in C. */
        size_t distance = (size_t)((uint64_t)br->bits >> (32 - offset_bits)) + ((size_t)1 << offset_bits);
        if (offset_bits && consume(br, offset_bits) != ETL_OK)
            return ETL_ERR_DECOMPRESS;
        if (distance > op || length > out_cap - op)
            return ETL_ERR_DECOMPRESS;
        etl_lz_copy_match(out, op, distance, (size_t)length, out_cap);
        op += (size_t)length;
    }
    *op_io = op;
    return ETL_OK;
}

int etl_decompress_lz77_huffman(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                                size_t *produced)
{
    if (!produced || (!in && in_len) || (!out && out_cap))
        return ETL_ERR_ARG;
    *produced = 0;
    uint16_t *lookup = malloc(HUFF_LOOKUP_SIZE * sizeof *lookup);
    if (!lookup)
        return ETL_ERR_NOMEM;
    bit_reader br = {.in = in, .in_len = in_len};
    size_t op = 0;
    int rc = ETL_OK, done = 0;
    while (!done && op < out_cap) {
        /* Each block starts with a fresh table right where the previous block's last word was read. */
        if (in_len - br.ip < HUFF_TABLE_BYTES) {
            rc = ETL_ERR_DECOMPRESS;
            break;
        }
        rc = build_lookup(in + br.ip, lookup);
        if (rc != ETL_OK)
            break;
        br.ip += HUFF_TABLE_BYTES;
        bit_reader_start(&br);
        rc = decode_block(&br, lookup, out, out_cap, &op, &done);
        if (rc != ETL_OK)
            break;
    }
    free(lookup);
    if (rc == ETL_OK)
        *produced = op;
    return rc;
}
