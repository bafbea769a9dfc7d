/* formats/csv_cell.c: fmt_csv_cell skips the general path (UTF-8 validation, the quoting decision, libcsv's
 * csv_write) for plain text. It must give the bytes of fmt_csv_cell_general for every string the CSV writer
 * can meet: every string of every decoded event of every corpus trace (names, values, messages, display
 * names; bundled manifests loaded), every 1- and 2-byte string, crafted edge cases and texts ending at a
 * page's end, in RFC 4180 and --csv-compat mode, with and without the compat padding width. The same for
 * the table writer's cells (formats/format_util.c): fmt_table_cell writes text that needs no escaping with
 * its tab in one step and must give the bytes of fmt_table_cell_general, the escaping loop alone; so must
 * fmt_table_value_cells (a line's value cells through one local pointer), for each string as a one-field
 * event and for the fields of every corpus event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../formats/csv_cell.h"
#include "etl/etl_schema.h"
#include "support/corpus.h"

typedef struct oracle {
    fmt_line_writer *fast[2], *general[2]; /* [csv_compat] */
    fmt_line_writer *table_fast, *table_general;
    uint64_t compared, plain;
    int failures;
} oracle;

static int discard(void *ctx, const void *data, size_t length)
{
    (void)ctx, (void)data, (void)length;
    return 0;
}

static void oracle_init(oracle *o)
{
    memset(o, 0, sizeof *o);
    etl_sink sink = {discard, NULL};
    etl_writer_options opt;
    memset(&opt, 0, sizeof opt);
    for (int compat = 0; compat < 2; compat++) {
        opt.csv_compat = compat;
        o->fast[compat] = fmt_line_writer_create(&sink, &opt);
        o->general[compat] = fmt_line_writer_create(&sink, &opt);
        assert_non_null(o->fast[compat]);
        assert_non_null(o->general[compat]);
    }
    opt.csv_compat = 0;
    o->table_fast = fmt_line_writer_create(&sink, &opt);
    o->table_general = fmt_line_writer_create(&sink, &opt);
    assert_non_null(o->table_fast);
    assert_non_null(o->table_general);
}

static void oracle_free(oracle *o)
{
    for (int compat = 0; compat < 2; compat++) {
        fmt_line_writer_destroy(o->fast[compat]);
        fmt_line_writer_destroy(o->general[compat]);
    }
    fmt_line_writer_destroy(o->table_fast);
    fmt_line_writer_destroy(o->table_general);
}

/* Both line writers hold the same text (and cell count); else a failure is counted and shown. */
static void check_same(oracle *o, const fmt_line_writer *a, const fmt_line_writer *b, const char *what,
                       const char *text)
{
    o->compared++;
    if (a->cells != b->cells || a->line.length != b->line.length ||
        memcmp(etl_textbuf_at(&a->line, 0), etl_textbuf_at(&b->line, 0), a->line.length) != 0) {
        if (o->failures++ < 5)
            fprintf(stderr, "%s differs for \"%s\": \"%s\" vs \"%s\"\n", what, text ? text : "(null)",
                    etl_textbuf_at(&a->line, 0), etl_textbuf_at(&b->line, 0));
    }
}

static void compare(oracle *o, const char *text)
{
    for (size_t first = 0; first < 2; first++) { /* the table line's first cell, or a later one */
        fmt_line_writer *a = o->table_fast, *b = o->table_general;
        etl_textbuf_reset(&a->line);
        etl_textbuf_reset(&b->line);
        a->cells = b->cells = first;
        fmt_table_cell(a, text);
        fmt_table_cell_general(b, text);
        check_same(o, a, b, "table cell", text);
        etl_field one = {.kind = ETL_FIELD_VALUE, .value = text, .array_index = -1};
        etl_textbuf_reset(&a->line);
        a->cells = first;
        fmt_table_value_cells(a, &one, 1);
        check_same(o, a, b, "table value cells", text);
    }
    static const int widths[] = {0, 21};
    for (int compat = 0; compat < 2; compat++) {
        for (size_t w = 0; w < 2; w++) {
            for (size_t first = 0; first < 2; first++) { /* the line's first cell, or a later one */
                fmt_line_writer *a = o->fast[compat], *b = o->general[compat];
                etl_textbuf_reset(&a->line);
                etl_textbuf_reset(&b->line);
                a->cells = b->cells = first;
                fmt_csv_cell(a, text, widths[w]);
                fmt_csv_cell_general(b, text, widths[w]);
                check_same(o, a, b, compat ? (widths[w] ? "compat cell (width 21)" : "compat cell") : "csv cell",
                           text);
            }
        }
    }
    if (text && !strpbrk(text, ",\"\r\n")) o->plain++;
}

static void compare_string(const char *text, void *o)
{
    compare(o, text);
}

static void test_crafted(void **state)
{
    (void)state;
    oracle o;
    oracle_init(&o);
    corpus_short_strings(compare_string, &o);
    static const char *const cases[] = {
        NULL, "", " ", "  ", "\t", " lead", "trail ", "\ttab", "tab\t", "a,b", "say \"hi\"", "cr\rlf\n",
        "0x1234ABCD", "{00000000-0000-0000-0000-000000000000}", "C:\\Windows\\system32", "caf\xc3\xa9",
        "bad \xff utf8", "\xef\xbf\xbd", "exactly8", "sixteen bytes!!!", "seventeen bytes!!", "1234567,",
        "a very long plain value that spans several words of eight bytes each without anything special",
        "a very long value that ends with a comma after several words of eight bytes,",
        "a\tb", "C:\\", "del\x7F", "bell\x07", "\xef\xbf\xbe",
        "a very long value that ends with a backslash after several blocks of sixteen bytes\\",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) compare(&o, cases[i]);
    /* the fast path reads the aligned 16-byte block that holds the NUL whole (fmt_scan16): texts that end
     * at the end of a page followed by an inaccessible one must come out the same, and not fault */
    assert_int_equal(corpus_page_end_strings(compare_string, &o), 1 + 48 * 40);
    assert_int_equal(o.failures, 0);
    oracle_free(&o);
}

static void on_event(const etl_decoded_event *ev, void *ctx)
{
    oracle *o = ctx;
    compare(o, ev->provider_name);
    compare(o, ev->event_name);
    compare(o, ev->task_name);
    compare(o, ev->opcode_name);
    compare(o, ev->message);
    compare(o, ev->process_name);
    if (ev->info) compare(o, ev->info->event_name);
    for (size_t i = 0; i < ev->field_count; i++) compare(o, ev->fields[i].value);
    /* the event's value cells at once, against one cell at a time through the escaping loop */
    fmt_line_writer *a = o->table_fast, *b = o->table_general;
    etl_textbuf_reset(&a->line);
    etl_textbuf_reset(&b->line);
    a->cells = b->cells = 1;
    fmt_table_value_cells(a, ev->fields, ev->field_count);
    for (size_t i = 0; i < ev->field_count; i++)
        if (ev->fields[i].kind == ETL_FIELD_VALUE) fmt_table_cell_general(b, ev->fields[i].value);
    check_same(o, a, b, "table value cells of an event", ev->event_name);
}

static void test_every_corpus_value(void **state)
{
    (void)state;
    oracle o;
    oracle_init(&o);
    size_t opened = corpus_decode_all(on_event, &o);
    fprintf(stderr, "csv and table cells: %llu cells of %zu traces compared (%llu strings without , \" CR LF)\n",
            (unsigned long long)o.compared, opened, (unsigned long long)o.plain);
    assert_true(opened >= 20);
    assert_true(o.compared > 8000000);
    assert_int_equal(o.failures, 0);
    oracle_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crafted),
        cmocka_unit_test(test_every_corpus_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
