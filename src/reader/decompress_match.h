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

/* etl_lz_copy_match for callers that guarantee ETL_LZ_FAST_SLACK writable bytes after the match end (and, as
 * there, 1 <= dist <= op): whole 16- or 8-byte steps, which may scribble up to 15 bytes past the match end
 * (overwritten by what follows before anything reads them). Same bytes as the byte-at-a-time loop. */
#define ETL_LZ_FAST_SLACK 16
static inline void etl_lz_copy_match_fast(uint8_t *dst, size_t dist, size_t len)
{
    uint8_t *end = dst + len;
    const uint8_t *src = dst - dist;
    if (dist >= 16) {
        do {
            memcpy(dst, src, 16);
            dst += 16;
            src += 16;
        } while (dst < end);
        return;
    }
    if (dist < 8) { /* overlapping: the first 8 bytes one at a time, then steps of a multiple of the period */
        /* the smallest multiple of dist that is at least 8: copying from that far back continues the period in
         * non-overlapping 8-byte steps */
        static const uint8_t period_step[8] = {0, 8, 8, 9, 8, 10, 12, 14};
        if (dist == 4) { /* the most common one (9 % of net.4.5.2.x86's matches): the 4 bytes twice */
            uint32_t unit;
            memcpy(&unit, src, 4);
            memcpy(dst, &unit, 4);
            memcpy(dst + 4, &unit, 4);
        } else {
            for (int i = 0; i < 8; i++)
                dst[i] = src[i];
        }
        dst += 8;
        src = dst - period_step[dist];
        if (dst >= end)
            return;
    }
    do {
        memcpy(dst, src, 8);
        dst += 8;
        src += 8;
    } while (dst < end);
}

#endif
