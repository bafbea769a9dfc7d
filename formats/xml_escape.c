/* One-pass XML cleaning + escaping (see xml_escape.h). */
#include "xml_escape.h"

#include <stdint.h>
#include <string.h>

#include "fast_text.h"
#include "util/xml_text.h"

/* 0: copied as is; 1: escaped; 2: needs a look (NUL, other C0 controls, non-ASCII). */
enum { COPY = 0, ESCAPE = 1, CHECK = 2 };
#define byte_class fmt_xml_byte_class

const unsigned char fmt_xml_byte_class[256] = {
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

static char *put_escape(char *p, unsigned char c)
{
    switch (c) {
    case '&': return FMT_W_LIT(p, "&amp;");
    case '<': return FMT_W_LIT(p, "&lt;");
    case '>': return FMT_W_LIT(p, "&gt;");
    case '"': return FMT_W_LIT(p, "&quot;");
    case '\t': return FMT_W_LIT(p, "&#9;");
    case '\n': return FMT_W_LIT(p, "&#10;");
    default: return FMT_W_LIT(p, "&#13;");
    }
}

/* The SWAR test of xml_escape.h. */
static inline uint64_t needs_work(uint64_t x) { return fmt_xml_special(x); }

/* The first byte in [s, end) that is not COPY (end when none). `begin` is the start of the text: every byte
 * in [begin, end) may be read. 16 bytes at a time with SSE2 (a tail shorter than that: the text's last 16
 * bytes, those before s masked off), else 8 at a time; the lowest flag of needs_work is always a true hit,
 * and the final byte loop steps over the false ones a masked overlapping word can show. */
static inline const unsigned char *skip_clean(const unsigned char *begin, const unsigned char *s,
                                              const unsigned char *end)
{
    uint64_t x, m;
#if defined(__SSE2__)
    if (end - begin >= 16) {
        for (; end - s >= 16; s += 16) {
            unsigned m16 = fmt_xml_special_v(_mm_loadu_si128((const __m128i *)(const void *)s));
            if (m16) return s + __builtin_ctz(m16);
        }
        if (s == end) return end;
        unsigned m16 = fmt_xml_special_v(_mm_loadu_si128((const __m128i *)(const void *)(end - 16))) &
                       (0xFFFFu << (16 - (end - s)));
        return m16 ? end - 16 + __builtin_ctz(m16) : end;
    }
#endif
    while (end - s >= 8) {
        memcpy(&x, s, 8);
        if ((m = needs_work(x)) != 0) {
            s += __builtin_ctzll(m) >> 3;
            goto exact;
        }
        s += 8;
    }
    if (s == end) return end;
    if (end - begin >= 8) { /* the last 8 bytes, those before s masked off */
        memcpy(&x, end - 8, 8);
        m = needs_work(x) & ~0ull << (8 * (8 - (end - s)));
        if (!m) return end;
        s = end - 8 + (__builtin_ctzll(m) >> 3);
    } else if (end - s >= 4) { /* a short text: its first and last 4 bytes */
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, end - 4, 4);
        if (!needs_work((uint64_t)a | (uint64_t)b << 32)) return end;
    }
exact:
    while (s < end && byte_class[*s] == COPY) s++;
    return s;
}

char *fmt_xml_escape_to(char *p, const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text, *end = s + n;
    for (;;) {
#if defined(__SSE2__)
        /* copied 16 bytes at a time while they are clean: a block holding a byte that needs work is stored
         * whole and its part from that byte on overwritten (the room for the rest is at least 16 bytes) */
        while (end - s >= 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
            _mm_storeu_si128((__m128i *)(void *)p, x);
            unsigned m = fmt_xml_special_v(x);
            if (m) {
                unsigned k = (unsigned)__builtin_ctz(m);
                s += k, p += k;
                goto work;
            }
            s += 16, p += 16;
        }
#endif
        {
            const unsigned char *run = s;
            s = skip_clean((const unsigned char *)text, s, end);
            p = fmt_w_mem(p, (const char *)run, (size_t)(s - run));
            if (s == end) return p;
        }
#if defined(__SSE2__)
    work:
#endif
        if (byte_class[*s] == ESCAPE) {
            if (s[0] == '\r' && end - s >= 2 && s[1] == '\n') { /* message lines end in CRLF */
                FMT_W_LIT(p, "&#13;&#10;");
                s += 2;
                continue;
            }
            p = put_escape(p, *s++);
            continue;
        }
        /* a control character or a UTF-8 sequence: the rules of etl_xml_text_clean */
        size_t avail = (size_t)(end - s) < 4 ? (size_t)(end - s) : 4;
        uint32_t cp;
        size_t used = etl_utf8_decode(s, avail, &cp);
        int literal_replacement = used == 3 && s[0] == 0xEF && s[1] == 0xBF && s[2] == 0xBD;
        if (!etl_xml_char_allowed(cp) || (cp == 0xFFFD && !literal_replacement))
            FMT_W_LIT(p, "\xEF\xBF\xBD");
        else
            p = fmt_w_mem(p, (const char *)s, used);
        s += used;
    }
}

void fmt_xml_escape(fmt_buf *out, const char *text)
{
    if (!text) return;
    size_t n = strlen(text);
    if (n > SIZE_MAX / FMT_XML_ESCAPE_GROWTH) return;
    char *p = fmt_put_begin(out, n * FMT_XML_ESCAPE_GROWTH);
    if (p) fmt_put_end(out, fmt_xml_escape_to(p, text, n));
}
