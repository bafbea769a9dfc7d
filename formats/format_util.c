/* Helpers shared by the writers (see format_util.h). */
#include "format_util.h"
#include "fast_text.h"
#include "text_cache.h"

#include "etl/etl_activity.h"
#include "etl/etl_diff.h"
#include "util/guid_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- text buffer --------------------------------------------------------------------------------------- */

void fmt_buf_put_codepoint(fmt_buf *tb, uint32_t cp)
{
    char b[4];
    etl_textbuf_append(tb, b, etl_utf8_encode(cp, b));
}

void fmt_buf_put_hex(fmt_buf *tb, const uint8_t *bytes, size_t length, int upper)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    if (length > SIZE_MAX / 4 || etl_textbuf_reserve(tb, length * 2) != 0) return;
    char *out = tb->data + tb->length;
    size_t i = 0;
#if defined(__SSE2__)
    /* 16 bytes a step: each nibble + '0', + 7 (or 39) more above 9, high and low nibbles interleaved */
    const __m128i nibble = _mm_set1_epi8(0x0F), nine = _mm_set1_epi8(9), zero = _mm_set1_epi8('0');
    const __m128i letter = _mm_set1_epi8(upper ? 'A' - '0' - 10 : 'a' - '0' - 10);
    for (; i + 16 <= length; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(bytes + i));
        __m128i hi = _mm_and_si128(_mm_srli_epi16(v, 4), nibble), lo = _mm_and_si128(v, nibble);
        hi = _mm_add_epi8(_mm_add_epi8(hi, zero), _mm_and_si128(_mm_cmpgt_epi8(hi, nine), letter));
        lo = _mm_add_epi8(_mm_add_epi8(lo, zero), _mm_and_si128(_mm_cmpgt_epi8(lo, nine), letter));
        _mm_storeu_si128((__m128i *)(void *)(out + 2 * i), _mm_unpacklo_epi8(hi, lo));
        _mm_storeu_si128((__m128i *)(void *)(out + 2 * i + 16), _mm_unpackhi_epi8(hi, lo));
    }
#endif
    for (; i < length; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 0xF];
    }
    tb->length += length * 2;
}

char *fmt_buf_grow(fmt_buf *tb, size_t extra)
{
    return etl_textbuf_reserve(tb, extra) == 0 ? tb->data + tb->length : NULL;
}

const char *fmt_buf_cstr(fmt_buf *tb)
{
    if (etl_textbuf_reserve(tb, 0) != 0) return "";
    tb->data[tb->length] = '\0';
    return tb->data;
}

int fmt_buf_flush(fmt_buf *tb, const etl_sink *sink)
{
    if (sink->write == etl_keeper_write) {  /* -j: the text stays in tb (etl_sink_keeper) */
        if (tb->failed) return -1;
        ((etl_text_keeper *)sink->ctx)->kept = tb;
        return 0;
    }
    int rc = tb->failed ? -1 : 0;
    if (rc == 0 && tb->length > 0 && sink->write(sink->ctx, tb->data, tb->length) != 0) rc = -1;
    etl_textbuf_reset(tb);
    return rc;
}

const char fmt_digit_pairs[200] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                  "8081828384858687888990919293949596979899";

/* ---- integers ------------------------------------------------------------------------------------------ */

char *fmt_u64(uint64_t value, char *buf)
{
    char *p = buf + FMT_INT_CAP - 1;
    *p = '\0';
    do {
        *--p = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    return p;
}

char *fmt_i64(int64_t value, char *buf)
{
    if (value >= 0) return fmt_u64((uint64_t)value, buf);
    char *p = fmt_u64(0 - (uint64_t)value, buf);
    *--p = '-';
    return p;
}

char *fmt_hex64(uint64_t value, char *buf)
{
    char *p = buf + FMT_INT_CAP - 1;
    *p = '\0';
    do {
        *--p = "0123456789ABCDEF"[value & 0xF];
        value >>= 4;
    } while (value);
    *--p = 'x';
    *--p = '0';
    return p;
}

/* ---- stdio sink ---------------------------------------------------------------------------------------- */

static int stdio_write(void *ctx, const void *data, size_t length)
{
    return fwrite(data, 1, length, (FILE *)ctx) == length ? 0 : -1;
}

etl_sink etl_sink_stdio(FILE *stream)
{
    etl_sink s = {stdio_write, stream};
    return s;
}

int etl_keeper_write(void *keeper, const void *data, size_t length)
{
    const etl_text_keeper *k = keeper;
    return k->write(k->ctx, data, length);
}

etl_sink etl_sink_keeper(etl_text_keeper *keeper)
{
    etl_sink s = {etl_keeper_write, keeper};
    return s;
}

/* ---- line writers ---------------------------------------------------------------------------------------- */

void *fmt_line_writer_create(const etl_sink *sink, const etl_writer_options *options)
{
    fmt_line_writer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->sink = *sink;
    w->options = *options;
    w->clock.local = options->local_time;
    w->clock.stable = options->stable != 0;
    memset(&w->line, 0, sizeof w->line);
    memset(&w->scratch, 0, sizeof w->scratch);
    return w;
}

void *fmt_line_writer_create_cached(const etl_sink *sink, const etl_writer_options *options, uint32_t segments,
                                    void (*build)(void *, const etl_decoded_event *, fmt_buf *, uint32_t *))
{
    fmt_line_writer *st = fmt_line_writer_create(sink, options);
    if (st && !(st->cache = fmt_text_cache_new(segments, build, NULL, st))) {
        fmt_line_writer_destroy(st);
        return NULL;
    }
    return st;
}

void fmt_line_writer_destroy(void *state)
{
    fmt_line_writer *w = state;
    if (!w) return;
    etl_textbuf_free(&w->line);
    etl_textbuf_free(&w->scratch);
    fmt_text_cache_free(w->cache);
    free(w);
}

int fmt_begin_nothing(void *state)
{
    (void)state;
    return 0;
}

int fmt_end_nothing(void *state, const etl_run_totals *totals)
{
    (void)totals;
    fmt_line_writer *w = state;  /* only the line writers use it: hand over what the last block holds */
    return fmt_buf_flush(&w->line, &w->sink);
}

/* ---- UTF-8 --------------------------------------------------------------------------------------------- */


const char *fmt_valid_utf8(const char *text, fmt_buf *scratch)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    while (s[i] && s[i] < 0x80) i++;  /* most text is ASCII */
    if (!s[i]) return text;
    size_t n = i + strlen(text + i);
    uint32_t cp;
    while (i < n) {
        size_t used = etl_utf8_decode(s + i, n - i, &cp);
        if (cp == 0xFFFD && !(used == 3 && s[i] == 0xEF && s[i + 1] == 0xBF && s[i + 2] == 0xBD)) break;
        i += used;
    }
    if (i == n) return text;
    etl_textbuf_reset(scratch);
    etl_textbuf_append(scratch, text, i);
    while (i < n) {
        size_t used = etl_utf8_decode(s + i, n - i, &cp);
        if (cp == 0xFFFD)
            fmt_buf_put_codepoint(scratch, cp);
        else
            etl_textbuf_append(scratch, text + i, used);
        i += used;
    }
    return fmt_buf_cstr(scratch);
}

/* ---- event facts ----------------------------------------------------------------------------------------- */

/* Seconds east of UTC this machine had at `unix_seconds`. */
static long local_offset_seconds(fmt_clock *clock, int64_t unix_seconds)
{
    int64_t slot = unix_seconds / 1800;
    if (clock->offset_valid && slot == clock->offset_slot) return clock->offset_seconds;
    time_t t = (time_t)unix_seconds;
    struct tm tm;
    long off = 0;
    if (localtime_r(&t, &tm)) off = tm.tm_gmtoff;
    clock->offset_slot = slot;
    clock->offset_seconds = off;
    clock->offset_valid = 1;
    return off;
}

#define FILETIME_TICKS_PER_SECOND 10000000LL
#define FILETIME_TICKS_PER_DAY (86400LL * FILETIME_TICKS_PER_SECOND)
#define FILETIME_UNIX_EPOCH_SECONDS 11644473600LL

static char *two_digits(char *p, unsigned v)
{
    p[0] = (char)('0' + v / 10);
    p[1] = (char)('0' + v % 10);
    return p + 2;
}

char *fmt_w_event_time(fmt_clock *clock, int64_t filetime, int digits, char *buf)
{
    if (clock->stable) {
        etl_stable_time(filetime, buf);
        return buf + strlen(buf);
    }
    if (digits < 0) digits = 0;
    if (digits > 9) digits = 9;
    long off = 0;
    if (clock->local)
        off = local_offset_seconds(clock, filetime / FILETIME_TICKS_PER_SECOND - FILETIME_UNIX_EPOCH_SECONDS);
    int64_t t = filetime + (int64_t)off * FILETIME_TICKS_PER_SECOND;
    if (t < 0) t = 0;
    int64_t second = t / FILETIME_TICKS_PER_SECOND;
    if (!clock->second_valid || second != clock->second) { /* events come in time order: once per second */
        int64_t day = t / FILETIME_TICKS_PER_DAY;
        if (!clock->date_valid || day != clock->day) {  /* the library formats the date once per day */
            char full[48];
            etl_filetime_format(day * FILETIME_TICKS_PER_DAY, 0, full, sizeof full);
            memcpy(clock->date, full, 10);
            clock->date[10] = '\0';
            clock->day = day;
            clock->date_valid = 1;
        }
        unsigned sod = (unsigned)(t % FILETIME_TICKS_PER_DAY / FILETIME_TICKS_PER_SECOND);
        char *q = clock->second_text;
        memcpy(q, clock->date, 10);
        q += 10;
        *q++ = 'T';
        q = two_digits(q, sod / 3600);
        *q++ = ':';
        q = two_digits(q, sod / 60 % 60);
        *q++ = ':';
        two_digits(q, sod % 60);
        clock->second = second;
        clock->second_valid = 1;
    }
    unsigned frac = (unsigned)(t - second * FILETIME_TICKS_PER_SECOND) * 100u;  /* nanoseconds: 9 digits */
    char *p = buf;
    memcpy(p, clock->second_text, 19);
    p += 19;
    if (digits > 0) {
        static const unsigned drop[10] = {1000000000u, 100000000u, 10000000u, 1000000u, 100000u, 10000u, 1000u,
                                          100u, 10u, 1u};
        *p++ = '.';
        p += digits;
        fmt_w_digits(p, frac / drop[digits], (unsigned)digits);  /* the first `digits` digits */
    }
    if (!clock->local) {
        *p++ = 'Z';
    } else {
        long a = off < 0 ? -off : off;
        *p++ = off < 0 ? '-' : '+';
        p = two_digits(p, (unsigned)(a / 3600));
        *p++ = ':';
        p = two_digits(p, (unsigned)(a / 60 % 60));
    }
    return p;
}

char *fmt_event_time(fmt_clock *clock, int64_t filetime, int digits, char *buf, size_t cap)
{
    if (clock->stable && cap >= 32) return etl_stable_time(filetime, buf);
    if (cap < FMT_TIME_CAP) return etl_filetime_format(filetime, digits, buf, cap);
    *fmt_w_event_time(clock, filetime, digits, buf) = '\0';
    return buf;
}

char *fmt_guid(const etl_guid *g, char *buf)
{
    return etl_guid_format(g, buf, 0);
}

int fmt_related_activity(const etl_event_record *record, etl_guid *out)
{
    return etl_record_related_activity(record, out);
}

const char *fmt_known_provider(const etl_decoded_event *event)
{
    const char *name = event->provider_name;
    if (event->info && event->info->provider_name && event->info->provider_name[0])
        return event->info->provider_name;
    if (!name || !name[0] || name[0] == '{') return NULL;  /* the GUID text stands in for an unknown name */
    return name;
}

const char *fmt_task_display(const etl_decoded_event *event)
{
    if (event->task_name && event->task_name[0]) return event->task_name;
    if (event->source == ETL_SOURCE_TRACELOGGING && event->info && event->info->event_name)
        return event->info->event_name;
    return NULL;
}

static int is_classic(const etl_decoded_event *event)
{
    if (event->info && !etl_guid_is_zero(&event->info->event_guid)) return 1;
    return (event->record->header.flags & ETL_EVENT_FLAG_CLASSIC_HEADER) != 0;
}

int fmt_class_guid(const etl_decoded_event *event, etl_guid *out)
{
    if (!is_classic(event)) return 0;
    if (event->info && !etl_guid_is_zero(&event->info->event_guid))
        *out = event->info->event_guid;
    else
        *out = event->record->header.provider_id;
    return 1;
}

/* ---- fast text (fast_text.h) ----------------------------------------------------------------------------- */


char *fmt_w_guid_text(char *p, const etl_guid *g)
{
    return etl_guid_text(g, p, 0);
}

void fmt_put_guid(fmt_buf *b, const etl_guid *g)
{
    char *p = fmt_buf_grow(b, 38);
    if (!p) return;
    etl_guid_text(g, p, 0);
    b->length += 38;
    b->data[b->length] = '\0';
}

void fmt_table_separator(fmt_line_writer *st)
{
    if (st->cells++ > 0) etl_textbuf_putc(&st->line, '\t');
}

/* Bytes a table cell writes otherwise than as is: controls, backslash, DEL, non-ASCII (U+FFFD checks). */
#if defined(__SSE2__)
/* 16 aligned bytes at a time (signed: bytes from 0x80 are below 0x20); see fmt_scan16. */
__attribute__((no_sanitize_address)) static unsigned table_special16(const void *block)
{
    __m128i x = _mm_load_si128((const __m128i *)block);
    __m128i m = _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7F))));
}

/* The length of value, and whether none of its bytes is special. */
__attribute__((no_sanitize_address)) static size_t table_scan(const char *value, int *clean)
{
    return fmt_scan16(value, clean, table_special16);
}
#else
static uint64_t table_special(uint64_t x)
{
    return fmt_swar_nonprint(x) | fmt_swar_byte(x, '\\') | fmt_swar_byte(x, 0x7F);
}

static size_t table_scan(const char *value, int *clean)
{
    size_t n = strlen(value);
    *clean = fmt_swar_clean(value, n, table_special);
    return n;
}
#endif

void fmt_table_cell(fmt_line_writer *st, const char *value)
{
    if (!value) {
        fmt_table_separator(st);
        return;
    }
    int clean;
    size_t n = table_scan(value, &clean);
    if (clean) { /* the loop below would copy it in one run: the separator and the text at once */
        char *p = fmt_put_begin(&st->line, n + 1 + 16); /* + 16: fmt_w_short writes a whole block */
        if (st->cells++ > 0 && p) *p++ = '\t';
        if (p) fmt_put_end(&st->line, fmt_w_short(p, value, n));
        return;
    }
    fmt_table_cell_general(st, value);
}

/* The room reserved at once for a line's value cells (grown as needed). */
#define CELLS_ROOM 4096

void fmt_table_value_cells(fmt_line_writer *st, const etl_field *fields, size_t count)
{
    char *limit, *p = fmt_room(&st->line, CELLS_ROOM, &limit);
    for (size_t i = 0; p && i < count; i++) {
        const etl_field *f = &fields[i];
        if (f->kind != ETL_FIELD_VALUE) continue;
        int clean = 0;
        size_t n = f->value ? table_scan(f->value, &clean) : 0;
        if (!clean) { /* no value (a separator only) or one to escape */
            fmt_put_end(&st->line, p);
            fmt_table_cell(st, f->value);
            p = fmt_room(&st->line, CELLS_ROOM, &limit);
            continue;
        }
        if ((size_t)(limit - p) <= n + 1 + 16) { /* + 16: fmt_w_short writes a whole block */
            fmt_put_end(&st->line, p);
            if (!(p = fmt_room(&st->line, n + 1 + 16 + CELLS_ROOM, &limit))) return;
        }
        if (st->cells++ > 0) *p++ = '\t';
        p = fmt_w_short(p, f->value, n);
    }
    if (p) fmt_put_end(&st->line, p);
}

void fmt_table_cell_general(fmt_line_writer *st, const char *value)
{
    fmt_table_separator(st);
    if (!value) return;
    const unsigned char *s = (const unsigned char *)value;
    size_t n = strlen(value);
    for (size_t i = 0; i < n;) {
        size_t run = i;  /* printable ASCII other than the backslash goes in as one block */
        while (run < n && s[run] >= 0x20 && s[run] < 0x7F && s[run] != '\\') run++;
        etl_textbuf_append(&st->line, value + i, run - i);
        i = run;
        if (i >= n) break;
        uint32_t cp;
        size_t used = etl_utf8_decode(s + i, n - i, &cp);
        switch (cp) {
        case '\\': etl_textbuf_puts(&st->line, "\\\\"); break;
        case '\t': etl_textbuf_puts(&st->line, "\\t"); break;
        case '\n': etl_textbuf_puts(&st->line, "\\n"); break;
        case '\r': etl_textbuf_puts(&st->line, "\\r"); break;
        default:
            if (cp < 0x20 || cp == 0x7F)
                etl_textbuf_printf(&st->line, "\\x%02X", (unsigned)cp);
            else if (cp == 0xFFFD)
                fmt_buf_put_codepoint(&st->line, cp);
            else
                etl_textbuf_append(&st->line, (const char *)s + i, used);
        }
        i += used;
    }
}
