/* formats/xml_escape.c against its oracle, libxml2: for every string the XML writer can escape, the one-pass
 * escaper must give the bytes of the former two-step path (etl_xml_text_clean, then libxml2's
 * xmlAttrSerializeTxtContent on a UTF-8 document). Inputs: every string of every decoded event of every corpus
 * trace (values, names, messages, display names; bundled manifests loaded), every 1- and 2-byte string, the
 * UTF-8 edge cases (overlong, surrogates, U+FFFE/FFFF, truncated, above U+10FFFF) and pseudo-random bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libxml/tree.h>

#include "etl/etl_schema.h"
#include "../formats/xml_escape.h"
#include "support/corpus.h"
#include "util/xml_text.h"

typedef struct oracle {
    xmlDocPtr doc;
    xmlBufferPtr escaped;
    etl_textbuf clean, mine;
    uint64_t compared;
    int failures;
} oracle;

static void oracle_init(oracle *o)
{
    memset(o, 0, sizeof *o);
    o->doc = xmlNewDoc((const xmlChar *)"1.0");
    assert_non_null(o->doc);
    o->doc->encoding = xmlStrdup((const xmlChar *)"UTF-8");
    o->escaped = xmlBufferCreate();
    assert_non_null(o->escaped);
}

static void oracle_free(oracle *o)
{
    xmlBufferFree(o->escaped);
    xmlFreeDoc(o->doc);
    etl_textbuf_free(&o->clean);
    etl_textbuf_free(&o->mine);
}

static void compare(oracle *o, const char *text)
{
    if (!text) return;
    etl_textbuf_reset(&o->clean);
    etl_xml_text_clean(&o->clean, text);
    xmlBufferEmpty(o->escaped);
    xmlAttrSerializeTxtContent(o->escaped, o->doc, NULL, (const xmlChar *)etl_textbuf_at(&o->clean, 0));
    etl_textbuf_reset(&o->mine);
    fmt_xml_escape(&o->mine, text);
    o->compared++;
    /* the XML writer's fast path: a value fmt_xml_scan calls clean is copied as is, so it must be exactly
     * what the escaper (and libxml2) writes for it, and the length must be strlen's */
    int clean;
    size_t length = fmt_xml_scan(text, &clean);
    if (length != strlen(text) || (clean && (o->mine.length != length || memcmp(text, o->mine.data, length) != 0))) {
        if (o->failures++ < 5) fprintf(stderr, "fmt_xml_scan wrong for \"%s\": %zu, clean %d\n", text, length, clean);
    }
    size_t n = (size_t)xmlBufferLength(o->escaped);
    if (n != o->mine.length || memcmp(xmlBufferContent(o->escaped), etl_textbuf_at(&o->mine, 0), n) != 0) {
        if (o->failures++ < 5) {
            fprintf(stderr, "escape differs for \"");
            for (const unsigned char *s = (const unsigned char *)text; *s; s++) fprintf(stderr, "\\x%02x", *s);
            fprintf(stderr, "\": libxml2 \"%s\", mine \"%s\"\n", (const char *)xmlBufferContent(o->escaped),
                    etl_textbuf_at(&o->mine, 0));
        }
    }
}

static void compare_string(const char *text, void *o)
{
    compare(o, text);
}

static void test_crafted_bytes(void **state)
{
    (void)state;
    oracle o;
    oracle_init(&o);
    corpus_short_strings(compare_string, &o);
    static const char *const edge[] = {
        "\xEF\xBF\xBD", "\xEF\xBF\xBE", "\xEF\xBF\xBF", "\xED\xA0\x80", "\xED\x9F\xBF", "\xEE\x80\x80",
        "\xC0\x80", "\xC1\xBF", "\xE0\x80\xAF", "\xF0\x8F\xBF\xBF", "\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF",
        "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xE2\x82", "\xF0\x9F\x98", ("a\xE2\x82\xAC" "b&<>\"\t\r\n\x7F"),
        "\x01\x1F\x7F\x80\xFF", "x\xC3", "\xC3\xA9t\xC3\xA9 \"quoted\" <tag> & more\r\n",
    };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) compare(&o, edge[i]);
    /* the fast path reads the aligned 16-byte block that holds the NUL whole (fmt_scan16): texts that end
     * at the end of a page followed by an inaccessible one must come out the same, and not fault */
    assert_int_equal(corpus_page_end_strings(compare_string, &o), 1 + 48 * 40);
    uint32_t seed = 12345;
    char buf[24];
    for (int i = 0; i < 200000; i++) {
        size_t len = 1 + (seed >> 28);
        for (size_t k = 0; k < len; k++) {
            seed = seed * 1103515245u + 12345u;
            unsigned c = (seed >> 16) & 0xFF;
            buf[k] = (char)(c ? c : 'a');
        }
        buf[len] = 0;
        compare(&o, buf);
    }
    /* longer texts, mostly clean, so the 16-byte paths (and their tails) run: runs between specials */
    static const char pick[] = "&<>\"\t\r\n\x01\x7F\xC3\xA9\xE2\x82\xAC\xEF\xBF\xBE\xFF";
    char long_text[100];
    for (int i = 0; i < 100000; i++) {
        seed = seed * 1103515245u + 12345u;
        size_t len = 1 + (seed >> 16) % 99;
        for (size_t k = 0; k < len; k++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = (seed >> 16) & 0xFFFF;
            long_text[k] = r % 23 == 0 ? pick[r % (sizeof pick - 1)] : (char)('0' + r % 75);
        }
        long_text[len] = 0;
        compare(&o, long_text);
    }
    assert_int_equal(o.failures, 0);
    assert_true(o.compared > 365000);
    oracle_free(&o);
}

static void on_event(const etl_decoded_event *ev, void *ctx)
{
    corpus_event_strings(ev, compare_string, ctx);
}

static void test_every_corpus_string(void **state)
{
    (void)state;
    oracle o;
    oracle_init(&o);
    size_t opened = corpus_decode_all(on_event, &o);
    fprintf(stderr, "xml_escape: %llu strings of %zu traces compared with libxml2\n", (unsigned long long)o.compared,
            opened);
    assert_true(opened >= 20);
    assert_true(o.compared > 1000000);
    assert_int_equal(o.failures, 0);
    oracle_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crafted_bytes),
        cmocka_unit_test(test_every_corpus_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
