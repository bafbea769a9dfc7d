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

/* The 32-bit bit window of MS-XCA. `extra` is ExtraBitCount: bits buffered beyond the current 16. Like the
 * specification's decoder, refilling reads the next word as soon as the window runs low, and a word that is
 * not there is an error (the encoder's final flush always leaves one). */
typedef struct bit_reader {
    const uint8_t *in;
    size_t in_len, ip;
    uint32_t bits;
    int extra;
} bit_reader;

static int bit_reader_start(bit_reader *br)
{
    if (br->in_len - br->ip < 4)
        return ETL_ERR_DECOMPRESS;
    br->bits = (uint32_t)etl_le16(br->in + br->ip) << 16 | etl_le16(br->in + br->ip + 2);
    br->ip += 4;
    br->extra = 16;
    return ETL_OK;
}

/* Drops `n` (<= 15) bits and refills. */
static int consume(bit_reader *br, unsigned n)
{
    br->bits <<= n;
    br->extra -= (int)n;
    if (br->extra < 0) {
        if (br->in_len - br->ip < 2)
            return ETL_ERR_DECOMPRESS;
        br->bits |= (uint32_t)etl_le16(br->in + br->ip) << (unsigned)(-br->extra);
        br->ip += 2;
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

/* Decodes one block (up to 65536 output bytes) into out[op..). Sets *done when the stream ended: the
 * end-of-stream symbol with all input read, either right where the output is full or earlier (a short,
 * successful result). With the output full, anything but that symbol would write past out_cap. */
static int decode_block(bit_reader *br, const uint16_t *lookup, uint8_t *out, size_t out_cap, size_t *op_io,
                        int *done)
{
    size_t op = *op_io;
    const size_t block_end = op + HUFF_BLOCK_OUTPUT;
    while (op < block_end) {
        uint16_t entry = lookup[br->bits >> (32 - HUFF_MAX_BITS)];
        unsigned sym = entry >> HUFF_ENTRY_LEN_BITS;
        if (consume(br, entry & HUFF_ENTRY_LEN_MASK) != ETL_OK)
            return ETL_ERR_DECOMPRESS;
        if (sym == HUFF_END_OF_STREAM && br->ip >= br->in_len) {
            *done = 1;
            break;
        }
        if (op == out_cap)
            return ETL_ERR_DECOMPRESS;
        if (sym < HUFF_LITERALS) {
            out[op++] = (uint8_t)sym;
            continue;
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
    while (!done) {
        /* Each block starts with a fresh table right where the previous block's last word was read; too little
         * input for one ends the stream, successfully only if the output is complete (MS-XCA §2.2.4). */
        if (in_len - br.ip < HUFF_TABLE_BYTES) {
            rc = op == out_cap ? ETL_OK : ETL_ERR_DECOMPRESS;
            break;
        }
        rc = build_lookup(in + br.ip, lookup);
        if (rc != ETL_OK)
            break;
        br.ip += HUFF_TABLE_BYTES;
        rc = bit_reader_start(&br);
        if (rc != ETL_OK)
            break;
        rc = decode_block(&br, lookup, out, out_cap, &op, &done);
        if (rc != ETL_OK)
            break;
    }
    free(lookup);
    if (rc == ETL_OK)
        *produced = op;
    return rc;
}
