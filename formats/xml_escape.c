/* One-pass XML cleaning + escaping (see xml_escape.h). */
#include "xml_escape.h"

#include <stdint.h>
#include <string.h>

#include "util/xml_text.h"

/* 0: copied as is; 1: escaped; 2: needs a look (NUL, other C0 controls, non-ASCII). */
enum { COPY = 0, ESCAPE = 1, CHECK = 2 };

static const unsigned char byte_class[256] = {
    [0] = CHECK, [1] = CHECK, [2] = CHECK, [3] = CHECK, [4] = CHECK, [5] = CHECK, [6] = CHECK, [7] = CHECK,
    [8] = CHECK, ['\t'] = ESCAPE, ['\n'] = ESCAPE, [11] = CHECK, [12] = CHECK, ['\r'] = ESCAPE, [14] = CHECK,
    [15] = CHECK, [16] = CHECK, [17] = CHECK, [18] = CHECK, [19] = CHECK, [20] = CHECK, [21] = CHECK,
    [22] = CHECK, [23] = CHECK, [24] = CHECK, [25] = CHECK, [26] = CHECK, [27] = CHECK, [28] = CHECK,
    [29] = CHECK, [30] = CHECK, [31] = CHECK, ['&'] = ESCAPE, ['<'] = ESCAPE, ['>'] = ESCAPE, ['"'] = ESCAPE,
#define C16(x) [x] = CHECK, [x + 1] = CHECK, [x + 2] = CHECK, [x + 3] = CHECK, [x + 4] = CHECK, [x + 5] = CHECK, \
    [x + 6] = CHECK, [x + 7] = CHECK, [x + 8] = CHECK, [x + 9] = CHECK, [x + 10] = CHECK, [x + 11] = CHECK,     \
    [x + 12] = CHECK, [x + 13] = CHECK, [x + 14] = CHECK, [x + 15] = CHECK
    C16(0x80), C16(0x90), C16(0xA0), C16(0xB0), C16(0xC0), C16(0xD0), C16(0xE0), C16(0xF0),
#undef C16
};

static void put_escape(fmt_buf *out, unsigned char c)
{
    switch (c) {
    case '&': etl_textbuf_append(out, "&amp;", 5); break;
    case '<': etl_textbuf_append(out, "&lt;", 4); break;
    case '>': etl_textbuf_append(out, "&gt;", 4); break;
    case '"': etl_textbuf_append(out, "&quot;", 6); break;
    case '\t': etl_textbuf_append(out, "&#9;", 4); break;
    case '\n': etl_textbuf_append(out, "&#10;", 5); break;
    default: etl_textbuf_append(out, "&#13;", 5); break;
    }
}

/* Bytes 0x80 and up, below 0x20, or one of & < > " in the 8 bytes of x (exact "any" test: the zero-byte
 * trick may flag bytes after a true hit, never without one). '<' 0x3C / '>' 0x3E differ in bit 1 and
 * '"' 0x22 / '&' 0x26 in bit 2, so one comparison covers each pair. */
#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull
static inline uint64_t has_zero(uint64_t y) { return (y - ONES) & ~y & HIGHS; }
static inline uint64_t needs_work(uint64_t x)
{
    return (x & HIGHS) | ((x - 0x20 * ONES) & ~x & HIGHS) | has_zero((x | 0x02 * ONES) ^ (0x3E * ONES)) |
           has_zero((x | 0x04 * ONES) ^ (0x26 * ONES));
}

void fmt_xml_escape(fmt_buf *out, const char *text)
{
    if (!text) return;
    /* the common case: nothing to change, checked 8 bytes at a time and copied at once */
    size_t n = strlen(text), i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, text + i, 8);
        if (needs_work(x)) break;
    }
    if (i + 8 > n) {
        while (i < n && byte_class[(unsigned char)text[i]] == COPY) i++;
        if (i == n) {
            etl_textbuf_append(out, text, n);
            return;
        }
    }
    const unsigned char *s = (const unsigned char *)text;
    for (;;) {
        const unsigned char *run = s;
        while (byte_class[*s] == COPY) s++;
        etl_textbuf_append(out, (const char *)run, (size_t)(s - run));
        if (byte_class[*s] == ESCAPE) {
            put_escape(out, *s++);
            continue;
        }
        if (*s == 0) return;
        /* a control character or a UTF-8 sequence: the rules of etl_xml_text_clean */
        size_t avail = 1;
        while (avail < 4 && s[avail]) avail++;
        uint32_t cp;
        size_t used = etl_utf8_decode(s, avail, &cp);
        int literal_replacement = used == 3 && s[0] == 0xEF && s[1] == 0xBF && s[2] == 0xBD;
        if (!etl_xml_char_allowed(cp) || (cp == 0xFFFD && !literal_replacement))
            etl_textbuf_append(out, "\xEF\xBF\xBD", 3);
        else
            etl_textbuf_append(out, (const char *)s, used);
        s += used;
    }
}
