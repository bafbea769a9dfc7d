/* WPP TMF parser and message rendering (src/schema/wpp/). Oracles: an awk count over the 90 real TMF files of
 * ../shared/schemas/wpp-tmf/nefarius (statements = "#typev" lines, arguments = "... -- N" lines inside their
 * braces), printf's own conversions for the %N!spec! texts, the mingw-w64 headers for status names, and the
 * documented item layouts (docs/schemas.md §5.2) for payloads built here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "schema/manifest_model.h"
#include "schema/wpp/wpp.h"

#define NEFARIUS "../shared/schemas/wpp-tmf/nefarius/tmf"

static void test_nefarius_counts(void **state)
{
    (void)state;
    /* the independent count: awk over the files, one line per file "NAME STATEMENTS ARGUMENTS" */
    FILE *p = popen("cd " NEFARIUS " && awk '"
                    "FNR == 1 { if (f != \"\") print f, s, a; f = FILENAME; s = 0; a = 0; inb = 0 }"
                    "/^#typev / { s++; t = 1; next }"
                    "t && /^\\{/ { inb = 1; t = 0; next }"
                    "inb && /^\\}/ { inb = 0; next }"
                    "inb && / -- [0-9]+\\r?$/ { a++ }"
                    "END { print f, s, a }' *.tmf",
                    "r");
    assert_non_null(p);
    char name[256];
    unsigned want_s, want_a, files = 0, total_s = 0, total_a = 0;
    while (fscanf(p, "%255s %u %u", name, &want_s, &want_a) == 3) {
        char path[512];
        snprintf(path, sizeof path, NEFARIUS "/%s", name);
        unsigned char *data;
        size_t size;
        etl_error err;
        assert_int_equal(etl_schema_read_file(path, 1u << 24, &data, &size, &err), ETL_OK);
        wpp_store *store = wpp_store_new();
        wpp_load_stats stats;
        memset(&stats, 0, sizeof stats);
        memset(&err, 0, sizeof err);
        int rc = wpp_store_parse(store, (const char *)data, size, path, &stats, &err);
        if (rc != ETL_OK) fprintf(stderr, "%s\n", err.message);
        assert_int_equal(rc, ETL_OK);
        assert_int_equal(stats.refused, 0);
        assert_int_equal(stats.statements, want_s);
        assert_int_equal(stats.arguments, want_a);
        /* the first statement of each file is found by its (GUID, number) and carries its trailer */
        assert_true(wpp_store_statement_count(store) + stats.duplicates == stats.statements);
        files++;
        total_s += want_s;
        total_a += want_a;
        free(data);
        wpp_store_free(store);
    }
    pclose(p);
    assert_int_equal(files, 90);
    print_message("nefarius: 90 TMF files, %u statements, %u arguments\n", total_s, total_a);
    assert_true(total_s > 3000 && total_a > 3000);

    /* one statement read in full: ca66b9c0-....tmf line 4 */
    wpp_store *store = wpp_store_new();
    etl_error err;
    unsigned char *data;
    size_t size;
    assert_int_equal(etl_schema_read_file(NEFARIUS "/ca66b9c0-97d7-3776-3daf-3296492866aa.tmf", 1u << 24, &data, &size,
                                          &err), ETL_OK);
    assert_int_equal(wpp_store_parse(store, (const char *)data, size, "x", NULL, &err), ETL_OK);
    etl_guid g;
    assert_int_equal(etl_guid_parse("ca66b9c0-97d7-3776-3daf-3296492866aa", &g), 0);
    const wpp_statement *st = wpp_store_find(store, &g, 13);
    assert_non_null(st);
    assert_string_equal(st->tag, "Device_c104");
    assert_string_equal(st->format, "%0 [%!FUNC!] <--");
    assert_string_equal(st->level, "TRACE_LEVEL_VERBOSE");
    assert_string_equal(st->flags, "TRACE_DEVICE");
    assert_string_equal(st->function, "BthPS3PSM_CreateDevice");
    assert_int_equal(st->line_number, 104);
    assert_string_equal(wpp_store_component(store, st->component)->name, "BthPS3PSM");
    assert_string_equal(wpp_store_component(store, st->component)->source_file, "Device.c");
    free(data);
    wpp_store_free(store);
}

/* ---- hostile and malformed TMFs ---------------------------------------------------------------------- */

#define HEADER "11111111-2222-3333-4444-555555555555 comp // SRC=a.c MJ= MN=\n"
#define GOOD "#typev a_c9 99 \"%0ok %10!d!\" // LEVEL=L FUNC=f\n{\nx, ItemLong -- 10\n}\n"

static int parse_text(const char *text, wpp_load_stats *stats, etl_error *err, wpp_store **out)
{
    wpp_store *store = wpp_store_new();
    memset(stats, 0, sizeof *stats);
    memset(err, 0, sizeof *err);
    int rc = wpp_store_parse(store, text, strlen(text), "h.tmf", stats, err);
    *out = store;
    return rc;
}

static int good_loaded(const wpp_store *store)
{
    etl_guid g;
    etl_guid_parse("11111111-2222-3333-4444-555555555555", &g);
    const wpp_statement *st = wpp_store_find(store, &g, 99);
    return st && st->arg_count == 1 && st->args[0].item == WPP_ITEM_LONG;
}

static void expect_refused(const char *text, const char *where_why)
{
    wpp_load_stats stats;
    etl_error err;
    wpp_store *store;
    assert_int_equal(parse_text(text, &stats, &err, &store), ETL_ERR_FORMAT);
    if (!strstr(err.message, where_why)) fail_msg("got \"%s\", want \"%s\"", err.message, where_why);
    assert_true(stats.refused >= 1);
    assert_true(good_loaded(store)); /* the rest still loads */
    wpp_store_free(store);
}

static void test_hostile(void **state)
{
    (void)state;
    wpp_load_stats stats;
    etl_error err;
    wpp_store *store;
    assert_int_equal(parse_text(HEADER GOOD, &stats, &err, &store), ETL_OK);
    assert_true(good_loaded(store));
    wpp_store_free(store);

    expect_refused(HEADER "#typev b 70000 \"x\"\n{\n}\n" GOOD, "h.tmf:2: #typev message number");
    expect_refused(HEADER "#typev b 1 \"x\n{\n}\n" GOOD, "h.tmf:2: #typev format string has no closing quote");
    expect_refused(HEADER "#typev b 1 \"x\"\n{\n{\n}\n" GOOD, "h.tmf:4: nested block");
    expect_refused(HEADER "#typev b 1 \"x\"\n{\nx, ItemLong\n}\n" GOOD, "h.tmf:4: argument line without");
    expect_refused(HEADER "#typev b 1 \"x\"\n{\nx, ItemLong -- 0\n}\n" GOOD, "h.tmf:4: argument number");
    expect_refused(HEADER "#typev b 1 \"x\"\n{\nx, ItemListByte(a,b)) -- 10\n}\n" GOOD, "h.tmf:4: unbalanced");
    expect_refused(HEADER "#typev b 1 \"x\"\nnot a brace\n" GOOD, "h.tmf:2: #typev not followed by");
    expect_refused(HEADER "}\n" GOOD, "h.tmf:2: brace outside");
    expect_refused("#typev b 1 \"x\"\n{\n}\n" HEADER GOOD, "h.tmf:1: #typev before the");
    expect_refused(HEADER GOOD "#typev b 1 \"x\"\n{\nx, ItemLong -- 10\n", "h.tmf:6: block not closed");
    expect_refused(HEADER "#enumv E\n{\nA,notanumber\n}\n" GOOD, "h.tmf:4: enumeration entry value");

    /* huge counts: 200 arguments, a 300-name list, a 5000-entry enumeration, a 100 KiB line */
    etl_textbuf t = {0};
    etl_textbuf_puts(&t, HEADER "#typev big 1 \"x\"\n{\n");
    for (int i = 0; i < 200; i++) etl_textbuf_printf(&t, "v%d, ItemLong -- %d\n", i, 10 + i);
    etl_textbuf_puts(&t, "}\n" GOOD);
    expect_refused(t.data, "h.tmf:132: more than 128 arguments");
    etl_textbuf_reset(&t);
    etl_textbuf_puts(&t, HEADER "#typev big 1 \"x\"\n{\nv, ItemListLong(");
    for (int i = 0; i < 300; i++) etl_textbuf_printf(&t, "%sn%d", i ? "," : "", i);
    etl_textbuf_puts(&t, ") -- 10\n}\n" GOOD);
    expect_refused(t.data, "h.tmf:4: too many names");
    etl_textbuf_reset(&t);
    etl_textbuf_puts(&t, HEADER "#enumv E\n{\n");
    for (int i = 0; i < 5000; i++) etl_textbuf_printf(&t, "N%d,%d\n", i, i);
    etl_textbuf_puts(&t, "}\n" GOOD);
    expect_refused(t.data, "h.tmf:4100: more than 4096 entries");
    etl_textbuf_reset(&t);
    etl_textbuf_puts(&t, HEADER "#typev long 1 \"");
    for (int i = 0; i < 100000; i++) etl_textbuf_putc(&t, 'A');
    etl_textbuf_puts(&t, "\"\n{\n}\n" GOOD);
    expect_refused(t.data, "h.tmf:2: line longer than 64 KiB");
    /* deep nesting inside an item's parentheses is only text: balanced, it loads as the list "((((a))))" */
    etl_textbuf_reset(&t);
    etl_textbuf_puts(&t, HEADER "#typev deep 1 \"x\"\n{\nv, ItemListByte(");
    for (int i = 0; i < 10000; i++) etl_textbuf_putc(&t, '(');
    for (int i = 0; i < 10000; i++) etl_textbuf_putc(&t, ')');
    etl_textbuf_puts(&t, ") -- 10\n}\n" GOOD);
    assert_int_equal(parse_text(t.data, &stats, &err, &store), ETL_OK);
    assert_true(good_loaded(store));
    wpp_store_free(store);
    /* arguments whose expressions hold commas and parentheses */
    assert_int_equal(parse_text(HEADER "#typev c 2 \"%10!d!\"\n{\n(LONG)((a - b) / c, d), ItemLong -- 10\n}\n" GOOD,
                                &stats, &err, &store), ETL_OK);
    etl_guid g;
    etl_guid_parse("11111111-2222-3333-4444-555555555555", &g);
    assert_string_equal(wpp_store_find(store, &g, 2)->args[0].expression, "(LONG)((a - b) / c, d)");
    wpp_store_free(store);
    etl_textbuf_free(&t);
}

/* ---- rendering ----------------------------------------------------------------------------------------- */

static const char render_tmf[] =
    "// rendering cases\n"
    "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee Comp // SRC=render.c MJ= MN=\n"
    "#typev render_c10 10 \"%0[%10!-6s!|%11!5s!|%12!.3s!]\" // LEVEL=LVL FLAGS=FLG FUNC=Fn\n"
    "{\na, ItemString -- 10\nb, ItemString -- 11\nc, ItemWString -- 12\n}\n"
    "#typev render_c20 11 \"%10!08X! %10!#x! %10!o! %10!u! %10!d! %11!d! %11!u! %12!c! %13!hd!\" // LEVEL=LVL\n"
    "{\nv, ItemLong -- 10\ns, ItemShort -- 11\nc, ItemChar -- 12\nw, ItemShort -- 13\n}\n"
    "#typev render_c30 12 \"%10!p! %11!s! %11!.2f! %12!s! %13!s! %14!s!\" // LEVEL=LVL\n"
    "{\np, ItemPtr -- 10\nd, ItemDouble -- 11\nt, ItemTimeDelta -- 12\nw, ItemWaitTime -- 13\nip, ItemIPV6Addr -- 14\n}\n"
    "#typev render_c40 13 \"%10!s! %11!s! %12!s! %13!d!\" // LEVEL=LVL\n"
    "{\ne, ItemEnum(_E) -- 10\nf, ItemFlagsEnum(_F) -- 11\ng, ItemFlagsEnum(_F) -- 12\nh, ItemEnum(_E) -- 13\n}\n"
    "#typev render_c50 14 \"%10!s! %11!s! %12!s! %13!s! %14!s!\" // LEVEL=LVL\n"
    "{\na, ItemNTSTATUS -- 10\nb, ItemNTSTATUS -- 11\nc, ItemHRESULT -- 12\nd, ItemWINERROR -- 13\ne, ItemNDIS_STATUS -- 14\n}\n"
    "#typev render_c60 15 \"%%%!FUNC!|%!LEVEL!|%!FLAGS!|%!COMPNAME!|%!FILE!|%!LINE!|%!OTHER!|%13!d!|%10!s!\" // "
    "LEVEL=LVL FLAGS=FLG FUNC=Fn2\n"
    "{\na, ItemLong -- 10\n}\n"
    "#typev render_c70 16 \"%10!s! %11!s! %12!s!\" // LEVEL=LVL\n"
    "{\na, ItemLong -- 10\nb, ItemString -- 11\nc, ItemLong -- 12\n}\n"
    "#enumv _E\n{\nStateIdle,0x0\nStateActive,0x1\n}\n"
    "#enumv _F\n{\nFlagRead,0x1\nFlagWrite,0x2\nFlagExec,0x4\n}\n";

typedef struct fixture {
    wpp_store *store;
    wpp_decoder *decoder;
    etl_event_record rec;
    etl_decoded_event ev;
} fixture;

static const char *decode(fixture *f, uint16_t number, const void *payload, size_t size, unsigned pointer_size)
{
    memset(&f->rec, 0, sizeof f->rec);
    memset(&f->ev, 0, sizeof f->ev);
    f->rec.kind = ETL_KIND_MESSAGE;
    etl_guid_parse("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", &f->rec.header.provider_id);
    f->rec.header.descriptor.id = number;
    f->rec.user_data = payload;
    f->rec.user_data_length = (uint16_t)size;
    f->rec.pointer_size = (uint8_t)pointer_size;
    f->ev.record = &f->rec;
    etl_render_context ctx = {(uint8_t)pointer_size, NULL, 0, NULL};
    assert_int_equal(wpp_decode(f->decoder, f->store, &f->rec, &ctx, &f->ev), 1);
    return f->ev.message;
}

static void test_render(void **state)
{
    (void)state;
    fixture f;
    f.store = wpp_store_new();
    f.decoder = wpp_decoder_new();
    etl_error err;
    assert_int_equal(wpp_store_parse(f.store, render_tmf, sizeof render_tmf - 1, "render", NULL, &err), ETL_OK);

    static const uint8_t p10[] = {'a', 'b', 0, 'c', 'd', 0, 'x', 0, 'y', 0, 'z', 0, 'w', 0, 0, 0};
    assert_string_equal(decode(&f, 10, p10, sizeof p10, 8), "[ab    |   cd|xyz]");
    assert_string_equal(f.ev.provider_name, "Comp");
    assert_string_equal(f.ev.event_name, "render_c10");
    assert_string_equal(f.ev.task_name, "Fn");
    assert_string_equal(f.ev.wpp->flags, "FLG");
    assert_string_equal(f.ev.wpp->file, "render.c");
    assert_int_equal(f.ev.wpp->line, 10);
    assert_int_equal(f.ev.field_count, 3);
    assert_string_equal(f.ev.fields[2].name, "c");
    assert_string_equal(f.ev.fields[2].value, "xyz"); /* fields take the format's conversion (%.3s) */

    /* 0xFFFFFFFE as a LONG, -2 as a SHORT, 'A', 0x8000 as a SHORT: printf's own results */
    static const uint8_t p11[] = {0xFE, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 'A', 0x00, 0x80};
    assert_string_equal(decode(&f, 11, p11, sizeof p11, 8), "FFFFFFFE 0xfffffffe 37777777776 4294967294 -2 -2 65534 A -32768");

    /* pointer (32-bit producer), 3.140625, 5 s delta, a relative wait of 1 s, 2001:db8::1 */
    uint8_t p12[4 + 8 + 8 + 8 + 16] = {0x78, 0x56, 0x34, 0x12};
    double d = 3.140625;
    memcpy(p12 + 4, &d, 8);
    int64_t delta = 50000000, wait = -10000000;
    memcpy(p12 + 12, &delta, 8);
    memcpy(p12 + 20, &wait, 8);
    static const uint8_t v6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    memcpy(p12 + 28, v6, 16);
    assert_string_equal(decode(&f, 12, p12, sizeof p12, 4),
                        "12345678 3.14062 3.14 5.000s 1.000s (relative) 2001:db8::1");

    /* the most negative values have no positive counterpart (found by fuzz_wpp_tmf) */
    delta = INT64_MIN;
    wait = INT64_MIN;
    memcpy(p12 + 12, &delta, 8);
    memcpy(p12 + 20, &wait, 8);
    assert_string_equal(decode(&f, 12, p12, sizeof p12, 4),
                        "12345678 3.14062 3.14 -922337203685.478s 922337203685.478s (relative) 2001:db8::1");

    /* enumerations: a name, flag names joined by " | " with the value in hex, %d on an enum */
    static const uint8_t p13[] = {1, 0, 0, 0, 5, 0, 0, 0, 9, 0, 0, 0, 7, 0, 0, 0};
    assert_string_equal(decode(&f, 13, p13, sizeof p13, 8), "StateActive FlagRead | FlagExec(0x5) FlagRead(0x9) 7");

    /* STATUS_SUCCESS (first name of 0 in ntstatus.h), an unknown NTSTATUS, E_FAIL, ERROR_ACCESS_DENIED,
     * NDIS_STATUS_SUCCESS (written as STATUS_SUCCESS in ddk/ndis.h) */
    static const uint8_t p14[] = {0, 0, 0, 0, 0x34, 0x12, 0x00, 0xE0, 0x05, 0x40, 0x00, 0x80, 5, 0, 0, 0, 0, 0, 0, 0};
    assert_string_equal(decode(&f, 14, p14, sizeof p14, 8),
                        "0x00000000(STATUS_SUCCESS) 0xe0001234 0x80004005(E_FAIL) 5(ERROR_ACCESS_DENIED) "
                        "0x00000000(NDIS_STATUS_SUCCESS)");

    /* %% and the %!NAME! items; an unknown %!NAME! and a missing argument stay as written */
    static const uint8_t p15[] = {7, 0, 0, 0};
    assert_string_equal(decode(&f, 15, p15, sizeof p15, 8), "%Fn2|LVL|FLG|Comp|render.c|60|%!OTHER!|%13!d!|7");

    /* a payload that ends inside an argument: ERROR, fields decoded so far kept, the rest named */
    static const uint8_t p16[] = {1, 0, 0, 0, 'a', 'b'};
    assert_string_equal(decode(&f, 16, p16, sizeof p16, 8), "1 %11!s! %12!s!");
    assert_int_equal(f.ev.status, ETL_DECODE_ERROR);
    assert_int_equal(f.ev.field_count, 1);
    assert_non_null(strstr(f.ev.error, "WPP argument %11 (ItemString, b) at payload offset 4"));

    /* the EVENT_HEADER form of a trace message (EVENT_HEADER_FLAG_TRACE_MESSAGE) is matched the same way */
    memset(&f.rec, 0, sizeof f.rec);
    memset(&f.ev, 0, sizeof f.ev);
    f.rec.kind = ETL_KIND_EVENT64;
    f.rec.header.flags = ETL_EVENT_FLAG_TRACE_MESSAGE;
    etl_guid_parse("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", &f.rec.header.provider_id);
    f.rec.header.descriptor.id = 15;
    f.rec.user_data = p15;
    f.rec.user_data_length = sizeof p15;
    f.ev.record = &f.rec;
    etl_render_context ctx = {8, NULL, 0, NULL};
    assert_int_equal(wpp_decode(f.decoder, f.store, &f.rec, &ctx, &f.ev), 1);
    /* without the flag it is an ordinary event: not WPP's */
    f.rec.header.flags = 0;
    memset(&f.ev, 0, sizeof f.ev);
    f.ev.record = &f.rec;
    assert_int_equal(wpp_decode(f.decoder, f.store, &f.rec, &ctx, &f.ev), 0);
    /* an unknown message number: not decoded */
    f.rec.kind = ETL_KIND_MESSAGE;
    f.rec.header.descriptor.id = 77;
    assert_int_equal(wpp_decode(f.decoder, f.store, &f.rec, &ctx, &f.ev), 0);

    /* the tracefmt prefix: standard items with their conversions */
    etl_textbuf out = {0};
    decode(&f, 10, p10, sizeof p10, 8);
    f.rec.header.process_id = 0x1A2B;
    f.rec.header.thread_id = 0x3C;
    f.rec.buffer_context.processor_index = 3;
    f.rec.wpp_sequence = 42;
    etl_textbuf scratch = {0};
    wpp_expand_prefix(&out, WPP_DEFAULT_PREFIX "%2!s! %7!u! %!FUNC!", &f.ev, "01/02/2003-04:05:06.007", &scratch);
    etl_textbuf_free(&scratch);
    assert_string_equal(out.data, "[3]1A2B.003C::01/02/2003-04:05:06.007 [Comp]render_c10 42 Fn");
    etl_textbuf_free(&out);

    wpp_decoder_free(f.decoder);
    wpp_store_free(f.store);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_nefarius_counts), cmocka_unit_test(test_hostile),
                                       cmocka_unit_test(test_render)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
