/* WPP trace messages in the forms that do not name their message GUID the classic way, checked on real
 * records: every WPP record of the ten findneedle captures (../shared/corpus/findneedle, testdata/findneedle)
 * is written again, with its own argument bytes, as
 *   - a MESSAGE_TRACE_HEADER with TRACE_MESSAGE_COMPONENTID (4 bytes: the message GUID's Data1) instead of
 *     TRACE_MESSAGE_GUID, read back by the reader (evntrace.h flag values; docs/etl-format.md §2.8),
 *   - an EVENT_HEADER record flagged EVENT_HEADER_FLAG_TRACE_MESSAGE (message GUID as provider id),
 *   - a record carrying the control GUID the emitter's source declares (WPP_DEFINE_CONTROL_GUID in
 *     guscatalano/findneedle tools/Wpp*Emitter) in place of the message GUID;
 * each must decode to the text the original record decodes to (EXPECTED.md §findneedle's texts). Numbers
 * shared by two statements make the GUID-less forms ambiguous: those stay undecoded.
 * The tracefmt prefix is checked against published tracefmt output: microsoft/ebpf-for-windows
 * docs/GettingStarted.md (the default prefix and "%8!u! [%9!03d!] %4!s!:" for one event) and
 * fredericGette/Lumia520 content/bluetooth/README.md (a WPP driver's lines, one with an NTSTATUS argument). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etl/etl_writer.h"
#include "reader/record.h"
#include "schema/manifest_model.h"
#include "schema/wpp/wpp.h"
#include "support/mem_sink.h"
#include "util/le.h"

#define FINDNEEDLE "../shared/corpus/findneedle"

static const struct emitter {
    const char *trace, *message_guid, *control_guid;
    unsigned records;   /* EXPECTED.md §findneedle; the census of testdata/findneedle's two */
} emitters[] = {
    {FINDNEEDLE "/wppemitter-sample.etl.gz", "9b93a332-c452-3e71-64f7-55130c7de2e4", "a7c8b3d2-1e4f-4a6b-9c2d-3f5e6a7b8c9d", 45},
    {FINDNEEDLE "/wppstr-sample.etl.gz", "744151fd-b3f4-32e6-38eb-0fd11e3fb62d", "b2c3d4e5-1122-3344-5566-778899aabbcc", 4},
    {FINDNEEDLE "/wpptypes-sample.etl.gz", "4857fab7-1162-3184-360b-cdd863ddf4ea", "c3d4e5f6-2233-4455-6677-8899aabbccdd", 5},
    {FINDNEEDLE "/wpptypes2-sample.etl.gz", "6033c1c6-a9fa-394c-0bc0-1581cb94150e", "d4e5f6a7-3344-5566-7788-99aabbccddee", 5},
    {FINDNEEDLE "/wppenum-sample.etl.gz", "d4153fff-ac08-361f-5ed7-af1d38cd1903", "e5f6a7b8-4455-6677-8899-aabbccddeeff", 2},
    {FINDNEEDLE "/wpptime-sample.etl.gz", "8ff2a761-4025-3d98-c3fc-1bc40b34330d", "f6a7b8c9-5566-7788-99aa-bbccddeeff00", 2},
    {FINDNEEDLE "/wppbin-sample.etl.gz", "4305d668-552d-302b-a84c-fbcf09373bf6", "c9daebfc-8899-aabb-ccdd-eeff00112233", 2},
    {FINDNEEDLE "/wppndis-sample.etl.gz", "4bfa7244-5583-3195-181b-88348eb33cdb", "daebfc0d-99aa-bbcc-ddee-ff0011223344", 1},
    {"testdata/findneedle/wppenum2-sample.etl.gz", "035fd70f-a54a-3c13-f6c5-f7f2b19c92ec", "b8c9daeb-7788-99aa-bbcc-ddeeff001122", 1},
    {"testdata/findneedle/wppmisc-sample.etl.gz", "2363c985-9b6e-3283-34a7-e8c27a60b889", "a7b8c9da-6677-8899-aabb-ccddeeff0011", 2},
};
#define EMITTERS (sizeof emitters / sizeof emitters[0])

/* One TMF file per origin (as -tp loads them), then its emitter's control GUID in the same origin. */
static wpp_store *load_store(void)
{
    wpp_store *store = wpp_store_new();
    etl_error err;
    for (size_t i = 0; i < EMITTERS; i++) {
        char path[256];
        snprintf(path, sizeof path, FINDNEEDLE "/tmf/%s.tmf", emitters[i].message_guid);
        unsigned char *data;
        size_t size;
        assert_int_equal(etl_schema_read_file(path, 1u << 20, &data, &size, &err), ETL_OK);
        wpp_store_begin_origin(store);
        assert_int_equal(wpp_store_parse(store, (const char *)data, size, path, NULL, &err), ETL_OK);
        free(data);
        etl_guid control;
        assert_int_equal(etl_guid_parse(emitters[i].control_guid, &control), 0);
        assert_int_equal(wpp_store_add_control(store, &control, "Ctl", NULL, 0), ETL_OK);
    }
    assert_int_equal(wpp_store_control_count(store), EMITTERS);
    return store;
}

typedef struct run {
    const wpp_store *store;
    wpp_decoder *decoder;
    const struct emitter *emitter;
    unsigned records, component_id, event_header, control;
} run;

static char *decode_copy(run *r, const etl_event_record *rec)
{
    etl_decoded_event ev;
    memset(&ev, 0, sizeof ev);
    ev.record = rec;
    etl_render_context ctx = {rec->pointer_size, NULL, 0, NULL};
    if (wpp_decode(r->decoder, r->store, rec, &ctx, &ev) != 1 || ev.status != ETL_DECODE_OK) return NULL;
    return strdup(ev.message);
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)v); put16(p + 2, (uint16_t)(v >> 16)); }

static int each_record(const etl_event_record *rec, void *p)
{
    run *r = p;
    if (rec->kind != ETL_KIND_MESSAGE) return 0;
    r->records++;
    char *want = decode_copy(r, rec);
    assert_non_null(want);

    /* COMPONENTID | TIMESTAMP | SYSTEMINFO | POINTER64: header, u32 id, u64 time, tid, pid, the arguments */
    static uint8_t buf[70000];
    size_t size = 8 + 4 + 8 + 8 + rec->user_data_length;
    assert_true(size <= 0xFFFF);
    memset(buf, 0, 32);
    put16(buf, (uint16_t)size);
    buf[3] = 0x90;
    put16(buf + 4, rec->header.descriptor.id);
    put16(buf + 6, 0x0004 | 0x0008 | 0x0020 | 0x0080);
    put32(buf + 8, rec->header.provider_id.data1);
    put32(buf + 20, rec->header.thread_id);
    put32(buf + 24, rec->header.process_id);
    memcpy(buf + 28, rec->user_data, rec->user_data_length);
    etl_event_record c;
    size_t advance;
    int has_ts;
    const char *why = NULL;
    assert_int_equal(etl_record_parse(buf, size, 0, 8, &c, NULL, 0, &advance, &has_ts, &why), ETL_RECORD_OK);
    assert_int_equal(c.header.provider_id.data1, rec->header.provider_id.data1);
    assert_int_equal(c.header.provider_id.data2 | c.header.provider_id.data3, 0);
    assert_int_equal(c.user_data_length, rec->user_data_length);
    char *got = decode_copy(r, &c);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
    wpp_match how;
    wpp_store_lookup(r->store, &c.header.provider_id, c.header.descriptor.id, 1, &how);
    assert_int_equal(how, WPP_MATCH_COMPONENT_ID);
    r->component_id++;

    /* EVENT_HEADER form: message GUID as provider id, number as event id, TRACE_MESSAGE flag */
    etl_event_record e = *rec;
    e.kind = ETL_KIND_EVENT64;
    e.header.flags = ETL_EVENT_FLAG_TRACE_MESSAGE | ETL_EVENT_FLAG_64_BIT_HEADER;
    e.wpp_option_flags = 0;
    got = decode_copy(r, &e);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
    r->event_header++;

    /* the control GUID in place of the message GUID */
    etl_event_record k = *rec;
    assert_int_equal(etl_guid_parse(r->emitter->control_guid, &k.header.provider_id), 0);
    got = decode_copy(r, &k);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
    wpp_store_lookup(r->store, &k.header.provider_id, k.header.descriptor.id, 0, &how);
    assert_int_equal(how, WPP_MATCH_CONTROL_GUID);
    r->control++;
    free(want);
    return 0;
}

static void test_real_records(void **state)
{
    (void)state;
    wpp_store *store = load_store();
    wpp_decoder *decoder = wpp_decoder_new();
    unsigned total = 0;
    for (size_t i = 0; i < EMITTERS; i++) {
        etl_trace *t;
        etl_error err;
        const char *paths[] = {emitters[i].trace};
        assert_int_equal(etl_open(&t, paths, 1, NULL, &err), ETL_OK);
        run r = {store, decoder, &emitters[i], 0, 0, 0, 0};
        assert_int_equal(etl_process(t, each_record, &r), ETL_OK);
        etl_close(t);
        assert_int_equal(r.records, emitters[i].records);
        assert_int_equal(r.component_id, r.records);
        assert_int_equal(r.event_header, r.records);
        assert_int_equal(r.control, r.records);
        total += r.records;
    }
    assert_int_equal(total, 69);
    wpp_decoder_free(decoder);
    wpp_store_free(store);
}

/* Two statements with one number under one control GUID (two source files of one driver), or under two
 * message GUIDs with the same Data1: the GUID-less forms cannot tell them apart and stay undecoded. */
static void test_ambiguous(void **state)
{
    (void)state;
    static const char two_files[] =
        "11111111-0000-0000-0000-000000000001 Drv // SRC=a.c\n"
        "#typev a_c10 10 \"%0a\" // LEVEL=L FLAGS=F1 FUNC=fa\n{\n}\n"
        "#typev a_c11 11 \"%0only in a.c\" // LEVEL=L FLAGS=F1 FUNC=fa\n{\n}\n"
        "11111111-0000-0000-0000-000000000002 Drv // SRC=b.c\n"
        "#typev b_c10 10 \"%0b\" // LEVEL=L FLAGS=F1 FUNC=fb\n{\n}\n"
        "#typev b_c12 12 \"%0only in b.c, flag of another control\" // LEVEL=L FLAGS=G1 FUNC=fb\n{\n}\n";
    wpp_store *store = wpp_store_new();
    etl_error err;
    wpp_store_begin_origin(store);
    assert_int_equal(wpp_store_parse(store, two_files, sizeof two_files - 1, "two", NULL, &err), ETL_OK);
    etl_guid control, id;
    etl_guid_parse("22222222-3333-4444-5555-666666666666", &control);
    static const char *const flags[] = {"F0", "F1"};
    assert_int_equal(wpp_store_add_control(store, &control, "DrvTraceGuid", flags, 2), ETL_OK);
    assert_string_equal(wpp_store_control(store, &control)->flags[1], "F1");
    wpp_match how;
    assert_null(wpp_store_lookup(store, &control, 10, 0, &how));
    assert_int_equal(how, WPP_MATCH_AMBIGUOUS);
    assert_string_equal(wpp_store_lookup(store, &control, 11, 0, &how)->tag, "a_c11");
    assert_int_equal(how, WPP_MATCH_CONTROL_GUID);
    assert_null(wpp_store_lookup(store, &control, 12, 0, &how)); /* FLAGS=G1 is no flag of this control */
    assert_int_equal(how, WPP_MATCH_NONE);
    memset(&id, 0, sizeof id);
    id.data1 = 0x11111111;
    assert_null(wpp_store_lookup(store, &id, 10, 1, &how));
    assert_int_equal(how, WPP_MATCH_AMBIGUOUS);
    assert_string_equal(wpp_store_lookup(store, &id, 12, 1, &how)->tag, "b_c12");
    assert_int_equal(how, WPP_MATCH_COMPONENT_ID);
    assert_null(wpp_store_lookup(store, &id, 13, 1, &how));
    assert_int_equal(how, WPP_MATCH_NONE);
    /* an unknown GUID that is no control: nothing */
    etl_guid_parse("99999999-3333-4444-5555-666666666666", &id);
    assert_null(wpp_store_lookup(store, &id, 11, 0, &how));
    assert_int_equal(how, WPP_MATCH_NONE);
    wpp_store_free(store);
}

/* tracefmt's own output, as microsoft/ebpf-for-windows docs/GettingStarted.md shows it for one event
 * (CPU 3, process 0x1760 = 5984, thread 0x1910, 03/10/2022-13:56:14.226, provider EbpfForWindowsProvider):
 * the default prefix, and TRACE_FORMAT_PREFIX=%8!u! [%9!03d!] %4!s!: . The message text after the prefix is
 * tracefmt's rendering of that (TraceLogging) event, given here: only the prefix is under test. */
static char *tracefmt_line(const etl_decoded_event *ev, const char *prefix)
{
    mem_sink m = {0};
    etl_sink sink = {mem_sink_write, &m};
    etl_writer_options opt;
    memset(&opt, 0, sizeof opt);
    opt.wpp_prefix = prefix;
    etl_writer *w = etl_writer_new(etl_writer_format_find("tracefmt"), &sink, &opt);
    assert_non_null(w);
    assert_int_equal(etl_writer_begin(w), 0);
    assert_int_equal(etl_writer_event(w, ev), 0);
    assert_int_equal(etl_writer_end(w, NULL), 0);
    etl_writer_free(w);
    return m.data;
}

static void test_published_prefix(void **state)
{
    (void)state;
    etl_event_record rec;
    memset(&rec, 0, sizeof rec);
    rec.kind = ETL_KIND_EVENT64;
    rec.header.process_id = 0x1760;
    rec.header.thread_id = 0x1910;
    rec.header.timestamp = 132913941742260000; /* 2022-03-10 13:56:14.226 */
    rec.buffer_context.processor_index = 3;
    etl_decoded_event ev;
    memset(&ev, 0, sizeof ev);
    ev.record = &rec;
    ev.provider_name = "EbpfForWindowsProvider";
    ev.message = "{\"Message\":\"Hello, world\"}";
    ev.status = ETL_DECODE_OK;
    unsetenv("TRACE_FORMAT_PREFIX");
    const char *prefixes[] = {NULL, "%8!u! [%9!03d!] %4!s!:"};
    const char *want[] = {"[3]1760.1910::03/10/2022-13:56:14.226 [EbpfForWindowsProvider]{\"Message\":\"Hello, world\"}\n",
                          "5984 [003] 03/10/2022-13:56:14.226:{\"Message\":\"Hello, world\"}\n"};
    for (int i = 0; i < 2; i++) {
        char *line = tracefmt_line(&ev, prefixes[i]);
        assert_string_equal(line, want[i]);
        free(line);
    }

    /* Lumia520's qcwcn8930 driver: "[1]0004.0084::06/06/2025-12:19:03.191 [qcwcn8930_guid01]!read_Registry[36]!
     * MaxRestartCount, WdfRegistryQueryULong returned 0xc0000034(STATUS_OBJECT_NAME_NOT_FOUND)". The statement
     * is written here from that text (its TMF is not public); prefix and the NTSTATUS rendering are checked. */
    static const char tmf[] = "0d7c0a55-1111-2222-3333-444455556666 qcwcn8930_guid01 // SRC=registry.c\n"
                              "#typev registry_c36 10 \"%0!%!FUNC![%!LINE!]!MaxRestartCount, WdfRegistryQueryULong "
                              "returned %10!s!\" // LEVEL=L FUNC=read_Registry\n{\nstatus, ItemNTSTATUS -- 10\n}\n";
    wpp_store *store = wpp_store_new();
    wpp_decoder *d = wpp_decoder_new();
    etl_error err;
    assert_int_equal(wpp_store_parse(store, tmf, sizeof tmf - 1, "lumia", NULL, &err), ETL_OK);
    static const uint8_t status[] = {0x34, 0x00, 0x00, 0xC0};
    memset(&rec, 0, sizeof rec);
    rec.kind = ETL_KIND_MESSAGE;
    etl_guid_parse("0d7c0a55-1111-2222-3333-444455556666", &rec.header.provider_id);
    rec.header.descriptor.id = 10;
    rec.header.process_id = 4;
    rec.header.thread_id = 0x84;
    rec.header.timestamp = 133936859431910000; /* 2025-06-06 12:19:03.191 */
    rec.buffer_context.processor_index = 1;
    rec.user_data = status;
    rec.user_data_length = sizeof status;
    memset(&ev, 0, sizeof ev);
    ev.record = &rec;
    etl_render_context ctx = {4, NULL, 0, NULL};
    assert_int_equal(wpp_decode(d, store, &rec, &ctx, &ev), 1);
    char *line = tracefmt_line(&ev, NULL);
    assert_string_equal(line, "[1]0004.0084::06/06/2025-12:19:03.191 [qcwcn8930_guid01]!read_Registry[36]!MaxRestartCount, "
                              "WdfRegistryQueryULong returned 0xc0000034(STATUS_OBJECT_NAME_NOT_FOUND)\n");
    free(line);
    wpp_decoder_free(d);
    wpp_store_free(store);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_real_records), cmocka_unit_test(test_ambiguous),
                                       cmocka_unit_test(test_published_prefix)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
