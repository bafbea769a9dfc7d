/* UTF-16LE → UTF-8 with replacement of invalid sequences: ETW strings are untrusted and must never reach an
 * output as invalid UTF-8. */
#include "util/utf.h"

static size_t put_utf8(uint32_t cp, char *out)
{
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) { out[0] = (char)(0xC0 | cp >> 6); out[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t etl_utf16le_to_utf8(const uint8_t *src, size_t units, char *dst, size_t cap)
{
    size_t i = 0, o = 0;
    while (i < units) {
        uint32_t u = (uint32_t)(src[2 * i] | src[2 * i + 1] << 8);
        i++;
        if (u == 0) break;
        uint32_t cp = u;
        if (u >= 0xD800 && u <= 0xDBFF) {
            uint32_t lo = i < units ? (uint32_t)(src[2 * i] | src[2 * i + 1] << 8) : 0;
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                i++;
            } else {
                cp = 0xFFFD;
            }
        } else if (u >= 0xDC00 && u <= 0xDFFF) {
            cp = 0xFFFD;
        }
        char tmp[4];
        size_t n = put_utf8(cp, tmp);
        if (o + n + 1 > cap) break;
        for (size_t k = 0; k < n; k++) dst[o++] = tmp[k];
    }
    if (cap) dst[o < cap ? o : cap - 1] = '\0';
    return i;
}
