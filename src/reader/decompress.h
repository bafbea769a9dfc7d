/* Decompressors for compressed ETL buffers (MS-XCA). Each returns ETL_OK and sets *produced on success,
 * or ETL_ERR_DECOMPRESS when the input is malformed or would write past out_cap. They never read past
 * in_len nor write past out_cap. A stream that ends early gives ETL_OK with *produced < out_cap; bytes of out
 * beyond *produced are unspecified. LZ77+Huffman allocates a 64 KiB decoding table (ETL_ERR_NOMEM). */
#ifndef ETL_READER_DECOMPRESS_H
#define ETL_READER_DECOMPRESS_H

#include <stddef.h>
#include <stdint.h>

int etl_decompress_plain_lz77(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *produced);
int etl_decompress_lz77_huffman(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                                size_t *produced);
int etl_decompress_lznt1(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *produced);

typedef enum etl_compression_format {
    ETL_COMPRESSION_NONE = 0,
    ETL_COMPRESSION_PLAIN_LZ77,
    ETL_COMPRESSION_LZ77_HUFFMAN,
    ETL_COMPRESSION_LZNT1
} etl_compression_format;

/* What ETL buffers use: plain LZ77 first, then LZ77+Huffman, then LZNT1; a result is accepted only when it
 * produces exactly `expected` bytes. Returns ETL_OK and the format that worked in *format_used. */
int etl_decompress_etl_buffer(const uint8_t *in, size_t in_len, uint8_t *out, size_t expected,
                              etl_compression_format *format_used);

#endif
