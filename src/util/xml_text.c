/* Replacement of what XML 1.0 cannot carry (see xml_text.h); escaping itself is left to libxml2. */
#include "util/xml_text.h"

#include <string.h>

#include "util/utf.h"

int etl_xml_char_allowed(uint32_t cp)
{
    return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
           (cp >= 0x10000 && cp <= 0x10FFFF);
}

static int is_plain_ascii(unsigned char c) { return (c >= 0x20 && c < 0x80) || c == '\t' || c == '\n' || c == '\r'; }

/* A literal U+FFFD in the input is valid text; a decoded U+FFFD from a malformed sequence is not. */
static int is_literal_replacement(const unsigned char *s, size_t used)
{
    return used == 3 && s[0] == 0xEF && s[1] == 0xBF && s[2] == 0xBD;
}

int etl_xml_text_is_clean(const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text);
    for (size_t i = 0; i < n;) {
        if (is_plain_ascii(s[i])) {
            i++;
            continue;
        }
        uint32_t cp;
        size_t used = etl_utf8_decode(s + i, n - i, &cp);
        if (!etl_xml_char_allowed(cp) || (cp == 0xFFFD && !is_literal_replacement(s + i, used))) return 0;
        i += used;
    }
    return 1;
}

void etl_xml_text_clean(etl_textbuf *out, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text);
    for (size_t i = 0; i < n;) {
        size_t run = 0; /* allowed ASCII is copied in blocks */
        while (i + run < n && is_plain_ascii(s[i + run])) run++;
        etl_textbuf_append(out, text + i, run);
        i += run;
        if (i >= n) break;
        uint32_t cp;
        size_t used = etl_utf8_decode(s + i, n - i, &cp);
        if (!etl_xml_char_allowed(cp)) cp = 0xFFFD;
        char utf8[4];
        if (cp == 0xFFFD)
            etl_textbuf_append(out, utf8, etl_utf8_encode(cp, utf8));
        else
            etl_textbuf_append(out, text + i, used);
        i += used;
    }
}
