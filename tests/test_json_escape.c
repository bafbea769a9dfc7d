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
 * And for every corpus event, the members written with cached keys (fmt_json_fields) must equal those
 * written key by key (fmt_json_members), with each flag combination. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    uint64_t events_compared, keyed_members;
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

static void on_event(const etl_decoded_event *ev, void *ctx)
{
    corpus_event_strings(ev, compare_string, ctx);
    compare_members(ctx, ev);
}

static void test_every_corpus_event(void **state)
{
    (void)state;
    oracle o;
    memset(&o, 0, sizeof o);
    o.keys = fmt_text_cache_new(1, build_nothing, fmt_json_key, NULL);
    assert_non_null(o.keys);
    size_t opened = corpus_decode_all(on_event, &o);
    fprintf(stderr, "json_escape: %llu corpus strings compared (%llu read back), members of %llu events (%llu "
            "fields with cached keys) compared\n", (unsigned long long)o.compared, (unsigned long long)o.parsed,
            (unsigned long long)o.events_compared, (unsigned long long)o.keyed_members);
    assert_true(opened >= 20);
    assert_true(o.compared > 1000000);
    assert_true(o.keyed_members > 1000000);
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
