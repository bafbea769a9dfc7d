/* The one place that turns a property value (its bytes, in/out type, map) into UTF-8 text.
 * Every writer shares it; conventions follow tracerpt/TDH (docs/etl-format.md §5.6). */
#ifndef ETL_DECODE_RENDER_H
#define ETL_DECODE_RENDER_H

#include <stddef.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h> /* text scans 16 bytes a step (render.c, walk.c) */
#endif

#include "util/textbuf.h"
#include "etl/etl_schema.h"

typedef struct etl_render_context {
    uint8_t pointer_size;    /* 4 or 8, from the record */
    const etl_trace *trace;  /* clock for ETWTIME (raw session timestamps) */
    uint32_t file_index;     /* which file's clock */
    /* etl_trace_raw_to_filetime, or NULL to print ETWTIME values as raw counts (keeps the renderer free of
     * the reader) */
    int64_t (*raw_to_filetime)(const etl_trace *trace, size_t file_index, int64_t raw);
} etl_render_context;

/* Appends the text of one value. `value`/`size` are the value's own bytes as sized by the walker: for counted
 * strings/binaries the bytes after the count prefix, for WBEMSID the SID after the TOKEN_USER (empty when the
 * field held no SID), for NUL-terminated strings the characters without the terminator. */
void etl_render_value(etl_textbuf *out, uint16_t in_type, uint16_t out_type, const etl_map_info *map,
                      const uint8_t *value, size_t size, const etl_render_context *ctx);

/* Building blocks, also used by writers for envelopes (BinaryEventData etc.). */
void etl_render_utf16(etl_textbuf *out, const uint8_t *p, size_t size);  /* stops at NUL; bad surrogates → U+FFFD */
void etl_render_ansi(etl_textbuf *out, const uint8_t *p, size_t size);   /* stops at NUL; UTF-8 kept, else CP-1252 */
void etl_render_utf8(etl_textbuf *out, const uint8_t *p, size_t size);   /* stops at NUL; bad bytes → U+FFFD */
void etl_render_hex(etl_textbuf *out, const uint8_t *p, size_t size, int with_prefix); /* upper case */
void etl_render_guid(etl_textbuf *out, const uint8_t *p);                /* {lower-case} */
void etl_render_sid(etl_textbuf *out, const uint8_t *p, size_t size);    /* S-1-5-21-…; hex when malformed */
void etl_render_ipv6(etl_textbuf *out, const uint8_t *p);                /* RFC 5952 */
void etl_render_filetime(etl_textbuf *out, int64_t filetime);            /* ISO-8601 UTC, 9 fraction digits */
void etl_render_double(etl_textbuf *out, double v, int is_float);        /* shortest round-trip */
/* Appends the UTF-8 encoding of one code point (invalid ones become U+FFFD). */
void etl_render_codepoint(etl_textbuf *out, uint32_t cp);

/* Whether one of the four UTF-16 units in x (8 payload bytes read little-endian) is 0: the word-at-a-time
 * test (a lane that borrows sets its top bit only if it or a lane below it is 0), for terminator scans. */
static inline int etl_utf16_has_zero(uint64_t x)
{
    return ((x - 0x0001000100010001ull) & ~x & 0x8000800080008000ull) != 0;
}

/* True when `p`/`size` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF). */
int etl_utf8_valid(const uint8_t *p, size_t size);

/* snprintf into a full buffer may cut a multi-byte character at its end: drops that partial character. */
void etl_utf8_trim_partial(char *text);

#endif
