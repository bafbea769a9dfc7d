/* XML instrumentation manifests: real manifests parse completely (provider/event counts checked against an
 * independent count with xmllint), CBS manifests resolve their strings from the asm.v3 namespace, and
 * specific events are checked against the manifest text (templates, structs, maps, channels, winmeta). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_manifest_compare.h"

#define REAL "testdata/schemas/real-man/"

static int parse_file(const char *path, etl_schema_set *set, etl_error *err)
{
    return parse_manifest_path(path, set, err);
}

// Expected counts come from xmllint, run on each file (E = "*[local-name()='events']"):
//   xmllint --xpath "count(//E/*[local-name()='provider'])" FILE
//   xmllint --xpath "count(//E/*[local-name()='provider']/E/*[local-name()='event'])" FILE
// (SystemEvents.man has 34 <provider> elements; one is a perf-counter provider in <counters>.)
static const struct { const char *path; size_t providers, events; } real_manifests[] = {
    {REAL "microsoft-Tx/CSV.man", 1, 27},
    {REAL "microsoft-Tx/HTTP_Server.man", 1, 85},
    {REAL "microsoft-Tx/IE_Client.man", 2, 236},
    {REAL "microsoft-Tx/SystemEvents.man", 33, 450},
    {REAL "microsoft-Tx/asp.man", 2, 79},
    {REAL "microsoft-Tx/eventing.man", 1, 3},
    {REAL "microsoft-Tx/Microsoft.Windows.ApplicationServer.Applications.manifest", 1, 481},
    {REAL "perfview/ClrEtwAll.man", 4, 384},
    {REAL "perfview/ETWClrProfiler.man", 1, 19},
    {REAL "windows-classic-samples/AdvancedProvider.cpp.man", 1, 69},
    {REAL "windows-classic-samples/AdvancedProvider.csharp.man", 1, 41},
    {REAL "windows-classic-samples/SimpleProvider.man", 1, 5},
    {REAL "windows-classic-samples/ucs.perfcounters.man", 0, 0},
    {REAL "windows-driver-samples/UfxClientSample.man", 1, 5},
    {REAL "windows-driver-samples/kcs.perfcounters.man", 0, 0},
    {REAL "windows-driver-samples/osrusbfx2.man", 1, 9},
    {REAL "perfview-traceparsergen-tests/AdvancedFeatures.manifest.xml", 1, 3},
    {REAL "perfview-traceparsergen-tests/BoolPointerTest.manifest.xml", 1, 1},
    {REAL "perfview-traceparsergen-tests/EnumTest.manifest.xml", 1, 1},
    {REAL "perfview-traceparsergen-tests/LeadingDigitProvider.manifest.xml", 1, 1},
    {REAL "perfview-traceparsergen-tests/MultiType.manifest.xml", 1, 3},
    {REAL "perfview-traceparsergen-tests/OpcodeTest.manifest.xml", 1, 2},
    {REAL "perfview-traceparsergen-tests/SimpleTest.manifest.xml", 1, 2},
    {REAL "perfview-traceparsergen-tests/TemplateSharingTest.manifest.xml", 1, 2},
    {REAL "perfview-traceparsergen-tests/VersionedEvent.manifest.xml", 1, 2},
};

static void test_real_manifests(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(real_manifests) / sizeof(real_manifests[0]); i++) {
        etl_schema_set set;
        etl_schema_set_init(&set);
        etl_error err;
        int rc = parse_file(real_manifests[i].path, &set, &err);
        if (rc != ETL_OK) fail_msg("%s", err.message);
        if (set.provider_count != real_manifests[i].providers || set.event_count != real_manifests[i].events)
            fail_msg("%s: %zu providers / %zu events, want %zu / %zu", real_manifests[i].path, set.provider_count,
                     set.event_count, real_manifests[i].providers, real_manifests[i].events);
        /* every $(string.X), map, template and level/task/opcode/keyword reference resolves */
        if (set.unresolved_strings) fail_msg("%s: %llu unresolved references", real_manifests[i].path,
                                             (unsigned long long)set.unresolved_strings);
        etl_schema_set_free(&set);
    }
}

static const etl_event_info *find(const etl_schema_set *s, const char *guid, uint16_t id, uint8_t version)
{
    etl_guid g;
    assert_int_equal(etl_guid_parse(guid, &g), 0);
    for (size_t i = 0; i < s->event_count; i++)
        if (etl_guid_equal(&s->events[i].provider_guid, &g) && s->events[i].descriptor.id == id &&
            s->events[i].descriptor.version == version)
            return &s->events[i];
    fail_msg("event %s %u v%u not found", guid, id, version);
    return NULL;
}

/* SystemEvents.man (CBS assembly; string table in the asm.v3 namespace), Kernel-Process ProcessStart v1:
 * every expected value below is read from the manifest text (lines ~1296-1870, 14454). */
static void test_kernel_process(void **state)
{
    (void)state;
    etl_schema_set s;
    etl_schema_set_init(&s);
    etl_error err;
    assert_int_equal(parse_file(REAL "microsoft-Tx/SystemEvents.man", &s, &err), ETL_OK);
    const etl_event_info *e = find(&s, "{22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716}", 1, 1);
    assert_string_equal(e->provider_name, "Microsoft-Windows-Kernel-Process");
    assert_string_equal(e->message, "Process %1 started at time %2 by parent %3 running in session %4 with name %6.");
    assert_string_equal(e->level_name, "Information");      /* win:Informational (winmeta) */
    assert_string_equal(e->opcode_name, "Start");            /* win:Start */
    assert_int_equal(e->descriptor.level, 4);
    assert_int_equal(e->descriptor.opcode, 1);
    /* channel PSEvents "Microsoft-Windows-Kernel-Process/Analytic" has no value: 16, first channel → bit 63 */
    assert_int_equal(e->descriptor.channel, 16);
    assert_string_equal(e->channel_name, "Microsoft-Windows-Kernel-Process/Analytic");
    assert_true(e->descriptor.keyword == 0x8000000000000010ull);   /* WINEVENT_KEYWORD_PROCESS 0x010 */
    assert_int_equal(e->keyword_name_count, 1);
    assert_string_equal(e->keyword_names[0], "WINEVENT_KEYWORD_PROCESS");
    assert_int_equal(e->top_level_count, 6);
    assert_int_equal(e->property_count, 6);
    assert_string_equal(e->properties[0].name, "ProcessID");
    assert_int_equal(e->properties[0].in_type, ETL_IN_UINT32);
    assert_int_equal(e->properties[0].out_type, ETL_OUT_PID);
    assert_int_equal(e->properties[1].in_type, ETL_IN_FILETIME);
    assert_int_equal(e->properties[1].out_type, ETL_OUT_DATETIME);
    /* Flags: no outType → default xs:unsignedInt; bitMap ProcessFlags {0x1: PackageId text} */
    assert_int_equal(e->properties[4].out_type, ETL_OUT_UNSIGNEDINT);
    assert_non_null(e->properties[4].map);
    assert_int_equal(e->properties[4].map->flags, ETL_MAP_BITMAP);
    assert_int_equal(e->properties[4].map->entry_count, 1);
    assert_int_equal(e->properties[4].map->entries[0].value, 1);
    assert_int_equal(e->properties[5].in_type, ETL_IN_UNICODESTRING);
    assert_int_equal(e->properties[5].flags, 0);
    assert_int_equal(e->properties[5].count, 1);

    /* Kernel-WDI event 32: a struct array whose count is an earlier property (lines 414-470, 655-665) */
    e = find(&s, "{2ff3e6b7-cb90-4700-9621-443f389734ed}", 32, 0);
    assert_int_equal(e->top_level_count, 5);
    assert_int_equal(e->property_count, 11);
    const etl_property_info *st = &e->properties[4];
    assert_string_equal(st->name, "SemActions");
    assert_int_equal(st->flags, ETL_PROP_STRUCT | ETL_PROP_PARAM_COUNT);
    assert_int_equal(st->count, 3);                           /* ActionCount */
    assert_int_equal(st->struct_start, 5);
    assert_int_equal(st->struct_count, 6);
    assert_string_equal(e->properties[5].name, "ProviderID");
    assert_int_equal(e->properties[5].in_type, ETL_IN_GUID);
    assert_string_equal(e->properties[7].name, "Reserved");
    assert_int_equal(e->properties[7].flags, ETL_PROP_PARAM_FIXED_COUNT);
    assert_int_equal(e->properties[7].count, 7);
    assert_string_equal(e->properties[10].name, "NTStatus");
    etl_schema_set_free(&s);
}

/* Task-scoped opcodes (mc test case TaskOpcodes.man): Task1 (0x11) defines Opcode1/Opcode2 = 101/102
 * locally; Opcode3 exists only at provider level (13). Lookup: (task, name) first, then provider level. */
static void test_task_opcodes(void **state)
{
    (void)state;
    etl_schema_set s;
    etl_schema_set_init(&s);
    etl_error err;
    assert_int_equal(parse_file("testdata/schemas/wevt-mc-testcases/TaskOpcodes.man", &s, &err), ETL_OK);
    assert_int_equal(s.event_count, 2);
    etl_schema_set_sort(&s);
    assert_int_equal(s.events[0].descriptor.task, 0x11);
    assert_string_equal(s.events[0].task_name, "Task.1.1");
    assert_int_equal(s.events[0].descriptor.opcode, 102);
    assert_string_equal(s.events[0].opcode_name, "Opcode.1.2");
    assert_int_equal(s.events[1].descriptor.opcode, 13);
    assert_string_equal(s.events[1].opcode_name, "Opcode.0.3");
    etl_schema_set_free(&s);
}

/* Maps declared directly under <provider> (PerfView's EnumTest) and message strings as literal text. */
static void test_enum_maps(void **state)
{
    (void)state;
    etl_schema_set s;
    etl_schema_set_init(&s);
    etl_error err;
    assert_int_equal(parse_file(REAL "perfview-traceparsergen-tests/EnumTest.manifest.xml", &s, &err), ETL_OK);
    const etl_event_info *e = &s.events[0];
    assert_int_equal(e->property_count, 3);
    const etl_map_info *m = e->properties[0].map;
    assert_non_null(m);
    assert_int_equal(m->flags, ETL_MAP_VALUEMAP);
    assert_int_equal(m->entry_count, 3);
    assert_string_equal(m->entries[1].name, "Active");
    m = e->properties[1].map;
    assert_non_null(m);
    assert_int_equal(m->flags, ETL_MAP_BITMAP);
    assert_string_equal(m->entries[2].name, "Execute");
    assert_int_equal(m->entries[2].value, 4);
    assert_string_equal(e->task_name, "StatusCheck");          /* no message: the task name */
    assert_string_equal(e->keyword_names[0], "Default");
    etl_schema_set_free(&s);
}

/* schemas.md §1.5 type names, on AdvancedProvider.cpp.man (covers every in/out type). */
static void test_type_names(void **state)
{
    (void)state;
    uint16_t t;
    assert_int_equal(etl_manifest_in_type("win:CountedString", &t), 0);
    assert_int_equal(t, 22);
    assert_int_equal(etl_manifest_in_type("win:Pointer", &t), 0);
    assert_int_equal(etl_manifest_default_out_type(t), ETL_OUT_HEXINT64);
    assert_int_equal(etl_manifest_default_out_type(ETL_IN_BINARY), ETL_OUT_HEXBINARY);
    assert_int_equal(etl_manifest_default_out_type(ETL_IN_GUID), ETL_OUT_GUID);
    assert_int_equal(etl_manifest_out_type("win:Win32Error", &t), 0);
    assert_int_equal(t, 30);
    assert_int_equal(etl_manifest_in_type("win:NoSuchType", &t), -1);

    etl_schema_set s;
    etl_schema_set_init(&s);
    etl_error err;
    assert_int_equal(parse_file(REAL "windows-classic-samples/AdvancedProvider.cpp.man", &s, &err), ETL_OK);
    size_t seen_pointer = 0, seen_sid = 0, seen_ipv4 = 0;
    for (size_t i = 0; i < s.event_count; i++)
        for (uint32_t k = 0; k < s.events[i].property_count; k++) {
            const etl_property_info *p = &s.events[i].properties[k];
            seen_pointer += p->in_type == ETL_IN_POINTER;
            seen_sid += p->in_type == ETL_IN_SID;
            seen_ipv4 += p->out_type == ETL_OUT_IPV4;
            if (!(p->flags & ETL_PROP_STRUCT)) assert_int_not_equal(p->out_type, ETL_OUT_NULL);
        }
    assert_true(seen_pointer > 0 && seen_sid > 0 && seen_ipv4 > 0);
    etl_schema_set_free(&s);
}

/* -export core: parse → write → parse gives the same descriptions (names, descriptors incl. channel
 * keyword bits, templates, maps, messages). */
static void test_export_round_trip(void **state)
{
    (void)state;
    static const char *const files[] = {
        REAL "perfview/ClrEtwAll.man", REAL "microsoft-Tx/SystemEvents.man", REAL "microsoft-Tx/HTTP_Server.man",
        REAL "microsoft-Tx/IE_Client.man", REAL "windows-classic-samples/AdvancedProvider.cpp.man",
        REAL "perfview-traceparsergen-tests/EnumTest.manifest.xml",
        "testdata/schemas/wevt-mc-testcases/Large.man", "testdata/schemas/wevt-mc-testcases/wpf-etw.man",
        "testdata/schemas/wevt-mc-testcases/ReferenceChannels.man", "testdata/schemas/wevt-mc-testcases/TaskOpcodes.man",
    };
    for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
        fprintf(stderr, "%s\n", files[f]);
        etl_schema_set a, b;
        etl_schema_set_init(&a);
        etl_schema_set_init(&b);
        etl_error err;
        assert_int_equal(parse_file(files[f], &a, &err), ETL_OK);
        const etl_event_info **ptrs = malloc((a.event_count + 1) * sizeof(*ptrs));
        for (size_t i = 0; i < a.event_count; i++) ptrs[i] = &a.events[i];
        char *text = NULL;
        size_t text_len = 0;
        FILE *out = open_memstream(&text, &text_len);
        assert_non_null(out);
        int rc = etl_manifest_write(ptrs, a.event_count, out, &err);
        fclose(out);
        if (rc != ETL_OK) fail_msg("%s", err.message);
        rc = etl_manifest_parse(&b, text, text_len, "exported", &err);
        if (rc != ETL_OK) fail_msg("%s", err.message);
        assert_int_equal(b.unresolved_strings, 0);
        assert_int_equal(compare_sets(&a, &b, CMP_SKIP_PROVIDER_COUNT), 0);
        free(text);
        free(ptrs);
        etl_schema_set_free(&a);
        etl_schema_set_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_manifests),
        cmocka_unit_test(test_kernel_process),
        cmocka_unit_test(test_task_opcodes),
        cmocka_unit_test(test_enum_maps),
        cmocka_unit_test(test_type_names),
        cmocka_unit_test(test_export_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
