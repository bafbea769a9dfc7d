/* EVTX writer internals (src/evtx/, formats/evtx.c). Readers nobody here wrote check the files against the
 * corpus (tests/cli_evtx.sh); this covers what the corpus does not reach: each typed value's bytes (expected
 * bytes from MS-DTYP layouts and Python's datetime, not from this code), the fallback to a string, chunk
 * roll-over with template reuse, an event larger than a chunk, and the spooled path giving the same bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "etl/etl_schema.h"
#include "etl/etl_writer.h"
#include "evtx/evtx_value.h"
#include "support/mem_sink.h"

static void expect_bytes(uint8_t type, const char *text, uint8_t want_type, const uint8_t *want, size_t n)
{
    etl_textbuf out = {0};
    assert_int_equal(evtx_encode_text(&out, type, text), want_type);
    assert_int_equal(out.length, n);
    assert_memory_equal(out.data, want, n);
    etl_textbuf_free(&out);
}

static void test_typed_values(void **state)
{
    (void)state;
    expect_bytes(EVTX_INT16, "-51", EVTX_INT16, (const uint8_t *)"\xcd\xff", 2);
    expect_bytes(EVTX_UINT32, "102", EVTX_UINT32, (const uint8_t *)"\x66\0\0\0", 4);
    expect_bytes(EVTX_INT64, "-2", EVTX_INT64, (const uint8_t *)"\xfe\xff\xff\xff\xff\xff\xff\xff", 8);
    expect_bytes(EVTX_HEXINT64, "0x1F", EVTX_HEXINT64, (const uint8_t *)"\x1f\0\0\0\0\0\0\0", 8);
    expect_bytes(EVTX_BOOL, "true", EVTX_BOOL, (const uint8_t *)"\x01\0\0\0", 4);
    /* MS-DTYP 2.3.4.2: Data1..Data3 little-endian, Data4 as is */
    static const uint8_t guid[16] = {0xc4, 0x14, 0xd6, 0x0a, 0xf4, 0x0e, 0x25, 0x42,
                                     0x80, 0x13, 0xf4, 0x4f, 0x37, 0xcb, 0x03, 0x97};
    expect_bytes(EVTX_GUID, "{0ad614c4-0ef4-4225-8013-f44f37cb0397}", EVTX_GUID, guid, 16);
    /* MS-DTYP 2.4.2.2: LocalSystem S-1-5-18 */
    static const uint8_t sid[12] = {1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0};
    expect_bytes(EVTX_SID, "S-1-5-18", EVTX_SID, sid, 12);
    /* 132756731757990000 = (datetime(2021,9,9,14,59,35,799000) - datetime(1601,1,1)) in 100 ns (Python) */
    uint8_t ft[8];
    uint64_t v = 132756731757990000ull;
    for (int i = 0; i < 8; i++) ft[i] = (uint8_t)(v >> (8 * i));
    expect_bytes(EVTX_FILETIME, "2021-09-09T14:59:35.799000000Z", EVTX_FILETIME, ft, 8);
    /* SYSTEMTIME: 2021-09-09 was a Thursday (day of week 4) */
    static const uint8_t st[16] = {0xe5, 0x07, 9, 0, 4, 0, 9, 0, 14, 0, 59, 0, 35, 0, 0x1f, 0x03};
    expect_bytes(EVTX_SYSTEMTIME, "2021-09-09T14:59:35.799000000Z", EVTX_SYSTEMTIME, st, 16);
    expect_bytes(EVTX_BINARY, "0x0A0B", EVTX_BINARY, (const uint8_t *)"\x0a\x0b", 2);
    expect_bytes(EVTX_REAL64, "0.5", EVTX_REAL64, (const uint8_t *)"\0\0\0\0\0\0\xe0\x3f", 8);
    /* text that is not in the type's form stays text (UTF-16) */
    expect_bytes(EVTX_INT8, "300", EVTX_STRING, (const uint8_t *)"3\0" "0\0" "0\0", 6);
    expect_bytes(EVTX_GUID, "Foo", EVTX_STRING, (const uint8_t *)"F\0o\0o\0", 6);
    expect_bytes(EVTX_FILETIME, "1.5Z", EVTX_STRING, (const uint8_t *)"1\0.\0" "5\0Z\0", 8);
    expect_bytes(EVTX_UINT16, "-1", EVTX_STRING, (const uint8_t *)"-\0" "1\0", 4);
    /* integer limits (the digit loop that replaced strtoull) */
    expect_bytes(EVTX_UINT64, "18446744073709551615", EVTX_UINT64, (const uint8_t *)"\xff\xff\xff\xff\xff\xff\xff\xff", 8);
    expect_bytes(EVTX_INT64, "-9223372036854775808", EVTX_INT64, (const uint8_t *)"\0\0\0\0\0\0\0\x80", 8);
    expect_bytes(EVTX_HEXINT64, "0xFFFFFFFFFFFFFFFF", EVTX_HEXINT64, (const uint8_t *)"\xff\xff\xff\xff\xff\xff\xff\xff", 8);
    expect_bytes(EVTX_UINT64, "18446744073709551616", EVTX_STRING,
                 (const uint8_t *)"1\0" "8\0" "4\0" "4\0" "6\0" "7\0" "4\0" "4\0" "0\0" "7\0" "3\0" "7\0" "0\0" "9\0" "5\0"
                                  "5\0" "1\0" "6\0" "1\0" "6\0", 40);
    expect_bytes(EVTX_INT64, "9223372036854775808", EVTX_STRING,
                 (const uint8_t *)"9\0" "2\0" "2\0" "3\0" "3\0" "7\0" "2\0" "0\0" "3\0" "6\0" "8\0" "5\0" "4\0" "7\0" "7\0"
                                  "5\0" "8\0" "0\0" "8\0", 38);
    expect_bytes(EVTX_HEXINT32, "0x", EVTX_STRING, (const uint8_t *)"0\0x\0", 4);
    expect_bytes(EVTX_UINT8, "", EVTX_STRING, (const uint8_t *)"", 0);
    expect_bytes(EVTX_UINT32, "+5", EVTX_STRING, (const uint8_t *)"+\0" "5\0", 4);
}

/* ---- UserData layouts from manifests ------------------------------------------------------------- */

static int keep_user_data(const etl_event_info *info, etl_schema_key_kind key, void *ctx)
{
    (void)key;
    if (info->user_data) *(const char **)ctx = info->user_data;
    return 0;
}

/* Large.man (mc test case) declares <UserData><Root xmlns="urn:uuid:d899..."><Field7>%7</Field7><Field6>%6
 * </Field6></Root></UserData>: a subset of the template's properties, reordered. The expected layout is
 * written here from that manifest text, in etl_event_info.user_data's documented form. */
static void test_user_data_layout(void **state)
{
    (void)state;
    etl_schema_registry *r = etl_schema_registry_new();
    etl_error err;
    assert_int_equal(etl_schema_load_manifest_file(r, "testdata/schemas/wevt-mc-testcases/Large.man",
                                                   ETL_SOURCE_USER_MANIFEST, &err), ETL_OK);
    const char *layout = NULL;
    etl_schema_registry_visit(r, keep_user_data, &layout);
    assert_non_null(layout);
    assert_string_equal(layout, "\x01" "Root\x02\x03" "xmlns\x02" "urn:uuid:d899d334-4b00-44bd-93db-42f3be07837d\x02"
                                "\x01" "Field7\x02\x04" "%7\x02\x05\x01" "Field6\x02\x04" "%6\x02\x05\x05");
    etl_schema_registry_free(r);
}

/* ---- whole files ---------------------------------------------------------------------------------- */

static int mem_write_at(void *ctx, uint64_t offset, const void *data, size_t length)
{
    mem_sink *m = ctx;
    if (offset + length > m->length) return -1;
    memcpy(m->data + offset, data, length);
    return 0;
}

typedef struct fixture {
    etl_event_record record;
    etl_decoded_event event;
    etl_field fields[2];
} fixture;

static void make_event(fixture *fx, const char *text)
{
    memset(fx, 0, sizeof *fx);
    etl_guid_parse("{0745b9d3-bc9a-4c33-953c-77de89336b0d}", &fx->record.header.provider_id);
    fx->record.header.descriptor.id = 7;
    fx->record.header.timestamp = 132756731757990000ll;
    fx->record.pointer_size = 8;
    fx->fields[0] = (etl_field){ETL_FIELD_VALUE, "count", "42", ETL_IN_UINT32, 0, 0, -1, NULL};
    fx->fields[1] = (etl_field){ETL_FIELD_VALUE, "text", text, ETL_IN_UNICODESTRING, 0, 0, -1, NULL};
    fx->event.record = &fx->record;
    fx->event.status = ETL_DECODE_OK;
    fx->event.provider_name = "Test";
    fx->event.event_name = "E";
    fx->event.field_count = 2;
    fx->event.fields = fx->fields;
}

static mem_sink write_file(const char *const *texts, size_t n, int positional)
{
    mem_sink m = {0};
    etl_sink sink = {mem_sink_write, &m};
    etl_writer_options options = {0};
    if (positional) options.sink_write_at = mem_write_at;
    etl_writer *w = etl_writer_new(etl_writer_format_find("evtx"), &sink, &options);
    assert_non_null(w);
    assert_int_equal(etl_writer_begin(w), 0);
    fixture fx;
    for (size_t i = 0; i < n; i++) {
        make_event(&fx, texts[i]);
        assert_int_equal(etl_writer_event(w, &fx.event), 0);
    }
    assert_int_equal(etl_writer_end(w, NULL), 0);
    etl_writer_free(w);
    return m;
}

static uint32_t u32(const char *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void test_chunks_and_templates(void **state)
{
    (void)state;
    enum { N = 500 };
    const char *texts[N];
    for (int i = 0; i < N; i++) texts[i] = "some text of an event";
    mem_sink m = write_file(texts, N, 1);
    size_t chunks = (m.length - 4096) / 65536;
    assert_int_equal((m.length - 4096) % 65536, 0);
    assert_true(chunks >= 2);  /* 500 records of ~0.2 KiB do not fit one chunk */
    assert_int_equal((uint8_t)m.data[42] | (uint8_t)m.data[43] << 8, chunks);  /* chunk count */
    assert_int_equal(u32(m.data + 24), N + 1);                                /* next record id */
    assert_int_equal(u32(m.data + 120), 0);                                   /* clean */
    assert_int_equal(u32(m.data + 124), (uint32_t)crc32(0, (const Bytef *)m.data, 120));
    for (size_t c = 0; c < chunks; c++) {
        const char *k = m.data + 4096 + 65536 * c;
        assert_memory_equal(k, "ElfChnk", 8);
        /* the chunk's first record defines the template, the next ones only refer to it */
        uint32_t first = u32(k + 512 + 4), second = u32(k + 512 + first + 4), third = u32(k + 512 + first + second + 4);
        assert_true(first > second);
        assert_int_equal(second, third);
        uLong crc = crc32(crc32(0, (const Bytef *)k, 120), (const Bytef *)k + 128, 384);
        assert_int_equal(u32(k + 124), (uint32_t)crc);
    }
    free(m.data);
}

static void test_event_larger_than_a_chunk(void **state)
{
    (void)state;
    char *big = malloc(40001);
    assert_non_null(big);
    memset(big, 'x', 40000);  /* 80000 bytes as UTF-16: more than a 64 KiB chunk */
    big[40000] = '\0';
    const char *texts[3] = {"before", big, "after"};
    mem_sink m = write_file(texts, 3, 1);
    assert_int_equal(u32(m.data + 24), 4);  /* three records, none dropped */
    assert_int_equal(m.length, 4096 + 2 * 65536);
    free(m.data);
    free(big);
}

static void test_spooled_equals_positional(void **state)
{
    (void)state;
    const char *texts[4] = {"a", "b", "c", "d"};
    mem_sink a = write_file(texts, 4, 1), b = write_file(texts, 4, 0);
    assert_int_equal(a.length, b.length);
    assert_memory_equal(a.data, b.data, a.length);
    free(a.data);
    free(b.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_typed_values),
        cmocka_unit_test(test_user_data_layout),
        cmocka_unit_test(test_chunks_and_templates),
        cmocka_unit_test(test_event_larger_than_a_chunk),
        cmocka_unit_test(test_spooled_equals_positional),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
