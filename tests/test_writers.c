/* Writers over synthetic decoded events: layout rules from docs/tracerpt.md (R1-R4, C1, S1) and escaping
 * of hostile text (commas, quotes, newlines, control characters, characters XML forbids, bad UTF-8). XML
 * is parsed back with libxml2, CSV with libcsv, JSON with tests/support/json_parse. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <csv.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "etl/etl_writer.h"
#include "support/json_parse.h"
#include "support/mem_sink.h"

/* Runs one writer over `n` events and returns its whole output (caller frees). */
static char *run_writer(const char *format, const etl_writer_options *opt, const etl_decoded_event *events, size_t n)
{
    mem_sink m = {0};
    etl_sink sink = {mem_sink_write, &m};
    const etl_writer_format *f = etl_writer_format_find(format);
    assert_non_null(f);
    etl_writer *w = etl_writer_new(f, &sink, opt);
    assert_non_null(w);
    assert_int_equal(etl_writer_begin(w), 0);
    for (size_t i = 0; i < n; i++) assert_int_equal(etl_writer_event(w, &events[i]), 0);
    const char *files[] = {"a.etl"};
    etl_run_totals totals = {1, files, 4, 1718, 4, 0, 0, 486, 122.0};
    assert_int_equal(etl_writer_end(w, &totals), 0);
    etl_writer_free(w);
    if (!m.data) m.data = calloc(1, 1);
    return m.data;
}

/* ---- synthetic events -------------------------------------------------------------------------------- */

/* 2014-01-24T12:00:20.6129958Z (R3's timestamp), computed independently with Python's datetime. */
#define R3_FILETIME 130350384206129958LL
/* 2022-08-22T09:26:59.5869895Z: R2's local time 17:26:59.5869895 at +08:00 (R2 prints the buggy +07:59). */
#define R2_FILETIME 133056340195869895LL

static const char hostile[] = "a,b \"q\" <x>&amp;\ttab\nline\r\x01\x1f\xff\xc3\x28 \xe2\x82\xac end";

typedef struct fixture {
    etl_event_record record;
    etl_event_info info;
    etl_field fields[8];
    etl_decoded_event event;
    uint8_t payload[8];
    etl_extended_item ext;
    uint8_t related[16];
} fixture;

static void make_manifest_event(fixture *fx)
{
    memset(fx, 0, sizeof *fx);
    etl_guid_parse("{0745b9d3-bc9a-4c33-953c-77de89336b0d}", &fx->record.header.provider_id);
    fx->record.header.descriptor.id = 30;
    fx->record.header.descriptor.opcode = 1;
    fx->record.header.descriptor.level = 4;
    fx->record.header.descriptor.keyword = 0xF00000000008ULL;
    fx->record.header.timestamp = R3_FILETIME;
    fx->record.raw_timestamp = 987654321;
    fx->record.header.process_id = 21064;
    fx->record.header.thread_id = 11964;
    fx->record.header.user_time = 60;
    fx->record.buffer_context.processor_index = 3;
    for (int i = 0; i < 16; i++) fx->related[i] = (uint8_t)(0x10 + i);
    fx->ext.ext_type = ETL_EXT_RELATED_ACTIVITYID;
    fx->ext.data_size = 16;
    fx->ext.data = fx->related;
    fx->record.extended_data = &fx->ext;
    fx->record.extended_data_count = 1;
    fx->info.source = ETL_SOURCE_USER_MANIFEST;
    fx->info.provider_guid = fx->record.header.provider_id;
    fx->info.provider_name = "ClientEventSource";
    fx->fields[0] = (etl_field){ETL_FIELD_VALUE, "id", "{aeb41e37-cf40-4317-a989-7d5aa6a2dc87}", ETL_IN_GUID, 0, 0, -1, NULL};
    fx->fields[1] = (etl_field){ETL_FIELD_VALUE, "text", hostile, ETL_IN_UNICODESTRING, 0, 0, -1, NULL};
    fx->fields[2] = (etl_field){ETL_FIELD_ARRAY_BEGIN, "list", NULL, 0, 0, 0, -1, NULL};
    fx->fields[3] = (etl_field){ETL_FIELD_VALUE, "list", "1", ETL_IN_UINT32, 0, 1, 0, NULL};
    fx->fields[4] = (etl_field){ETL_FIELD_VALUE, "list", "2", ETL_IN_UINT32, 0, 1, 1, NULL};
    fx->fields[5] = (etl_field){ETL_FIELD_ARRAY_END, "list", NULL, 0, 0, 0, -1, NULL};
    fx->fields[6] = (etl_field){ETL_FIELD_STRUCT_BEGIN, "pt", NULL, 0, 0, 0, -1, NULL};
    fx->fields[7] = (etl_field){ETL_FIELD_STRUCT_END, "pt", NULL, 0, 0, 0, -1, NULL};
    etl_decoded_event *ev = &fx->event;
    ev->record = &fx->record;
    ev->info = &fx->info;
    ev->status = ETL_DECODE_OK;
    ev->source = ETL_SOURCE_USER_MANIFEST;
    ev->provider_name = "ClientEventSource";
    ev->event_name = "Request";
    ev->task_name = "Request";
    ev->opcode_name = "Start";
    ev->level_name = "Information";
    ev->message = "message with \x02 control";
    ev->fields = fx->fields;
    ev->field_count = 8;
}

static void make_undecoded_event(fixture *fx)
{
    memset(fx, 0, sizeof *fx);
    etl_guid_parse("{f10521c0-ffa9-4698-a49e-f00dadc2046e}", &fx->record.header.provider_id);
    fx->record.header.descriptor.id = 19;
    fx->record.header.descriptor.level = 5;
    fx->record.header.timestamp = R2_FILETIME;
    fx->record.header.process_id = 3032;
    fx->record.header.thread_id = 2732;
    fx->record.buffer_context.processor_index = 11;
    static const uint8_t bytes[] = {0x20, 0x20, 0xAB, 0x0A};
    memcpy(fx->payload, bytes, sizeof bytes);
    fx->record.user_data = fx->payload;
    fx->record.user_data_length = sizeof bytes;
    fx->event.record = &fx->record;
    fx->event.status = ETL_DECODE_NO_SCHEMA;
    fx->event.provider_name = "{f10521c0-ffa9-4698-a49e-f00dadc2046e}";
    fx->event.event_name = "EventID(19)";
}

/* Kernel Process/Start as in R4: classic header, class GUID 3d6fa8d0-... */
static void make_classic_event(fixture *fx)
{
    memset(fx, 0, sizeof *fx);
    etl_guid_parse("{3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}", &fx->record.header.provider_id);
    fx->record.header.flags = ETL_EVENT_FLAG_CLASSIC_HEADER;
    fx->record.header.descriptor.opcode = 1;
    fx->record.header.descriptor.version = 3;
    fx->record.header.timestamp = R3_FILETIME;
    fx->info.source = ETL_SOURCE_KERNEL_MOF;
    etl_guid_parse("{9e814aad-3204-11d2-9a82-006008a86939}", &fx->info.provider_guid);
    fx->info.event_guid = fx->record.header.provider_id;
    fx->info.provider_name = "MSNT_SystemTrace";
    fx->fields[0] = (etl_field){ETL_FIELD_VALUE, "UniqueProcessKey", "0xFFFFFA800143FA80", ETL_IN_POINTER, 0, 0, -1, NULL};
    fx->fields[1] = (etl_field){ETL_FIELD_VALUE, "ProcessId", "0x10EC", ETL_IN_UINT32, 0, 0, -1, NULL};
    etl_decoded_event *ev = &fx->event;
    ev->record = &fx->record;
    ev->info = &fx->info;
    ev->source = ETL_SOURCE_KERNEL_MOF;
    ev->provider_name = "MSNT_SystemTrace";
    ev->event_name = "Process/Start";
    ev->task_name = "Process";
    ev->opcode_name = "Start";
    ev->fields = fx->fields;
    ev->field_count = 2;
}

/* ---- XML --------------------------------------------------------------------------------------------- */

static xmlDocPtr parse_xml(const char *text)
{
    xmlDocPtr doc = xmlReadMemory(text, (int)strlen(text), "out.xml", NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    return doc;
}

static xmlNodePtr child_element(xmlNodePtr n, int index)
{
    for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && index-- == 0) return c;
    return NULL;
}

static void assert_names(xmlNodePtr parent, const char *const *names, size_t count)
{
    size_t i = 0;
    for (xmlNodePtr c = parent->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        assert_true(i < count);
        assert_string_equal((const char *)c->name, names[i]);
        i++;
    }
    assert_int_equal(i, count);
}

static void test_xml_manifest_event(void **state)
{
    (void)state;
    fixture fx;
    make_manifest_event(&fx);
    etl_writer_options opt = {0};
    char *out = run_writer("XML", &opt, &fx.event, 1);
    static const char start[] = "<Events>\n<Event xmlns=\"http://schemas.microsoft.com/win/2004/08/events/event\">\n";
    assert_true(strncmp(out, start, strlen(start)) == 0);
    /* R3's attribute forms, verbatim */
    assert_non_null(strstr(out, "<Provider Name=\"ClientEventSource\" Guid=\"{0745b9d3-bc9a-4c33-953c-77de89336b0d}\" />"));
    assert_non_null(strstr(out, "<Keywords>0xF00000000008</Keywords>"));
    assert_non_null(strstr(out, "<TimeCreated SystemTime=\"2014-01-24T12:00:20.612995800Z\" />"));
    assert_non_null(strstr(out, "<Data Name=\"id\">{aeb41e37-cf40-4317-a989-7d5aa6a2dc87}</Data>"));
    assert_non_null(strstr(out, "KernelTime=\"0\" UserTime=\"60\""));
    assert_non_null(strstr(out, "<Channel />"));
    assert_non_null(strstr(out, "<Computer />"));
    assert_non_null(strstr(out, "RelatedActivityID=\"{13121110-1514-1716-1819-1a1b1c1d1e1f}\""));

    xmlDocPtr doc = parse_xml(out);
    xmlNodePtr event = child_element(xmlDocGetRootElement(doc), 0);
    static const char *const top[] = {"System", "EventData", "RenderingInfo"};
    assert_names(event, top, 3);
    static const char *const system[] = {"Provider", "EventID", "Version", "Level", "Task", "Opcode", "Keywords",
                                         "TimeCreated", "Correlation", "Execution", "Channel", "Computer"};
    assert_names(child_element(event, 0), system, 12);
    static const char *const rendering[] = {"Level", "Opcode", "Task", "Message", "Provider"};
    assert_names(child_element(event, 2), rendering, 5);
    /* the hostile value parses back with forbidden characters replaced by U+FFFD, the rest intact */
    xmlNodePtr text = child_element(child_element(event, 1), 1);
    xmlChar *content = xmlNodeGetContent(text);
    assert_string_equal((const char *)content,
                        "a,b \"q\" <x>&amp;\ttab\nline\r\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd( \xe2\x82\xac end");
    xmlFree(content);
    /* array elements repeat their name; the struct becomes ComplexData */
    assert_string_equal((const char *)child_element(child_element(event, 1), 3)->name, "Data");
    assert_string_equal((const char *)child_element(child_element(event, 1), 4)->name, "ComplexData");
    xmlFreeDoc(doc);
    free(out);
}

/* Security UserID from the SID extended item: the well-known LocalSystem SID S-1-5-18 (bytes per MS-DTYP
 * 2.4.2.2: revision 1, one sub-authority, authority 5, sub-authority 18). */
static void test_xml_security_sid(void **state)
{
    (void)state;
    fixture fx;
    make_manifest_event(&fx);
    static const uint8_t local_system[] = {1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0};
    etl_extended_item items[2] = {fx.ext, {ETL_EXT_SID, sizeof local_system, local_system}};
    fx.record.extended_data = items;
    fx.record.extended_data_count = 2;
    etl_writer_options opt = {0};
    char *out = run_writer("xml", &opt, &fx.event, 1);
    assert_non_null(strstr(out, "\t\t<Computer />\n\t\t<Security UserID=\"S-1-5-18\" />\n\t</System>"));
    xmlFreeDoc(parse_xml(out));
    free(out);
    /* MS-DTYP 2.4.2.1: an identifier authority of 2^32 or more is written as 0x and 12 hex digits */
    static const uint8_t wide_authority[] = {1, 1, 0x01, 0, 0, 0, 0, 0, 7, 0, 0, 0};
    items[1].data = wide_authority;
    out = run_writer("xml", &opt, &fx.event, 1);
    assert_non_null(strstr(out, "<Security UserID=\"S-1-0x010000000000-7\" />"));
    free(out);
    items[1].data = local_system;
    items[1].data_size = 11;  /* cut short: no Security element rather than an over-read */
    out = run_writer("xml", &opt, &fx.event, 1);
    assert_null(strstr(out, "<Security"));
    free(out);
}

static void test_xml_local_time_and_raw(void **state)
{
    (void)state;
    fixture fx;
    make_undecoded_event(&fx);
    setenv("TZ", "CST-8", 1);
    tzset();
    etl_writer_options opt = {0};
    opt.local_time = 1;
    char *out = run_writer("xml", &opt, &fx.event, 1);
    assert_non_null(strstr(out, "SystemTime=\"2022-08-22T17:26:59.586989500+08:00\""));
    free(out);
    setenv("TZ", "PDT+7", 1);
    tzset();
    out = run_writer("xml", &opt, &fx.event, 1);
    assert_non_null(strstr(out, "SystemTime=\"2022-08-22T02:26:59.586989500-07:00\""));
    free(out);
    unsetenv("TZ");
    tzset();
    opt.local_time = 0;
    opt.raw_timestamps = 1;
    fx.record.raw_timestamp = 123456789;
    out = run_writer("xml", &opt, &fx.event, 1);
    assert_non_null(strstr(out, "<TimeCreated RawTime=\"123456789\" />"));
    free(out);
}

/* One writer, events on different days and a local offset that moves the date: the per-day date cache
 * must follow. Expected texts from Python's datetime (see R2_FILETIME/R3_FILETIME). */
static void test_times_across_days(void **state)
{
    (void)state;
    fixture a, b;
    make_undecoded_event(&a);
    make_undecoded_event(&b);
    b.record.header.timestamp = R3_FILETIME;
    etl_decoded_event events[3] = {a.event, b.event, a.event};
    etl_writer_options opt = {0};
    opt.table_columns = ETL_TABLE_TIME;
    char *out = run_writer("table", &opt, events, 3);
    assert_string_equal(out, "2022-08-22T09:26:59.5869895Z\tEventID(19)\t0x2020AB0A\n"
                             "2014-01-24T12:00:20.6129958Z\tEventID(19)\t0x2020AB0A\n"
                             "2022-08-22T09:26:59.5869895Z\tEventID(19)\t0x2020AB0A\n");
    free(out);
    setenv("TZ", "XST-14", 1);
    tzset();
    opt.local_time = 1;
    out = run_writer("table", &opt, events, 3);
    assert_string_equal(out, "2022-08-22T23:26:59.5869895+14:00\tEventID(19)\t0x2020AB0A\n"
                             "2014-01-25T02:00:20.6129958+14:00\tEventID(19)\t0x2020AB0A\n"
                             "2022-08-22T23:26:59.5869895+14:00\tEventID(19)\t0x2020AB0A\n");
    free(out);
    unsetenv("TZ");
    tzset();
}

static void test_xml_payload_forms(void **state)
{
    (void)state;
    fixture fx;
    etl_writer_options opt = {0};
    make_undecoded_event(&fx);
    char *out = run_writer("xml", &opt, &fx.event, 1);
    /* R2: no Name when the provider is unknown; payload as upper-case hex */
    assert_non_null(strstr(out, "<Provider Guid=\"{f10521c0-ffa9-4698-a49e-f00dadc2046e}\" />"));
    assert_non_null(strstr(out, "<BinaryEventData>2020AB0A</BinaryEventData>"));
    assert_null(strstr(out, "RenderingInfo"));
    xmlFreeDoc(parse_xml(out));
    free(out);

    make_manifest_event(&fx);
    fx.event.status = ETL_DECODE_ERROR;
    fx.event.field_count = 1;
    static const uint8_t rest[] = {0xDE, 0xAD};
    static const uint8_t all[] = {1, 2, 0xDE, 0xAD};
    fx.record.user_data = all;
    fx.record.user_data_length = sizeof all;
    fx.event.undecoded = rest;
    fx.event.undecoded_length = sizeof rest;
    out = run_writer("xml", &opt, &fx.event, 1);
    assert_non_null(strstr(out, "<ProcessingErrorData>\n\t\t<ErrorCode>15005</ErrorCode>\n\t\t<DataItemName />\n"
                                "\t\t<EventPayload>0102DEAD</EventPayload>\n\t</ProcessingErrorData>"));
    xmlFreeDoc(parse_xml(out));
    free(out);
    opt.best_effort = 1;
    out = run_writer("xml", &opt, &fx.event, 1);
    assert_non_null(strstr(out, "<Data Name=\"win:ExtraPayload\" Type=\"win:ErrorMoreData\">0xDEAD</Data>"));
    assert_null(strstr(out, "ProcessingErrorData"));
    xmlFreeDoc(parse_xml(out));
    free(out);

    /* R2: a WPP message without its TMF */
    opt.best_effort = 0;
    make_undecoded_event(&fx);
    fx.record.kind = ETL_KIND_MESSAGE;
    fx.record.header.descriptor.id = 10;
    etl_guid_parse("{400c1ae9-0bd1-369b-1fa7-27d9adbc8749}", &fx.record.header.provider_id);
    out = run_writer("xml", &opt, &fx.event, 1);
    assert_non_null(strstr(out, "\t<DebugData>\n\t\t<SequenceNumber>0</SequenceNumber>\n"));
    assert_non_null(strstr(out, "<Message>Unknown( 10): GUID=400c1ae9-0bd1-369b-1fa7-27d9adbc8749 (No Format "
                                "Information found).</Message>"));
    assert_null(strstr(out, "BinaryEventData"));
    xmlFreeDoc(parse_xml(out));
    free(out);

    make_manifest_event(&fx);
    fx.event.string_only = 1;
    fx.fields[0].value = "plain string";
    out = run_writer("xml", &opt, &fx.event, 1);
    assert_non_null(strstr(out, "</System>\n\t<Data>plain string</Data>\n\t<RenderingInfo"));
    free(out);
}

static void test_xml_classic_event(void **state)
{
    (void)state;
    fixture fx;
    make_classic_event(&fx);
    etl_writer_options opt = {0};
    char *out = run_writer("xml", &opt, &fx.event, 1);
    /* R4 */
    assert_non_null(strstr(out, "<Data Name=\"ProcessId\">0x10EC</Data>"));
    assert_non_null(strstr(out, "<Opcode>Start</Opcode>"));
    assert_non_null(strstr(out, "<Provider>MSNT_SystemTrace</Provider>"));
    assert_non_null(strstr(out, "<EventName xmlns=\"http://schemas.microsoft.com/win/2004/08/events/trace\">Process</EventName>"));
    assert_non_null(strstr(out, "<ExtendedTracingInfo xmlns=\"http://schemas.microsoft.com/win/2004/08/events/trace\">\n"
                                "\t\t<EventGuid>{3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}</EventGuid>"));
    /* Provider Guid is the record's (for classic events the class GUID), as tracerpt prints the header */
    assert_non_null(strstr(out, "<Provider Name=\"MSNT_SystemTrace\" Guid=\"{3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}\" />"));
    xmlDocPtr doc = parse_xml(out);
    static const char *const top[] = {"System", "EventData", "RenderingInfo", "ExtendedTracingInfo"};
    assert_names(child_element(xmlDocGetRootElement(doc), 0), top, 4);
    xmlFreeDoc(doc);
    free(out);
}

static void test_writer_reports_sink_failure(void **state)
{
    (void)state;
    fixture fx;
    make_manifest_event(&fx);
    for (size_t i = 0; i < etl_writer_format_count(); i++) {
        const etl_writer_format *f = etl_writer_format_at(i);
        mem_sink m = {0};
        m.fail_after = 1;
        etl_sink sink = {mem_sink_write, &m};
        etl_writer *w = etl_writer_new(f, &sink, NULL);
        assert_non_null(w);
        int rc = etl_writer_begin(w);
        for (int k = 0; k < 3; k++) rc |= etl_writer_event(w, &fx.event);
        rc |= etl_writer_end(w, NULL);
        assert_int_not_equal(rc, 0);
        etl_writer_free(w);
        free(m.data);
    }
}

/* ---- CSV --------------------------------------------------------------------------------------------- */

typedef struct csv_rows {
    char cells[4][40][256];
    int count[4];
    int row;
} csv_rows;

static void on_cell(void *s, size_t len, void *ctx)
{
    csv_rows *r = ctx;
    if (r->row >= 4 || r->count[r->row] >= 40) return;
    if (len > 255) len = 255;
    memcpy(r->cells[r->row][r->count[r->row]], s, len);
    r->cells[r->row][r->count[r->row]++][len] = '\0';
}

static void on_row(int c, void *ctx)
{
    (void)c;
    ((csv_rows *)ctx)->row++;
}

static void parse_csv(const char *text, csv_rows *rows)
{
    struct csv_parser p;
    memset(rows, 0, sizeof *rows);
    assert_int_equal(csv_init(&p, CSV_STRICT | CSV_STRICT_FINI), 0);
    assert_int_equal(csv_parse(&p, text, strlen(text), on_cell, on_row, rows), strlen(text));
    assert_int_equal(csv_fini(&p, on_cell, on_row, rows), 0);
    csv_free(&p);
}

static void test_csv_rfc4180(void **state)
{
    (void)state;
    fixture fx[2];
    make_manifest_event(&fx[0]);
    make_undecoded_event(&fx[1]);
    etl_decoded_event events[2] = {fx[0].event, fx[1].event};
    etl_writer_options opt = {0};
    char *out = run_writer("csv", &opt, events, 2);
    /* C1: tracerpt's header, same names and order */
    assert_true(strncmp(out, "Event Name,Type,Event ID,Version,Channel,Level,Opcode,Task,Keyword,PID,TID,"
                             "Processor Number,Instance ID,Parent Instance ID,Activity ID,Related Activity ID,"
                             "Clock-Time,Kernel(ms),User(ms),User Data\n", 187) == 0);
    csv_rows rows;
    parse_csv(out, &rows);
    assert_int_equal(rows.row, 3);
    assert_int_equal(rows.count[0], 20);
    assert_string_equal(rows.cells[1][0], "Request");
    assert_string_equal(rows.cells[1][1], "Start");
    assert_string_equal(rows.cells[1][8], "0xF00000000008");
    assert_string_equal(rows.cells[1][9], "0x5248");   /* PID 21064 */
    assert_string_equal(rows.cells[1][10], "0x2EBC");  /* TID 11964 */
    assert_string_equal(rows.cells[1][16], "130350384206129958");
    assert_string_equal(rows.cells[1][19], "{aeb41e37-cf40-4317-a989-7d5aa6a2dc87}");
    /* quoting round-trips every byte but malformed UTF-8, which becomes U+FFFD */
    assert_string_equal(rows.cells[1][20], "a,b \"q\" <x>&amp;\ttab\nline\r\x01\x1f\xef\xbf\xbd\xef\xbf\xbd( \xe2\x82\xac end");
    assert_string_equal(rows.cells[1][21], "1");
    assert_string_equal(rows.cells[1][22], "2");
    assert_int_equal(rows.count[1], 23);
    assert_string_equal(rows.cells[2][0], "{f10521c0-ffa9-4698-a49e-f00dadc2046e}");
    assert_string_equal(rows.cells[2][19], "0x2020AB0A");
    free(out);
}

static void test_csv_compat(void **state)
{
    (void)state;
    fixture fx;
    make_classic_event(&fx);
    fx.event.task_name = "PageFault";
    fx.event.opcode_name = "VirtualAlloc";
    etl_writer_options opt = {0};
    opt.csv_compat = 1;
    char *out = run_writer("csv", &opt, &fx.event, 1);
    /* C1 verbatim, then a row shaped like the real ones in docs/tracerpt.md §1.4 */
    assert_true(strncmp(out, "Event Name, Type, Event ID, Version, Channel, Level, Opcode, Task, Keyword, PID, TID, "
                             "Processor Number, Instance ID, Parent Instance ID, Activity ID, Related Activity ID, "
                             "Clock-Time, Kernel(ms), User(ms), User Data\n", 206) == 0);
    assert_non_null(strstr(out, "\n            PageFault,     VirtualAlloc, 0, 3, "));
    assert_non_null(strstr(out, ", 0xFFFFFA800143FA80, 0x10EC\n"));
    free(out);
}

/* ---- table ------------------------------------------------------------------------------------------- */

static void test_table(void **state)
{
    (void)state;
    fixture fx;
    make_manifest_event(&fx);
    etl_writer_options opt = {0};
    char *out = run_writer("table", &opt, &fx.event, 1);
    assert_string_equal(out, "Request\t{aeb41e37-cf40-4317-a989-7d5aa6a2dc87}\t"
                             "a,b \"q\" <x>&amp;\\ttab\\nline\\r\\x01\\x1F\xef\xbf\xbd\xef\xbf\xbd( \xe2\x82\xac end"
                             "\t1\t2\n");
    free(out);
    opt.table_columns = ETL_TABLE_DEFAULT | ETL_TABLE_CPU;
    fx.fields[1].value = "back\\slash";
    out = run_writer("TXT", &opt, &fx.event, 1);
    assert_string_equal(out, "2014-01-24T12:00:20.6129958Z\t21064\t11964\t3\tClientEventSource\tRequest\t"
                             "{aeb41e37-cf40-4317-a989-7d5aa6a2dc87}\tback\\\\slash\t1\t2\n");
    free(out);
}

/* ---- JSON Lines -------------------------------------------------------------------------------------- */

typedef struct leaves {
    char paths[40][64];
    char values[40][128];
    int n;
} leaves;

static void on_leaf(const char *path, const char *value, int is_string, void *ctx)
{
    (void)is_string;
    leaves *l = ctx;
    if (l->n >= 40) return;
    snprintf(l->paths[l->n], sizeof l->paths[0], "%s", path);
    snprintf(l->values[l->n], sizeof l->values[0], "%s", value);
    l->n++;
}

static const char *leaf(const leaves *l, const char *path)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->paths[i], path) == 0) return l->values[i];
    return NULL;
}

static void test_jsonl(void **state)
{
    (void)state;
    fixture fx[2];
    make_manifest_event(&fx[0]);
    make_undecoded_event(&fx[1]);
    fx[0].fields[7] = fx[0].fields[6];  /* a struct holding one member */
    fx[0].fields[7] = (etl_field){ETL_FIELD_VALUE, "x", "7", ETL_IN_UINT8, 0, 1, -1, NULL};
    etl_field more[9];
    memcpy(more, fx[0].fields, sizeof fx[0].fields);
    more[8] = (etl_field){ETL_FIELD_STRUCT_END, "pt", NULL, 0, 0, 0, -1, NULL};
    fx[0].event.fields = more;
    fx[0].event.field_count = 9;
    etl_decoded_event events[2] = {fx[0].event, fx[1].event};
    etl_writer_options opt = {0};
    char *out = run_writer("json", &opt, events, 2);
    char *nl = strchr(out, '\n');
    assert_non_null(nl);
    leaves l = {0};
    assert_int_equal(json_parse(out, (size_t)(nl - out), on_leaf, &l), 0);
    assert_string_equal(leaf(&l, "time"), "2014-01-24T12:00:20.6129958Z");
    assert_string_equal(leaf(&l, "timestamp"), "987654321");
    assert_string_equal(leaf(&l, "provider"), "ClientEventSource");
    assert_string_equal(leaf(&l, "provider_guid"), "{0745b9d3-bc9a-4c33-953c-77de89336b0d}");
    assert_string_equal(leaf(&l, "keywords"), "263882790666248");  /* 0xF00000000008 as a JSON number */
    assert_string_equal(leaf(&l, "pid"), "21064");
    assert_string_equal(leaf(&l, "cpu"), "3");
    assert_string_equal(leaf(&l, "process"), "null");
    assert_string_equal(leaf(&l, "source"), "manifest");
    assert_string_equal(leaf(&l, "fields.list[1]"), "2");
    assert_string_equal(leaf(&l, "fields.pt.x"), "7");
    assert_string_equal(leaf(&l, "fields.text"),
                        "a,b \"q\" <x>&amp;\ttab\nline\r\x01\x1f\xef\xbf\xbd\xef\xbf\xbd( \xe2\x82\xac end");
    memset(&l, 0, sizeof l);
    char *second = nl + 1;
    char *nl2 = strchr(second, '\n');
    assert_non_null(nl2);
    assert_string_equal(nl2 + 1, "");
    assert_int_equal(json_parse(second, (size_t)(nl2 - second), on_leaf, &l), 0);
    assert_string_equal(leaf(&l, "payload"), "2020AB0A");
    assert_string_equal(leaf(&l, "status"), "no_schema");
    free(out);

    /* unbalanced markers still give valid JSON */
    fx[0].event.fields = fx[0].fields;
    fx[0].event.field_count = 3;  /* ARRAY_BEGIN never closed */
    out = run_writer("jsonl", &opt, &fx[0].event, 1);
    assert_int_equal(json_parse(out, strlen(out), NULL, NULL), 0);
    free(out);
}

/* Hostile nesting: 100 structs deep, closed in the wrong order, still gives valid JSON and well-formed XML. */
static void test_deep_and_unbalanced_nesting(void **state)
{
    (void)state;
    fixture fx;
    make_manifest_event(&fx);
    enum { DEPTH = 100 };
    static etl_field fields[2 * DEPTH + 3];
    size_t n = 0;
    for (int i = 0; i < DEPTH; i++) fields[n++] = (etl_field){ETL_FIELD_STRUCT_BEGIN, "s", NULL, 0, 0, (uint16_t)i, -1, NULL};
    fields[n++] = (etl_field){ETL_FIELD_VALUE, "v", "x\x01y", ETL_IN_ANSISTRING, 0, DEPTH, -1, NULL};
    fields[n++] = (etl_field){ETL_FIELD_ARRAY_END, "a", NULL, 0, 0, 0, -1, NULL};  /* never opened */
    for (int i = 0; i < DEPTH / 2; i++) fields[n++] = (etl_field){ETL_FIELD_STRUCT_END, "s", NULL, 0, 0, 0, -1, NULL};
    fx.event.fields = fields;
    fx.event.field_count = n;
    etl_writer_options opt = {0};
    char *out = run_writer("jsonl", &opt, &fx.event, 1);
    assert_int_equal(json_parse(out, strlen(out), NULL, NULL), 0);
    free(out);
    out = run_writer("xml", &opt, &fx.event, 1);
    xmlFreeDoc(parse_xml(out));
    free(out);
}

static void test_csv_compat_keeps_one_line(void **state)
{
    (void)state;
    fixture fx;
    make_manifest_event(&fx);
    etl_writer_options opt = {0};
    opt.csv_compat = 1;
    char *out = run_writer("csv", &opt, &fx.event, 1);
    int lines = 0;
    for (char *p = out; *p; p++) lines += *p == '\n';
    assert_int_equal(lines, 2);  /* header + one row: CR/LF inside values became spaces */
    assert_non_null(strstr(out, ", a,b \"q\" <x>&amp;\ttab line \x01"));
    free(out);
}

/* ---- summary ----------------------------------------------------------------------------------------- */

static void test_summary(void **state)
{
    (void)state;
    fixture fx[2];
    make_classic_event(&fx[0]);
    make_undecoded_event(&fx[1]);
    etl_decoded_event events[3] = {fx[0].event, fx[1].event, fx[0].event};
    char *out = run_writer("summary", NULL, events, 3);
    /* S1's layout and double spaces */
    assert_non_null(strstr(out, "Files Processed:\n\ta.etl\nTotal Buffers Processed 4\nTotal Events  Processed 1718\n"
                                "Total Events  Lost      4\n"));
    assert_non_null(strstr(out, "Total Formats Unknown   486\nElapsed Time            122 sec\n"));
    assert_non_null(strstr(out, "+---------------------------------------------------------------------------------+\n"
                                "|EventCount    EventName    EventType         Guid                                |\n"));
    assert_non_null(strstr(out, "|         2    Process      Start             3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c|\n"));
    assert_non_null(strstr(out, "|         1    Unknown                        f10521c0-ffa9-4698-a49e-f00dadc2046e|\n"));
    free(out);

    /* TraceLogging events of one provider all have id/task/opcode 0: one row per event name */
    fixture tl[3];
    for (int i = 0; i < 3; i++) {
        make_manifest_event(&tl[i]);
        tl[i].record.header.descriptor = (etl_event_descriptor){0};
        tl[i].event.source = ETL_SOURCE_TRACELOGGING;
        tl[i].event.task_name = NULL;
        tl[i].event.opcode_name = NULL;
        tl[i].info.event_name = i == 1 ? "AmsiScript" : "AmsiFile";
    }
    etl_decoded_event tl_events[3] = {tl[0].event, tl[1].event, tl[2].event};
    out = run_writer("summary", NULL, tl_events, 3);
    assert_non_null(strstr(out, "|         2    AmsiFile                       0745b9d3-bc9a-4c33-953c-77de89336b0d|\n"));
    assert_non_null(strstr(out, "|         1    AmsiScript                     0745b9d3-bc9a-4c33-953c-77de89336b0d|\n"));
    free(out);
}

static void test_registry(void **state)
{
    (void)state;
    static const char *const names[] = {"xml", "csv", "table", "jsonl", "summary"};
    assert_true(etl_writer_format_count() >= 6);  /* the tracerpt writers first; each issue appends its own */
    for (size_t i = 0; i < 5; i++) assert_string_equal(etl_writer_format_at(i)->name, names[i]);
    assert_ptr_equal(etl_writer_format_find("JSON"), etl_writer_format_find("jsonl"));
    assert_non_null(etl_writer_format_find("EVTX"));
    assert_string_equal(etl_writer_format_find("evtx")->extension, ".evtx");
    assert_null(etl_writer_format_find("bogus"));
    assert_non_null(etl_writer_format_find("baseline"));
    assert_null(etl_writer_format_at(etl_writer_format_count()));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xml_manifest_event),
        cmocka_unit_test(test_xml_security_sid),
        cmocka_unit_test(test_xml_local_time_and_raw),
        cmocka_unit_test(test_times_across_days),
        cmocka_unit_test(test_xml_payload_forms),
        cmocka_unit_test(test_xml_classic_event),
        cmocka_unit_test(test_writer_reports_sink_failure),
        cmocka_unit_test(test_csv_rfc4180),
        cmocka_unit_test(test_csv_compat),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_jsonl),
        cmocka_unit_test(test_deep_and_unbalanced_nesting),
        cmocka_unit_test(test_csv_compat_keeps_one_line),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
