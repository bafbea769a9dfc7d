/* WEPExplorer provider dumps (<Providers><Provider><Metadata>... <EventMetadata><Event>...), loaded as
 * manifests. Every document here is synthetic: it reproduces the structure of the dumps published by
 * nasbench/EVTX-ETW-Resources (metadata lists of Name/Value/Message, events naming their level, task, opcode
 * and channel by display string, a manifest <template> inside CDATA), not their content. Expected values are
 * the ones written in these documents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "etl/etl_schema.h"
#include "schema/manifest_model.h"
#include "support/synthetic_record.h"

#define GUID_TEXT "{3A4B5C6D-7E8F-4A0B-9C1D-2E3F4A5B6C7D}"
#define TEMPLATE_NS "<template xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\n"

static int parse(const char *xml, etl_schema_set *set, etl_error *err)
{
    etl_schema_set_init(set);
    memset(err, 0, sizeof *err);
    return etl_manifest_parse(set, xml, strlen(xml), "dump.xml", err);
}

static const etl_event_info *find_event(const etl_schema_set *set, uint16_t id, uint8_t version)
{
    for (size_t i = 0; i < set->event_count; i++)
        if (set->events[i].descriptor.id == id && set->events[i].descriptor.version == version) return &set->events[i];
    return NULL;
}

/* ---- names and values ------------------------------------------------------------------------------- */

static const char names_doc[] =
    "<Providers>\n"
    "    <Provider>\n"
    "        <Name>Syn-Wep-Names</Name>\n"
    "        <Metadata>\n"
    "            <Guid>" GUID_TEXT "</Guid>\n"
    "            <PublisherMessage>Synthetic WEP provider</PublisherMessage>\n"
    "            <Channels>\n"
    "                <Channel><Message>Syn Names/Operational</Message><Path>Syn-Wep-Names/Operational</Path>"
    "<Index>0</Index><Id>16</Id><Imported>false</Imported></Channel>\n"
    "                <Channel><Message></Message><Path>Syn-Wep-Names/Debug</Path>"
    "<Index>1</Index><Id>17</Id><Imported>false</Imported></Channel>\n"
    "                <Channel><Message>System</Message><Path>System</Path>"
    "<Index>2</Index><Id>8</Id><Imported>true</Imported></Channel>\n"
    "            </Channels>\n"
    "            <Levels>\n"
    "                <Level><Message>Warning</Message><Name>win:Warning</Name><Value>3</Value></Level>\n"
    "                <Level><Message>Chatty</Message><Name>syn:Chatty</Name><Value>17</Value></Level>\n"
    "            </Levels>\n"
    "            <Tasks>\n"
    "                <Task><Message>Connect Task</Message><Name>SynConnect</Name><Value>300</Value></Task>\n"
    "                <Task><Message></Message><Name>SynTransfer</Name><Value>301</Value></Task>\n"
    "            </Tasks>\n"
    "            <Opcodes>\n"
    "                <Opcode><Message>Begin</Message><Name>syn:BeginConnect</Name><Value>20</Value><Task>300</Task></Opcode>\n"
    "                <Opcode><Message>Begin</Message><Name>syn:BeginTransfer</Name><Value>21</Value><Task>301</Task></Opcode>\n"
    "                <Opcode><Message>Retry</Message><Name>syn:Retry</Name><Value>30</Value><Task>0</Task></Opcode>\n"
    "            </Opcodes>\n"
    "            <Keywords>\n"
    "                <Keyword><Message>Network Keyword</Message><Name>syn:Net</Name><Value>16</Value></Keyword>\n"
    "                <Keyword><Message></Message><Name>syn:Disk</Name><Value>4294967296</Value></Keyword>\n"
    "            </Keywords>\n"
    "        </Metadata>\n"
    "        <EventMetadata>\n"
    "            <Event>\n"
    "                <Id>5</Id>\n"
    "                <Version>2</Version>\n"
    "                <Channel>Syn Names/Operational</Channel>\n"
    "                <Level>Warning</Level>\n"
    "                <Task>Connect Task</Task>\n"
    "                <Opcode>Begin</Opcode>\n"
    "                <Keyword>syn:Net syn:Disk</Keyword>\n"
    "                <Message><![CDATA[\nConnecting.]]></Message>\n"
    "                <Template><![CDATA[\n]]></Template>\n"
    "            </Event>\n"
    "            <Event>\n"
    "                <Id>6</Id>\n"
    "                <Version>0</Version>\n"
    "                <Channel>Syn-Wep-Names/Debug</Channel>\n"
    "                <Level>Chatty</Level>\n"
    "                <Task>SynTransfer</Task>\n"
    "                <Opcode>Begin</Opcode>\n"
    "                <Keyword>syn:Disk</Keyword>\n"
    "            </Event>\n"
    "            <Event>\n"
    "                <Id>7</Id>\n"
    "                <Version>0</Version>\n"
    "                <Channel>System</Channel>\n"
    "                <Level>Information</Level>\n"
    "                <Task>SynTransfer</Task>\n"
    "                <Opcode>Retry</Opcode>\n"
    "            </Event>\n"
    "            <Event>\n"
    "                <Id>8</Id>\n"
    "                <Version>0</Version>\n"
    "                <Opcode>Stop</Opcode>\n"
    "            </Event>\n"
    "        </EventMetadata>\n"
    "    </Provider>\n"
    "</Providers>\n";

static void test_names_and_values(void **state)
{
    (void)state;
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(names_doc, &set, &err), ETL_OK);
    assert_int_equal(set.provider_count, 1);
    assert_string_equal(set.providers[0].name, "Syn-Wep-Names");
    assert_string_equal(set.providers[0].message, "Synthetic WEP provider");
    etl_guid guid;
    assert_int_equal(etl_guid_parse(GUID_TEXT, &guid), 0);
    assert_memory_equal(&set.providers[0].guid, &guid, sizeof guid);
    assert_int_equal(set.event_count, 4);

    const etl_event_info *e = find_event(&set, 5, 2);
    assert_non_null(e);
    assert_memory_equal(&e->provider_guid, &guid, sizeof guid);
    assert_int_equal(e->descriptor.level, 3);
    assert_int_equal(e->descriptor.task, 300);
    assert_int_equal(e->descriptor.opcode, 20);   /* "Begin" of task 300, not of task 301 */
    assert_int_equal(e->descriptor.channel, 16);
    /* keywords 0x10 | 0x100000000, plus bit 63 for the provider's first channel (mc's channel bits) */
    assert_true(e->descriptor.keyword == (0x10ull | 0x100000000ull | (1ull << 63)));
    assert_string_equal(e->level_name, "Warning");
    assert_string_equal(e->task_name, "Connect Task");
    assert_string_equal(e->opcode_name, "Begin");
    assert_string_equal(e->channel_name, "Syn Names/Operational");
    assert_int_equal(e->keyword_name_count, 2);
    assert_string_equal(e->keyword_names[0], "Network Keyword");
    assert_string_equal(e->keyword_names[1], "syn:Disk");   /* no message: the name */
    assert_string_equal(e->message, "Connecting.");      /* WEPExplorer's layout line break dropped */
    assert_int_equal(e->property_count, 0);               /* empty template: no payload */

    e = find_event(&set, 6, 0);
    assert_non_null(e);
    assert_int_equal(e->descriptor.level, 17);
    assert_int_equal(e->descriptor.task, 301);
    assert_int_equal(e->descriptor.opcode, 21);   /* "Begin" of task 301 */
    assert_int_equal(e->descriptor.channel, 17);
    assert_true(e->descriptor.keyword == (0x100000000ull | (1ull << 62)));
    assert_string_equal(e->task_name, "SynTransfer");   /* the task has no message: its name */
    assert_string_equal(e->channel_name, "Syn-Wep-Names/Debug");
    assert_null(e->message);

    e = find_event(&set, 7, 0);
    assert_non_null(e);
    assert_int_equal(e->descriptor.level, 4);      /* "Information": winmeta's win:Informational */
    assert_int_equal(e->descriptor.opcode, 30);    /* a provider-wide opcode inside a task */
    assert_int_equal(e->descriptor.channel, 8);    /* the imported System channel */
    assert_true(e->descriptor.keyword == (1ull << 61));
    assert_string_equal(e->channel_name, "System");

    e = find_event(&set, 8, 0);
    assert_non_null(e);
    assert_int_equal(e->descriptor.level, 0);      /* no <Level>: 0, unnamed */
    assert_null(e->level_name);
    assert_int_equal(e->descriptor.opcode, 2);     /* "Stop": winmeta's win:Stop */
    assert_int_equal(e->descriptor.channel, 0);
    assert_true(e->descriptor.keyword == 0);
    etl_schema_set_free(&set);
}

/* ---- templates in CDATA ---------------------------------------------------------------------------- */

#define ONE_EVENT_DOC(event_body)                                                                         \
    "<Providers>\n <Provider>\n  <Name>Syn-Wep-One</Name>\n  <Metadata>\n   <Guid>" GUID_TEXT "</Guid>\n" \
    "   <Levels><Level><Message>Error</Message><Name>win:Error</Name><Value>2</Value></Level></Levels>\n"     \
    "  </Metadata>\n  <EventMetadata>\n   <Event>\n" event_body "   </Event>\n  </EventMetadata>\n"            \
    " </Provider>\n</Providers>\n"

static const char template_doc[] = ONE_EVENT_DOC(
    "    <Id>40</Id><Version>1</Version><Level>Error</Level>\n"
    "    <Message><![CDATA[\nUser %1 logged %2 times (%3 items).]]></Message>\n"
    "    <Template><![CDATA[\n" TEMPLATE_NS
    "  <data name=\"UserName\" inType=\"win:UnicodeString\" outType=\"xs:string\"/>\n"
    "  <data name=\"Count\" inType=\"win:UInt32\" outType=\"xs:unsignedInt\"/>\n"
    "  <data name=\"ItemCount\" inType=\"win:UInt16\" outType=\"xs:unsignedShort\"/>\n"
    "  <struct name=\"Items\" count=\"ItemCount\">\n"
    "    <data name=\"Kind\" inType=\"win:UInt8\" outType=\"xs:unsignedByte\" map=\"KindMap\"/>\n"
    "    <data name=\"Address\" inType=\"win:Pointer\" outType=\"win:HexInt64\"/>\n"
    "  </struct>\n"
    "</template>\n]]></Template>\n");

static void test_template_in_cdata(void **state)
{
    (void)state;
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(template_doc, &set, &err), ETL_OK);
    assert_int_equal(set.event_count, 1);
    const etl_event_info *e = find_event(&set, 40, 1);
    assert_non_null(e);
    assert_int_equal(e->descriptor.level, 2);
    assert_int_equal(e->top_level_count, 4);
    assert_int_equal(e->property_count, 6);
    const etl_property_info *p = e->properties;
    assert_string_equal(p[0].name, "UserName");
    assert_int_equal(p[0].in_type, 1);    /* TDH_INTYPE_UNICODESTRING */
    assert_int_equal(p[1].in_type, 8);    /* UINT32 */
    assert_int_equal(p[2].in_type, 6);    /* UINT16 */
    assert_string_equal(p[3].name, "Items");
    assert_true(p[3].flags & ETL_PROP_STRUCT);
    assert_true(p[3].flags & ETL_PROP_PARAM_COUNT);
    assert_int_equal(p[3].count, 2);      /* index of ItemCount */
    assert_int_equal(p[3].struct_start, 4);
    assert_int_equal(p[3].struct_count, 2);
    assert_string_equal(p[4].name, "Kind");
    assert_null(p[4].map);                /* the dumps carry no maps: the number is shown */
    assert_int_equal(p[5].in_type, 16);   /* POINTER */
    assert_int_equal(p[5].out_type, 19);  /* TDH_OUTTYPE_HEXINT64 */
    etl_schema_set_free(&set);
}

/* The message of a WEP event, with its inserts, through the decoder. */
static void test_message_substitution(void **state)
{
    (void)state;
    etl_schema_registry *reg = etl_schema_registry_new();
    etl_error err;
    assert_int_equal(etl_schema_load_manifest_memory(reg, template_doc, sizeof(template_doc) - 1, "dump.xml",
                                                     ETL_SOURCE_USER_MANIFEST, &err), ETL_OK);
    uint8_t payload[64];
    size_t n = 0;
    for (const char *c = "Ann"; *c; c++) { payload[n++] = (uint8_t)*c; payload[n++] = 0; }
    payload[n++] = 0; payload[n++] = 0;
    payload[n++] = 42; payload[n++] = 0; payload[n++] = 0; payload[n++] = 0;   /* Count = 42 */
    payload[n++] = 1; payload[n++] = 0;                                      /* ItemCount = 1 */
    payload[n++] = 7;                                                        /* Kind = 7 */
    for (int i = 0; i < 8; i++) payload[n++] = (uint8_t)(i == 0 ? 0x10 : 0); /* Address = 0x10 */
    etl_event_record rec;
    assert_int_equal(synthetic_record(&rec, GUID_TEXT, 40, 1, 2, 0, payload, n), 0);
    etl_decoder *d = etl_decoder_new(reg, NULL);
    const etl_decoded_event *ev;
    assert_int_equal(etl_decode_event(d, &rec, &ev), ETL_OK);
    assert_int_equal(ev->status, ETL_DECODE_OK);
    assert_int_equal(ev->undecoded_length, 0);
    assert_string_equal(ev->provider_name, "Syn-Wep-One");
    assert_string_equal(ev->level_name, "Error");
    assert_non_null(ev->message);
    assert_string_equal(ev->message, "User Ann logged 42 times (1 items).");
    int saw_kind = 0;
    for (size_t i = 0; i < ev->field_count; i++)
        if (ev->fields[i].kind == ETL_FIELD_VALUE && strcmp(ev->fields[i].name, "Kind") == 0) {
            assert_string_equal(ev->fields[i].value, "7");
            saw_kind = 1;
        }
    assert_true(saw_kind);
    etl_decoder_free(d);
    etl_schema_registry_free(reg);
}

/* ---- broken pieces: a clear error with the line, the rest loads --------------------------------------- */

static void expect_refusal(const char *xml, const char *what, const char *what2, size_t events_left)
{
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(xml, &set, &err), ETL_ERR_SCHEMA);
    if (!strstr(err.message, what) || (what2 && !strstr(err.message, what2)))
        fail_msg("message '%s' lacks '%s' / '%s'", err.message, what, what2 ? what2 : "");
    assert_non_null(strstr(err.message, "dump.xml: "));
    assert_int_equal(set.event_count, events_left);
    etl_schema_set_free(&set);
}

#define GOOD_EVENT "   </Event>\n   <Event>\n    <Id>1</Id><Version>0</Version><Level>Error</Level>\n"

static void test_missing_guid(void **state)
{
    (void)state;
    /* the second provider has no GUID: refused with its line; the first loads */
    static const char xml[] =
        "<Providers>\n"
        " <Provider><Name>Syn-Good</Name><Metadata><Guid>" GUID_TEXT "</Guid></Metadata>\n"
        "  <EventMetadata><Event><Id>1</Id><Version>0</Version></Event></EventMetadata></Provider>\n"
        " <Provider><Name>Syn-NoGuid</Name><Metadata><Guid>not-a-guid</Guid></Metadata>\n"
        "  <EventMetadata><Event><Id>2</Id><Version>0</Version></Event></EventMetadata></Provider>\n"
        "</Providers>\n";
    expect_refusal(xml, "line 4: <Provider> 'Syn-NoGuid': missing or invalid <Guid> 'not-a-guid'", NULL, 1);
}

static void test_unknown_level(void **state)
{
    (void)state;
    static const char xml[] = ONE_EVENT_DOC("    <Id>3</Id><Version>0</Version>\n"
                                            "    <Level>Catastrophic</Level>\n" GOOD_EVENT);
    expect_refusal(xml, "line 9: event 3 version 0: <Level> 'Catastrophic' is not in the provider's <Levels>",
                   "event left out", 1);
}

static void test_unknown_keyword(void **state)
{
    (void)state;
    static const char xml[] = ONE_EVENT_DOC("    <Id>3</Id><Version>0</Version>\n"
                                            "    <Keyword>syn:Nowhere</Keyword>\n" GOOD_EVENT);
    expect_refusal(xml, "event 3 version 0: keyword 'syn:Nowhere' is not in the provider's <Keywords>", NULL, 1);
}

static void test_malformed_cdata_template(void **state)
{
    (void)state;
    /* an unclosed <data> inside the CDATA: the error names the <Template> line and the event */
    static const char xml[] = ONE_EVENT_DOC("    <Id>9</Id><Version>0</Version>\n"
                                            "    <Template><![CDATA[\n" TEMPLATE_NS
                                            "  <data name=\"A\" inType=\"win:UInt32\">\n"
                                            "</template>\n]]></Template>\n" GOOD_EVENT);
    expect_refusal(xml, "dump.xml: line 11: <Template> of event 9 version 0: not well-formed XML", NULL, 1);
}

static void test_bad_template_field(void **state)
{
    (void)state;
    /* the template parses as XML but names an unknown type: the line is the file's, not the CDATA's */
    static const char xml[] = ONE_EVENT_DOC("    <Id>9</Id><Version>0</Version>\n"
                                            "    <Template><![CDATA[\n" TEMPLATE_NS
                                            "  <data name=\"A\" inType=\"win:UInt32\"/>\n"
                                            "  <data name=\"B\" inType=\"win:NoSuchType\"/>\n"
                                            "</template>\n]]></Template>\n" GOOD_EVENT);
    expect_refusal(xml, "line 14: template 'event 9 version 0' field 'B': unknown inType 'win:NoSuchType'", NULL, 1);
}

static void test_template_not_a_template(void **state)
{
    (void)state;
    static const char xml[] = ONE_EVENT_DOC("    <Id>9</Id><Version>0</Version>\n"
                                            "    <Template><![CDATA[<events/>]]></Template>\n" GOOD_EVENT);
    expect_refusal(xml, "<Template> of event 9 version 0: holds <events>, not a <template>", NULL, 1);
}

static void test_doctype_in_cdata(void **state)
{
    (void)state;
    /* the CDATA is parsed with the same hardening as a manifest: no DTD, so no entity */
    static const char xml[] = ONE_EVENT_DOC("    <Id>9</Id><Version>0</Version>\n"
                                            "    <Template><![CDATA[<!DOCTYPE t [<!ENTITY x \"xx\">]><template/>]]>"
                                            "</Template>\n" GOOD_EVENT);
    expect_refusal(xml, "document type declarations", NULL, 1);
}

static void test_huge_numbers(void **state)
{
    (void)state;
    static const char big_id[] = ONE_EVENT_DOC("    <Id>70000</Id><Version>0</Version>\n" GOOD_EVENT);
    expect_refusal(big_id, "line 9: <Id> '70000' <Version> '0': not an id up to 65535", NULL, 1);
    static const char big_count[] = ONE_EVENT_DOC("    <Id>4</Id><Version>0</Version>\n"
                                                  "    <Template><![CDATA[\n" TEMPLATE_NS
                                                  "  <data name=\"A\" inType=\"win:UInt32\" count=\"99999999\"/>\n"
                                                  "</template>\n]]></Template>\n" GOOD_EVENT);
    expect_refusal(big_count, "field 'A': count/length is neither a number up to 65535", NULL, 1);
    static const char big_level[] =
        "<Providers><Provider><Name>Syn-BigLevel</Name><Metadata><Guid>" GUID_TEXT "</Guid>\n"
        "<Levels><Level><Message>Huge</Message><Name>syn:Huge</Name><Value>4096</Value></Level></Levels>\n"
        "</Metadata><EventMetadata><Event><Id>1</Id><Version>0</Version></Event></EventMetadata></Provider>"
        "</Providers>\n";
    expect_refusal(big_level, "line 2: <Level> 'syn:Huge': no <Name>, or <Value> '4096' is not a number up to 255",
                   NULL, 1);
    /* the element at fault is named: here the opcode's <Task>, not its <Value> */
    static const char big_task[] =
        "<Providers><Provider><Name>Syn-BigTask</Name><Metadata><Guid>" GUID_TEXT "</Guid>\n"
        "<Opcodes><Opcode><Name>op</Name><Value>20</Value><Task>70000</Task></Opcode></Opcodes>\n"
        "</Metadata><EventMetadata><Event><Id>1</Id><Version>0</Version></Event></EventMetadata></Provider>"
        "</Providers>\n";
    expect_refusal(big_task, "line 2: <Opcode> 'op': <Task> '70000' is not a number up to 65535", NULL, 1);
}

/* 70,000 <Task> entries: the first 65,536 are kept, the rest reported; events still load. */
static void test_too_many_entries(void **state)
{
    (void)state;
    const size_t tasks = 70000;
    size_t cap = tasks * 80 + 1024, len = 0;
    char *xml = malloc(cap);
    assert_non_null(xml);
    len += (size_t)snprintf(xml + len, cap - len,
                            "<Providers><Provider><Name>Syn-Many</Name><Metadata><Guid>" GUID_TEXT "</Guid>\n<Tasks>");
    for (size_t i = 0; i < tasks; i++)
        len += (size_t)snprintf(xml + len, cap - len, "<Task><Message></Message><Name>T%zu</Name><Value>%zu</Value></Task>",
                                i, i % 65536);
    len += (size_t)snprintf(xml + len, cap - len,
                            "</Tasks></Metadata><EventMetadata><Event><Id>1</Id><Version>0</Version><Task>T65535</Task>"
                            "</Event></EventMetadata></Provider></Providers>\n");
    assert_true(len < cap);
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(xml, &set, &err), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "70000 <Task> entries, more than 65536"));
    assert_int_equal(set.event_count, 1);
    assert_int_equal(set.events[0].descriptor.task, 65535);
    etl_schema_set_free(&set);
    free(xml);
}

/* Past line 65535 (libxml2's node line field), lines still come from XML_PARSE_BIG_LINES: the event's line
 * is the file's, and a template error names the <Template> line and the line inside the template. */
static void test_lines_past_65535(void **state)
{
    (void)state;
    const size_t pad = 70000;
    static const char head[] = "<Providers>\n<Provider><Name>Syn-Long</Name><Metadata><Guid>" GUID_TEXT
                               "</Guid></Metadata><EventMetadata>\n";
    static const char tail[] = "<Event><Id>3</Id><Version>0</Version><Level>Nowhere</Level></Event>\n"
                               "<Event><Id>9</Id><Version>0</Version><Template><![CDATA[\n<template>\n"
                               "<data name=\"B\" inType=\"win:Nope\"/>\n</template>]]></Template></Event>\n"
                               "<Event><Id>1</Id><Version>0</Version></Event>\n"
                               "</EventMetadata></Provider></Providers>\n";
    char *xml = malloc(sizeof(head) + pad + sizeof(tail));
    assert_non_null(xml);
    memcpy(xml, head, sizeof(head) - 1);
    memset(xml + sizeof(head) - 1, '\n', pad);
    memcpy(xml + sizeof(head) - 1 + pad, tail, sizeof(tail));
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(xml, &set, &err), ETL_ERR_SCHEMA);
    /* first error: the unknown level, on line 2 + 70000 + 1 */
    if (!strstr(err.message, "dump.xml: line 70003: event 3 version 0: <Level> 'Nowhere'"))
        fail_msg("%s", err.message);
    assert_int_equal(set.event_count, 1);
    etl_schema_set_free(&set);
    /* the template error alone: <Template> on line 70003, the bad field on the template's second line */
    char *at = strstr(xml, "<Event><Id>3</Id>");
    assert_non_null(at);
    memmove(at, at + 68, strlen(at + 68) + 1);   /* drop the first event (68 bytes, its line break included) */
    assert_int_equal(parse(xml, &set, &err), ETL_ERR_SCHEMA);
    if (!strstr(err.message, "dump.xml: line 70003: <Template> of event 9 version 0: line 2: template 'event 9 version "
                             "0' field 'B': unknown inType 'win:Nope'"))
        fail_msg("%s", err.message);
    assert_int_equal(set.event_count, 1);
    etl_schema_set_free(&set);
    free(xml);
}

/* A listing without any usable provider is an error, not an empty success. */
static void test_no_provider(void **state)
{
    (void)state;
    expect_refusal("<Providers>\n</Providers>\n", "no <Provider> with a valid <Guid>", NULL, 0);
}

/* An opcode display string shared by a task-specific opcode and winmeta: an event of another task means
 * winmeta's (the Kernel-EventTracing shape: task Session has its own Start = 12, other tasks use win:Start). */
static void test_other_tasks_opcode_is_not_taken(void **state)
{
    (void)state;
    static const char doc[] =
        "<Providers><Provider><Name>Syn-Wep-Start</Name><Metadata><Guid>" GUID_TEXT "</Guid>\n"
        "<Tasks><Task><Message>Session</Message><Name>Session</Name><Value>2</Value></Task>\n"
        "<Task><Message>Persist</Message><Name>Persist</Name><Value>8</Value></Task></Tasks>\n"
        "<Opcodes><Opcode><Message>Start</Message><Name>Start</Name><Value>12</Value><Task>2</Task></Opcode>"
        "</Opcodes>\n</Metadata><EventMetadata>\n"
        "<Event><Id>10</Id><Version>0</Version><Task>Session</Task><Opcode>Start</Opcode></Event>\n"
        "<Event><Id>21</Id><Version>0</Version><Task>Persist</Task><Opcode>Start</Opcode></Event>\n"
        "</EventMetadata></Provider></Providers>\n";
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(doc, &set, &err), ETL_OK);
    assert_int_equal(find_event(&set, 10, 0)->descriptor.opcode, 12);
    assert_int_equal(find_event(&set, 21, 0)->descriptor.opcode, 1);
    etl_schema_set_free(&set);
}

/* A listing without <Index>: a channel's place in the list gives its keyword bit (the second one bit 62). */
static void test_channel_position_without_index(void **state)
{
    (void)state;
    static const char doc[] =
        "<Providers><Provider><Name>Syn-Wep-Chan</Name><Metadata><Guid>" GUID_TEXT "</Guid>\n"
        "<Channels><Channel><Message>C</Message><Path>S/Op</Path><Id>16</Id></Channel>"
        "<Channel><Message>D</Message><Path>S/Dbg</Path><Id>17</Id></Channel></Channels>\n"
        "</Metadata><EventMetadata>\n"
        "<Event><Id>1</Id><Version>0</Version><Channel>D</Channel></Event>\n"
        "</EventMetadata></Provider></Providers>\n";
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(doc, &set, &err), ETL_OK);
    assert_int_equal(find_event(&set, 1, 0)->descriptor.channel, 17);
    assert_int_equal(find_event(&set, 1, 0)->descriptor.keyword, 0x4000000000000000ull);
    etl_schema_set_free(&set);
}

/* Many tasks with an opcode of the same display string: each event gets its own task's, however many share
 * the text. */
static void test_same_opcode_text_in_many_tasks(void **state)
{
    (void)state;
    enum { TASKS = 200 };
    size_t cap = 64 * 1024;
    char *xml = malloc(cap);
    assert_non_null(xml);
    size_t at = (size_t)snprintf(xml, cap, "<Providers><Provider><Name>Syn-Wep-Begin</Name><Metadata><Guid>"
                                 GUID_TEXT "</Guid>\n<Tasks>");
    for (int t = 0; t < TASKS; t++)
        at += (size_t)snprintf(xml + at, cap - at, "<Task><Name>T%d</Name><Value>%d</Value></Task>", t, 100 + t);
    at += (size_t)snprintf(xml + at, cap - at, "</Tasks>\n<Opcodes>");
    for (int t = 0; t < TASKS; t++)
        at += (size_t)snprintf(xml + at, cap - at,
                               "<Opcode><Name>Begin</Name><Value>%d</Value><Task>%d</Task></Opcode>", 20 + t % 200,
                               100 + t);
    at += (size_t)snprintf(xml + at, cap - at,
                           "</Opcodes>\n</Metadata><EventMetadata>\n"
                           "<Event><Id>1</Id><Version>0</Version><Task>T3</Task><Opcode>Begin</Opcode></Event>\n"
                           "<Event><Id>2</Id><Version>0</Version><Task>T169</Task><Opcode>Begin</Opcode></Event>\n"
                           "</EventMetadata></Provider></Providers>\n");
    assert_true(at < cap);
    etl_schema_set set;
    etl_error err;
    assert_int_equal(parse(xml, &set, &err), ETL_OK);
    assert_int_equal(find_event(&set, 1, 0)->descriptor.opcode, 23);
    assert_int_equal(find_event(&set, 2, 0)->descriptor.opcode, 189);
    etl_schema_set_free(&set);
    free(xml);
}

/* In a folder, a listing is loaded like an instrumentation manifest (it never says "instrumentation"); other
 * XML is skipped and counted. */
static void test_listing_in_a_folder(void **state)
{
    (void)state;
    char dir[] = "/tmp/etl_wep_dir_XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/Syn-Wep-Names.xml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(names_doc, f);
    fclose(f);
    char other[256];
    snprintf(other, sizeof other, "%s/settings.xml", dir);
    f = fopen(other, "w");
    assert_non_null(f);
    fputs("<?xml version=\"1.0\"?><settings/>\n", f);
    fclose(f);
    etl_schema_registry *r = etl_schema_registry_new();
    etl_schema_load_stats stats;
    etl_error err;
    assert_int_equal(etl_schema_load_path_stats(r, dir, ETL_SOURCE_USER_MANIFEST, &err, &stats), ETL_OK);
    assert_int_equal(stats.loaded, 1);
    assert_int_equal(stats.not_manifest, 1);
    etl_guid g;
    assert_int_equal(etl_guid_parse(GUID_TEXT, &g), 0);
    assert_string_equal(etl_schema_registry_provider_name(r, &g), "Syn-Wep-Names");
    etl_schema_registry_free(r);
    unlink(path);
    unlink(other);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listing_in_a_folder),
        cmocka_unit_test(test_other_tasks_opcode_is_not_taken),
        cmocka_unit_test(test_channel_position_without_index),
        cmocka_unit_test(test_same_opcode_text_in_many_tasks),
        cmocka_unit_test(test_names_and_values),
        cmocka_unit_test(test_template_in_cdata),
        cmocka_unit_test(test_message_substitution),
        cmocka_unit_test(test_missing_guid),
        cmocka_unit_test(test_unknown_level),
        cmocka_unit_test(test_unknown_keyword),
        cmocka_unit_test(test_malformed_cdata_template),
        cmocka_unit_test(test_bad_template_field),
        cmocka_unit_test(test_template_not_a_template),
        cmocka_unit_test(test_doctype_in_cdata),
        cmocka_unit_test(test_huge_numbers),
        cmocka_unit_test(test_too_many_entries),
        cmocka_unit_test(test_lines_past_65535),
        cmocka_unit_test(test_no_provider),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
