/* XML manifests in the forms users actually bring, beyond mc.exe-clean sources: the manifests PerfView
 * regenerates from TDH (GetManifestForRegisteredProvider; the per-release dumps of repnz/etw-providers-docs
 * and nasbench/EVTX-ETW-Resources are made with it) and other hand-made or exported forms. Every snippet
 * here is synthetic and reproduces one construct seen in those files; expected type codes are TDH's
 * (tdh.h TDH_IN_TYPE), expected decoded values follow from the payload bytes written here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "etl/etl_schema.h"
#include "schema/manifest_model.h"

#define OPEN "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\n" \
             " <instrumentation xmlns:win=\"http://manifests.microsoft.com/win/2004/08/windows/events\">\n" \
             "  <events>\n" \
             "   <provider name=\"Syn-RealWorld\" guid=\"{5e1f0a2b-0c3d-4e5f-8a9b-0c1d2e3f4a5b}\" symbol=\"SynRealWorld\">\n"
#define CLOSE "   </provider>\n  </events>\n </instrumentation>\n"
#define END "</instrumentationManifest>\n"

static const etl_guid provider = {0x5e1f0a2b, 0x0c3d, 0x4e5f, {0x8a, 0x9b, 0x0c, 0x1d, 0x2e, 0x3f, 0x4a, 0x5b}};

static int parse(const char *xml, etl_schema_set *set, etl_error *err)
{
    etl_schema_set_init(set);
    memset(err, 0, sizeof *err);
    return etl_manifest_parse(set, xml, strlen(xml), "real.man", err);
}

static const etl_event_info *find_event(const etl_schema_set *set, uint16_t id, uint8_t version)
{
    for (size_t i = 0; i < set->event_count; i++)
        if (set->events[i].descriptor.id == id && set->events[i].descriptor.version == version) return &set->events[i];
    return NULL;
}

/* One synthetic record of the test provider through a registry loaded from `xml`; the decoded event is
 * copied out as "name=value;" text (values only, no array/struct markers) so the registry and decoder can be freed here. */
static void decode_one(const char *xml, uint16_t id, const uint8_t *payload, uint16_t size, etl_decode_status *status,
                       char *fields, size_t fields_size, size_t *undecoded)
{
    etl_schema_registry *reg = etl_schema_registry_new();
    assert_non_null(reg);
    etl_error err;
    assert_int_equal(etl_schema_load_manifest_memory(reg, xml, strlen(xml), "real.man", ETL_SOURCE_USER_MANIFEST, &err),
                     ETL_OK);
    etl_decoder *dec = etl_decoder_new(reg, NULL);
    assert_non_null(dec);
    etl_event_record r;
    memset(&r, 0, sizeof r);
    r.kind = ETL_KIND_EVENT64;
    r.pointer_size = 8;
    r.header.provider_id = provider;
    r.header.descriptor = (etl_event_descriptor){id, 0, 0, 4, 0, 0, 0};
    r.user_data = payload;
    r.user_data_length = size;
    const etl_decoded_event *ev;
    assert_int_equal(etl_decode_event(dec, &r, &ev), ETL_OK);
    *status = ev->status;
    *undecoded = ev->undecoded_length;
    size_t used = 0;
    fields[0] = '\0';
    for (size_t i = 0; i < ev->field_count && used < fields_size; i++)
        if (ev->fields[i].kind == ETL_FIELD_VALUE)
            used += (size_t)snprintf(fields + used, fields_size - used, "%s=%s;", ev->fields[i].name,
                                 ev->fields[i].value ? ev->fields[i].value : "");
    etl_decoder_free(dec);
    etl_schema_registry_free(reg);
}

/* PerfView writes "win:" + TraceEvent's TdhInputType name for every property; the counted and WBEM-era
 * names are not winmeta names. Codes: tdh.h (MANIFEST_COUNTEDSTRING 22, MANIFEST_COUNTEDANSISTRING 23,
 * COUNTEDSTRING 300 ... WBEMSID 310). */
static void test_tdh_in_type_names(void **state)
{
    (void)state;
    static const char xml[] = OPEN
        "    <events><event value=\"1\" version=\"0\" template=\"T\"/></events>\n"
        "    <templates><template tid=\"T\">\n"
        "      <data name=\"A\" inType=\"win:CountedUtf16String\"/>\n"
        "      <data name=\"B\" inType=\"win:CountedMbcsString\"/>\n"
        "      <data name=\"C\" inType=\"win:ReversedCountedString\"/>\n"
        "      <data name=\"D\" inType=\"win:NonNullTerminatedAnsiString\"/>\n"
        "      <data name=\"E\" inType=\"win:UnicodeChar\"/>\n"
        "      <data name=\"F\" inType=\"win:AnsiChar\"/>\n"
        "      <data name=\"G\" inType=\"win:SizeT\"/>\n"
        "      <data name=\"H\" inType=\"win:HexDump\"/>\n"
        "      <data name=\"I\" inType=\"win:WbemSID\"/>\n"
        "    </template></templates>\n" CLOSE END;
    static const uint16_t expected[] = {22, 23, 302, 305, 306, 307, 308, 309, 310};
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(xml, &set, &err), ETL_OK);
    const etl_event_info *e = find_event(&set, 1, 0);
    assert_non_null(e);
    assert_int_equal(e->property_count, 9);
    for (size_t i = 0; i < 9; i++) assert_int_equal(e->properties[i].in_type, expected[i]);
    etl_schema_set_free(&set);
    /* input-only spellings: -export still writes mc-compatible names (none for the WBEM-era types) */
    assert_null(etl_manifest_in_type_name(ETL_IN_SIZET));
    assert_string_equal(etl_manifest_in_type_name(ETL_IN_MANIFEST_COUNTEDSTRING), "win:CountedUnicodeString");
    /* a name nobody defines is still refused, with the line and the field */
    static const char bad[] = OPEN
        "    <events><event value=\"1\" template=\"T\"/><event value=\"2\"/></events>\n"
        "    <templates><template tid=\"T\"><data name=\"S\" inType=\"win:Struct\"/></template></templates>\n"
        CLOSE END;
    assert_int_equal(parse(bad, &set, &err), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "real.man: line 6: template 'T' field 'S': unknown inType 'win:Struct'"));
    assert_int_equal(set.event_count, 1);   /* event 2 still loads; event 1 is left out, not mis-decoded */
    assert_non_null(find_event(&set, 2, 0));
    etl_schema_set_free(&set);
}

static void test_counted_utf16_string_decodes(void **state)
{
    (void)state;
    static const char xml[] = OPEN
        "    <events><event value=\"7\" template=\"T\"/></events>\n"
        "    <templates><template tid=\"T\">\n"
        "      <data name=\"Name\" inType=\"win:CountedUtf16String\"/>\n"
        "      <data name=\"Size\" inType=\"win:SizeT\"/>\n"
        "    </template></templates>\n" CLOSE END;
    /* u16 byte count 4, "AB" in UTF-16LE, then a pointer-sized (8) SizeT 0x10 */
    static const uint8_t payload[] = {4, 0, 'A', 0, 'B', 0, 0x10, 0, 0, 0, 0, 0, 0, 0};
    etl_decode_status status;
    char fields[256];
    size_t left;
    decode_one(xml, 7, payload, sizeof payload, &status, fields, sizeof fields, &left);
    assert_int_equal(status, ETL_DECODE_OK);
    assert_int_equal(left, 0);
    assert_string_equal(fields, "Name=AB;Size=0x10;");
}

/* PerfView strips characters outside [A-Za-z0-9_] from data names but writes count/length references with
 * the raw TDH property name: length="Buffer Size" for data name="BufferSize". */
static void test_length_reference_to_sanitized_name(void **state)
{
    (void)state;
    static const char xml[] = OPEN
        "    <events><event value=\"3\" template=\"T\"/></events>\n"
        "    <templates><template tid=\"T\">\n"
        "      <data name=\"BufferSize\" inType=\"win:UInt32\"/>\n"
        "      <data name=\"Buffer\" inType=\"win:Binary\" length=\"Buffer Size\"/>\n"
        "      <data name=\"ItemCount\" inType=\"win:UInt16\"/>\n"
        "      <data name=\"Items\" inType=\"win:UInt8\" count=\"Item-Count\"/>\n"
        "      <data name=\"Tail\" inType=\"win:UInt8\"/>\n"
        "    </template></templates>\n" CLOSE END;
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(xml, &set, &err), ETL_OK);
    const etl_event_info *e = find_event(&set, 3, 0);
    assert_non_null(e);
    assert_true(e->properties[1].flags & ETL_PROP_PARAM_LENGTH);
    assert_int_equal(e->properties[1].length, 0);
    assert_true(e->properties[3].flags & ETL_PROP_PARAM_COUNT);
    assert_int_equal(e->properties[3].count, 2);
    etl_schema_set_free(&set);

    static const uint8_t payload[] = {3, 0, 0, 0, 0xAA, 0xBB, 0xCC, 2, 0, 5, 6, 0x7F};
    etl_decode_status status;
    char fields[256];
    size_t left;
    decode_one(xml, 3, payload, sizeof payload, &status, fields, sizeof fields, &left);
    assert_int_equal(status, ETL_DECODE_OK);
    assert_int_equal(left, 0);
    assert_string_equal(fields, "BufferSize=3;Buffer=0xAABBCC;ItemCount=2;Items=5;Items=6;Tail=127;");

    /* a reference that names no earlier field, even without punctuation, is the file's fault */
    static const char bad[] = OPEN
        "    <events><event value=\"3\" template=\"T\"/></events>\n"
        "    <templates><template tid=\"T\">\n"
        "      <data name=\"Buffer\" inType=\"win:Binary\" length=\"Buffer Size\"/>\n"
        "      <data name=\"BufferSize\" inType=\"win:UInt32\"/>\n"
        "    </template></templates>\n" CLOSE END;
    assert_int_equal(parse(bad, &set, &err), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "real.man: line 7: template 'T' field 'Buffer'"));
    assert_int_equal(set.event_count, 0);
    etl_schema_set_free(&set);
}

/* An event whose id or version does not fit used to vanish without a word; now it is refused with its line
 * and the rest of the provider loads. */
static void test_bad_event_value_is_reported(void **state)
{
    (void)state;
    static const char xml[] = OPEN
        "    <events>\n"
        "     <event value=\"1\"/>\n"
        "     <event value=\"70000\"/>\n"
        "     <event value=\"0x10\" version=\"300\"/>\n"
        "     <event value=\"0x11\" version=\"2\"/>\n"
        "    </events>\n" CLOSE END;
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(xml, &set, &err), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "real.man: line 7: event value '70000'"));
    assert_non_null(strstr(err.message, "(2 items left out in all)"));
    assert_int_equal(set.event_count, 2);
    assert_non_null(find_event(&set, 1, 0));
    assert_non_null(find_event(&set, 17, 2));
    etl_schema_set_free(&set);
}

/* The shape of a PerfView dump: symbol but no name on events, a stray ">" text line inside each task that
 * has opcodes, opcode names and string ids with parentheses, the same opcode name under several tasks,
 * level 0 written "win:Always", an event naming a task the dump did not define, maps with 0x values,
 * no outType anywhere. */
static void test_perfview_dump_shape(void **state)
{
    (void)state;
    static const char xml[] = OPEN
        "    <keywords><keyword name=\"Transport\" message=\"$(string.keyword_Transport)\" mask=\"0x8\"/></keywords>\n"
        "    <tasks>\n"
        "     <task name=\"None\" message=\"$(string.task_None)\" value=\"0\">\n>\n"
        "      <opcodes><opcode name=\"Open(async)\" message=\"$(string.opcode_NoneOpen(async))\" value=\"10\"/></opcodes>\n"
        "     </task>\n"
        "     <task name=\"Pipe\" message=\"$(string.task_Pipe)\" value=\"111\">\n>\n"
        "      <opcodes><opcode name=\"Open(async)\" message=\"$(string.opcode_PipeOpen(async))\" value=\"12\"/></opcodes>\n"
        "     </task>\n"
        "    </tasks>\n"
        "    <maps><valueMap name=\"Kind\"><map value=\"0x10001\" message=\"$(string.map_KindBig)\"/>"
        "<map value=\"2\" message=\"$(string.map_KindTwo)\"/></valueMap></maps>\n"
        "    <events>\n"
        "     <event value=\"53504\" symbol=\"PipeOpen(async)_V1\" version=\"1\" task=\"Pipe\" opcode=\"Open(async)\""
        " level=\"win:Verbose\" keywords=\"Transport\" template=\"K\"/>\n"
        "     <event value=\"32775\" symbol=\"task_0Open(async)_V1\" version=\"1\" task=\"task_0\" opcode=\"Open(async)\""
        " level=\"win:Always\"/>\n"
        "    </events>\n"
        "    <templates><template tid=\"K\"><data name=\"Kind\" inType=\"win:UInt32\" map=\"Kind\"/></template></templates>\n"
        CLOSE
        " <localization>\n  <resources culture=\"en-US\">\n   <stringTable>\n"
        "    <string id=\"keyword_Transport\" value=\"Transport\"/>\n"
        "    <string id=\"task_None\" value=\"None\"/>\n"
        "    <string id=\"task_Pipe\" value=\"Pipe\"/>\n"
        "    <string id=\"opcode_NoneOpen(async)\" value=\"Open (none)\"/>\n"
        "    <string id=\"opcode_PipeOpen(async)\" value=\"Open (pipe)\"/>\n"
        "    <string id=\"map_KindBig\" value=\"Big\"/>\n"
        "    <string id=\"map_KindTwo\" value=\"Two\"/>\n"
        "   </stringTable>\n  </resources>\n </localization>\n" END;
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(xml, &set, &err), ETL_OK);
    assert_int_equal(set.event_count, 2);
    const etl_event_info *pipe = find_event(&set, 53504, 1);
    assert_non_null(pipe);
    assert_int_equal(pipe->descriptor.task, 111);
    assert_int_equal(pipe->descriptor.opcode, 12);        /* the opcode of its own task, not None's 10 */
    assert_string_equal(pipe->opcode_name, "Open (pipe)");
    assert_int_equal(pipe->descriptor.level, 5);
    assert_int_equal(pipe->descriptor.keyword, 0x8);
    assert_null(pipe->event_name);                        /* symbol is not a name (compiled manifests drop it) */
    assert_non_null(pipe->properties[0].map);
    assert_int_equal(pipe->properties[0].map->entry_count, 2);
    assert_int_equal(pipe->properties[0].map->entries[0].value, 2);
    assert_int_equal(pipe->properties[0].map->entries[1].value, 0x10001);
    const etl_event_info *orphan = find_event(&set, 32775, 1);
    assert_non_null(orphan);
    assert_int_equal(orphan->descriptor.task, 0);         /* "task_0" is not defined: task value 0 */
    assert_int_equal(orphan->descriptor.opcode, 10);      /* ... whose opcodes are None's */
    assert_int_equal(orphan->descriptor.level, 0);
    assert_non_null(orphan->level_name);
    assert_string_equal(orphan->level_name, "Log Always");
    assert_int_equal(set.unresolved_strings, 1);          /* only the undefined task_0 */
    etl_schema_set_free(&set);
}

/* PerfView's dump flattens a struct array to one <data> whose inType is the struct's StructStartIndex (the
 * union member TDH shares with InType): DotNETRuntime's BulkType reads Values inType="win:Int8"
 * count="Count" after 3 top-level fields (code 3 = T). Decoded as Count Int8s, the rest of each record was
 * left over; as the last field it is now the rest of the payload, shown whole. */
#define DUMP_OPEN "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\n" \
                  " <instrumentation xmlns:win=\"http://manifests.microsoft.com/win/2004/08/windows/events\">\n" \
                  "  <events>\n" \
                  "   <provider name=\"Syn-RealWorld\" guid=\"{5e1f0a2b-0c3d-4e5f-8a9b-0c1d2e3f4a5b}\" source=\"Xml\" >\n"
#define BULK_TEMPLATE "    <events><event value=\"15\" template=\"B\"/></events>\n" \
                      "    <templates><template tid=\"B\">\n" \
                      "      <data name=\"Count\" inType=\"win:UInt32\"/>\n" \
                      "      <data name=\"ClrInstanceID\" inType=\"win:UInt16\"/>\n" \
                      "      <data name=\"Values\" inType=\"win:Int8\" count=\"Count\"/>\n" \
                      "    </template></templates>\n"
static void test_perfview_flattened_struct_array(void **state)
{
    (void)state;
    static const char dump[] = DUMP_OPEN BULK_TEMPLATE CLOSE END;
    /* Count 1, ClrInstanceID 11, then one 6-byte struct element */
    static const uint8_t payload[] = {1, 0, 0, 0, 11, 0, 0x78, 0xED, 0x67, 0x02, 0x41, 0x00};
    etl_decode_status status;
    char fields[256];
    size_t left;
    decode_one(dump, 15, payload, sizeof payload, &status, fields, sizeof fields, &left);
    assert_int_equal(status, ETL_DECODE_OK);
    assert_int_equal(left, 0);
    assert_string_equal(fields, "Count=1;ClrInstanceID=11;Values=0x78ED67024100;");

    /* the same template outside a PerfView dump is taken as written: one Int8, 5 bytes left over */
    static const char source[] = OPEN BULK_TEMPLATE CLOSE END;
    decode_one(source, 15, payload, sizeof payload, &status, fields, sizeof fields, &left);
    assert_int_equal(status, ETL_DECODE_OK);
    assert_int_equal(left, 5);
    assert_string_equal(fields, "Count=1;ClrInstanceID=11;Values=120;");

    /* in a dump, an array whose code is not the top-level count (UInt8 = 4, 3 fields) stays an array */
    static const char plain[] = DUMP_OPEN
        "    <events><event value=\"16\" template=\"P\"/></events>\n"
        "    <templates><template tid=\"P\">\n"
        "      <data name=\"Count\" inType=\"win:UInt32\"/>\n"
        "      <data name=\"Id\" inType=\"win:UInt16\"/>\n"
        "      <data name=\"Bytes\" inType=\"win:UInt8\" count=\"Count\"/>\n"
        "    </template></templates>\n" CLOSE END;
    static const uint8_t two[] = {2, 0, 0, 0, 7, 0, 0xAB, 0xCD};
    decode_one(plain, 16, two, sizeof two, &status, fields, sizeof fields, &left);
    assert_int_equal(status, ETL_DECODE_OK);
    assert_int_equal(left, 0);
    assert_string_equal(fields, "Count=2;Id=7;Bytes=171;Bytes=205;");

    /* Kernel-Memory's MemInfoWS shape: 2 top-level fields, so the struct reads as code 2, AnsiString */
    static const char ansi[] = DUMP_OPEN
        "    <events><event value=\"2\" template=\"W\"/></events>\n"
        "    <templates><template tid=\"W\">\n"
        "      <data name=\"Count\" inType=\"win:UInt32\"/>\n"
        "      <data name=\"Info\" inType=\"win:AnsiString\" count=\"Count\"/>\n"
        "    </template></templates>\n" CLOSE END;
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(ansi, &set, &err), ETL_OK);
    const etl_event_info *e = find_event(&set, 2, 0);
    assert_non_null(e);
    assert_int_equal(e->properties[1].in_type, ETL_IN_BINARY);
    assert_false(e->properties[1].flags & ETL_PROP_PARAM_COUNT);
    etl_schema_set_free(&set);
}

/* Opcodes in a PerfView dump: below 10 they are written "win:" + the TDH name, renamed with "_<task>_<opcode>"
 * when the name was taken (Kernel-EventTracing: a task's own opcode "Start" = 12, so the winmeta Start of
 * another task became "win:Start_8_1"), or "win:opcode_<n>" without a TDH name. And "win:Start" itself is
 * winmeta's Start (1) even in a task that defines its own "Start". */
static void test_perfview_dump_opcode_names(void **state)
{
    (void)state;
    static const char xml[] = DUMP_OPEN
        "    <tasks>\n"
        "     <task name=\"Session\" value=\"2\">\n>\n"
        "      <opcodes><opcode name=\"Start\" value=\"12\"/></opcodes>\n"
        "     </task>\n"
        "     <task name=\"Persist\" value=\"8\"/>\n"
        "    </tasks>\n"
        "    <events>\n"
        "     <event value=\"10\" task=\"Session\" opcode=\"Start\"/>\n"
        "     <event value=\"11\" task=\"Session\" opcode=\"win:Start\"/>\n"
        "     <event value=\"21\" task=\"Persist\" opcode=\"win:Start_8_1\"/>\n"
        "     <event value=\"22\" task=\"Persist\" opcode=\"win:opcode_5\"/>\n"
        "    </events>\n" CLOSE END;
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(xml, &set, &err), ETL_OK);
    static const struct { uint16_t id; uint8_t opcode; const char *name; } expected[] = {
        {10, 12, "Start"}, {11, 1, "Start"}, {21, 1, "Start"}, {22, 5, "Extension"},
    };
    for (size_t i = 0; i < 4; i++) {
        const etl_event_info *e = find_event(&set, expected[i].id, 0);
        assert_non_null(e);
        assert_int_equal(e->descriptor.opcode, expected[i].opcode);
        assert_non_null(e->opcode_name);
        assert_string_equal(e->opcode_name, expected[i].name);
    }
    assert_int_equal(set.unresolved_strings, 0);
    etl_schema_set_free(&set);
    /* outside a dump the suffix means nothing: unresolved, opcode 0 */
    static const char plain[] = OPEN "    <events><event value=\"21\" opcode=\"win:Start_8_1\"/></events>\n" CLOSE END;
    assert_int_equal(parse(plain, &set, &err), ETL_OK);
    assert_int_equal(find_event(&set, 21, 0)->descriptor.opcode, 0);
    assert_int_equal(set.unresolved_strings, 1);
    etl_schema_set_free(&set);
}

/* A channel declared only by chid and type still routes its events (value from 16, keyword bit 63). */
static void test_channel_without_name(void **state)
{
    (void)state;
    static const char xml[] = OPEN
        "    <channels><channel chid=\"op\" type=\"Operational\" enabled=\"true\"/></channels>\n"
        "    <events><event value=\"1\" channel=\"op\" level=\"win:Informational\"/></events>\n" CLOSE END;
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(xml, &set, &err), ETL_OK);
    const etl_event_info *e = find_event(&set, 1, 0);
    assert_non_null(e);
    assert_int_equal(e->descriptor.channel, 16);
    assert_int_equal(e->descriptor.keyword, 0x8000000000000000ull);
    assert_int_equal(set.unresolved_strings, 0);
    etl_schema_set_free(&set);
}

/* PerfView's older dumps did not escape map names: message="$(string.map_Xrun "CHKDSK /F" on <drive:>)" is
 * not XML. The refusal names the line of the first error (the one xmllint reports), not libxml2's last one
 * ("Premature end of data" at the end of the file). */
static void test_malformed_dump_first_error_line(void **state)
{
    (void)state;
    static const char xml[] = OPEN
        "    <maps>\n"
        "     <valueMap name=\"M\">\n"
        "      <map value=\"0x0\" message=\"$(string.map_Mrun \"CHKDSK /F\" on <drive:>)\"/>\n"
        "     </valueMap>\n"
        "    </maps>\n"
        "    <events><event value=\"1\"/></events>\n" CLOSE END;
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(xml, &set, &err), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "real.man: not well-formed XML (line 7): "));
    assert_int_equal(set.event_count, 0);
    etl_schema_set_free(&set);
}

/* template="" naming no template of the provider (a typo mc would refuse): the event is left out, with an
 * error naming the line, the event and the template, and the provider's other events load. Loaded without
 * its fields it would decode every payload as unexplained extra bytes under the right event name. */
static void test_undefined_template_reference(void **state)
{
    (void)state;
    static const char xml[] = OPEN
        "    <templates><template tid=\"T_Good\"><data name=\"X\" inType=\"win:UInt32\"/></template></templates>\n"
        "    <events>\n"
        "     <event value=\"1\" version=\"2\" level=\"win:Informational\" template=\"T_Goood\"/>\n"
        "     <event value=\"3\" level=\"win:Informational\" template=\"T_Good\"/>\n"
        "    </events>\n" CLOSE END;
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(xml, &set, &err), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "real.man: line 7: event 1 version 2: template 'T_Goood' is not defined in "
                                        "provider 'Syn-RealWorld'; event left out"));
    assert_null(find_event(&set, 1, 2));
    const etl_event_info *good = find_event(&set, 3, 0);
    assert_non_null(good);
    assert_int_equal(good->property_count, 1);
    assert_int_equal(set.event_count, 1);
    etl_schema_set_free(&set);
}

/* A manifest written as UTF-16 and later converted to UTF-8 (iconv, an editor, a git filter) keeps its
 * declaration encoding="UTF-16"; public repositories hold many such files. The bytes are plainly 8-bit (no
 * UTF-16 byte order mark, no NUL byte), so they are read as UTF-8: non-ASCII text survives, with or without
 * a UTF-8 byte order mark. A really 8-bit non-UTF-8 file under that label is still refused. */
static void test_utf16_label_on_utf8_bytes(void **state)
{
    (void)state;
    static const char body[] = OPEN
        "    <events><event value=\"1\" level=\"win:Informational\" message=\"$(string.m)\"/></events>\n" CLOSE
        " <localization><resources culture=\"en-US\"><stringTable>\n"
        "  <string id=\"m\" value=\"caf\xc3\xa9 \xe2\x82\xac%1\"/>\n"
        " </stringTable></resources></localization>\n" END;
    static const char *const decls[] = {"<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n",
                                        "\xef\xbb\xbf<?xml version='1.0' encoding = 'utf-16' standalone='yes'?>\n",
                                        "<?xml version=\"1.0\" encoding=\"UTF-16LE\"?>\n"};
    char xml[sizeof(body) + 128];
    for (size_t i = 0; i < sizeof(decls) / sizeof(decls[0]); i++) {
        snprintf(xml, sizeof(xml), "%s%s", decls[i], body);
        etl_schema_set set;
        etl_error err;
        assert_int_equal(parse(xml, &set, &err), ETL_OK);
        const etl_event_info *e = find_event(&set, 1, 0);
        assert_non_null(e);
        assert_string_equal(e->message, "caf\xc3\xa9 \xe2\x82\xac%1");
        etl_schema_set_free(&set);
    }
    /* Latin-1 bytes under the same label: not UTF-8 either, refused with the line */
    snprintf(xml, sizeof(xml), "%s%s", decls[0], body);
    char *accent = strstr(xml, "caf\xc3\xa9");
    assert_non_null(accent);
    memmove(accent + 4, accent + 5, strlen(accent + 5) + 1);
    accent[3] = (char)0xe9;
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(xml, &set, &err), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "real.man: not well-formed XML (line "));
    etl_schema_set_free(&set);
}

/* WEPExplorer's provider listings load through their own reader (manifest_wep.c, tests/test_manifest_wep.c):
 * here only that the root <Providers> is taken for that form, not refused as "no instrumentation". */
static void test_provider_listing_loads(void **state)
{
    (void)state;
    static const char xml[] = "<Providers>\n <Provider>\n  <Name>Syn-Listing</Name>\n  <Metadata>\n"
                              "   <Guid>{5E1F0A2B-0C3D-4E5F-8A9B-0C1D2E3F4A5B}</Guid>\n  </Metadata>\n"
                              "  <EventMetadata><Event><Id>1</Id><Version>0</Version></Event></EventMetadata>\n"
                              " </Provider>\n</Providers>\n";
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(xml, &set, &err), ETL_OK);
    assert_int_equal(set.provider_count, 1);
    assert_string_equal(set.providers[0].name, "Syn-Listing");
    assert_int_equal(set.event_count, 1);
    assert_int_equal(set.events[0].descriptor.id, 1);
    etl_schema_set_free(&set);
}

/* Size of the biggest real providers and beyond (DotNETRuntime dumps: ~1,000 events; here 40,000 events,
 * each with its own task, opcode, template and strings): everything loads, in well under a second. */
static void test_large_manifest(void **state)
{
    (void)state;
    enum { N = 40000 };
    size_t cap = (size_t)N * 600 + 4096, len = 0;
    char *xml = malloc(cap);
    assert_non_null(xml);
    len += (size_t)snprintf(xml + len, cap - len, "%s    <tasks>\n", OPEN);
    for (int i = 1; i <= N; i++)
        len += (size_t)snprintf(xml + len, cap - len,
                                "     <task name=\"T%d\" message=\"$(string.task_T%d)\" value=\"%d\">\n>\n"
                                "      <opcodes><opcode name=\"Op\" message=\"$(string.op_T%d)\" value=\"%d\"/></opcodes>\n"
                                "     </task>\n", i, i, i, i, 10 + i % 200);
    len += (size_t)snprintf(xml + len, cap - len, "    </tasks>\n    <events>\n");
    for (int i = 1; i <= N; i++)
        len += (size_t)snprintf(xml + len, cap - len,
                                "     <event value=\"%d\" symbol=\"E%d\" version=\"0\" task=\"T%d\" opcode=\"Op\" "
                                "level=\"win:Informational\" template=\"A%d\"/>\n", i, i, i, i);
    len += (size_t)snprintf(xml + len, cap - len, "    </events>\n    <templates>\n");
    for (int i = 1; i <= N; i++)
        len += (size_t)snprintf(xml + len, cap - len,
                                "     <template tid=\"A%d\"><data name=\"N\" inType=\"win:UInt16\"/>"
                                "<data name=\"S\" inType=\"win:UnicodeString\" length=\"N\"/></template>\n", i);
    len += (size_t)snprintf(xml + len, cap - len, "%s <localization><resources culture=\"en-US\"><stringTable>\n",
                            "    </templates>\n" CLOSE);
    for (int i = 1; i <= N; i++)
        len += (size_t)snprintf(xml + len, cap - len,
                                "  <string id=\"task_T%d\" value=\"Task %d\"/><string id=\"op_T%d\" value=\"Op %d\"/>\n",
                                i, i, i, i);
    len += (size_t)snprintf(xml + len, cap - len, " </stringTable></resources></localization>\n%s", END);
    assert_true(len < cap - 1);

    etl_schema_set set;
    etl_error err;
    clock_t t0 = clock();
    assert_int_equal(parse(xml, &set, &err), ETL_OK);
    double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    assert_int_equal(set.event_count, N);
    const etl_event_info *e = find_event(&set, N, 0);
    assert_non_null(e);
    assert_string_equal(e->task_name, "Task 40000");
    assert_string_equal(e->opcode_name, "Op 40000");
    assert_int_equal(e->descriptor.opcode, 10 + N % 200);
    assert_int_equal(set.unresolved_strings, 0);
    assert_true(seconds < 10.0);   /* ~0.3 s measured unsanitized; generous for ASan and slow machines */
    etl_schema_set_free(&set);
    free(xml);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tdh_in_type_names),
        cmocka_unit_test(test_counted_utf16_string_decodes),
        cmocka_unit_test(test_length_reference_to_sanitized_name),
        cmocka_unit_test(test_bad_event_value_is_reported),
        cmocka_unit_test(test_perfview_dump_shape),
        cmocka_unit_test(test_perfview_flattened_struct_array),
        cmocka_unit_test(test_perfview_dump_opcode_names),
        cmocka_unit_test(test_channel_without_name),
        cmocka_unit_test(test_malformed_dump_first_error_line),
        cmocka_unit_test(test_undefined_template_reference),
        cmocka_unit_test(test_utf16_label_on_utf8_bytes),
        cmocka_unit_test(test_provider_listing_loads),
        cmocka_unit_test(test_large_manifest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
