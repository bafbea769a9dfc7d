/* Decoded field text → typed BinXml value bytes (see evtx_value.h). The decoder renders every value to
 * text (src/decode/render.c); the forms parsed here are exactly the ones it writes, so a value read back by
 * an EVTX reader renders to the same number, GUID, time or SID. Anything else stays a string. */
#include "evtx_value.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode/value_kind.h"
#include "util/utf.h"

void evtx_put_le16(etl_textbuf *out, uint16_t v)
{
    char b[2] = {(char)(v & 0xFF), (char)(v >> 8)};
    etl_textbuf_append(out, b, 2);
}

void evtx_put_le32(etl_textbuf *out, uint32_t v)
{
    char b[4];
    for (int i = 0; i < 4; i++) b[i] = (char)(v >> (8 * i));
    etl_textbuf_append(out, b, 4);
}

void evtx_put_le64(etl_textbuf *out, uint64_t v)
{
    char b[8];
    for (int i = 0; i < 8; i++) b[i] = (char)(v >> (8 * i));
    etl_textbuf_append(out, b, 8);
}

void evtx_put_guid(etl_textbuf *out, const etl_guid *g)
{
    evtx_put_le32(out, g->data1);
    evtx_put_le16(out, g->data2);
    evtx_put_le16(out, g->data3);
    etl_textbuf_append(out, (const char *)g->data4, 8);
}

size_t evtx_put_utf16(etl_textbuf *out, const char *text, size_t max_units)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    size_t left = strlen((const char *)s), units = 0;
    /* ASCII (most names and values) straight into the buffer */
    size_t ascii = left < max_units ? left : max_units;
    if (etl_textbuf_reserve(out, 2 * ascii) != 0) return 0;
    char *dst = out->data + out->length;
    while (units < ascii && s[units] < 0x80) {
        dst[2 * units] = (char)s[units];
        dst[2 * units + 1] = 0;
        units++;
    }
    out->length += 2 * units;
    out->data[out->length] = '\0';
    s += units;
    left -= units;
    while (left > 0) {
        uint32_t cp;
        size_t used = etl_utf8_decode(s, left, &cp);
        if (used == 0) used = 1, cp = 0xFFFD;
        if (cp > 0xFFFF) {
            if (units + 2 > max_units) break;
            cp -= 0x10000;
            evtx_put_le16(out, (uint16_t)(0xD800 | (cp >> 10)));
            evtx_put_le16(out, (uint16_t)(0xDC00 | (cp & 0x3FF)));
            units += 2;
        } else {
            if (units + 1 > max_units) break;
            evtx_put_le16(out, (uint16_t)cp);
            units++;
        }
        s += used;
        left -= used;
    }
    return units;
}

/* ---- classification ---------------------------------------------------------------------------------- */

static uint8_t integer_type(uint16_t in_type, uint8_t pointer_size)
{
    switch (in_type) {
    case ETL_IN_INT8: return EVTX_INT8;
    case ETL_IN_UINT8: return EVTX_UINT8;
    case ETL_IN_INT16: return EVTX_INT16;
    case ETL_IN_UINT16: return EVTX_UINT16;
    case ETL_IN_INT32: return EVTX_INT32;
    case ETL_IN_UINT32: return EVTX_UINT32;
    case ETL_IN_INT64: return EVTX_INT64;
    case ETL_IN_UINT64: return EVTX_UINT64;
    case ETL_IN_BOOLEAN: return EVTX_BOOL;
    case ETL_IN_HEXINT32: return EVTX_HEXINT32;
    case ETL_IN_HEXINT64: return EVTX_HEXINT64;
    case ETL_IN_POINTER:
    case ETL_IN_SIZET: return pointer_size == 4 ? EVTX_HEXINT32 : EVTX_HEXINT64;
    default: return EVTX_STRING;
    }
}

static int integer_width(uint8_t type)
{
    switch (type) {
    case EVTX_INT8: case EVTX_UINT8: return 1;
    case EVTX_INT16: case EVTX_UINT16: return 2;
    case EVTX_INT32: case EVTX_UINT32: case EVTX_HEXINT32: case EVTX_BOOL: return 4;
    default: return 8;
    }
}

static uint8_t with_sign(uint8_t type, int is_signed)
{
    switch (type) {
    case EVTX_INT8: case EVTX_UINT8: return is_signed ? EVTX_INT8 : EVTX_UINT8;
    case EVTX_INT16: case EVTX_UINT16: return is_signed ? EVTX_INT16 : EVTX_UINT16;
    case EVTX_INT32: case EVTX_UINT32: return is_signed ? EVTX_INT32 : EVTX_UINT32;
    case EVTX_INT64: case EVTX_UINT64: return is_signed ? EVTX_INT64 : EVTX_UINT64;
    default: return type;
    }
}

uint8_t evtx_field_type(uint16_t in_type, uint16_t out_type, const etl_map_info *map, uint8_t pointer_size)
{
    uint8_t t = integer_type(in_type, pointer_size);
    /* the typed outputs' rule (src/decode/value_kind.h) decides number, boolean, float or text ... */
    switch (etl_value_kind_of(in_type, out_type, map)) {
    case ETL_VALUE_MAPPED: return EVTX_STRING;  /* rendered as the map's names */
    case ETL_VALUE_BOOLEAN: return EVTX_BOOL;
    case ETL_VALUE_FLOAT: return in_type == ETL_IN_FLOAT ? EVTX_REAL32 : EVTX_REAL64;
    case ETL_VALUE_INTEGER:
        switch (out_type) {  /* render.c takes the sign from the out-type when it names one */
        case ETL_OUT_BYTE: case ETL_OUT_SHORT: case ETL_OUT_INT: case ETL_OUT_LONG: return with_sign(t, 1);
        case ETL_OUT_UNSIGNEDBYTE: case ETL_OUT_UNSIGNEDSHORT: case ETL_OUT_UNSIGNEDINT:
        case ETL_OUT_UNSIGNEDLONG: case ETL_OUT_PID: case ETL_OUT_TID: return with_sign(t, 0);
        case ETL_OUT_PORT: return EVTX_UINT16;
        default: return t == EVTX_STRING ? EVTX_STRING : t;
        }
    case ETL_VALUE_STRING: break;
    }
    /* ... and of its text kind, BinXml has typed forms for more than JSON: hex integers, times, GUIDs,
     * SIDs, binary */
    if (t != EVTX_STRING) {
        int w = integer_width(t);
        switch (out_type) {
        case ETL_OUT_STRING: case ETL_OUT_IPV4: return EVTX_STRING;
        case ETL_OUT_ETWTIME: case ETL_OUT_DATETIME: case ETL_OUT_DATETIME_UTC:
        case ETL_OUT_CULTURE_INSENSITIVE_DATETIME: return w == 8 ? EVTX_FILETIME : EVTX_STRING;
        default: return w == 8 ? EVTX_HEXINT64 : EVTX_HEXINT32;
        }
    }
    switch (in_type) {
    case ETL_IN_GUID: return EVTX_GUID;
    case ETL_IN_FILETIME: return EVTX_FILETIME;
    case ETL_IN_SYSTEMTIME: return EVTX_SYSTEMTIME;
    case ETL_IN_SID: case ETL_IN_WBEMSID: return EVTX_SID;
    case ETL_IN_BINARY: case ETL_IN_MANIFEST_COUNTEDBINARY: case ETL_IN_HEXDUMP:
        return out_type == ETL_OUT_NULL || out_type == ETL_OUT_HEXBINARY ? EVTX_BINARY : EVTX_STRING;
    default: return EVTX_STRING;
    }
}

/* ---- parsing the rendered forms back --------------------------------------------------------------- */

/* Digits only (no sign, space or prefix), base 10 or 16, without overflow: what the decoder renders. A loop
 * of its own instead of strtoull, which cost ~200 instructions a call with its locale handling. */
static int parse_digits(const char *s, unsigned base, uint64_t *v)
{
    uint64_t x = 0;
    const char *p = s;
    for (;; p++) {
        unsigned c = (unsigned char)*p, d;
        if (c - '0' < 10) d = c - '0';
        else if (base == 16 && (c | 0x20) - 'a' < 6) d = (c | 0x20) - 'a' + 10;
        else break;
        if (x > (UINT64_MAX - d) / base) return 0;
        x = x * base + d;
    }
    if (*p != '\0' || p == s) return 0;
    *v = x;
    return 1;
}

static int parse_u64(const char *text, uint64_t *v)
{
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) return parse_digits(text + 2, 16, v);
    return parse_digits(text, 10, v);
}

static int parse_i64(const char *text, int64_t *v)
{
    int negative = *text == '-';
    uint64_t u;
    if (!parse_digits(text + negative, 10, &u)) return 0;
    if (u > (uint64_t)INT64_MAX + negative) return 0;
    *v = negative ? (int64_t)(0 - u) : (int64_t)u;
    return 1;
}

static int encode_integer(etl_textbuf *out, uint8_t type, const char *text)
{
    int w = integer_width(type);
    uint64_t u;
    if (type == EVTX_BOOL) {
        if (strcmp(text, "true") == 0) u = 1;
        else if (strcmp(text, "false") == 0) u = 0;
        else return 0;
    } else if (type == EVTX_INT8 || type == EVTX_INT16 || type == EVTX_INT32 || type == EVTX_INT64) {
        int64_t s;
        if (!parse_i64(text, &s)) return 0;
        int64_t lim = w == 8 ? INT64_MAX : ((int64_t)1 << (8 * w - 1)) - 1;
        if (s > lim || s < -lim - 1) return 0;
        u = (uint64_t)s;
    } else {
        if (!parse_u64(text, &u)) return 0;
        if (w < 8 && u >> (8 * w)) return 0;
    }
    char b[8];
    for (int i = 0; i < w; i++) b[i] = (char)(u >> (8 * i));
    etl_textbuf_append(out, b, (size_t)w);
    return 1;
}

static int encode_real(etl_textbuf *out, uint8_t type, const char *text)
{
    if (!*text || *text == ' ') return 0;
    char *end;
    double d = strtod(text, &end);
    if (*end != '\0' || end == text) return 0;
    if (type == EVTX_REAL32) {
        float f = (float)d;
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        evtx_put_le32(out, bits);
    } else {
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        evtx_put_le64(out, bits);
    }
    return 1;
}

/* Reads exactly `n` decimal digits. */
static int digits(const char **p, int n, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (**p < '0' || **p > '9') return 0;
        *v = *v * 10 + (unsigned)(**p - '0');
    }
    return 1;
}

static int expect(const char **p, char c)
{
    if (**p != c) return 0;
    (*p)++;
    return 1;
}

/* Days from 1601-01-01 to the civil date (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 584694;
}

/* "YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ" (etl_filetime_format with 9 digits) → its parts. */
typedef struct civil_time {
    unsigned year, month, day, hour, minute, second, nanos;
} civil_time;

static int parse_iso(const char *p, civil_time *t)
{
    if (!digits(&p, 4, &t->year) || !expect(&p, '-') || !digits(&p, 2, &t->month) || !expect(&p, '-') ||
        !digits(&p, 2, &t->day) || !expect(&p, 'T') || !digits(&p, 2, &t->hour) || !expect(&p, ':') ||
        !digits(&p, 2, &t->minute) || !expect(&p, ':') || !digits(&p, 2, &t->second) || !expect(&p, '.') ||
        !digits(&p, 9, &t->nanos) || !expect(&p, 'Z') || *p)
        return 0;
    return t->month >= 1 && t->month <= 12 && t->day >= 1 && t->day <= 31 && t->hour < 24 && t->minute < 60 &&
           t->second < 60;
}

static int encode_filetime(etl_textbuf *out, const char *text)
{
    civil_time t;
    if (!parse_iso(text, &t) || t.year < 1601 || t.nanos % 100) return 0;
    int64_t days = days_from_civil(t.year, t.month, t.day);
    int64_t secs = days * 86400 + t.hour * 3600 + t.minute * 60 + t.second;
    evtx_put_le64(out, (uint64_t)(secs * 10000000 + t.nanos / 100));
    return 1;
}

static int encode_systemtime(etl_textbuf *out, const char *text)
{
    civil_time t;
    if (!parse_iso(text, &t) || t.nanos % 1000000) return 0;
    int64_t days = days_from_civil(t.year, t.month, t.day);  /* 1601-01-01 was a Monday */
    unsigned weekday = (unsigned)(((days % 7) + 7 + 1) % 7);
    unsigned parts[8] = {t.year, t.month, weekday, t.day, t.hour, t.minute, t.second, t.nanos / 1000000};
    for (int i = 0; i < 8; i++) evtx_put_le16(out, (uint16_t)parts[i]);
    return 1;
}

static int encode_guid(etl_textbuf *out, const char *text)
{
    etl_guid g;
    if (strlen(text) != 38 || etl_guid_parse(text, &g) != 0) return 0;
    evtx_put_guid(out, &g);
    return 1;
}

/* "S-1-5-21-…" (etl_render_sid) → revision, count, 6-byte big-endian authority, sub-authorities. */
static int encode_sid(etl_textbuf *out, const char *text)
{
    if (text[0] != 'S' || text[1] != '-') return 0;
    const char *p = text + 2;
    char *end;
    errno = 0;
    unsigned long revision = strtoul(p, &end, 10);
    if (end == p || *end != '-' || revision > 255) return 0;
    p = end + 1;
    uint64_t authority;
    if (p[0] == '0' && p[1] == 'x') authority = strtoull(p + 2, &end, 16);
    else authority = strtoull(p, &end, 10);
    if (end == p || errno || authority >> 48) return 0;
    uint32_t sub[15];
    unsigned count = 0;
    for (p = end; *p; p = end) {
        if (*p != '-' || count == 15 || p[1] < '0' || p[1] > '9') return 0;
        unsigned long long v = strtoull(p + 1, &end, 10);
        if (errno || v > 0xFFFFFFFFull) return 0;
        sub[count++] = (uint32_t)v;
    }
    char head[8] = {(char)revision, (char)count};
    for (int i = 0; i < 6; i++) head[2 + i] = (char)(authority >> (8 * (5 - i)));
    etl_textbuf_append(out, head, 8);
    for (unsigned i = 0; i < count; i++) evtx_put_le32(out, sub[i]);
    return 1;
}

static int hexdigit(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* "0x0A1B…" (etl_render_hex with prefix) → the bytes. */
static int encode_binary(etl_textbuf *out, const char *text)
{
    const char *p = text;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2;
    size_t n = strlen(p);
    if (n % 2) return 0;
    for (size_t i = 0; i < n; i++)
        if (hexdigit((unsigned char)p[i]) < 0) return 0;
    if (etl_textbuf_reserve(out, n / 2) != 0) return 0;
    for (size_t i = 0; i < n; i += 2) {
        char b = (char)(hexdigit((unsigned char)p[i]) << 4 | hexdigit((unsigned char)p[i + 1]));
        etl_textbuf_append(out, &b, 1);
    }
    return 1;
}

uint8_t evtx_encode_text(etl_textbuf *out, uint8_t type, const char *text)
{
    if (!text) text = "";
    size_t mark = out->length;
    int ok = 0;
    switch (type) {
    case EVTX_INT8: case EVTX_UINT8: case EVTX_INT16: case EVTX_UINT16: case EVTX_INT32: case EVTX_UINT32:
    case EVTX_INT64: case EVTX_UINT64: case EVTX_HEXINT32: case EVTX_HEXINT64: case EVTX_BOOL:
        ok = encode_integer(out, type, text);
        break;
    case EVTX_REAL32: case EVTX_REAL64: ok = encode_real(out, type, text); break;
    case EVTX_GUID: ok = encode_guid(out, text); break;
    case EVTX_FILETIME: ok = encode_filetime(out, text); break;
    case EVTX_SYSTEMTIME: ok = encode_systemtime(out, text); break;
    case EVTX_SID: ok = encode_sid(out, text); break;
    case EVTX_BINARY: ok = encode_binary(out, text); break;
    default: break;
    }
    if (ok) return type;
    out->length = mark;
    evtx_put_utf16(out, text, SIZE_MAX);
    return EVTX_STRING;
}
