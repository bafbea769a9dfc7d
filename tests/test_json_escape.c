/* formats/json_value.c writes JSON strings through a fast path (clean text found and copied 16 bytes at a time
 * with SSE2, else 8 with SWAR; CRLF in one step, long texts in pieces) and member keys from the per-schema
 * text cache. (Both block paths were run through this test: the SWAR one by building with CFLAGS=-U__SSE2__.)
 * Two oracles:
 * - the former escaper (reference_string below: one byte at a time, etl_utf8_decode on every special byte,
 *   printf for \u00XX) must give the same bytes for every string of every decoded event of every corpus
 *   trace, every 1- and 2-byte string, UTF-8 edge cases, pseudo-random bytes and long texts whose escapes
 *   and UTF-8 sequences straddle the 64 KiB pieces;
 * - the project's strict JSON reader (src/util/json_parse.c) must read each result back as the writers'
 *   valid-UTF-8 form of the input (fmt_valid_utf8: malformed sequences as U+FFFD).
 * And for every corpus event, the members written with cached keys (fmt_json_fields: one local pointer,
 * strings and integers measured by aligned 16-byte scans, a clean string copied as is, others escaped in
 * place) must equal those written key by key (fmt_json_members: a table per byte and put_string_n), with
 * each flag combination; the same for the events again with their values replaced by crafted strings
 * (controls, quotes, malformed UTF-8, integer-like texts, long escaped texts, texts ending at a page's end).
 * fmt_json_scan's length must be strlen's and its "clean" must mean the escaper copies the text as is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "../formats/json_value.h"
#include "../formats/text_cache.h"
#include "etl/etl_schema.h"
#include "support/corpus.h"
#include "support/json_parse.h"

/* The escaper as it was before the fast path (main at b243746), kept as the oracle. */
static void reference_string(fmt_buf *tb, const char *value)
{
    if (!value) value = "";
    etl_textbuf_putc(tb, '"');
    const unsigned char *s = (const unsigned char *)value;
    while (*s) {
        if (*s >= 0x20 && *s < 0x80 && *s != '"' && *s != '\\') {
            etl_textbuf_putc(tb, (char)*s++);
            continue;
        }
        uint32_t cp;
        size_t avail = 1;
        while (avail < 4 && s[avail]) avail++;
        size_t used = etl_utf8_decode(s, avail, &cp);
        switch (cp) {
        case '"': etl_textbuf_puts(tb, "\\\""); break;
        case '\\': etl_textbuf_puts(tb, "\\\\"); break;
        case '\n': etl_textbuf_puts(tb, "\\n"); break;
        case '\r': etl_textbuf_puts(tb, "\\r"); break;
        case '\t': etl_textbuf_puts(tb, "\\t"); break;
        case '\b': etl_textbuf_puts(tb, "\\b"); break;
        case '\f': etl_textbuf_puts(tb, "\\f"); break;
        default:
            if (cp < 0x20)
                etl_textbuf_printf(tb, "\\u%04X", (unsigned)cp);
            else if (cp == 0xFFFD)
                fmt_buf_put_codepoint(tb, cp);
            else
                etl_textbuf_append(tb, (const char *)s, used);
        }
        s += used;
    }
    etl_textbuf_putc(tb, '"');
}

typedef struct oracle {
    etl_textbuf mine, reference, document, valid, read_back;
    uint64_t compared, parsed;
    int failures;
    /* member comparison */
    fmt_text_cache *keys;
    uint64_t events_compared, keyed_members, crafted_events;
    uint32_t seed;
    etl_field *fields;
    size_t field_capacity;
    char *page;  /* a page followed by an inaccessible one: values that end at its end */
    size_t page_size;
    char crafted[64][80];
} oracle;

static void show(const char *what, const char *text)
{
    fprintf(stderr, "%s for \"", what);
    size_t n = strlen(text);
    for (size_t i = 0; i < n && i < 200; i++) fprintf(stderr, "\\x%02x", (unsigned char)text[i]);
    fprintf(stderr, "%s\"\n", n > 200 ? "..." : "");
}

static void on_leaf(const char *path, const char *value, int is_string, void *ctx)
{
    oracle *o = ctx;
    (void)path;
    if (is_string) etl_textbuf_puts(&o->read_back, value);
}

static void compare(oracle *o, const char *text)
{
    etl_textbuf_reset(&o->mine);
    etl_textbuf_reset(&o->reference);
    etl_textbuf_putc(&o->mine, 'x'); /* not at the start of the buffer */
    fmt_json_string(&o->mine, text);
    etl_textbuf_putc(&o->reference, 'x');
    reference_string(&o->reference, text);
    o->compared++;
    /* the fast paths copy a text fmt_json_scan calls clean as is: it must be what the escaper writes */
    const char *t = text ? text : "";
    int clean, special = 0;
    size_t length = fmt_json_scan(t, &clean);
    for (const unsigned char *b = (const unsigned char *)t; *b; b++) special |= fmt_json_special[*b];
    if (length != strlen(t) || clean != !special ||
        (clean && (o->mine.length != length + 3 || memcmp(o->mine.data + 2, t, length) != 0))) {
        if (o->failures++ < 5) show("fmt_json_scan wrong", t);
        return;
    }
    if (o->mine.failed || o->mine.length != o->reference.length ||
        memcmp(o->mine.data, o->reference.data, o->mine.length) != 0) {
        if (o->failures++ < 5) show("escaped text differs from the former escaper's", text ? text : "");
        return;
    }
    if (!text) return;
    /* read back: {"k":STRING} through the strict reader is the valid-UTF-8 form of the input */
    etl_textbuf_reset(&o->document);
    etl_textbuf_puts(&o->document, "{\"k\":");
    etl_textbuf_append(&o->document, o->mine.data + 1, o->mine.length - 1);
    etl_textbuf_putc(&o->document, '}');
    etl_textbuf_reset(&o->read_back);
    etl_textbuf_reset(&o->valid);
    const char *valid = fmt_valid_utf8(text, &o->valid);
    if (etl_json_parse(o->document.data, o->document.length, on_leaf, o) != 0 ||
        strcmp(etl_textbuf_at(&o->read_back, 0), valid) != 0) {
        if (o->failures++ < 5) show("JSON reader does not read back the valid UTF-8 text", text);
        return;
    }
    o->parsed++;
}

static void compare_string(const char *text, void *o)
{
    compare(o, text);
}

static void oracle_free(oracle *o)
{
    etl_textbuf_free(&o->mine);
    etl_textbuf_free(&o->reference);
    etl_textbuf_free(&o->document);
    etl_textbuf_free(&o->valid);
    etl_textbuf_free(&o->read_back);
    fmt_text_cache_free(o->keys);
    free(o->fields);
    if (o->page) munmap(o->page, 2 * o->page_size);
}

static void test_crafted_strings(void **state)
{
    (void)state;
    oracle o;
    memset(&o, 0, sizeof o);
    compare(&o, NULL);
    compare(&o, "");
    corpus_short_strings(compare_string, &o);
    static const char *const edge[] = {
        "\xEF\xBF\xBD", "\xEF\xBF\xBE", "\xEF\xBF\xBF", "\xED\xA0\x80", "\xED\x9F\xBF", "\xEE\x80\x80",
        "\xC0\x80", "\xC1\xBF", "\xE0\x80\xAF", "\xF0\x8F\xBF\xBF", "\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF",
        "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xE2\x82", "\xF0\x9F\x98", ("a\xE2\x82\xAC" "b\"\\\t\r\n\x7F"),
        "\x01\x1F\x7F\x80\xFF", "x\xC3", "\r", "\r\r\n", "\n\r", "abcdefgh\r\nabcdefgh\r\n", "abcdefg\"",
        "0123456789abcdef\\0123456789abcdef\x1B[0m", "\xC3\xA9t\xC3\xA9 \"quoted\"\r\n\tand more",
    };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) compare(&o, edge[i]);
    /* the scan reads the aligned 16-byte block that holds the NUL whole: texts ending at a page's end */
    assert_int_equal(corpus_page_end_strings(compare_string, &o), 1 + 48 * 40);
    uint32_t seed = 12345;
    char buf[48];
    for (int i = 0; i < 200000; i++) {
        seed = seed * 1103515245u + 12345u;
        size_t len = 1 + (seed >> 16) % (sizeof buf - 1);
        int ascii = (seed >> 8) & 1; /* half mostly ASCII text with a few special bytes */
        for (size_t k = 0; k < len; k++) {
            seed = seed * 1103515245u + 12345u;
            unsigned c = (seed >> 16) & 0xFF;
            if (ascii && c >= 0x30) c = 'a' + c % 26;
            buf[k] = (char)(c ? c : 'a');
        }
        buf[len] = 0;
        compare(&o, buf);
    }
    /* long texts: escapes, CRLF pairs and UTF-8 sequences at and around the 64 KiB piece boundary */
    enum { PIECE = 65536 };
    static const char *const tails[] = {"\r\n", "\"", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xE2\x82", "\x01"};
    char *big = malloc(3 * PIECE + 16);
    assert_non_null(big);
    for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
        for (int shift = -9; shift <= 3; shift++) {
            size_t at = (size_t)(PIECE + shift);
            memset(big, 'a', at);
            strcpy(big + at, tails[t]);
            strcat(big + at, "tail text after it");
            compare(&o, big);
        }
    }
    for (size_t k = 0; k < 3 * PIECE; k++) big[k] = k % 37 == 36 ? '\r' : k % 37 == 0 ? '\n' : (char)('A' + k % 26);
    big[3 * PIECE] = 0;
    compare(&o, big);
    free(big);
    fprintf(stderr, "json_escape: %llu crafted strings compared, %llu read back\n", (unsigned long long)o.compared,
            (unsigned long long)o.parsed);
    assert_int_equal(o.failures, 0);
    assert_true(o.compared > 265000);
    assert_true(o.parsed + 1 == o.compared); /* all but NULL */
    oracle_free(&o);
}

/* The member comparison needs only the cached keys: no static segments of its own. */
static void build_nothing(void *writer, const etl_decoded_event *ev, fmt_buf *text, uint32_t *ends)
{
    (void)writer, (void)ev;
    ends[0] = (uint32_t)text->length;
}

static void compare_members(oracle *o, const etl_decoded_event *ev)
{
    const fmt_static_text *keys = fmt_text_cache_get(o->keys, ev);
    assert_non_null(keys);
    static const int flags[] = {0, FMT_JSON_WIDE_STRINGS, FMT_JSON_NO_MAP_NUMBERS,
                                FMT_JSON_WIDE_STRINGS | FMT_JSON_NO_MAP_NUMBERS};
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
        etl_textbuf_reset(&o->mine);
        etl_textbuf_reset(&o->reference);
        size_t a = fmt_json_fields(&o->mine, ev, flags[k], keys);
        size_t b = fmt_json_members(&o->reference, ev, 0, ev->field_count, flags[k]);
        if (a != b || o->mine.length != o->reference.length ||
            memcmp(etl_textbuf_at(&o->mine, 0), etl_textbuf_at(&o->reference, 0), o->mine.length) != 0) {
            if (o->failures++ < 5)
                fprintf(stderr, "members differ (%s, flags %d): \"%.300s\" vs \"%.300s\"\n", ev->event_name, flags[k],
                        etl_textbuf_at(&o->mine, 0), etl_textbuf_at(&o->reference, 0));
        }
    }
    o->events_compared++;
    if (keys->property_count) o->keyed_members += ev->field_count;
}

static uint32_t next_random(oracle *o)
{
    o->seed = o->seed * 1103515245u + 12345u;
    return o->seed >> 8;
}

/* A value for a crafted field: integer-like texts (valid or not for a JSON number), texts with controls,
 * quotes, backslashes, CRLF and malformed UTF-8, a long text with escapes, NULL, or one ending at the end of
 * the page before an inaccessible one. */
static const char *crafted_value(oracle *o, size_t k)
{
    static const char *const fixed[] = {"", "0", "-0", "00", "-", "007", "12a", "4294967295", "-2147483648",
                                        "18446744073709551615", "1.5", "true", "false", "x", "\"", "a\\b",
                                        "\r\n", "\xC3\xA9", "\xC3", "\xFF\xFE", "\x01\x1F", NULL};
    static char long_text[3000];
    uint32_t r = next_random(o);
    switch (r % 8) {
    case 0: return fixed[(r >> 3) % (sizeof fixed / sizeof fixed[0])];
    case 1: { /* digits, maybe signed or followed by something */
        char *t = o->crafted[k % 64];
        size_t n = 0, len = 1 + (r >> 3) % 24;
        if ((r >> 10) & 1) t[n++] = '-';
        for (size_t i = 0; i < len; i++) t[n++] = (char)('0' + next_random(o) % 10);
        if ((r >> 11) % 5 == 0) t[n++] = (char)(1 + next_random(o) % 255);
        t[n] = 0;
        return t;
    }
    case 2:
        if (!long_text[0]) {
            for (size_t i = 0; i + 1 < sizeof long_text; i++)
                long_text[i] = i % 97 == 96 ? '\r' : i % 89 == 88 ? '"' : (char)('a' + i % 26);
        }
        return long_text + (r >> 3) % 64;
    case 3: { /* ending at the page's end */
        size_t len = (r >> 3) % 40;
        char *t = o->page + o->page_size - 1 - len;
        for (size_t i = 0; i < len; i++) {
            unsigned c = next_random(o) % 256;
            t[i] = (char)(c ? c : 'a');
        }
        t[len] = 0;
        return t;
    }
    default: { /* mostly printable with a few special bytes */
        char *t = o->crafted[k % 64];
        size_t len = (r >> 3) % 79;
        for (size_t i = 0; i < len; i++) {
            unsigned c = next_random(o) % 256;
            t[i] = (char)(c % 7 == 0 ? (c ? c : 1) : 'A' + c % 58);
        }
        t[len] = 0;
        return t;
    }
    }
}

/* The event again with crafted values (names, kinds, properties and byte spans kept). */
static void compare_crafted_members(oracle *o, const etl_decoded_event *ev)
{
    if (!ev->field_count) return;
    if (ev->field_count > o->field_capacity) {
        etl_field *f = realloc(o->fields, ev->field_count * sizeof *f);
        assert_non_null(f);
        o->fields = f;
        o->field_capacity = ev->field_count;
    }
    for (size_t i = 0; i < ev->field_count; i++) {
        o->fields[i] = ev->fields[i];
        if (o->fields[i].kind == ETL_FIELD_VALUE) o->fields[i].value = crafted_value(o, i);
    }
    etl_decoded_event copy = *ev;
    copy.fields = o->fields;
    compare_members(o, &copy);
    o->crafted_events++;
}

static void on_event(const etl_decoded_event *ev, void *ctx)
{
    oracle *o = ctx;
    corpus_event_strings(ev, compare_string, ctx);
    compare_members(ctx, ev);
    if (next_random(o) % 4 == 0) compare_crafted_members(o, ev);
}

static void test_every_corpus_event(void **state)
{
    (void)state;
    oracle o;
    memset(&o, 0, sizeof o);
    o.keys = fmt_text_cache_new(1, build_nothing, fmt_json_key, NULL);
    assert_non_null(o.keys);
    o.seed = 777;
    o.page_size = (size_t)sysconf(_SC_PAGESIZE);
    o.page = mmap(NULL, 2 * o.page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(o.page != MAP_FAILED);
    assert_int_equal(mprotect(o.page + o.page_size, o.page_size, PROT_NONE), 0);
    size_t opened = corpus_decode_all(on_event, &o);
    fprintf(stderr, "json_escape: %llu corpus strings compared (%llu read back), members of %llu events (%llu "
            "fields with cached keys; %llu events with crafted values) compared\n", (unsigned long long)o.compared,
            (unsigned long long)o.parsed, (unsigned long long)o.events_compared, (unsigned long long)o.keyed_members,
            (unsigned long long)o.crafted_events);
    assert_true(opened >= 20);
    assert_true(o.compared > 1000000);
    assert_true(o.keyed_members > 1000000);
    assert_true(o.crafted_events > 100000);
    assert_int_equal(o.failures, 0);
    oracle_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crafted_strings),
        cmocka_unit_test(test_every_corpus_event),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
