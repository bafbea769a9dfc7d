/* Back-reference copy shared by the LZ77-family decompressors. */
#ifndef ETL_READER_DECOMPRESS_MATCH_H
#define ETL_READER_DECOMPRESS_MATCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Appends `len` bytes copied from `dist` bytes back. The caller has checked 1 <= dist <= op and
 * len <= out_cap - op. Overlapping matches (dist < len) repeat the last `dist` bytes, exactly as the
 * byte-at-a-time loop of MS-XCA does. When at least 8 bytes of slack remain after the match, copies run in
 * 8-byte steps that may scribble up to 7 bytes past the match end (those bytes are overwritten by what
 * follows, and never lie beyond out_cap). */
static inline void etl_lz_copy_match(uint8_t *out, size_t op, size_t dist, size_t len, size_t out_cap)
{
    uint8_t *dst = out + op;
    const uint8_t *src = dst - dist;
    if (dist >= 8 && out_cap - op - len >= 8) {
        uint8_t *end = dst + len;
        do {
            memcpy(dst, src, 8);
            dst += 8;
            src += 8;
        } while (dst < end);
    } else if (dist == 1) {
        memset(dst, *src, len);
    } else {
        while (len--)
            *dst++ = *src++;
    }
}

#endif
