/* Built-in kernel MOF table: coverage of the kernel classes, structural sanity of every row, spot checks
 * against the layouts of docs/etl-format.md Appendix A / §4–§5.5, and a field-by-field cross-check with
 * PerfView's independently maintained kerneltraceeventparser.mof (testdata/kernel-mof/, flattened). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "etl/etl_schema.h"
#include "schema/kernel_mof_table.h"
#include "schema/sources.h"

static const etl_event_info *find_event(const char *guid_text, unsigned version, unsigned type)
{
    etl_guid guid;
    if (etl_guid_parse(guid_text, &guid) != 0) return NULL;
    for (size_t i = 0; i < etl_kernel_mof_event_count; i++) {
        const etl_event_info *e = &etl_kernel_mof_events[i];
        if (etl_guid_equal(&e->event_guid, &guid) && e->descriptor.version == version &&
            e->descriptor.opcode == type)
            return e;
    }
    return NULL;
}

static int class_present(const char *guid_text)
{
    etl_guid guid;
    assert_int_equal(etl_guid_parse(guid_text, &guid), 0);
    for (size_t i = 0; i < etl_kernel_mof_event_count; i++)
        if (etl_guid_equal(&etl_kernel_mof_events[i].event_guid, &guid)) return 1;
    return 0;
}

/* One expected property: name, in-type, out-type, flags, count, length. */
typedef struct expected_prop {
    const char *name;
    uint16_t in_type, out_type;
    uint32_t flags;
    uint16_t count, length;
} expected_prop;

static void expect_layout(const char *guid, unsigned version, unsigned type, const char *task,
                          const char *opcode, const expected_prop *want, size_t n)
{
    const etl_event_info *e = find_event(guid, version, type);
    if (!e) fail_msg("missing %s v%u type %u", guid, version, type);
    assert_string_equal(e->task_name, task);
    assert_string_equal(e->opcode_name, opcode);
    assert_int_equal(e->source, ETL_SOURCE_KERNEL_MOF);
    assert_int_equal(e->property_count, n);
    assert_int_equal(e->top_level_count, n);
    for (size_t i = 0; i < n; i++) {
        const etl_property_info *p = &e->properties[i];
        if (strcmp(p->name, want[i].name) != 0)
            fail_msg("%s v%u type %u field %zu: %s, expected %s", task, version, type, i, p->name, want[i].name);
        if (p->in_type != want[i].in_type || p->out_type != want[i].out_type || p->flags != want[i].flags ||
            p->count != want[i].count || p->length != want[i].length)
            fail_msg("%s v%u type %u field %s: in %u out %u flags 0x%x count %u length %u", task, version, type,
                     p->name, p->in_type, p->out_type, p->flags, p->count, p->length);
    }
}

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define F(name, in) {name, ETL_IN_##in, ETL_OUT_NULL, 0, 0, 0}
#define FO(name, in, out) {name, ETL_IN_##in, ETL_OUT_##out, 0, 0, 0}

static const char *const PROCESS = "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c";
static const char *const THREAD = "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c";
static const char *const IMAGE = "2cb15d1d-5fc1-11d2-abe1-00a0c911f518";
static const char *const SYSCONFIG = "01853a65-418f-4f36-aefc-dc0f1d2fd235";
static const char *const EVENTTRACE = "68fdd900-4a3e-11d1-84f4-0000f80464e3";

/* etl-format.md §2.12: every kernel group's class GUID. Groups whose MOF class has no published layout are
 * listed separately: they must not be in the table (so that nobody invents a layout for them). */
static void test_every_kernel_class_present(void **state)
{
    (void)state;
    static const char *const with_layouts[] = {
        "68fdd900-4a3e-11d1-84f4-0000f80464e3", "3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c",
        "3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c", "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c",
        "90cbdc39-4a3e-11d1-84f4-0000f80464e3", "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c",
        "9a280ac0-c8e0-11d1-84e2-00c04fb998a2", "bf3a50c5-a9c9-4988-a005-2df0b7c80f80",
        "ae53722e-c863-11d2-8659-00c04fa321a1", "13976d09-a327-438c-950b-7f03192815c7",
        "01853a65-418f-4f36-aefc-dc0f1d2fd235", "42695762-ea50-497a-9068-5cbbb35e0b95",
        "0268a8b6-74fd-4302-9dd0-6e8f1795c0cf", "ce1dbfb4-137e-4da6-87b0-3f59aa102cbc",
        "222962ab-6180-4b88-a825-346b75f2a24a", "89497f50-effe-4440-8cf2-ce6b1cdcaca7",
        "e43445e0-0903-48c3-b878-ff0fccebdd04", "2cb15d1d-5fc1-11d2-abe1-00a0c911f518",
        "3ac66736-cc59-4cff-8115-8df50e39816b", "def2fe46-7bd6-4b80-bd94-f57fe20d0ce3",
        "9aec974b-5b8e-4118-9b92-3186d8002ce5", "45d8cccd-539f-4b72-a8b7-5c683142609a",
        "d837ca92-12b9-44a5-ad6a-3a65b3578aa8", "c861d0e2-a2c1-4d36-9f9c-970bab943a12",
        /* FULL_HEADER classes of the kernel logger and KernelTraceControl (§4.2, §4.3) */
        "6a399ae0-4bc6-4de9-870b-3657f8947e7e", "b3e675d7-2554-4f18-830b-2762732560de",
        "9b79ee91-b5fd-41c0-a243-4248e266e9d0", "bbccf6c1-6cd1-48c4-80ff-839482e37671",
        "ed54dff8-c409-4cf6-bf83-05e1e61a09c4",
    };
    /* Job, Spare1/LBR, ModBound, Dpc, Cc, Hypervisor, HypervisorX: no layout in SDK 16299 or schemas.md §3.6. */
    static const char *const without_layouts[] = {
        "3282fc76-feed-498e-8aa7-e70f459d430e", "99134383-5248-43fc-834b-529454e75df3",
        "a9152f00-3f58-4bee-92a1-70c7d079d5dd", "b2d14872-7c5b-463d-8419-ee9bf7d23e04",
        "7687a439-f752-45b8-b741-321aec0f8df9", "7f2a405c-69b5-4bf9-a1f5-30e8f1afab5e",
        "2ce9a149-effe-42f0-a635-a1d39e26c8f2",
    };
    for (size_t i = 0; i < N(with_layouts); i++)
        if (!class_present(with_layouts[i])) fail_msg("class %s missing", with_layouts[i]);
    for (size_t i = 0; i < N(without_layouts); i++)
        if (class_present(without_layouts[i])) fail_msg("class %s unexpectedly has layouts", without_layouts[i]);
    /* the SDK table has 557 (GUID, version, type) rows; §3.6 and §4.3 add more */
    assert_true(etl_kernel_mof_event_count >= 557);
}

/* Every row is self-consistent: unique key, names set, indices inside the event, count/length references
 * pointing at an earlier integer property. */
static void test_rows_well_formed(void **state)
{
    (void)state;
    for (size_t i = 0; i < etl_kernel_mof_event_count; i++) {
        const etl_event_info *e = &etl_kernel_mof_events[i];
        assert_non_null(e->provider_name);
        assert_non_null(e->task_name);
        assert_non_null(e->opcode_name);
        assert_int_equal(e->descriptor.id, 0);
        assert_true(e->property_count == 0 || e->properties != NULL);
        assert_true(e->properties == NULL ||
                    (e->properties >= etl_kernel_mof_properties &&
                     e->properties + e->property_count <= etl_kernel_mof_properties + etl_kernel_mof_property_count));
        for (size_t j = i + 1; j < etl_kernel_mof_event_count; j++) {
            const etl_event_info *o = &etl_kernel_mof_events[j];
            if (etl_guid_equal(&e->event_guid, &o->event_guid) && e->descriptor.version == o->descriptor.version &&
                e->descriptor.opcode == o->descriptor.opcode)
                fail_msg("duplicate key %s v%u type %u", e->task_name, e->descriptor.version, e->descriptor.opcode);
        }
        for (uint32_t k = 0; k < e->property_count; k++) {
            const etl_property_info *p = &e->properties[k];
            assert_non_null(p->name);
            assert_true(p->name[0] != '\0');
            assert_false(p->flags & ETL_PROP_STRUCT);
            if (p->flags & (ETL_PROP_PARAM_COUNT | ETL_PROP_PARAM_LENGTH)) {
                uint16_t ref = (p->flags & ETL_PROP_PARAM_COUNT) ? p->count : p->length;
                assert_true(ref < k);
                uint16_t t = e->properties[ref].in_type;
                assert_true(t == ETL_IN_UINT8 || t == ETL_IN_UINT16 || t == ETL_IN_UINT32);
            }
            if (p->in_type == ETL_IN_BINARY) assert_true(p->flags & ETL_PROP_PARAM_FIXED_LENGTH);
        }
    }
}

/* Process v4 (Appendix A, §5.5): all four shared-layout types registered, fields and types in order. */
static void test_process_v4(void **state)
{
    (void)state;
    static const expected_prop want[] = {
        F("UniqueProcessKey", POINTER), FO("ProcessId", UINT32, HEXINT32), FO("ParentId", UINT32, HEXINT32),
        F("SessionId", UINT32), F("ExitStatus", INT32), F("DirectoryTableBase", POINTER), F("Flags", UINT32),
        F("UserSID", WBEMSID), F("ImageFileName", ANSISTRING), F("CommandLine", UNICODESTRING),
        F("PackageFullName", UNICODESTRING), F("ApplicationId", UNICODESTRING),
    };
    static const char *const names[] = {NULL, "Start", "End", "DCStart", "DCEnd"};
    for (unsigned type = 1; type <= 4; type++) expect_layout(PROCESS, 4, type, "Process", names[type], want, N(want));
    const etl_event_info *start = find_event(PROCESS, 4, 1);
    assert_string_equal(start->provider_name, "MSNT_SystemTrace");
    /* v5 Defunct appends ExitTime */
    const etl_event_info *defunct = find_event(PROCESS, 5, 39);
    assert_non_null(defunct);
    assert_string_equal(defunct->opcode_name, "Defunct");
    assert_int_equal(defunct->property_count, N(want) + 1);
    assert_string_equal(defunct->properties[N(want)].name, "ExitTime");
    assert_int_equal(defunct->properties[N(want)].in_type, ETL_IN_UINT64);
    /* v0: pointer-sized ids, then SID and ANSI name (§5.5) */
    const etl_event_info *v0 = find_event(PROCESS, 0, 1);
    assert_non_null(v0);
    assert_int_equal(v0->property_count, 4);
    assert_int_equal(v0->properties[0].in_type, ETL_IN_POINTER);
    assert_int_equal(v0->properties[2].in_type, ETL_IN_WBEMSID);
}

/* Thread v3 types 1–4 (§5.5): the 72-byte (64-bit) fixed part, Affinity where v2 had StartAddr, and the
 * ThreadName recent kernels append (optional: 72- and 74-byte payloads both occur). */
static void test_thread_v3(void **state)
{
    (void)state;
    static const expected_prop want[] = {
        FO("ProcessId", UINT32, HEXINT32), FO("TThreadId", UINT32, HEXINT32), F("StackBase", POINTER),
        F("StackLimit", POINTER), F("UserStackBase", POINTER), F("UserStackLimit", POINTER),
        F("Affinity", POINTER), F("Win32StartAddr", POINTER), F("TebBase", POINTER),
        FO("SubProcessTag", UINT32, HEXINT32), F("BasePriority", UINT8), F("PagePriority", UINT8),
        F("IoPriority", UINT8), F("ThreadFlags", UINT8),
        {"ThreadName", ETL_IN_UNICODESTRING, ETL_OUT_NULL, ETL_PROP_OPTIONAL_TAIL, 0, 0},
    };
    static const char *const names[] = {NULL, "Start", "End", "DCStart", "DCEnd"};
    for (unsigned type = 1; type <= 4; type++) expect_layout(THREAD, 3, type, "Thread", names[type], want, N(want));
    /* v4 has the thread name for good */
    const etl_event_info *v4 = find_event(THREAD, 4, 1);
    assert_non_null(v4);
    assert_int_equal(v4->property_count, N(want));
    assert_string_equal(v4->properties[N(want) - 1].name, "ThreadName");
    assert_int_equal(v4->properties[N(want) - 1].in_type, ETL_IN_UNICODESTRING);
    assert_int_equal(v4->properties[N(want) - 1].flags, 0);
    /* CSwitch v2 (§5.5): 24 bytes of fixed-size fields */
    const etl_event_info *cs = find_event(THREAD, 2, 36);
    assert_non_null(cs);
    assert_string_equal(cs->opcode_name, "CSwitch");
    assert_int_equal(cs->property_count, 12);
    assert_string_equal(cs->properties[10].name, "NewThreadWaitTime");
}

/* Image v3 (§5.5): Load is type 10 (logged in group 3, class Image), UnLoad 2, DCStart 3, DCEnd 4. */
static void test_image_v3(void **state)
{
    (void)state;
    static const expected_prop want[] = {
        F("ImageBase", POINTER), F("ImageSize", POINTER), F("ProcessId", UINT32), F("ImageChecksum", UINT32),
        F("TimeDateStamp", UINT32), F("SignatureLevel", UINT8), F("SignatureType", UINT8), F("Reserved0", UINT16),
        F("DefaultBase", POINTER), F("Reserved1", UINT32), F("Reserved2", UINT32), F("Reserved3", UINT32),
        F("Reserved4", UINT32), F("FileName", UNICODESTRING),
    };
    expect_layout(IMAGE, 3, 10, "Image", "Load", want, N(want));
    expect_layout(IMAGE, 3, 2, "Image", "UnLoad", want, N(want));
    expect_layout(IMAGE, 3, 3, "Image", "DCStart", want, N(want));
    expect_layout(IMAGE, 3, 4, "Image", "DCEnd", want, N(want));
}

/* SystemConfig CPU v3 (§4.5): fixed UTF-16 arrays of 256 and 134 characters, pointer-sized fields after. */
static void test_systemconfig_cpu_and_groups(void **state)
{
    (void)state;
    static const expected_prop cpu[] = {
        F("MHz", UINT32), F("NumberOfProcessors", UINT32), F("MemSize", UINT32), F("PageSize", UINT32),
        F("AllocationGranularity", UINT32),
        {"ComputerName", ETL_IN_UNICODESTRING, ETL_OUT_NULL, ETL_PROP_PARAM_FIXED_LENGTH, 0, 256},
        {"DomainName", ETL_IN_UNICODESTRING, ETL_OUT_NULL, ETL_PROP_PARAM_FIXED_LENGTH, 0, 134},
        F("HyperThreadingFlag", POINTER), F("HighestUserAddress", POINTER), F("ProcessorArchitecture", UINT16),
        F("ProcessorLevel", UINT16), F("ProcessorRevision", UINT16), F("PaeEnabled", UINT8), F("NxEnabled", UINT8),
        F("MemorySpeed", UINT32),
    };
    expect_layout(SYSCONFIG, 3, 10, "SystemConfig", "CPU", cpu, N(cpu));
    /* ProcessorGroup: GroupCount then GroupCount pointer-sized masks (a decoder reading u32 here is wrong) */
    static const expected_prop groups[] = {
        F("GroupCount", UINT32), {"Affinity", ETL_IN_POINTER, ETL_OUT_NULL, ETL_PROP_PARAM_COUNT, 0, 0},
    };
    expect_layout(SYSCONFIG, 2, 26, "SystemConfig", "ProcessorGroup", groups, N(groups));
    /* PnP v5: two string arrays counted by earlier fields */
    const etl_event_info *pnp = find_event(SYSCONFIG, 5, 22);
    assert_non_null(pnp);
    const etl_property_info *upper = &pnp->properties[pnp->property_count - 2];
    assert_string_equal(upper->name, "UpperFilters");
    assert_int_equal(upper->flags, ETL_PROP_PARAM_COUNT);
    assert_string_equal(pnp->properties[upper->count].name, "UpperFiltersCount");
    /* the §3.6 additions */
    assert_non_null(find_event(SYSCONFIG, 2, 36));
    assert_non_null(find_event(SYSCONFIG, 2, 37));
}

/* EventTrace Header: the TRACE_LOGFILE_HEADER fields of §1.7.1 in file order, with the names PerfView's
 * baselines print (SessionName/LogFileName are the MOF's SessionNameString/LogFileNameString). */
static void test_eventtrace_header(void **state)
{
    (void)state;
    static const expected_prop want[] = {
        F("BufferSize", UINT32), F("Version", UINT32), F("ProviderVersion", UINT32), F("NumberOfProcessors", UINT32),
        F("EndTime", UINT64), F("TimerResolution", UINT32), F("MaxFileSize", UINT32),
        FO("LogFileMode", UINT32, HEXINT32), F("BuffersWritten", UINT32), F("StartBuffers", UINT32),
        F("PointerSize", UINT32), F("EventsLost", UINT32), F("CPUSpeed", UINT32), F("LoggerName", POINTER),
        F("LogFileName", POINTER),
        {"TimeZoneInformation", ETL_IN_BINARY, ETL_OUT_NOPRINT, ETL_PROP_PARAM_FIXED_LENGTH, 0, 176},
        F("BootTime", UINT64), F("PerfFreq", UINT64), F("StartTime", UINT64), FO("ReservedFlags", UINT32, HEXINT32),
        F("BuffersLost", UINT32), F("SessionNameString", UNICODESTRING), F("LogFileNameString", UNICODESTRING),
    };
    expect_layout(EVENTTRACE, 2, 0, "EventTrace", "Header", want, N(want));
    /* Extension / EndExtension: GroupMask1..8 + KernelEventVersion = 36 bytes (§4.1) */
    const etl_event_info *ext = find_event(EVENTTRACE, 2, 5);
    assert_non_null(ext);
    assert_int_equal(ext->property_count, 9);
    assert_string_equal(ext->properties[8].name, "KernelEventVersion");
    assert_non_null(find_event(EVENTTRACE, 2, 32));
    assert_non_null(find_event(EVENTTRACE, 2, 8));
    assert_non_null(find_event(EVENTTRACE, 2, 64));
    assert_non_null(find_event(EVENTTRACE, 2, 66));
    assert_non_null(find_event(EVENTTRACE, 0, 80));
}

/* StackWalk (§5.5): the MOF lists 32 frames / 192 slots but real events carry only the captured frames;
 * PerfInfo Mark has no Padding in real traces (sonde/test.etl, etwanalyzer/TraceLoggingTester.etl); Thread v3
 * may end before ThreadName (test_thread_v3). */
static void test_optional_tails(void **state)
{
    (void)state;
    static const char *const stackwalk = "def2fe46-7bd6-4b80-bd94-f57fe20d0ce3";
    const etl_event_info *stack = find_event(stackwalk, 2, 32);
    assert_non_null(stack);
    assert_int_equal(stack->property_count, 3 + 192);   /* the MOF's 32 + up to the kernel's 192 frames */
    assert_string_equal(stack->properties[0].name, "EventTimeStamp");
    assert_false(stack->properties[2].flags & ETL_PROP_OPTIONAL_TAIL);
    for (uint32_t i = 3; i < stack->property_count; i++) assert_true(stack->properties[i].flags & ETL_PROP_OPTIONAL_TAIL);
    const etl_event_info *rundown = find_event(stackwalk, 2, 36);
    assert_non_null(rundown);
    assert_int_equal(rundown->property_count, 2);
    assert_int_equal(rundown->properties[1].flags, ETL_PROP_PARAM_FIXED_COUNT | ETL_PROP_OPTIONAL_TAIL);
    assert_int_equal(rundown->properties[1].count, 192);
    const etl_event_info *mark = find_event("ce1dbfb4-137e-4da6-87b0-3f59aa102cbc", 0, 34);
    assert_non_null(mark);
    assert_true(mark->properties[1].flags & ETL_PROP_OPTIONAL_TAIL);
    /* nothing else is optional: a short payload elsewhere is a real decode error */
    size_t optional = 0;
    for (size_t i = 0; i < etl_kernel_mof_event_count; i++)
        for (uint32_t k = 0; k < etl_kernel_mof_events[i].property_count; k++)
            if (etl_kernel_mof_events[i].properties[k].flags & ETL_PROP_OPTIONAL_TAIL) {
                const char *task = etl_kernel_mof_events[i].task_name;
                assert_true(strcmp(task, "StackWalk") == 0 || strcmp(task, "PerfInfo") == 0 ||
                            (strcmp(task, "Thread") == 0 && etl_kernel_mof_events[i].descriptor.version == 3));
                optional++;
            }
    assert_true(optional > 0);
}

/* KernelTraceControl synthetic events (§4.3), with their provider. */
static void test_kernel_trace_control(void **state)
{
    (void)state;
    static const expected_prop rsds[] = {
        F("ImageBase", POINTER), F("ProcessId", UINT32), F("GuidSig", GUID), F("Age", UINT32),
        F("PdbFileName", ANSISTRING),
    };
    expect_layout("b3e675d7-2554-4f18-830b-2762732560de", 2, 36, "ImageID", "DbgID_RSDS", rsds, N(rsds));
    const etl_event_info *info = find_event("b3e675d7-2554-4f18-830b-2762732560de", 2, 0);
    assert_non_null(info);
    assert_string_equal(info->provider_name, "KernelTraceControl");
    char buf[40];
    assert_string_equal(etl_guid_format(&info->provider_guid, buf, 0), "{28ad2447-105b-4fe2-9599-e59b2aa9a634}");
    /* None: the ImageBase/ProcessId prefix of its siblings (a u32 equal to the record's PID in every corpus
     * occurrence, see kernel_mof_import.sh) */
    static const expected_prop none[] = {F("ImageBase", POINTER), F("ProcessId", UINT32)};
    expect_layout("b3e675d7-2554-4f18-830b-2762732560de", 2, 32, "ImageID", "None", none, N(none));
    const etl_event_info *fv = find_event("b3e675d7-2554-4f18-830b-2762732560de", 0, 64);
    assert_non_null(fv);
    assert_int_equal(fv->property_count, 12);
    const etl_event_info *vm = find_event("9b79ee91-b5fd-41c0-a243-4248e266e9d0", 0, 35);
    assert_non_null(vm);
    assert_string_equal(vm->task_name, "SysConfig");
    assert_string_equal(vm->opcode_name, "VolumeMapping");
    assert_non_null(find_event("bbccf6c1-6cd1-48c4-80ff-839482e37671", 0, 32));
}

/* ---- cross-check with PerfView's kerneltraceeventparser.mof ------------------------------------------- */

/* PerfView rows that differ from the SDK on purpose (shared/schemas/README.md): PerfView simplified them. */
static const struct { const char *guid; unsigned version, type; const char *why; } perfview_differs[] = {
    {"3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c", 1, 4, "PerfView lists only ProcessId/TThreadId for v1 DCEnd"},
    {"3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c", 1, 36, "PerfView adds NewThreadWaitTime to v1 CSwitch"},
    {"3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c", 2, 53, "PerfView uses other field names for v2 type 53"},
    {"ce1dbfb4-137e-4da6-87b0-3f59aa102cbc", 2, 46, "PerfView omits the trailing Reserved of SampledProfile"},
    /* Vista-era MOF (PerfView, learn.microsoft.com "ISR class"): u8 Vector + u16 Reserved; SDK 16299: u16 Vector
     * + u8 Reserved, like its ISR-MSI (50). Same 4 bytes; the newer SDK wins (etl-format.md §5.5). */
    {"ce1dbfb4-137e-4da6-87b0-3f59aa102cbc", 2, 67, "Vector u8/Reserved u16 in the Vista MOF"},
    /* PerfView-only Vista "Reserve*" thread events: same numbers as newer SDK events, not in our table */
    {"3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c", 2, 48, "Vista-only ReserveCreate, not in SDK 16299"},
    {"3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c", 2, 49, "Vista-only ReserveDelete"},
    {"3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c", 2, 52, "Vista-only ReserveJoinThread"},
    {"3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c", 2, 54, "Vista-only ReserveState"},
    {"3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c", 2, 55, "Vista-only ReserveBandwidth"},
    {"3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c", 2, 56, "Vista-only ReserveLateCount"},
};

/* The TDH in-type a MOF declaration must map to (docs/schemas.md §3.3). */
static uint16_t expected_in_type(const char *decl)
{
    if (strstr(decl, "extension=Sid")) return ETL_IN_WBEMSID;
    if (strstr(decl, "extension=SizeT")) return ETL_IN_SIZET;
    if (strstr(decl, "extension=GUID") || strstr(decl, "extension=Guid")) return ETL_IN_GUID;
    if (strstr(decl, "extension=WmiTime")) return ETL_IN_UINT64;
    if (strstr(decl, "extension=IPAddrV6")) return ETL_IN_BINARY;
    if (strstr(decl, "extension=IPAddr")) return ETL_IN_UINT32;
    if (strstr(decl, "extension=Port")) return ETL_IN_UINT16;
    if (strstr(decl, "extension=NoPrint")) return ETL_IN_BINARY;
    if (strstr(decl, " pointer")) return ETL_IN_POINTER;
    if (strncmp(decl, "char16", 6) == 0) return ETL_IN_UNICODESTRING;
    if (strncmp(decl, "string", 6) == 0) return strstr(decl, "format=w") ? ETL_IN_UNICODESTRING : ETL_IN_ANSISTRING;
    if (strncmp(decl, "boolean", 7) == 0) return ETL_IN_BOOLEAN;
    static const struct { const char *mof; uint16_t tdh; } ints[] = {
        {"uint8", ETL_IN_UINT8}, {"sint8", ETL_IN_INT8}, {"uint16", ETL_IN_UINT16}, {"sint16", ETL_IN_INT16},
        {"uint32", ETL_IN_UINT32}, {"sint32", ETL_IN_INT32}, {"uint64", ETL_IN_UINT64}, {"sint64", ETL_IN_INT64},
    };
    for (size_t i = 0; i < N(ints); i++) {
        size_t n = strlen(ints[i].mof);
        if (strncmp(decl, ints[i].mof, n) == 0 && (decl[n] == ' ' || decl[n] == '[' || decl[n] == '\0'))
            return ints[i].tdh;
    }
    return 0xFFFF;
}

static void test_matches_perfview_mof(void **state)
{
    (void)state;
    FILE *f = fopen("testdata/kernel-mof/perfview_kernel_mof_parsed.tsv", "r");
    assert_non_null(f);
    char line[8192];
    int compared = 0, skipped_known = 0, missing = 0, differing = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *col[8] = {0};
        char *p = line;
        for (int c = 0; c < 8 && p; c++) {
            col[c] = p;
            p = strchr(p, '\t');
            if (p) *p++ = '\0';
        }
        if (!col[7] || strcmp(col[0], "provider_class") == 0 || col[3][0] == '\0') continue; /* no version */
        unsigned version = (unsigned)atoi(col[3]), type = (unsigned)atoi(col[4]);
        int known = 0;
        for (size_t i = 0; i < N(perfview_differs); i++)
            if (strcmp(perfview_differs[i].guid, col[2]) == 0 && perfview_differs[i].version == version &&
                perfview_differs[i].type == type)
                known = 1;
        if (known) { skipped_known++; continue; }
        const etl_event_info *e = find_event(col[2], version, type);
        if (!e) { fprintf(stderr, "missing %s %s v%u type %u\n", col[1], col[2], version, type); missing++; continue; }
        /* fields: "name decl...; name decl..." */
        uint32_t k = 0;
        int row_ok = 1;
        char *save = NULL;
        for (char *fld = strtok_r(col[7], ";", &save); fld; fld = strtok_r(NULL, ";", &save)) {
            while (*fld == ' ') fld++;
            if (!*fld) continue;
            char *sp = strchr(fld, ' ');
            assert_non_null(sp);
            *sp = '\0';
            const char *decl = sp + 1;
            if (k >= e->property_count) {
                fprintf(stderr, "%s v%u type %u: PerfView has extra field %s\n", e->task_name, version, type, fld);
                row_ok = 0;
                break;
            }
            const etl_property_info *prop = &e->properties[k];
            if (strcmp(prop->name, fld) != 0) {
                fprintf(stderr, "%s v%u type %u field %u: %s vs PerfView %s\n", e->task_name, version, type, k,
                        prop->name, fld);
                row_ok = 0;
            } else if (prop->in_type != expected_in_type(decl)) {
                fprintf(stderr, "%s v%u type %u field %s: in-type %u for PerfView '%s'\n", e->task_name, version,
                        type, fld, prop->in_type, decl);
                row_ok = 0;
            }
            k++;
        }
        if (row_ok && k != e->property_count) {
            fprintf(stderr, "%s v%u type %u: %u fields, PerfView %u\n", e->task_name, version, type,
                    e->property_count, k);
            row_ok = 0;
        }
        if (row_ok) compared++;
        else differing++;
    }
    fclose(f);
    printf("PerfView MOF cross-check: %d rows identical, %d known differences skipped, %d missing, %d differ\n",
           compared, skipped_known, missing, differing);
    assert_int_equal(missing, 0);
    assert_int_equal(differing, 0);
    assert_true(compared >= 185);
}

/* Registration into the registry: every row findable by (class GUID, type, version), names and sources set,
 * kernel classes without layouts named, repeated registration cheap and harmless. */
static void test_register(void **state)
{
    (void)state;
    etl_schema_registry *registry = etl_schema_registry_new();
    assert_non_null(registry);
    assert_int_equal(etl_kernel_mof_register(registry), ETL_OK);
    for (size_t i = 0; i < etl_kernel_mof_event_count; i++) {
        const etl_event_info *want = &etl_kernel_mof_events[i];
        const etl_event_info *got = etl_schema_registry_find(registry, ETL_KEY_CLASSIC, &want->event_guid,
                                                             want->descriptor.opcode, want->descriptor.version);
        if (!got || got->descriptor.version != want->descriptor.version || got->descriptor.opcode != want->descriptor.opcode)
            fail_msg("%s/%s v%u not found", want->task_name, want->opcode_name, want->descriptor.version);
        assert_int_equal(got->source, ETL_SOURCE_KERNEL_MOF);
        assert_string_equal(got->task_name, want->task_name);
        assert_string_equal(got->opcode_name, want->opcode_name);
        assert_int_equal(got->property_count, want->property_count);
    }
    etl_guid guid;
    assert_int_equal(etl_guid_parse(PROCESS, &guid), 0);
    assert_string_equal(etl_schema_registry_provider_name(registry, &guid), "MSNT_SystemTrace");
    assert_int_equal(etl_guid_parse("3282fc76-feed-498e-8aa7-e70f459d430e", &guid), 0); /* Job: no layouts */
    assert_string_equal(etl_schema_registry_provider_name(registry, &guid), "MSNT_SystemTrace");
    assert_int_equal(etl_guid_parse("b3e675d7-2554-4f18-830b-2762732560de", &guid), 0);
    assert_string_equal(etl_schema_registry_provider_name(registry, &guid), "KernelTraceControl");
    /* a Process version newer than the table falls back to the newest layout (v4 DCStart) */
    assert_int_equal(etl_guid_parse(PROCESS, &guid), 0);
    const etl_event_info *v9 = etl_schema_registry_find(registry, ETL_KEY_CLASSIC, &guid, 3, 9);
    assert_non_null(v9);
    assert_int_equal(v9->descriptor.version, 4);
    assert_string_equal(v9->opcode_name, "DCStart");
    assert_int_equal(etl_kernel_mof_register(registry), ETL_OK);
    etl_schema_registry_free(registry);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kernel_class_present),
        cmocka_unit_test(test_rows_well_formed),
        cmocka_unit_test(test_process_v4),
        cmocka_unit_test(test_thread_v3),
        cmocka_unit_test(test_image_v3),
        cmocka_unit_test(test_systemconfig_cpu_and_groups),
        cmocka_unit_test(test_eventtrace_header),
        cmocka_unit_test(test_optional_tails),
        cmocka_unit_test(test_kernel_trace_control),
        cmocka_unit_test(test_matches_perfview_mof),
        cmocka_unit_test(test_register),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
