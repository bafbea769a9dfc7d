/* UTF-16LE → UTF-8 with replacement of invalid sequences: ETW strings are untrusted and must never reach an
 * output as invalid UTF-8. */
#include "util/utf.h"

size_t etl_utf8_encode(uint32_t cp, char out[4])
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
        size_t n = etl_utf8_encode(cp, tmp);
        if (o + n + 1 > cap) break;
        for (size_t k = 0; k < n; k++) dst[o++] = tmp[k];
    }
    if (cap) dst[o < cap ? o : cap - 1] = '\0';
    return i;
}

size_t etl_utf8_decode(const unsigned char *s, size_t length, uint32_t *cp)
{
    unsigned c = s[0];
    size_t need;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        need = 1, v = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2, v = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3, v = c & 0x07, min = 0x10000;
    } else {
        *cp = 0xFFFD;
        return 1;
    }
    size_t i;
    for (i = 1; i <= need; i++) {
        if (i >= length || (s[i] & 0xC0) != 0x80) {
            *cp = 0xFFFD;  /* truncated: consume only the valid prefix */
            return i;
        }
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) v = 0xFFFD;
    *cp = v;
    return need + 1;
}
