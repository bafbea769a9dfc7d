/* Typed JSON values of decoded fields, shared by the writers that produce JSON (jsonl, ecs) or JSON cells
 * (split tables). The typing rule itself is src/decode/value_kind.h; this file only spells it in JSON. */
#ifndef ETL_FORMATS_JSON_VALUE_H
#define ETL_FORMATS_JSON_VALUE_H

#include <string.h>

#include "fast_text.h"
#include "format_util.h"

/* Version of the typed JSON layout (the "schema" member of every JSON Lines object). */
#define FMT_JSON_SCHEMA_VERSION 1
#define FMT_JSON_SCHEMA_TEXT "1"

/* A JSON string (RFC 8259 escapes; malformed UTF-8 becomes U+FFFD). NULL writes "". */
void fmt_json_string(fmt_buf *tb, const char *value);

/* Per byte: 1 when a JSON string writes it otherwise than as is (NUL ends it; controls, quote, backslash;
 * non-ASCII for the U+FFFD checks). */
extern const unsigned char fmt_json_special[256];

/* The number of bytes at the start of text that a JSON string copies as is (text[result] is special: NUL at
 * the latest): the length of a text that needs no escaping. Four table tests per step, each byte read only
 * after the one before it was found not NUL (strlen and then 16-byte SSE2 blocks past the first 16 bytes
 * measured worse on the corpus). */
static inline size_t fmt_json_clean_length(const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t n = 0;; n += 4) {
        if (fmt_json_special[s[n]]) return n;
        if (fmt_json_special[s[n + 1]]) return n + 1;
        if (fmt_json_special[s[n + 2]]) return n + 2;
        if (fmt_json_special[s[n + 3]]) return n + 3;
    }
}

#if defined(__SSE2__)
/* One bit per byte of the 16 bytes at the 16-aligned `block` that fmt_json_special flags (exact: a signed
 * compare with 0x20 catches NUL, the controls and every byte from 0x80; then '"' and '\\'). fmt_scan16's
 * test, not sanitized like it. */
__attribute__((no_sanitize_address)) static inline unsigned fmt_json_special16(const void *block)
{
    __m128i v = _mm_load_si128((const __m128i *)block);
    __m128i hit = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
                               _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
    return (unsigned)_mm_movemask_epi8(hit);
}

/* The length of text, and in *clean whether a JSON string copies all of it as is (no escape, no U+FFFD
 * check): one pass over aligned 16-byte blocks (fmt_scan16; tests/test_json_escape.c checks it on every
 * corpus string and on texts ending at a page's end). */
__attribute__((no_sanitize_address)) static inline size_t fmt_json_scan(const char *text, int *clean)
{
    return fmt_scan16(text, clean, fmt_json_special16);
}
#else
static inline size_t fmt_json_scan(const char *text, int *clean)
{
    size_t n = fmt_json_clean_length(text);
    *clean = text[n] == 0;
    return *clean ? n : n + strlen(text + n);
}
#endif

/* An unsigned integer: a JSON number, or with `as_string` its decimal digits as a string. */
void fmt_json_u64(fmt_buf *tb, uint64_t value, int as_string);

/* Flags of fmt_json_members / fmt_json_value. */
enum {
    FMT_JSON_WIDE_STRINGS = 0x1,  /* integers of 64-bit in-types (and mapped numbers of them) as strings */
    FMT_JSON_NO_MAP_NUMBERS = 0x2 /* no "NAME.value" members (Elasticsearch would read the dot as a path) */
};

/* The members "NAME":VALUE of fields [first, end) of `ev`, separated by commas (no braces around them):
 * arrays become JSON arrays, structs objects; a mapped value is followed by "NAME.value":NUMBER (an array of
 * mapped values by "NAME.value":[...]) unless FMT_JSON_NO_MAP_NUMBERS.
 * Markers that do not match the open container are ignored and what is still open at `end` is closed, so the
 * text is valid whatever the decoder delivered. Returns the number of members written. */
size_t fmt_json_members(fmt_buf *tb, const etl_decoded_event *ev, size_t first, size_t end, int flags);

/* fmt_json_members of all of ev's fields, with the member keys of its schema's properties taken from `keys`
 * (a static text whose property parts are fmt_json_key's text, text_cache.h). */
struct fmt_static_text;
size_t fmt_json_fields(fmt_buf *tb, const etl_decoded_event *ev, int flags, const struct fmt_static_text *keys);

/* "NAME": (a member key). */
void fmt_json_key(fmt_buf *tb, const char *name);

/* One value: field `first` (a scalar, or a struct/array up to its matching end marker, at most `end`). */
void fmt_json_value(fmt_buf *tb, const etl_decoded_event *ev, size_t first, size_t end, int flags);

/* One JSON Lines object for `ev`, newline included (the layout is described in jsonl.c). */
void fmt_jsonl_line(fmt_buf *tb, fmt_clock *clock, const etl_writer_options *options, const etl_decoded_event *ev);

#endif
