/* Hostile XML manifests: entity expansion (billion laughs), external entities and DTDs, malformed and
 * deeply nested documents, recursive/oversized templates, size caps. Each must end in a clear one-line error
 * naming the input — no crash, no network, no unbounded memory. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/resource.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_billion_laughs),
        cmocka_unit_test(test_external_entities),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_recursive_template),
        cmocka_unit_test(test_size_cap_and_truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
