/* XML text in one pass (issue 14): the same bytes as etl_xml_text_clean (util/xml_text.h) followed by
 * libxml2's xmlAttrSerializeTxtContent on a UTF-8 document — & < > " as entities, TAB/LF/CR as character
 * references, other text as is — without the intermediate copies. tests/test_xml_escape.c checks the
 * equivalence against libxml2 on every string of every corpus trace and on crafted bytes. */
#ifndef ETL_FORMATS_XML_ESCAPE_H
#define ETL_FORMATS_XML_ESCAPE_H

#include "fast_text.h"

/* Appends text (NUL-terminated; NULL appends nothing) cleaned and escaped. */
void fmt_xml_escape(fmt_buf *out, const char *text);

/* The same for the n bytes of text (no NUL among them) written at p, which has room for
 * FMT_XML_ESCAPE_GROWTH * n bytes ('"' becomes "&quot;"); returns the end. */
#define FMT_XML_ESCAPE_GROWTH 6
char *fmt_xml_escape_to(char *p, const char *text, size_t n);

/* Bytes 0x80 and up, below 0x20, or one of & < > " in the 8 bytes of x (exact "any" test: the zero-byte
 * trick may flag bytes after a true hit, never without one). '<' 0x3C / '>' 0x3E differ in bit 1 and
 * '"' 0x22 / '&' 0x26 in bit 2, so one comparison covers each pair. */
static inline uint64_t fmt_xml_special(uint64_t x)
{
    return fmt_swar_nonprint(x) | fmt_swar_zero((x | 0x02 * FMT_ONES) ^ (0x3E * FMT_ONES)) |
           fmt_swar_zero((x | 0x04 * FMT_ONES) ^ (0x26 * FMT_ONES));
}

/* Per byte: 0 when it is copied as is (NUL, controls, non-ASCII and & < > " are not). */
extern const unsigned char fmt_xml_byte_class[256];

#if defined(__SSE2__)
/* One bit per byte of x that fmt_xml_byte_class does not copy as is (exact, unlike the 8-byte SWAR test): a
 * signed compare with 0x20 catches NUL, the controls and every byte from 0x80; '<' / '>' and '"' / '&' are
 * paired as in fmt_xml_special. */
static inline unsigned fmt_xml_special_v(__m128i x)
{
    __m128i m = _mm_cmplt_epi8(x, _mm_set1_epi8(0x20));
    m = _mm_or_si128(m, _mm_cmpeq_epi8(_mm_or_si128(x, _mm_set1_epi8(0x02)), _mm_set1_epi8(0x3E)));
    m = _mm_or_si128(m, _mm_cmpeq_epi8(_mm_or_si128(x, _mm_set1_epi8(0x04)), _mm_set1_epi8(0x26)));
    return (unsigned)_mm_movemask_epi8(m);
}

/* The same for the 16 bytes at the 16-aligned `block` (fmt_scan16's test: not sanitized, like it). */
__attribute__((no_sanitize_address)) static inline unsigned fmt_xml_special16(const void *block)
{
    return fmt_xml_special_v(_mm_load_si128((const __m128i *)block));
}

/* The length of text, and in *clean whether it is all bytes copied as is (fmt_scan16: values are many and
 * short, no strlen and no byte loop). */
__attribute__((no_sanitize_address)) static inline size_t fmt_xml_scan(const char *text, int *clean)
{
    return fmt_scan16(text, clean, fmt_xml_special16);
}
#else
/* The length of text, and in *clean whether it is all bytes copied as is, in one pass (most values are
 * short: a table per byte beats strlen and a second scan). */
static inline size_t fmt_xml_scan(const char *text, int *clean)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t k = 0;
    while (!fmt_xml_byte_class[s[k]]) k++;
    *clean = s[k] == 0;
    return *clean ? k : k + strlen(text + k);
}
#endif

#endif
