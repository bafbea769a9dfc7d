/* Decompression of one compressed ETL buffer payload (etl-format.md §3.2). Microsoft does not document the
 * algorithm; every known reader uses plain LZ77, so it is tried first, and the other MS-XCA formats are kept as
 * fallbacks. A candidate is accepted only when it yields exactly the length the buffer header promises. */
#include "reader/decompress.h"

#include "etl/etl.h"

typedef int (*decompress_fn)(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *produced);

int etl_decompress_etl_buffer(const uint8_t *in, size_t in_len, uint8_t *out, size_t expected,
                              etl_compression_format *format_used)
{
    static const struct {
        decompress_fn fn;
        etl_compression_format format;
    } candidates[] = {
        {etl_decompress_plain_lz77, ETL_COMPRESSION_PLAIN_LZ77},
        {etl_decompress_lz77_huffman, ETL_COMPRESSION_LZ77_HUFFMAN},
        {etl_decompress_lznt1, ETL_COMPRESSION_LZNT1},
    };
    if (format_used)
        *format_used = ETL_COMPRESSION_NONE;
    if ((!in && in_len) || (!out && expected))
        return ETL_ERR_ARG;
    int rc = ETL_ERR_DECOMPRESS;
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        size_t produced = 0;
        rc = candidates[i].fn(in, in_len, out, expected, &produced);
        if (rc == ETL_OK && produced == expected) {
            if (format_used)
                *format_used = candidates[i].format;
            return ETL_OK;
        }
        if (rc == ETL_ERR_NOMEM)
            return rc;
    }
    return ETL_ERR_DECOMPRESS;
}
