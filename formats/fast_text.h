/* Hot-path text primitives for the writers (issue 14): appends with known lengths (no strlen per fragment),
 * numbers and GUIDs written straight into the buffer without printf, and output flushed in large blocks.
 * Every writer and the ones to come (EVTX, pcapng) should build their text with these. */
#ifndef ETL_FORMATS_FAST_TEXT_H
#define ETL_FORMATS_FAST_TEXT_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "format_util.h"
#include "util/swar.h"

/* A string literal, its length known at compile time. */
#define FMT_PUT_LIT(buf, literal) etl_textbuf_append((buf), "" literal, sizeof(literal) - 1)

/* Writers hand their text to the sink in blocks of about this size (not per event): fewer write calls. */
#define FMT_FLUSH_BLOCK (256u * 1024u)

static inline void fmt_put_str(fmt_buf *b, const char *text)
{
    if (text) etl_textbuf_append(b, text, strlen(text));
}

/* Decimal digits of value, written directly at the end of b. */
static inline void fmt_put_u64(fmt_buf *b, uint64_t value)
{
    if (value < 10) {
        char c = (char)('0' + value);
        etl_textbuf_append(b, &c, 1);
        return;
    }
    char tmp[FMT_INT_CAP];
    char *p = tmp + sizeof tmp;
    do {
        *--p = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    etl_textbuf_append(b, p, (size_t)(tmp + sizeof tmp - p));
}

/* "{xxxxxxxx-...}" (38 bytes, lower case) appended; the all-zero GUID (most activity ids) is one copy. */
void fmt_put_guid(fmt_buf *b, const etl_guid *g);

/* ---- direct writing: reserve once, write through a pointer, close -------------------------------------
 * p = fmt_put_begin(b, n) gives room for n bytes (and the NUL after them) at the end of b, or NULL when
 * memory ran out (b->failed is set); the writes below advance p; fmt_put_end(b, p) closes. */
static inline char *fmt_put_begin(fmt_buf *b, size_t n)
{
    if (b->data && !b->failed && n < b->capacity - b->length) return b->data + b->length;
    return fmt_buf_grow(b, n);
}

static inline void fmt_put_end(fmt_buf *b, char *end)
{
    b->length = (size_t)(end - b->data);
    *end = '\0';
}

/* A string literal at p; p advances. */
#define FMT_W_LIT(p, literal) ((p) = (char *)memcpy((p), "" literal, sizeof(literal) - 1) + sizeof(literal) - 1)

/* n bytes of text at p: short runs (most names and values) without a call to memcpy. */
static inline char *fmt_w_mem(char *p, const char *text, size_t n)
{
    if (n > 16) {
        memcpy(p, text, n);
    } else if (n >= 8) {  /* two overlapping 8-byte moves */
        uint64_t a, b;
        memcpy(&a, text, 8);
        memcpy(&b, text + n - 8, 8);
        memcpy(p, &a, 8);
        memcpy(p + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, text, 4);
        memcpy(&b, text + n - 4, 4);
        memcpy(p, &a, 4);
        memcpy(p + n - 4, &b, 4);
    } else if (n) {
        p[0] = text[0];
        p[n / 2] = text[n / 2];
        p[n - 1] = text[n - 1];
    }
    return p + n;
}

/* n bytes of text at p (n >= 1) in whole 16-byte blocks, the first two without a test: reads up to 32 bytes
 * from text, and past text + n (the caller guarantees they are readable, as FMT_STATIC_TEXT_PAD does for
 * cached text), and writes as many at p (room the caller reserved; later text overwrites them). Returns
 * p + n. */
static inline char *fmt_w_padded(char *p, const char *text, size_t n)
{
    memcpy(p, text, 16);
    memcpy(p + 16, text + 16, 16);
    for (size_t i = 32; i < n; i += 16) memcpy(p + i, text + i, 16);
    return p + n;
}

/* Writing many pieces through one pointer: p = fmt_room(b, n, &limit) gives p with room for at least n
 * bytes, all the room there is ending at limit (a NUL still fits there); write while the room lasts, then
 * fmt_put_end(b, p). NULL when memory ran out (b->failed is set). */
static inline char *fmt_room(fmt_buf *b, size_t n, char **limit)
{
    char *p = fmt_put_begin(b, n);
    if (p) *limit = b->data + b->capacity - 1;
    return p;
}

/* "00".."99": two digits per division. */
extern const char fmt_digit_pairs[200];

/* The last `n` decimal digits of value ending at end (n >= 1, leading zeros written when value is shorter). */
static inline void fmt_w_digits(char *end, uint32_t value, unsigned n)
{
    for (; n >= 2; n -= 2) {
        uint32_t q = value / 100;
        memcpy(end -= 2, fmt_digit_pairs + 2 * (value - 100 * q), 2);
        value = q;
    }
    if (n) end[-1] = (char)('0' + value % 10);
}

static inline unsigned fmt_u32_digits(uint32_t v)
{
    return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5 : v < 1000000 ? 6
         : v < 10000000 ? 7 : v < 100000000 ? 8 : v < 1000000000 ? 9 : 10;
}

/* Decimal digits of value at p (at most 20); returns the end. */
static inline char *fmt_w_u32(char *p, uint32_t value)
{
    unsigned n = fmt_u32_digits(value);
    fmt_w_digits(p + n, value, n);
    return p + n;
}

static inline char *fmt_w_u64(char *p, uint64_t value)
{
    if (value <= UINT32_MAX) return fmt_w_u32(p, (uint32_t)value);
    /* above 2^32 (FILETIMEs, 64-bit sizes): groups of 8 digits by pairs after the leading ones */
    uint64_t high = value / 100000000u;
    uint32_t low = (uint32_t)(value % 100000000u);
    if (high <= UINT32_MAX) {
        p = fmt_w_u32(p, (uint32_t)high);
    } else { /* 2^32 * 10^8 and more: 18 to 20 digits */
        p = fmt_w_u32(p, (uint32_t)(high / 100000000u));
        fmt_w_digits(p + 8, (uint32_t)(high % 100000000u), 8);
        p += 8;
    }
    fmt_w_digits(p + 8, low, 8);
    return p + 8;
}

static inline char *fmt_w_i64(char *p, int64_t value)
{
    if (value >= 0) return fmt_w_u64(p, (uint64_t)value);
    *p++ = '-';
    return fmt_w_u64(p, 0 - (uint64_t)value);
}

/* "0x" + upper-case hex without padding (fmt_hex64's text) at p (at most 18 bytes). */
static inline char *fmt_w_hex64(char *p, uint64_t value)
{
    unsigned n = 1;
    for (uint64_t v = value; v >= 16; v >>= 4) n++;
    *p++ = '0', *p++ = 'x';
    for (unsigned i = n; i-- > 0; value >>= 4) p[i] = "0123456789ABCDEF"[value & 0xF];
    return p + n;
}

/* ---- SWAR tests: 8 bytes at a time; the lowest flagged byte is always a true hit (borrows only go up) ---- */
#define FMT_ONES ETL_SWAR_ONES
#define FMT_HIGHS ETL_SWAR_HIGHS
static inline uint64_t fmt_swar_zero(uint64_t y) { return etl_swar_zero(y); }
/* Bytes equal to c. */
static inline uint64_t fmt_swar_byte(uint64_t x, unsigned char c) { return fmt_swar_zero(x ^ (FMT_ONES * c)); }
/* Bytes >= 0x80 (non-ASCII) or < 0x20 (controls). */
static inline uint64_t fmt_swar_nonprint(uint64_t x)
{
    return (x & FMT_HIGHS) | ((x - 0x20 * FMT_ONES) & ~x & FMT_HIGHS);
}

/* 1 when `special` flags none of the n bytes of s ('A' must not be special: short texts are padded with it). */
static inline int fmt_swar_clean(const char *s, size_t n, uint64_t (*special)(uint64_t))
{
    uint64_t x;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&x, s + i, 8);
        if (special(x)) return 0;
    }
    if (i == n) return 1;
    if (n >= 8) { /* the last 8 bytes: those already checked are clean, so a flag is a true hit */
        memcpy(&x, s + n - 8, 8);
        return !special(x);
    }
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        return !special((uint64_t)a | (uint64_t)b << 32);
    }
    unsigned char pad[8] = {'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A'};
    pad[0] = (unsigned char)s[0], pad[n / 2] = (unsigned char)s[n / 2], pad[n - 1] = (unsigned char)s[n - 1];
    memcpy(&x, pad, 8);
    return !special(x);
}

#if defined(__SSE2__)
/* A test of the 16 bytes at a 16-aligned address: one bit per byte that is "special" (NUL always is). */
typedef unsigned (*fmt_special16)(const void *block);

/* The length of text, and in *clean whether no byte of it is special, in one pass over aligned 16-byte
 * blocks. Like the C library's strlen, the block holding the NUL is read whole: an aligned block never
 * crosses a page, so the bytes after the NUL are readable, and their bits are never looked at (the first
 * special byte is at or before the NUL). AddressSanitizer would report that read, hence the attribute (it
 * must be on the test and on every caller that inlines this; a sanitized build calls them instead);
 * tests/test_xml_escape.c checks the scan on every corpus value and on texts ending at a page's end. */
__attribute__((no_sanitize_address)) static inline size_t fmt_scan16(const char *text, int *clean,
                                                                    fmt_special16 special)
{
    const char *block = (const char *)((uintptr_t)text & ~(uintptr_t)15);
    unsigned m = special(block) >> ((uintptr_t)text & 15); /* bytes before text dropped */
    size_t k;
    if (m) {
        k = (size_t)__builtin_ctz(m);
    } else {
        do {
            block += 16;
        } while ((m = special(block)) == 0);
        k = (size_t)(block - text) + (size_t)__builtin_ctz(m);
    }
    *clean = text[k] == 0;
    return *clean ? k : k + strlen(text + k);
}
#endif

#if defined(__SSE2__)
/* The n bytes of a NUL-terminated text (text[n] readable) at p; at most 16 of them in one 16-byte move when
 * those 16 bytes lie in one 4 KiB block (pages are at least that big, so they are readable whatever follows
 * the NUL; like fmt_scan16, hence the attribute). Writes up to 16 bytes at p (room the caller reserved). */
__attribute__((no_sanitize_address)) static inline char *fmt_w_short(char *p, const char *text, size_t n)
{
    if (n <= 16 && ((uintptr_t)text & 4095) <= 4096 - 16) {
        _mm_storeu_si128((__m128i *)(void *)p, _mm_loadu_si128((const __m128i *)(const void *)text));
        return p + n;
    }
    return fmt_w_mem(p, text, n);
}
#else
static inline char *fmt_w_short(char *p, const char *text, size_t n)
{
    return fmt_w_mem(p, text, n);
}
#endif

/* The 38 bytes of fmt_guid at p; returns the end. */
char *fmt_w_guid_text(char *p, const etl_guid *g);

/* The same with the all-zero GUID (most activity ids) inline. */
static inline char *fmt_w_guid(char *p, const etl_guid *g)
{
    _Static_assert(sizeof(etl_guid) == 16, "a GUID is two 8-byte words");
    uint64_t a, b;
    memcpy(&a, g, 8);
    memcpy(&b, (const char *)g + 8, 8);
    if ((a | b) != 0) return fmt_w_guid_text(p, g);
    memcpy(p, "{00000000-0000-0000-0000-000000000000}", 38);
    return p + 38;
}

/* fmt_event_time's text at p (room: FMT_TIME_CAP bytes); returns the end (no NUL). */
#define FMT_TIME_CAP 40
char *fmt_w_event_time(fmt_clock *clock, int64_t filetime, int digits, char *p);

/* fmt_w_event_time with its usual case inline: UTC, 7 to 9 digits, in the second of the event before (its
 * "YYYY-MM-DDTHH:MM:SS" kept in the clock): the 100 ns ticks of the second, then zeros for the digits below
 * 100 ns. Anything else goes to fmt_w_event_time, which also keeps the clock's second. */
static inline char *fmt_w_time(fmt_clock *clock, int64_t filetime, int digits, char *p)
{
    if (!clock->stable && !clock->local && clock->second_valid && filetime >= 0 && digits >= 7 && digits <= 9) {
        int64_t second = filetime / 10000000;
        if (second == clock->second) {
            memcpy(p, clock->second_text, 19);
            p[19] = '.';
            fmt_w_digits(p + 27, (uint32_t)(filetime - second * 10000000), 7);
            p += 27;
            for (int i = 7; i < digits; i++) *p++ = '0';
            *p++ = 'Z';
            return p;
        }
    }
    return fmt_w_event_time(clock, filetime, digits, p);
}

/* After an event: flushes b to the sink when it holds at least FMT_FLUSH_BLOCK bytes, or at once with
 * options->flush_every_event; 0 or -1 as fmt_buf_flush. A keeper that keeps b already (-j) has nothing to do:
 * fmt_buf_flush would only point it at b again (a call per event, 24 instructions, net.4.5.x86 to XML). */
static inline int fmt_flush_event(fmt_buf *b, const etl_sink *sink, const etl_writer_options *options)
{
    if (b->length < FMT_FLUSH_BLOCK && !b->failed && !options->flush_every_event) return 0;
    if (sink->write == etl_keeper_write && ((const etl_text_keeper *)sink->ctx)->kept == b && !b->failed) return 0;
    return fmt_buf_flush(b, sink);
}

#endif
