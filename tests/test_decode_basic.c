/* Decoder (src/decode/decoder.c) on synthetic records with schemas added to the registry by the test: lookup by
 * key kind, names and their winmeta fallbacks (docs/schemas.md §1.6), message inserts, no-schema and
 * decode-error results, string-only events, process names (PerfView PName form: image name without directory
 * and extension, e.g. "Test.x86" for ImageFileName=Test.x86.exe in net.4.5.2.x86.baseline.txt), statistics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "etl/etl_schema.h"

static const etl_guid provider = {0x0745b9d3, 0xbc9a, 0x4c33, {0x95, 0x3c, 0x77, 0xde, 0x89, 0x33, 0x6b, 0x0d}};
static const etl_guid process_class = {0x3d6fa8d0, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
static const etl_guid thread_class = {0x3d6fa8d1, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
static const etl_guid perfinfo_class = {0xce1dbfb4, 0x137e, 0x4da6, {0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc}};

static void add_classic(etl_schema_registry *r, const etl_guid *class_guid, uint8_t opcode, uint8_t version,
                        const char *task, const char *op, const etl_property_info *props, uint32_t count)
{
    etl_event_info info;
    memset(&info, 0, sizeof info);
    info.source = ETL_SOURCE_USER_MANIFEST; /* wins over the built-in kernel table for the same key */
    info.event_guid = *class_guid;
    info.descriptor.opcode = opcode;
    info.descriptor.version = version;
    info.provider_name = "MSNT_SystemTrace";
    info.task_name = task;
    info.opcode_name = op;
    info.properties = props;
    info.property_count = count;
    info.top_level_count = count;
    assert_int_equal(etl_schema_registry_add(r, &info, ETL_KEY_CLASSIC), ETL_OK);
}

typedef struct fixture {
    etl_schema_registry *registry;
    etl_decoder *decoder;
} fixture;

static int setup(void **state)
{
    static fixture f;
    f.registry = etl_schema_registry_new();
    assert_non_null(f.registry);

    static const etl_property_info request_props[] = {
        {"id", 0, ETL_IN_GUID, ETL_OUT_GUID, 0, 0, 1, 0, NULL},
        {"count", 0, ETL_IN_UINT32, ETL_OUT_UNSIGNEDINT, 0, 0, 1, 0, NULL},
    };
    etl_event_info request;
    memset(&request, 0, sizeof request);
    request.source = ETL_SOURCE_USER_MANIFEST;
    request.provider_guid = provider;
    request.descriptor = (etl_event_descriptor){30, 0, 0, 4, 1, 7, 0};
    request.provider_name = "ClientEventSource";
    request.task_name = "Request";
    request.message = "Request %1 has count %2.\r\n";
    request.properties = request_props;
    request.property_count = 2;
    request.top_level_count = 2;
    assert_int_equal(etl_schema_registry_add(f.registry, &request, ETL_KEY_MANIFEST), ETL_OK);
    /* symbolic winmeta names, as KernelTraceControl metadata carries them (net.4.5.2.x86 Immersive-Shell;
     * PerfView's baseline shows ".../ImmersiveShellAppManagerSetActiveProcess/Start") */
    etl_event_info symbolic = request;
    symbolic.descriptor.id = 31;
    symbolic.task_name = "ImmersiveShellAppManagerSetActiveProcess";
    symbolic.opcode_name = "win:Start";
    symbolic.level_name = "win:Informational";
    symbolic.message = NULL;
    assert_int_equal(etl_schema_registry_add(f.registry, &symbolic, ETL_KEY_MANIFEST), ETL_OK);

    /* a cut-down Process class: ProcessId (hex, as tracerpt R4), ImageFileName */
    static const etl_property_info process_props[] = {
        {"ProcessId", 0, ETL_IN_UINT32, ETL_OUT_HEXINT32, 0, 0, 1, 0, NULL},
        {"ImageFileName", 0, ETL_IN_ANSISTRING, ETL_OUT_STRING, 0, 0, 1, 0, NULL},
    };
    add_classic(f.registry, &process_class, 1, 4, "Process", "Start", process_props, 2);
    add_classic(f.registry, &process_class, 2, 4, "Process", "End", process_props, 2);
    add_classic(f.registry, &process_class, 4, 4, "Process", "DCEnd", process_props, 2);
    static const etl_property_info thread_props[] = {
        {"ProcessId", 0, ETL_IN_UINT32, ETL_OUT_HEXINT32, 0, 0, 1, 0, NULL},
        {"TThreadId", 0, ETL_IN_UINT32, ETL_OUT_HEXINT32, 0, 0, 1, 0, NULL},
    };
    add_classic(f.registry, &thread_class, 1, 2, "Thread", "Start", thread_props, 2);
    static const etl_property_info sample_props[] = {
        {"InstructionPointer", 0, ETL_IN_POINTER, 0, 0, 0, 1, 0, NULL},
        {"ThreadId", 0, ETL_IN_UINT32, 0, 0, 0, 1, 0, NULL},
    };
    add_classic(f.registry, &perfinfo_class, 46, 2, "PerfInfo", "SampleProf", sample_props, 2);

    f.decoder = etl_decoder_new(f.registry, NULL);
    assert_non_null(f.decoder);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    etl_decoder_free(f->decoder);
    etl_schema_registry_free(f->registry);
    return 0;
}

static etl_event_record manifest_record(uint16_t id, const uint8_t *payload, uint16_t size)
{
    etl_event_record r;
    memset(&r, 0, sizeof r);
    r.kind = ETL_KIND_EVENT64;
    r.pointer_size = 8;
    r.header.provider_id = provider;
    r.header.descriptor = (etl_event_descriptor){id, 0, 0, 4, 1, 7, 0};
    r.header.process_id = 1234;
    r.header.thread_id = 5678;
    r.user_data = payload;
    r.user_data_length = size;
    return r;
}

static const uint8_t request_payload[20] = {0x37, 0x1e, 0xb4, 0xae, 0x40, 0xcf, 0x17, 0x43, 0xa9, 0x89,
                                            0x7d, 0x5a, 0xa6, 0xa2, 0xdc, 0x87, 3,    0,    0,    0};

static void test_manifest_event(void **state)
{
    fixture *f = *state;
    etl_event_record r = manifest_record(30, request_payload, sizeof request_payload);
    const etl_decoded_event *ev;
    assert_int_equal(etl_decode_event(f->decoder, &r, &ev), ETL_OK);
    assert_int_equal(ev->status, ETL_DECODE_OK);
    assert_int_equal(ev->source, ETL_SOURCE_USER_MANIFEST);
    assert_ptr_equal(ev->record, &r);
    assert_string_equal(ev->provider_name, "ClientEventSource");
    /* task + winmeta opcode 1 "Start"; level 4 "Information" (winmeta display strings) */
    assert_string_equal(ev->event_name, "Request/Start");
    assert_string_equal(ev->task_name, "Request");
    assert_string_equal(ev->opcode_name, "Start");
    assert_string_equal(ev->level_name, "Information");
    assert_int_equal(ev->field_count, 2);
    assert_string_equal(ev->fields[0].name, "id");
    assert_string_equal(ev->fields[0].value, "{aeb41e37-cf40-4317-a989-7d5aa6a2dc87}");
    assert_string_equal(ev->fields[1].value, "3");
    /* inserts substituted, mc's trailing CR LF stripped */
    assert_string_equal(ev->message, "Request {aeb41e37-cf40-4317-a989-7d5aa6a2dc87} has count 3.");
    assert_null(ev->undecoded);
    assert_null(ev->error);
    assert_null(ev->process_name);
}

static void test_winmeta_symbols(void **state)
{
    fixture *f = *state;
    etl_event_record r = manifest_record(31, request_payload, sizeof request_payload);
    const etl_decoded_event *ev;
    assert_int_equal(etl_decode_event(f->decoder, &r, &ev), ETL_OK);
    assert_string_equal(ev->event_name, "ImmersiveShellAppManagerSetActiveProcess/Start");
    assert_string_equal(ev->opcode_name, "Start");
    assert_string_equal(ev->level_name, "Information");
    assert_null(ev->message);
}

static void test_no_schema_and_error(void **state)
{
    fixture *f = *state;
    const etl_decoded_event *ev;
    etl_event_record r = manifest_record(7, request_payload, 4);
    assert_int_equal(etl_decode_event(f->decoder, &r, &ev), ETL_OK);
    assert_int_equal(ev->status, ETL_DECODE_NO_SCHEMA);
    assert_int_equal(ev->source, ETL_SOURCE_NONE);
    assert_null(ev->info);
    assert_string_equal(ev->event_name, "EventID(7)");
    /* the registry knows the provider's name from its other events */
    assert_string_equal(ev->provider_name, "ClientEventSource");
    assert_ptr_equal(ev->undecoded, request_payload);
    assert_int_equal(ev->undecoded_length, 4);

    /* unknown provider: the GUID text */
    r.header.provider_id.data1 ^= 1;
    assert_int_equal(etl_decode_event(f->decoder, &r, &ev), ETL_OK);
    assert_string_equal(ev->provider_name, "{0745b9d2-bc9a-4c33-953c-77de89336b0d}");
    /* the text is kept for the next event of that provider: another unknown one gets its own, then the first
     * its own again; ids at both ends of the range */
    etl_event_record other = r;
    other.header.provider_id.data4[7] ^= 0xF0;
    other.header.descriptor.id = 65535;
    assert_int_equal(etl_decode_event(f->decoder, &other, &ev), ETL_OK);
    assert_string_equal(ev->provider_name, "{0745b9d2-bc9a-4c33-953c-77de89336bfd}");
    assert_string_equal(ev->event_name, "EventID(65535)");
    r.header.descriptor.id = 0;
    assert_int_equal(etl_decode_event(f->decoder, &r, &ev), ETL_OK);
    assert_string_equal(ev->provider_name, "{0745b9d2-bc9a-4c33-953c-77de89336b0d}");
    assert_string_equal(ev->event_name, "EventID(0)");
    /* a name the registry learns meanwhile shows at the provider's next event */
    assert_int_equal(
        etl_schema_registry_add_provider(f->registry, &r.header.provider_id, "Learned", ETL_SOURCE_USER_MANIFEST), ETL_OK);
    assert_int_equal(etl_decode_event(f->decoder, &r, &ev), ETL_OK);
    assert_string_equal(ev->provider_name, "Learned");

    /* the payload ends inside "count": the GUID is decoded, the rest is kept raw with a reason */
    r = manifest_record(30, request_payload, 18);
    assert_int_equal(etl_decode_event(f->decoder, &r, &ev), ETL_OK);
    assert_int_equal(ev->status, ETL_DECODE_ERROR);
    assert_int_equal(ev->field_count, 1);
    assert_int_equal(ev->undecoded_length, 2);
    assert_ptr_equal(ev->undecoded, request_payload + 16);
    assert_non_null(ev->error);
    assert_non_null(strstr(ev->error, "'count' at payload offset 16"));
    assert_null(strchr(ev->error, '\n'));
    /* missing inserts are empty */
    assert_string_equal(ev->message, "Request {aeb41e37-cf40-4317-a989-7d5aa6a2dc87} has count .");

    /* trailing bytes of a newer version: OK, the extra bytes stay available */
    uint8_t longer[24];
    memcpy(longer, request_payload, 20);
    memset(longer + 20, 0xEE, 4);
    r = manifest_record(30, longer, sizeof longer);
    assert_int_equal(etl_decode_event(f->decoder, &r, &ev), ETL_OK);
    assert_int_equal(ev->status, ETL_DECODE_OK);
    assert_int_equal(ev->undecoded_length, 4);
}

static void test_string_only(void **state)
{
    fixture *f = *state;
    const uint8_t text[] = {'h', 0, 'i', 0, 0, 0};
    etl_event_record r = manifest_record(30, text, sizeof text);
    r.header.flags = ETL_EVENT_FLAG_STRING_ONLY;
    const etl_decoded_event *ev;
    assert_int_equal(etl_decode_event(f->decoder, &r, &ev), ETL_OK);
    assert_int_equal(ev->status, ETL_DECODE_OK);
    assert_true(ev->string_only);
    assert_int_equal(ev->field_count, 1);
    assert_string_equal(ev->fields[0].value, "hi");
}

static void test_classic_and_process_names(void **state)
{
    fixture *f = *state;
    const uint8_t payload[] = {0x3C, 0x0E, 0, 0, 'T', 'e', 's', 't', '.', 'x', '8', '6', '.', 'e', 'x', 'e', 0};
    etl_event_record r;
    memset(&r, 0, sizeof r);
    r.kind = ETL_KIND_SYSTEM64;
    r.pointer_size = 8;
    r.header.provider_id = process_class;
    r.header.descriptor.opcode = 1;
    r.header.descriptor.version = 4;
    r.header.process_id = UINT32_MAX; /* real Process rundown records carry none */
    r.header.thread_id = UINT32_MAX;
    r.user_data = payload;
    r.user_data_length = sizeof payload;
    const etl_decoded_event *ev;
    assert_int_equal(etl_decode_event(f->decoder, &r, &ev), ETL_OK);
    assert_int_equal(ev->status, ETL_DECODE_OK);
    assert_int_equal(ev->source, ETL_SOURCE_USER_MANIFEST);
    assert_string_equal(ev->provider_name, "MSNT_SystemTrace");
    assert_string_equal(ev->event_name, "Process/Start");
    assert_string_equal(ev->fields[0].value, "0xE3C");
    /* net.4.5.2.x86 baseline: Process/Start PID=3644 ... PName=Test.x86 (its own event already carries it) */
    assert_string_equal(ev->process_name, "Test.x86");
    assert_int_equal(ev->process_id, 3644); /* from its ProcessId field, as PerfView's PID=3644 */
    assert_int_equal(ev->record->header.process_id, UINT32_MAX); /* the record is left as it is */
    /* classic events get no winmeta opcode/level-0 names */
    assert_null(ev->level_name);

    /* later events of that process carry the name; PID -1 (PERFINFO) gets none */
    etl_event_record m = manifest_record(30, request_payload, sizeof request_payload);
    m.header.process_id = 3644;
    assert_int_equal(etl_decode_event(f->decoder, &m, &ev), ETL_OK);
    assert_string_equal(ev->process_name, "Test.x86");
    m.header.process_id = UINT32_MAX;
    assert_int_equal(etl_decode_event(f->decoder, &m, &ev), ETL_OK);
    assert_null(ev->process_name);

    /* a thread of that process, then a PERFINFO sample (no PID, no TID in its header) on that thread */
    const uint8_t thread[8] = {0x3C, 0x0E, 0, 0, 0x7C, 0x0E, 0, 0}; /* PID 3644, TID 3708 */
    etl_event_record t = r;
    t.header.provider_id = thread_class;
    t.header.descriptor.version = 2;
    t.user_data = thread;
    t.user_data_length = sizeof thread;
    assert_int_equal(etl_decode_event(f->decoder, &t, &ev), ETL_OK);
    assert_string_equal(ev->event_name, "Thread/Start");
    assert_int_equal(ev->process_id, 3644);
    const uint8_t sample[12] = {0x10, 0x20, 0, 0, 0, 0, 0, 0, 0x7C, 0x0E, 0, 0};
    etl_event_record p = r;
    p.kind = ETL_KIND_PERFINFO64;
    p.header.provider_id = perfinfo_class;
    p.header.descriptor.opcode = 46;
    p.header.descriptor.version = 2;
    p.user_data = sample;
    p.user_data_length = sizeof sample;
    assert_int_equal(etl_decode_event(f->decoder, &p, &ev), ETL_OK);
    assert_string_equal(ev->event_name, "PerfInfo/SampleProf");
    assert_int_equal(ev->process_id, 3644);
    assert_string_equal(ev->process_name, "Test.x86");
    /* record headers teach TID → PID too: thread 4242 logs an event of process 777, then is sampled */
    etl_event_record logged = manifest_record(7, request_payload, 4);
    logged.header.process_id = 777;
    logged.header.thread_id = 4242;
    assert_int_equal(etl_decode_event(f->decoder, &logged, &ev), ETL_OK);
    const uint8_t sample2[12] = {0x10, 0x20, 0, 0, 0, 0, 0, 0, 0x92, 0x10, 0, 0};
    p.user_data = sample2;
    assert_int_equal(etl_decode_event(f->decoder, &p, &ev), ETL_OK);
    assert_int_equal(ev->process_id, 777);
    /* an unknown thread: no process */
    p.user_data = request_payload;
    assert_int_equal(etl_decode_event(f->decoder, &p, &ev), ETL_OK);
    assert_int_equal(ev->process_id, UINT32_MAX);
    assert_null(ev->process_name);

    /* unknown classic event (no such class in any table) */
    r.header.provider_id.data1 ^= 0x5A5A;
    r.header.descriptor.opcode = 99;
    assert_int_equal(etl_decode_event(f->decoder, &r, &ev), ETL_OK);
    assert_int_equal(ev->status, ETL_DECODE_NO_SCHEMA);
    assert_string_equal(ev->event_name, "Opcode(99)");
}

/* A Process event of the cut-down layout: ProcessId, ImageFileName. */
static etl_event_record process_record(uint8_t opcode, int64_t timestamp, uint8_t *payload, uint32_t pid,
                                       const char *image)
{
    etl_event_record r;
    memset(&r, 0, sizeof r);
    r.kind = ETL_KIND_SYSTEM64;
    r.pointer_size = 8;
    r.header.provider_id = process_class;
    r.header.descriptor.opcode = opcode;
    r.header.descriptor.version = 4;
    r.header.process_id = r.header.thread_id = UINT32_MAX;
    r.header.timestamp = timestamp;
    for (int i = 0; i < 4; i++) payload[i] = (uint8_t)(pid >> (8 * i));
    size_t n = strlen(image) + 1;
    memcpy(payload + 4, image, n);
    r.user_data = payload;
    r.user_data_length = (uint16_t)(4 + n);
    return r;
}

static const char *name_at(etl_decoder *d, uint32_t pid, int64_t timestamp)
{
    etl_event_record m = manifest_record(7, request_payload, 4);
    m.header.process_id = pid;
    m.header.thread_id = 0;
    m.header.timestamp = timestamp;
    const etl_decoded_event *ev;
    assert_int_equal(etl_decode_event(d, &m, &ev), ETL_OK);
    return ev->process_name;
}

/* PIDs are reused: each event is named after the process that had its PID at its time. */
static void test_pid_reuse(void **state)
{
    fixture *f = *state;
    etl_decoder *d = etl_decoder_new(f->registry, NULL);
    uint8_t p1[32], p2[32], p3[32];
    const etl_decoded_event *ev;
    etl_event_record a = process_record(1, 1000, p1, 600, "first.exe");
    etl_event_record a_end = process_record(2, 2000, p2, 600, "first.exe");
    etl_event_record b = process_record(1, 3000, p3, 600, "second.exe");
    assert_null(name_at(d, 600, 500));
    assert_int_equal(etl_decode_event(d, &a, &ev), ETL_OK);
    assert_string_equal(name_at(d, 600, 1500), "first");
    assert_int_equal(etl_decode_event(d, &a_end, &ev), ETL_OK);
    assert_string_equal(name_at(d, 600, 2500), "first"); /* still in flight after its End */
    assert_int_equal(etl_decode_event(d, &b, &ev), ETL_OK);
    assert_string_equal(ev->process_name, "second");      /* the Start event itself */
    assert_string_equal(name_at(d, 600, 3500), "second");
    etl_decoder_free(d);
}

/* WPR traces log process rundown only at the end (DCEnd): a first pass names the events before it. */
static void test_learn_pass(void **state)
{
    fixture *f = *state;
    uint8_t p1[32], p2[32], p3[32];
    etl_event_record records[5];
    records[0] = manifest_record(7, request_payload, 4);
    records[0].header.process_id = 700, records[0].header.thread_id = 0, records[0].header.timestamp = 100;
    records[1] = process_record(2, 150, p1, 600, "gone.exe");  /* ended during the trace, started before it */
    records[2] = records[0];
    records[2].header.timestamp = 200;
    records[3] = process_record(1, 300, p2, 700, "reused.exe"); /* PID 700 reused by a new process */
    records[4] = process_record(4, 400, p3, 700, "reused.exe"); /* rundown at the end */

    etl_decoder *d = etl_decoder_new(f->registry, NULL);
    const etl_decoded_event *ev;
    for (int i = 0; i < 5; i++) assert_int_equal(etl_decoder_learn(d, &records[i]), ETL_OK);
    for (int i = 0; i < 5; i++) assert_int_equal(etl_decode_event(d, &records[i], &ev), ETL_OK);
    /* the process that had PID 700 before 300 is never named: the first pass knows only the reused one */
    assert_null(name_at(d, 700, 200));
    assert_string_equal(name_at(d, 700, 350), "reused");
    assert_string_equal(name_at(d, 600, 120), "gone");
    etl_decoder_free(d);

    /* without the first pass, the events before the rundown have no name */
    d = etl_decoder_new(f->registry, NULL);
    assert_int_equal(etl_decode_event(d, &records[0], &ev), ETL_OK);
    assert_null(ev->process_name);
    etl_decoder_free(d);
    /* with it, the same event is named */
    d = etl_decoder_new(f->registry, NULL);
    etl_event_record only[2] = {records[0], records[4]};
    only[1].header.timestamp = 90; /* a DCEnd names the whole lifetime it finds */
    for (int i = 0; i < 2; i++) assert_int_equal(etl_decoder_learn(d, &only[i]), ETL_OK);
    assert_int_equal(etl_decode_event(d, &records[0], &ev), ETL_OK);
    assert_string_equal(ev->process_name, "reused");
    etl_decoder_free(d);
}

static void test_stats(void **state)
{
    fixture *f = *state;
    const etl_decode_stats *s = etl_decoder_get_stats(f->decoder);
    /* totals of the tests above (cmocka runs them in order) */
    assert_int_equal(s->decoded, 1 + 1 + 1 + 1 + 1 + 2 + 4);
    assert_int_equal(s->no_schema, 2 + 3 + 1 + 1);
    assert_int_equal(s->decode_errors, 1);
    assert_int_equal(s->by_source[ETL_SOURCE_USER_MANIFEST], 1 + 1 + 1 + 1 + 2 + 1 + 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_manifest_event), cmocka_unit_test(test_winmeta_symbols),
        cmocka_unit_test(test_no_schema_and_error),
        cmocka_unit_test(test_string_only), cmocka_unit_test(test_classic_and_process_names),
        cmocka_unit_test(test_pid_reuse), cmocka_unit_test(test_learn_pass),
        cmocka_unit_test(test_stats),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
