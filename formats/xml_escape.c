/* One-pass XML cleaning + escaping (see xml_escape.h). */
#include "xml_escape.h"

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

void fmt_xml_escape(fmt_buf *out, const char *text)
{
    if (!text) return;
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
