/* Rendering of property values to UTF-8 text — the single place every writer relies on.
 *
 * Conventions (docs/etl-format.md §5.6, docs/tracerpt.md §1.3):
 *  - integers in decimal; HexInt*, CodePointer, Pointer and SizeT as 0x + upper-case hex without zero padding
 *    (TDH's "0x%X" style; tracerpt prints kernel pointers as 0xFFFFFA800143FA80, Keywords as 0x800 — a
 *    null pointer is "0x0", not padded to the pointer width, so 32- and 64-bit traces render alike);
 *  - NTSTATUS / HRESULT / Win32 error / ErrorCode as 0x%08X (no message text: that needs Windows' tables);
 *  - GUIDs in braces, lower case (tracerpt R3: <Data Name="id">{aeb41e37-cf40-4317-a989-7d5aa6a2dc87}</Data>);
 *  - booleans "true"/"false" (the EventLog XML spelling);
 *  - date-times ISO-8601 UTC with 9 fraction digits, the form of tracerpt's SystemTime;
 *  - binary "0x" + upper-case hex; an empty binary is "";
 *  - value maps print the entry name (without one, the number as its out-type says); bitmaps print every
 *    matching name joined by " | " (TDH's separator), plus 0x… for bits no entry covers (0x… alone if none);
 *  - strings are always valid UTF-8: UTF-16 surrogates that do not pair become U+FFFD, ANSI text that is not
 *    valid UTF-8 is read as Windows-1252.
 * XML-forbidden control characters are the XML writer's business, not ours. */
#include "decode/render.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/render_int.h"
#include "util/le.h"

/* ---- text encodings ---------------------------------------------------------------------------------- */

void etl_render_codepoint(etl_textbuf *out, uint32_t cp)
{
    char b[4];
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
    if (cp < 0x80) {
        b[0] = (char)cp;
        etl_textbuf_append(out, b, 1);
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | cp >> 6);
        b[1] = (char)(0x80 | (cp & 0x3F));
        etl_textbuf_append(out, b, 2);
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | cp >> 12);
        b[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        etl_textbuf_append(out, b, 3);
    } else {
        b[0] = (char)(0xF0 | cp >> 18);
        b[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        b[2] = (char)(0x80 | (cp >> 6 & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        etl_textbuf_append(out, b, 4);
    }
}

void etl_render_utf16(etl_textbuf *out, const uint8_t *p, size_t size)
{
    size_t units = size / 2;
    /* one unit needs at most 3 bytes (a surrogate pair: 4 bytes for 2 units): reserve once, write directly */
    if (units > (SIZE_MAX - 1) / 3 || etl_textbuf_reserve(out, 3 * units) != 0) return;
    char *d = out->data + out->length;
    for (size_t i = 0; i < units; i++) {
#if defined(__SSE2__)
        /* runs of ASCII (most text) eight units at a time: each unit - 1 in 0..0x7E (none 0, none >= 0x80) */
        for (; i + 8 <= units; i += 8, d += 8) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + 2 * i));
            __m128i y = _mm_sub_epi16(x, _mm_set1_epi16(1));
            __m128i ascii = _mm_and_si128(_mm_cmplt_epi16(y, _mm_set1_epi16(0x7F)), _mm_cmpgt_epi16(y, _mm_set1_epi16(-1)));
            if (_mm_movemask_epi8(ascii) != 0xFFFF) break;
            _mm_storel_epi64((__m128i *)(void *)d, _mm_packus_epi16(x, x));
        }
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* runs of ASCII four units at a time: none >= 0x80, none 0 */
        for (uint64_t x; i + 4 <= units; i += 4, d += 4) {
            memcpy(&x, p + 2 * i, 8);
            if ((x & 0xFF80FF80FF80FF80ull) || etl_utf16_has_zero(x)) break;
            x = (x | x >> 8) & 0x0000FFFF0000FFFFull;
            uint32_t four = (uint32_t)(x | x >> 16);
            memcpy(d, &four, 4);
        }
        if (i >= units) break;
#endif
        uint32_t u = etl_le16(p + 2 * i);
        if (u < 0x80) {
            if (u == 0) break;
            *d++ = (char)u;
            continue;
        }
        if (u >= 0xD800 && u <= 0xDBFF && i + 1 < units) {
            uint32_t lo = etl_le16(p + 2 * i + 2);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                i++;
            }
        }
        if (u >= 0xD800 && u <= 0xDFFF) u = 0xFFFD; /* a surrogate that does not pair */
        if (u < 0x800) {
            *d++ = (char)(0xC0 | u >> 6);
            *d++ = (char)(0x80 | (u & 0x3F));
        } else if (u < 0x10000) {
            *d++ = (char)(0xE0 | u >> 12);
            *d++ = (char)(0x80 | (u >> 6 & 0x3F));
            *d++ = (char)(0x80 | (u & 0x3F));
        } else {
            *d++ = (char)(0xF0 | u >> 18);
            *d++ = (char)(0x80 | (u >> 12 & 0x3F));
            *d++ = (char)(0x80 | (u >> 6 & 0x3F));
            *d++ = (char)(0x80 | (u & 0x3F));
        }
    }
    out->length = (size_t)(d - out->data);
    out->data[out->length] = '\0';
}

/* Length of the well-formed UTF-8 sequence at p (1..4), or 0 when it is not one. */
static size_t utf8_sequence(const uint8_t *p, size_t size)
{
    uint8_t c = p[0];
    if (c < 0x80) return 1;
    size_t n;
    uint32_t min;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) n = 2, min = 0x80, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, min = 0x800, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, min = 0x10000, cp = c & 0x07;
    else return 0;
    if (n > size) return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

int etl_utf8_valid(const uint8_t *p, size_t size)
{
    for (size_t i = 0; i < size;) {
        size_t n = utf8_sequence(p + i, size - i);
        if (!n) return 0;
        i += n;
    }
    return 1;
}

void etl_utf8_trim_partial(char *text)
{
    size_t n = strlen(text), i = n;
    while (i > 0 && ((unsigned char)text[i - 1] & 0xC0) == 0x80) i--;
    if (i == 0 || (unsigned char)text[i - 1] < 0xC0) return; /* ends on ASCII or a complete sequence */
    unsigned char lead = (unsigned char)text[i - 1];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    if (n - (i - 1) < need) text[i - 1] = '\0';
}

static size_t bytes_before_nul(const uint8_t *p, size_t size)
{
    const uint8_t *nul = size ? memchr(p, 0, size) : NULL;
    return nul ? (size_t)(nul - p) : size;
}

void etl_render_utf8(etl_textbuf *out, const uint8_t *p, size_t size)
{
    size = bytes_before_nul(p, size);
    for (size_t i = 0; i < size;) {
        size_t n = utf8_sequence(p + i, size - i);
        if (n) {
            etl_textbuf_append(out, (const char *)p + i, n);
            i += n;
        } else {
            etl_render_codepoint(out, 0xFFFD);
            i++;
        }
    }
}

/* Windows-1252 0x80..0x9F; the five unassigned bytes map to the C1 code point of the same value, as
 * MultiByteToWideChar does. */
static const uint16_t cp1252_high[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

static uint32_t cp1252_to_unicode(uint8_t c) { return c >= 0x80 && c < 0xA0 ? cp1252_high[c - 0x80] : c; }

void etl_render_ansi(etl_textbuf *out, const uint8_t *p, size_t size)
{
    size = bytes_before_nul(p, size);
    if (etl_utf8_valid(p, size)) {
        etl_textbuf_append(out, (const char *)p, size);
        return;
    }
    for (size_t i = 0; i < size; i++) etl_render_codepoint(out, cp1252_to_unicode(p[i]));
}

/* ---- fixed forms ------------------------------------------------------------------------------------- */

void etl_render_hex(etl_textbuf *out, const uint8_t *p, size_t size, int with_prefix)
{
    static const char digits[] = "0123456789ABCDEF";
    if (size == 0) return;
    if (etl_textbuf_reserve(out, 2 * size + 2) != 0) return;
    char *d = out->data + out->length;
    if (with_prefix) *d++ = '0', *d++ = 'x';
    for (size_t i = 0; i < size; i++) {
        *d++ = digits[p[i] >> 4];
        *d++ = digits[p[i] & 15];
    }
    out->length = (size_t)(d - out->data);
    out->data[out->length] = '\0';
}

void etl_render_guid(etl_textbuf *out, const uint8_t *p)
{
    /* {data1-data2-data3-data4[0..1]-data4[2..7]}: the first three groups are little-endian integers */
    static const uint8_t order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
    static const char digits[] = "0123456789abcdef";
    char buf[38];
    char *d = buf;
    *d++ = '{';
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) *d++ = '-';
        uint8_t b = p[order[i]];
        *d++ = digits[b >> 4];
        *d++ = digits[b & 15];
    }
    *d++ = '}';
    etl_textbuf_append(out, buf, sizeof buf);
}

void etl_render_sid(etl_textbuf *out, const uint8_t *p, size_t size)
{
    if (size < 8 || size != 8 + 4 * (size_t)p[1]) {
        etl_render_hex(out, p, size, 1);
        return;
    }
    uint64_t authority = 0;
    for (int i = 2; i < 8; i++) authority = authority << 8 | p[i];
    etl_textbuf_printf(out, "S-%u-", p[0]);
    /* ConvertSidToStringSid: decimal below 2^32, else 12 hex digits */
    if (authority >> 32) etl_textbuf_printf(out, "0x%012llX", (unsigned long long)authority);
    else etl_textbuf_printf(out, "%llu", (unsigned long long)authority);
    for (size_t i = 0; i < p[1]; i++) etl_textbuf_printf(out, "-%u", (unsigned)etl_le32(p + 8 + 4 * i));
}

static void render_ipv4(etl_textbuf *out, const uint8_t *p)
{
    etl_textbuf_printf(out, "%u.%u.%u.%u", p[0], p[1], p[2], p[3]);
}

void etl_render_ipv6(etl_textbuf *out, const uint8_t *p)
{
    uint16_t g[8];
    for (int i = 0; i < 8; i++) g[i] = (uint16_t)(p[2 * i] << 8 | p[2 * i + 1]);
    /* IPv4-mapped addresses keep the dotted tail (RFC 5952 §5) */
    if (!g[0] && !g[1] && !g[2] && !g[3] && !g[4] && g[5] == 0xFFFF) {
        etl_textbuf_puts(out, "::ffff:");
        render_ipv4(out, p + 12);
        return;
    }
    int best = -1, best_len = 0;
    for (int i = 0; i < 8;) {
        if (g[i]) {
            i++;
            continue;
        }
        int j = i;
        while (j < 8 && !g[j]) j++;
        if (j - i > best_len) best = i, best_len = j - i;
        i = j;
    }
    if (best_len < 2) best = -1; /* a single zero group is not shortened (RFC 5952 §4.2.2) */
    static const char hex[] = "0123456789abcdef";
    char text[40], *d = text; /* at most 8 groups of 4 digits and 7 colons */
    for (int i = 0; i < 8; i++) {
        if (i == best) {
            *d++ = ':', *d++ = ':';
            i += best_len - 1;
            continue;
        }
        if (i && i != best + best_len) *d++ = ':';
        for (int shift = g[i] >> 12 ? 12 : g[i] >> 8 ? 8 : g[i] >> 4 ? 4 : 0; shift >= 0; shift -= 4)
            *d++ = hex[g[i] >> shift & 15]; /* lower case, no leading zeros (RFC 5952 §4.1, §4.3) */
    }
    etl_textbuf_append(out, text, (size_t)(d - text));
}

static void render_socket_address(etl_textbuf *out, const uint8_t *p, size_t size)
{
    uint16_t family = size >= 2 ? etl_le16(p) : 0;
    if (family == 2 && size >= 8) { /* AF_INET: port (network order), address */
        render_ipv4(out, p + 4);
        etl_textbuf_printf(out, ":%u", (unsigned)(p[2] << 8 | p[3]));
    } else if (family == 23 && size >= 24) { /* AF_INET6: port, flowinfo, address, scope */
        etl_textbuf_putc(out, '[');
        etl_render_ipv6(out, p + 8);
        etl_textbuf_printf(out, "]:%u", (unsigned)(p[2] << 8 | p[3]));
    } else {
        etl_render_hex(out, p, size, 1);
    }
}

void etl_render_filetime(etl_textbuf *out, int64_t filetime)
{
    char buf[48];
    etl_textbuf_puts(out, etl_filetime_format(filetime, 9, buf, sizeof buf));
}

static void render_systemtime(etl_textbuf *out, const uint8_t *p)
{
    /* wYear, wMonth, wDayOfWeek, wDay, wHour, wMinute, wSecond, wMilliseconds */
    etl_textbuf_printf(out, "%04u-%02u-%02uT%02u:%02u:%02u.%03u000000Z", etl_le16(p), etl_le16(p + 2),
                       etl_le16(p + 6), etl_le16(p + 8), etl_le16(p + 10), etl_le16(p + 12), etl_le16(p + 14));
}

void etl_render_double(etl_textbuf *out, double v, int is_float)
{
    if (isnan(v)) {
        etl_textbuf_puts(out, "NaN");
        return;
    }
    if (isinf(v)) {
        etl_textbuf_puts(out, v < 0 ? "-Infinity" : "Infinity");
        return;
    }
    char buf[40];
    int max = is_float ? 9 : 17;
    for (int prec = 1; prec <= max; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (is_float ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v) break;
    }
    /* a locale with a decimal comma must not leak into the output */
    for (char *c = buf; *c; c++)
        if (*c == ',') *c = '.';
    etl_textbuf_puts(out, buf);
}

/* ---- integers and maps ------------------------------------------------------------------------------- */

/* Map names for `value`. A value map without a matching entry returns 0 (nothing written) so the number
 * prints as its out-type says; a bitmap always writes (names, plus 0x… for bits no entry covers). */
static int render_map(etl_textbuf *out, const etl_map_info *map, uint64_t value)
{
    int bitmap = (map->flags & (ETL_MAP_BITMAP | ETL_MAP_WBEM_BITMAP)) != 0;
    if (!bitmap) {
        for (uint32_t i = 0; i < map->entry_count; i++) {
            if (map->entries[i].value == value && map->entries[i].name) {
                etl_textbuf_puts(out, map->entries[i].name);
                return 1;
            }
        }
        return 0;
    }
    uint64_t covered = 0;
    int named = 0;
    for (uint32_t i = 0; i < map->entry_count; i++) {
        uint32_t bits = map->entries[i].value;
        if (!map->entries[i].name || (bits == 0 ? value != 0 : (value & bits) != bits)) continue;
        if (bits == 0 && named) continue;
        if (named++) etl_textbuf_puts(out, " | ");
        etl_textbuf_puts(out, map->entries[i].name);
        covered |= bits;
    }
    if (!named) etl_textbuf_printf(out, "0x%llX", (unsigned long long)value); /* flags read best in hex */
    else if (value & ~covered) etl_textbuf_printf(out, " | 0x%llX", (unsigned long long)(value & ~covered));
    return 1;
}

static uint64_t read_unsigned(const uint8_t *p, size_t size)
{
    switch (size) {
    case 1: return p[0];
    case 2: return etl_le16(p);
    case 4: return etl_le32(p);
    case 8: return etl_le64(p);
    default: return 0;
    }
}

/* Integer text without printf: this is the hottest path of a conversion (render_int.c). */
static void put_style(etl_textbuf *out, etl_int_style style, uint64_t v, size_t size)
{
    if (etl_textbuf_reserve(out, ETL_INT_TEXT_MAX) != 0) return;
    out->length += etl_int_format(out->data + out->length, style, v, size);
    out->data[out->length] = '\0';
}

static void render_integer(etl_textbuf *out, uint16_t in_type, uint16_t out_type, const etl_map_info *map,
                           const uint8_t *p, size_t size, const etl_render_context *ctx)
{
    uint64_t u = read_unsigned(p, size);
    if (map && map->entry_count && render_map(out, map, u)) return;
    int with_clock = ctx && ctx->trace && ctx->raw_to_filetime;
    etl_int_style style = etl_int_style_of(in_type, out_type, size, with_clock);
    if (style != ETL_INT_OTHER) {
        put_style(out, style, u, size);
        return;
    }
    switch (out_type) { /* the forms that are more than a number at this size */
    case ETL_OUT_STRING:
        if (size == 1) etl_render_codepoint(out, cp1252_to_unicode(p[0]));
        else etl_render_codepoint(out, (uint32_t)u); /* lone surrogate → U+FFFD */
        return;
    case ETL_OUT_PORT: put_style(out, ETL_INT_UNSIGNED, (unsigned)(p[0] << 8 | p[1]), 2); return;
    case ETL_OUT_IPV4: render_ipv4(out, p); return;
    case ETL_OUT_ETWTIME:
        etl_render_filetime(out, ctx->raw_to_filetime(ctx->trace, ctx->file_index, (int64_t)u));
        return;
    default: /* DATETIME forms on 8 bytes: TraceLogging FILETIME out-type on INT64/UINT64 */
        etl_render_filetime(out, (int64_t)u);
        return;
    }
}

/* ---- dispatch ---------------------------------------------------------------------------------------- */

static void render_string_like(etl_textbuf *out, int utf16, uint16_t out_type, const uint8_t *p, size_t size)
{
    if (utf16) etl_render_utf16(out, p, size);
    else if (out_type == ETL_OUT_UTF8) etl_render_utf8(out, p, size);
    else etl_render_ansi(out, p, size);
}

static void render_binary(etl_textbuf *out, uint16_t out_type, const uint8_t *p, size_t size)
{
    if (out_type == ETL_OUT_IPV6 && size == 16) etl_render_ipv6(out, p);
    else if (out_type == ETL_OUT_IPV4 && size == 4) render_ipv4(out, p);
    else if (out_type == ETL_OUT_SOCKETADDRESS) render_socket_address(out, p, size);
    else if (out_type == ETL_OUT_STRING || out_type == ETL_OUT_UTF8) etl_render_utf8(out, p, size);
    else etl_render_hex(out, p, size, 1);
}

void etl_render_value(etl_textbuf *out, uint16_t in_type, uint16_t out_type, const etl_map_info *map,
                      const uint8_t *value, size_t size, const etl_render_context *ctx)
{
    switch (in_type) {
    case ETL_IN_NULL: return;
    case ETL_IN_UNICODESTRING:
    case ETL_IN_MANIFEST_COUNTEDSTRING:
    case ETL_IN_COUNTEDSTRING:
    case ETL_IN_REVERSEDCOUNTEDSTRING:
    case ETL_IN_NONNULLTERMINATEDSTRING:
    case ETL_IN_UNICODECHAR: render_string_like(out, 1, out_type, value, size); return;
    case ETL_IN_ANSISTRING:
    case ETL_IN_MANIFEST_COUNTEDANSISTRING:
    case ETL_IN_COUNTEDANSISTRING:
    case ETL_IN_REVERSEDCOUNTEDANSISTRING:
    case ETL_IN_NONNULLTERMINATEDANSISTRING:
    case ETL_IN_ANSICHAR: render_string_like(out, 0, out_type, value, size); return;
    case ETL_IN_FLOAT:
        if (size == 4) {
            uint32_t bits = etl_le32(value);
            float f;
            memcpy(&f, &bits, sizeof f);
            etl_render_double(out, f, 1);
            return;
        }
        break;
    case ETL_IN_DOUBLE:
        if (size == 8) {
            uint64_t bits = etl_le64(value);
            double d;
            memcpy(&d, &bits, sizeof d);
            etl_render_double(out, d, 0);
            return;
        }
        break;
    case ETL_IN_GUID:
        if (size == 16) {
            etl_render_guid(out, value);
            return;
        }
        break;
    case ETL_IN_FILETIME:
        if (size == 8) {
            etl_render_filetime(out, etl_les64(value));
            return;
        }
        break;
    case ETL_IN_SYSTEMTIME:
        if (size == 16) {
            render_systemtime(out, value);
            return;
        }
        break;
    case ETL_IN_SID:
    case ETL_IN_WBEMSID: etl_render_sid(out, value, size); return;
    case ETL_IN_BINARY:
    case ETL_IN_MANIFEST_COUNTEDBINARY:
    case ETL_IN_HEXDUMP: render_binary(out, out_type, value, size); return;
    case ETL_IN_INT8:
    case ETL_IN_UINT8:
    case ETL_IN_INT16:
    case ETL_IN_UINT16:
    case ETL_IN_INT32:
    case ETL_IN_UINT32:
    case ETL_IN_INT64:
    case ETL_IN_UINT64:
    case ETL_IN_BOOLEAN:
    case ETL_IN_POINTER:
    case ETL_IN_SIZET:
    case ETL_IN_HEXINT32:
    case ETL_IN_HEXINT64:
        if (size == 1 || size == 2 || size == 4 || size == 8) {
            render_integer(out, in_type, out_type, map, value, size, ctx);
            return;
        }
        break;
    default: break;
    }
    /* a size the type cannot have, or an unknown type: show the bytes rather than guess */
    etl_render_hex(out, value, size, 1);
}
