/* Hostile XML manifests: entity expansion (billion laughs), external entities and DTDs, malformed and
 * deeply nested documents, recursive/oversized templates, size caps. Each must end in a clear one-line error
 * naming the input — no crash, no network, no unbounded memory. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/resource.h>
#include <time.h>

#include "test_manifest_compare.h"

static int parse_text(const char *xml, size_t len, etl_error *err, size_t *events)
{
    etl_schema_set s;
    etl_schema_set_init(&s);
    int rc = etl_manifest_parse(&s, xml, len, "hostile.man", err);
    if (events) *events = s.event_count;
    etl_schema_set_free(&s);
    return rc;
}

static long max_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

#define HEAD "<?xml version=\"1.0\"?>\n"
#define MAN_OPEN "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">" \
                 "<instrumentation><events><provider name=\"P\" guid=\"{00000000-0000-0000-0000-000000000001}\">"
#define MAN_CLOSE "</provider></events></instrumentation></instrumentationManifest>"

static void test_billion_laughs(void **state)
{
    (void)state;
    static const char xml[] = HEAD
        "<!DOCTYPE lolz [\n"
        " <!ENTITY lol \"lol\">\n"
        " <!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
        " <!ENTITY lol2 \"&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;\">\n"
        " <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
        " <!ENTITY lol4 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">\n"
        " <!ENTITY lol5 \"&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;\">\n"
        " <!ENTITY lol6 \"&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;\">\n"
        " <!ENTITY lol7 \"&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;\">\n"
        " <!ENTITY lol8 \"&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;\">\n"
        " <!ENTITY lol9 \"&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;\">\n"
        "]>\n" MAN_OPEN "<events><event value=\"1\" message=\"&lol9;\"/></events>" MAN_CLOSE;
    long before = max_rss_kib();
    etl_error err;
    assert_int_equal(parse_text(xml, sizeof(xml) - 1, &err, NULL), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "hostile.man"));
    assert_non_null(strstr(err.message, "not allowed"));
    assert_true(max_rss_kib() - before < 64 * 1024);   /* 1e9 "lol"s would be 3 GB */
}

static void test_external_entities(void **state)
{
    (void)state;
    static const char xxe[] = HEAD "<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>\n" MAN_OPEN
        "<events><event value=\"1\" message=\"&e;\"/></events>" MAN_CLOSE;
    static const char dtd[] = HEAD "<!DOCTYPE x SYSTEM \"http://127.0.0.1:9/evil.dtd\">\n" MAN_OPEN MAN_CLOSE;
    static const char param[] = HEAD "<!DOCTYPE x [<!ENTITY % p SYSTEM \"file:///etc/passwd\"> %p;]>\n"
        MAN_OPEN MAN_CLOSE;
    etl_error err;
    assert_int_equal(parse_text(xxe, sizeof(xxe) - 1, &err, NULL), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "not allowed"));
    assert_int_equal(parse_text(dtd, sizeof(dtd) - 1, &err, NULL), ETL_ERR_SCHEMA);
    assert_int_equal(parse_text(param, sizeof(param) - 1, &err, NULL), ETL_ERR_SCHEMA);
    /* the same in UTF-16: the refusal does not depend on the encoding */
    size_t n = sizeof(xxe) - 1;
    char *u16 = malloc(2 * n + 2);
    u16[0] = (char)0xFF;
    u16[1] = (char)0xFE;
    for (size_t i = 0; i < n; i++) { u16[2 + 2 * i] = xxe[i]; u16[3 + 2 * i] = 0; }
    assert_int_equal(parse_text(u16, 2 * n + 2, &err, NULL), ETL_ERR_SCHEMA);
    free(u16);
}

static void test_malformed(void **state)
{
    (void)state;
    etl_error err;
    static const char unclosed[] = HEAD MAN_OPEN "<events><event value=\"1\">" MAN_CLOSE;
    assert_int_equal(parse_text(unclosed, sizeof(unclosed) - 1, &err, NULL), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "not well-formed"));
    assert_non_null(strstr(err.message, "line"));
    assert_int_equal(parse_text("", 0, &err, NULL), ETL_ERR_SCHEMA);
    assert_int_equal(parse_text("\x00\x01\x02garbage", 10, &err, NULL), ETL_ERR_SCHEMA);
    static const char not_manifest[] = HEAD "<html><body>hi</body></html>";
    assert_int_equal(parse_text(not_manifest, sizeof(not_manifest) - 1, &err, NULL), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "not an instrumentation manifest"));
    static const char bad_guid[] = HEAD "<instrumentationManifest><instrumentation><events>"
        "<provider name=\"P\" guid=\"{nonsense}\"/></events></instrumentation></instrumentationManifest>";
    assert_int_equal(parse_text(bad_guid, sizeof(bad_guid) - 1, &err, NULL), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "guid"));
    /* an undeclared prefix is a namespace error libxml2 reports but does not refuse; the refusal names the
     * fatal error further down (line 5), the one xmllint reports */
    static const char ns_then_fatal[] = HEAD "<instrumentationManifest>\n<x:foo/>\n"
                                        "<instrumentation><events>\n<provider name=\"P\" guid=\"{x}\"\"/>\n"
                                        "</events></instrumentation></instrumentationManifest>";
    assert_int_equal(parse_text(ns_then_fatal, sizeof(ns_then_fatal) - 1, &err, NULL), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "(line 5)"));
    /* a WinSxS manifest as Windows 10+ stores it: "DCM" 01 then a PA30 delta patch */
    static const char dcm[] = "DCM\001PA30\x9a\x01\x02\x03\x04\x05";
    assert_int_equal(parse_text(dcm, sizeof(dcm) - 1, &err, NULL), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "hostile.man"));
    assert_non_null(strstr(err.message, "delta-compressed"));
}

static void test_deep_nesting(void **state)
{
    (void)state;
    size_t depth = 100000;
    char *xml = malloc(depth * 7 + 64);
    size_t n = 0;
    for (size_t i = 0; i < depth; i++) n += (size_t)sprintf(xml + n, "<a>");
    for (size_t i = 0; i < depth; i++) n += (size_t)sprintf(xml + n, "</a>");
    etl_error err;
    assert_int_equal(parse_text(xml, n, &err, NULL), ETL_ERR_SCHEMA);   /* libxml2's depth limit */
    free(xml);
}

static void test_recursive_template(void **state)
{
    (void)state;
    char xml[8192];
    size_t n = (size_t)snprintf(xml, sizeof(xml), HEAD MAN_OPEN "<templates><template tid=\"T\">");
    for (int i = 0; i < 40; i++) n += (size_t)snprintf(xml + n, sizeof(xml) - n, "<struct name=\"s%d\">", i);
    n += (size_t)snprintf(xml + n, sizeof(xml) - n, "<data name=\"x\" inType=\"win:UInt8\"/>");
    for (int i = 0; i < 40; i++) n += (size_t)snprintf(xml + n, sizeof(xml) - n, "</struct>");
    n += (size_t)snprintf(xml + n, sizeof(xml) - n, "</template></templates>" MAN_CLOSE);
    etl_error err;
    assert_int_equal(parse_text(xml, n, &err, NULL), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "nested too deep"));

    static const char forward[] = HEAD MAN_OPEN "<templates><template tid=\"T\">"
        "<data name=\"s\" inType=\"win:UnicodeString\" length=\"Later\"/><data name=\"Later\" inType=\"win:UInt16\"/>"
        "</template></templates>" MAN_CLOSE;
    assert_int_equal(parse_text(forward, sizeof(forward) - 1, &err, NULL), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "earlier field"));
    static const char huge_count[] = HEAD MAN_OPEN "<templates><template tid=\"T\">"
        "<data name=\"a\" inType=\"win:UInt8\" count=\"99999999999\"/></template></templates>" MAN_CLOSE;
    assert_int_equal(parse_text(huge_count, sizeof(huge_count) - 1, &err, NULL), ETL_ERR_SCHEMA);
    static const char bad_type[] = HEAD MAN_OPEN "<templates><template tid=\"T\">"
        "<data name=\"a\" inType=\"win:Banana\"/></template></templates>" MAN_CLOSE;
    assert_int_equal(parse_text(bad_type, sizeof(bad_type) - 1, &err, NULL), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "win:Banana"));
}

static void test_size_cap_and_truncation(void **state)
{
    (void)state;
    size_t big = ETL_MANIFEST_MAX_BYTES + 1;
    char *xml = malloc(big);
    memset(xml, ' ', big);
    etl_error err;
    assert_int_equal(parse_text(xml, big, &err, NULL), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "larger than"));
    free(xml);
    /* every prefix of a real manifest: an error or a partial model, never a crash */
    size_t len;
    unsigned char *m = read_whole_file("testdata/schemas/wevt-mc-testcases/Large.man", &len);
    assert_non_null(m);
    for (size_t cut = 0; cut < len; cut += 61) (void)parse_text((const char *)m, cut, &err, NULL);
    size_t events;
    assert_int_equal(parse_text((const char *)m, len, &err, &events), ETL_OK);
    assert_int_equal(events, 12);
    free(m);
}

/* A refused part does not take the rest down: a provider with a bad GUID and a template with an unknown type
 * are left out (the event using that template too), everything else loads, the first error is reported. */
static void test_partial_load(void **state)
{
    (void)state;
    static const char xml[] = HEAD "<instrumentationManifest><instrumentation><events>"
        "<provider name=\"Bad\" guid=\"{not-a-guid}\"><events><event value=\"1\"/></events></provider>"
        "<provider name=\"Good\" guid=\"{00000000-0000-0000-0000-000000000002}\"><templates>"
        "<template tid=\"Broken\"><data name=\"a\" inType=\"win:Banana\"/></template>"
        "<template tid=\"Fine\"><data name=\"b\" inType=\"win:UInt32\"/></template></templates>"
        "<events><event value=\"1\" template=\"Broken\"/><event value=\"2\" template=\"Fine\"/>"
        "<event value=\"3\"/></events></provider></events></instrumentation></instrumentationManifest>";
    etl_schema_set s;
    etl_schema_set_init(&s);
    etl_error err;
    assert_int_equal(etl_manifest_parse(&s, xml, sizeof(xml) - 1, "partial.man", &err), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "partial.man: line 2: provider 'Bad': missing or invalid guid"));
    assert_non_null(strstr(err.message, "3 items left out"));   /* provider, template, event 1 */
    assert_int_equal(s.provider_count, 1);
    assert_int_equal(s.event_count, 2);
    etl_schema_set_sort(&s);
    assert_int_equal(s.events[0].descriptor.id, 2);
    assert_int_equal(s.events[0].property_count, 1);
    assert_int_equal(s.events[1].descriptor.id, 3);
    etl_schema_set_free(&s);
}

/* Many tasks, opcodes sharing one name, channels, maps and events: lookups stay logarithmic, so a large
 * (or hostile) manifest parses in bounded time; tables beyond their caps are cut, not grown. */
static void test_large_tables(void **state)
{
    (void)state;
    size_t cap = 16u << 20, n = 0;
    char *xml = malloc(cap);
    assert_non_null(xml);
    n += (size_t)snprintf(xml + n, cap - n, HEAD MAN_OPEN "<channels>");
    for (int i = 0; i < 2000; i++)
        n += (size_t)snprintf(xml + n, cap - n, "<channel name=\"c%d\" chid=\"c%d\" type=\"Analytic\"/>", i, i);
    n += (size_t)snprintf(xml + n, cap - n, "</channels><tasks>");
    for (int t = 1; t <= 20000; t++)
        n += (size_t)snprintf(xml + n, cap - n, "<task name=\"T%d\" value=\"%d\"><opcodes><opcode name=\"Op\" value=\"11\"/>"
                              "</opcodes></task>", t, t);
    n += (size_t)snprintf(xml + n, cap - n, "</tasks><maps>");
    for (int m = 0; m < 20000; m++)
        n += (size_t)snprintf(xml + n, cap - n, "<valueMap name=\"M%d\"><map value=\"1\" message=\"x\"/></valueMap>", m);
    n += (size_t)snprintf(xml + n, cap - n, "</maps><templates>");
    for (int t = 0; t < 20000; t++)
        n += (size_t)snprintf(xml + n, cap - n, "<template tid=\"t%d\"><data name=\"a\" inType=\"win:UInt32\" map=\"M%d\"/>"
                              "</template>", t, t);
    n += (size_t)snprintf(xml + n, cap - n, "</templates><events>");
    for (int e = 1; e <= 50000; e++)
        n += (size_t)snprintf(xml + n, cap - n, "<event value=\"%d\" task=\"T%d\" opcode=\"Op\" channel=\"c%d\" "
                              "template=\"t%d\"/>", e, 1 + e % 20000, e % 200, e % 20000);
    n += (size_t)snprintf(xml + n, cap - n, "</events>" MAN_CLOSE);
    assert_true(n < cap - 1);
    clock_t start = clock();
    etl_schema_set s;
    etl_schema_set_init(&s);
    etl_error err;
    int rc = etl_manifest_parse(&s, xml, n, "large.man", &err);
    double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    fprintf(stderr, "large manifest: %zu bytes, %zu events, %.2f s\n", n, s.event_count, seconds);
    assert_int_equal(rc, ETL_OK);
    assert_int_equal(s.event_count, 50000);
    assert_true(seconds < 20.0);   /* quadratic lookups would take minutes */
    etl_schema_set_sort(&s);
    assert_int_equal(s.events[4].descriptor.task, 6);        /* event 5: task T(1 + 5) */
    assert_int_equal(s.events[4].descriptor.opcode, 11);
    assert_non_null(s.events[4].properties[0].map);
    assert_string_equal(s.events[4].properties[0].map->name, "M5");
    etl_schema_set_free(&s);
    free(xml);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_billion_laughs),
        cmocka_unit_test(test_external_entities),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_recursive_template),
        cmocka_unit_test(test_size_cap_and_truncation),
        cmocka_unit_test(test_partial_load),
        cmocka_unit_test(test_large_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
