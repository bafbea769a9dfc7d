/* One writer checks the others, on every corpus trace: each decoded event goes through the CSV, JSON Lines,
 * table and XML writers at once; the CSV line is parsed back with libcsv, the JSON line with
 * tests/support/json_parse, the table line by splitting on tabs and undoing its escapes, the XML event with
 * libxml2. All four must carry the same event (pid, tid, id, keywords, time) and the same field values in
 * the same order. The XML event is also checked against tracerpt's layout rules (docs/tracerpt.md §1.3). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "etl/etl_writer.h"
#include "support/corpus.h"
#include "support/json_parse.h"
#include "support/mem_sink.h"

/* Every event is cross-checked; the (slower) XML parse covers the first events of each trace. */
#define XML_CHECKED_EVENTS_PER_TRACE 5000

/* A list of strings owned by one buffer of NUL-separated text. */
typedef struct cells {
    char *text;
    size_t length, capacity;
    size_t *offsets;
    size_t count, offsets_capacity;
} cells;

static void cells_reset(cells *c)
{
    c->length = 0;
    c->count = 0;
}

static void cells_free(cells *c)
{
    free(c->text);
    free(c->offsets);
}

static void cells_add(cells *c, const char *s, size_t n)
{
    if (c->count == c->offsets_capacity) {
        c->offsets_capacity = c->offsets_capacity ? c->offsets_capacity * 2 : 64;
        c->offsets = realloc(c->offsets, c->offsets_capacity * sizeof *c->offsets);
        assert_non_null(c->offsets);
    }
    if (c->length + n + 1 > c->capacity) {
        size_t cap = c->capacity ? c->capacity : 4096;
        while (cap < c->length + n + 1) cap *= 2;
        c->text = realloc(c->text, cap);
        assert_non_null(c->text);
        c->capacity = cap;
    }
    memcpy(c->text + c->length, s, n);
    c->text[c->length + n] = '\0';
    c->offsets[c->count++] = c->length;
    c->length += n + 1;
}

static const char *cell(const cells *c, size_t i)
{
    return i < c->count ? c->text + c->offsets[i] : NULL;
}

/* ---- the three text forms back into cells ------------------------------------------------------------ */

static void on_csv_cell(void *s, size_t n, void *ctx)
{
    cells_add(ctx, s ? s : "", s ? n : 0);
}

static void parse_csv_line(const char *line, size_t n, cells *out)
{
    struct csv_parser p;
    cells_reset(out);
    assert_int_equal(csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_EMPTY_IS_NULL), 0);
    assert_int_equal(csv_parse(&p, line, n, on_csv_cell, NULL, out), n);
    assert_int_equal(csv_fini(&p, on_csv_cell, NULL, out), 0);
    csv_free(&p);
}

static void parse_table_line(const char *line, size_t n, cells *out)
{
    cells_reset(out);
    char *buf = malloc(n + 1);
    assert_non_null(buf);
    size_t k = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || line[i] == '\t') {
            cells_add(out, buf, k);
            k = 0;
            continue;
        }
        assert_true(line[i] != '\n' && line[i] != '\r');
        if (line[i] != '\\') {
            buf[k++] = line[i];
            continue;
        }
        assert_true(i + 1 < n);
        char e = line[++i];
        if (e == 't') buf[k++] = '\t';
        else if (e == 'n') buf[k++] = '\n';
        else if (e == 'r') buf[k++] = '\r';
        else if (e == '\\') buf[k++] = '\\';
        else if (e == 'x' && i + 2 < n) {
            char hex[3] = {line[i + 1], line[i + 2], 0};
            buf[k++] = (char)strtoul(hex, NULL, 16);
            i += 2;
        } else fail_msg("bad table escape \\%c", e);
    }
    free(buf);
}

typedef struct json_event {
    cells keys, values;  /* every leaf, in document order */
} json_event;

static void on_leaf(const char *path, const char *value, int is_string, void *ctx)
{
    (void)is_string;
    json_event *j = ctx;
    cells_add(&j->keys, path, strlen(path));
    cells_add(&j->values, value, strlen(value));
}

static const char *json_get(const json_event *j, const char *key)
{
    for (size_t i = 0; i < j->keys.count; i++)
        if (strcmp(cell(&j->keys, i), key) == 0) return cell(&j->values, i);
    return NULL;
}

/* "fields.Type.value" or "fields.Flags.value[2]": the number typed JSON keeps beside a mapped name. */
static int is_mapped_number(const char *path)
{
    const char *dot = strstr(path, ".value");
    while (dot && dot[6] != '\0' && dot[6] != '[' && dot[6] != '.') dot = strstr(dot + 1, ".value");
    return dot != NULL;
}

/* What one trace produced, for the per-kind checks. */
typedef struct tally {
    char file[300];
    uint64_t events;
    uint64_t by_source[ETL_SOURCE_COUNT];
    uint64_t xml_checked, xml_event_data, xml_binary, xml_error, xml_extended;
} tally;

/* ---- XML layout rules ----------------------------------------------------------------------------------- */

static xmlNodePtr element(xmlNodePtr n, int index)
{
    for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && index-- == 0) return c;
    return NULL;
}

static int is(xmlNodePtr n, const char *name)
{
    return n && strcmp((const char *)n->name, name) == 0;
}

/* Characters XML forbids are replaced in the output: compare only values made of allowed characters. */
static int xml_representable(const char *value)
{
    for (const unsigned char *p = (const unsigned char *)value; *p; p++)
        if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') return 0;
    return xmlCheckUTF8((const xmlChar *)value);
}

static void check_data_values(xmlNodePtr parent, const cells *values, size_t *k)
{
    for (xmlNodePtr d = parent->children; d; d = d->next) {
        if (d->type != XML_ELEMENT_NODE) continue;
        if (is(d, "ComplexData")) {
            check_data_values(d, values, k);
            continue;
        }
        assert_true(is(d, "Data"));
        const char *want = cell(values, (*k)++);
        assert_non_null(want);
        xmlChar *got = xmlNodeGetContent(d);
        if (xml_representable(want)) assert_string_equal((const char *)got, want);
        xmlFree(got);
    }
}

static void check_xml_event(const char *xml, size_t n, const etl_decoded_event *ev, const cells *values, tally *t)
{
    xmlDocPtr doc = xmlReadMemory(xml, (int)n, "event.xml", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc) fail_msg("XML event does not parse: %.300s", xml);
    xmlNodePtr event = xmlDocGetRootElement(doc);
    assert_true(is(event, "Event"));
    assert_string_equal((const char *)event->ns->href, "http://schemas.microsoft.com/win/2004/08/events/event");

    static const char *const system_order[] = {"Provider", "EventID", "Version", "Level", "Task", "Opcode",
                                               "Keywords", "TimeCreated", "Correlation", "Execution",
                                               "Channel", "Computer"};
    xmlNodePtr system = element(event, 0);
    assert_true(is(system, "System"));
    for (int i = 0; i < 12; i++) assert_true(is(element(system, i), system_order[i]));
    int extra = is(element(system, 12), "Security");  /* only from a SID extended item */
    assert_null(element(system, 12 + extra));
    xmlChar *guid = xmlGetProp(element(system, 0), (const xmlChar *)"Guid");
    assert_non_null(guid);
    assert_int_equal(strlen((const char *)guid), 38);
    xmlFree(guid);
    xmlChar *kw = xmlNodeGetContent(element(system, 6));
    assert_true(strncmp((const char *)kw, "0x", 2) == 0 && strspn((const char *)kw + 2, "0123456789ABCDEF") == strlen((const char *)kw) - 2);
    xmlFree(kw);
    xmlChar *when = xmlGetProp(element(system, 7), (const xmlChar *)"SystemTime");
    assert_non_null(when);
    assert_int_equal(strlen((const char *)when), 30); /* YYYY-MM-DDThh:mm:ss.fffffffffZ */
    assert_int_equal(when[29], 'Z');
    xmlFree(when);
    xmlChar *act = xmlGetProp(element(system, 8), (const xmlChar *)"ActivityID");
    assert_non_null(act);
    xmlFree(act);
    static const char *const exec_attrs[] = {"ProcessID", "ThreadID", "ProcessorID", "KernelTime", "UserTime"};
    xmlAttrPtr a = element(system, 9)->properties;
    for (int i = 0; i < 5; i++, a = a->next) assert_string_equal((const char *)a->name, exec_attrs[i]);

    /* exactly one payload form, matching the decode status */
    xmlNodePtr payload = element(event, 1);
    if (ev->status == ETL_DECODE_NO_SCHEMA && ev->record->kind == ETL_KIND_MESSAGE) assert_true(is(payload, "DebugData"));
    else if (ev->status == ETL_DECODE_NO_SCHEMA) assert_true(is(payload, "BinaryEventData"));
    else if (ev->status == ETL_DECODE_ERROR) assert_true(is(payload, "ProcessingErrorData"));
    else if (ev->string_only) assert_true(is(payload, "Data"));
    else assert_true(is(payload, "EventData"));
    t->xml_event_data += is(payload, "EventData");
    t->xml_binary += is(payload, "BinaryEventData");
    t->xml_error += is(payload, "ProcessingErrorData");
    if (is(payload, "EventData")) {
        /* Data elements in document order (inside ComplexData too) carry the field values */
        size_t k = 0;
        check_data_values(payload, values, &k);
        assert_int_equal(k, values->count);
    }
    xmlNodePtr next = element(event, 2);
    if (is(next, "RenderingInfo")) {
        static const char *const order[] = {"Level", "Opcode", "Keywords", "Task", "Message", "Channel", "Provider", "EventName"};
        int at = 0;
        for (int i = 0; element(next, i); i++) {
            while (at < 8 && !is(element(next, i), order[at])) at++;
            if (at == 8) fail_msg("RenderingInfo child %s out of tracerpt's order", element(next, i)->name);
            at++;
        }
        next = element(event, 3);
    }
    etl_guid class_guid;
    int classic = ev->info ? !etl_guid_is_zero(&ev->info->event_guid)
                           : (ev->record->header.flags & ETL_EVENT_FLAG_CLASSIC_HEADER) != 0;
    (void)class_guid;
    if (classic) {
        assert_true(is(next, "ExtendedTracingInfo"));
        t->xml_extended++;
        assert_true(is(element(next, 0), "EventGuid"));
        next = next->next;
        while (next && next->type != XML_ELEMENT_NODE) next = next->next;
    }
    assert_null(next);
    xmlFreeDoc(doc);
}

/* ---- the run ------------------------------------------------------------------------------------------ */

typedef struct run {
    etl_decoder *decoder;
    etl_writer *csv, *json, *table, *xml;
    mem_sink csv_out, json_out, table_out, xml_out;
    cells csv_cells, table_cells, values;
    json_event parsed;
    tally *tally;
} run;

/* Removes the final newline; `one_line`: the event must not contain another (CSV may, inside quotes). */
static void strip_newline(mem_sink *m, int one_line)
{
    assert_true(m->length > 0 && m->data[m->length - 1] == '\n');
    m->data[--m->length] = '\0';
    if (one_line) assert_null(memchr(m->data, '\n', m->length));
}

static int on_event(const etl_event_record *record, void *ctx)
{
    run *r = ctx;
    const etl_decoded_event *ev;
    assert_int_equal(etl_decode_event(r->decoder, record, &ev), ETL_OK);
    r->csv_out.length = r->json_out.length = r->table_out.length = r->xml_out.length = 0;
    assert_int_equal(etl_writer_event(r->csv, ev), 0);
    assert_int_equal(etl_writer_event(r->json, ev), 0);
    assert_int_equal(etl_writer_event(r->table, ev), 0);
    r->tally->events++;
    r->tally->by_source[ev->source < ETL_SOURCE_COUNT ? ev->source : ETL_SOURCE_NONE]++;

    strip_newline(&r->csv_out, 0);
    strip_newline(&r->json_out, 1);
    strip_newline(&r->table_out, 1);
    parse_csv_line(r->csv_out.data, r->csv_out.length, &r->csv_cells);
    parse_table_line(r->table_out.data, r->table_out.length, &r->table_cells);
    cells_reset(&r->parsed.keys);
    cells_reset(&r->parsed.values);
    if (json_parse(r->json_out.data, r->json_out.length, on_leaf, &r->parsed) != 0)
        fail_msg("%s event %" PRIu64 ": invalid JSON: %.300s", r->tally->file, r->tally->events, r->json_out.data);

    /* the event's identity */
    const json_event *j = &r->parsed;
    char text[64];
    snprintf(text, sizeof text, "%llu", strtoull(cell(&r->csv_cells, 9), NULL, 16));
    assert_string_equal(json_get(j, "pid"), text);
    assert_string_equal(cell(&r->table_cells, 1), text);
    snprintf(text, sizeof text, "%llu", strtoull(cell(&r->csv_cells, 10), NULL, 16));
    assert_string_equal(json_get(j, "tid"), text);
    assert_string_equal(cell(&r->table_cells, 2), text);
    assert_string_equal(json_get(j, "id"), cell(&r->csv_cells, 2));
    snprintf(text, sizeof text, "%llu", strtoull(cell(&r->csv_cells, 8), NULL, 16));
    assert_string_equal(json_get(j, "keywords"), text);  /* typed JSON: the mask as a number */
    assert_string_equal(json_get(j, "time"), cell(&r->table_cells, 0));
    etl_filetime_format(strtoll(cell(&r->csv_cells, 16), NULL, 10), 7, text, sizeof text);
    assert_string_equal(json_get(j, "time"), text);
    assert_string_equal(json_get(j, "event"), cell(&r->table_cells, 3));

    /* the payload: JSON leaves under "fields" (+ payload hex) = CSV cells after column 19 = table cells */
    cells *v = &r->values;
    cells_reset(v);
    for (size_t i = 0; i < j->keys.count; i++)
        if (strncmp(cell(&j->keys, i), "fields.", 7) == 0 && !is_mapped_number(cell(&j->keys, i)))
            cells_add(v, cell(&j->values, i), strlen(cell(&j->values, i)));
    size_t field_values = v->count;
    const char *hex = json_get(j, "payload");
    if (hex && *hex) {
        char *h = malloc(strlen(hex) + 3);
        assert_non_null(h);
        sprintf(h, "0x%s", hex);
        cells_add(v, h, strlen(h));
        free(h);
    }
    size_t csv_payload = r->csv_cells.count - 19;
    if (v->count == 0) {
        assert_int_equal(csv_payload, 1);  /* the User Data column is always there, empty */
        assert_string_equal(cell(&r->csv_cells, 19), "");
    } else {
        assert_int_equal(csv_payload, v->count);
        for (size_t i = 0; i < v->count; i++) assert_string_equal(cell(&r->csv_cells, 19 + i), cell(v, i));
    }
    assert_int_equal(r->table_cells.count, 4 + v->count);
    for (size_t i = 0; i < v->count; i++) assert_string_equal(cell(&r->table_cells, 4 + i), cell(v, i));

    if (r->tally->xml_checked < XML_CHECKED_EVENTS_PER_TRACE) {
        r->tally->xml_checked++;
        assert_int_equal(etl_writer_event(r->xml, ev), 0);
        v->count = field_values;  /* XML Data elements carry the fields only */
        check_xml_event(r->xml_out.data, r->xml_out.length, ev, v, r->tally);
    }
    return 0;
}

static etl_writer *writer(const char *name, mem_sink *out, const etl_writer_options *opt)
{
    etl_sink sink = {mem_sink_write, out};
    etl_writer *w = etl_writer_new(etl_writer_format_find(name), &sink, opt);
    assert_non_null(w);
    assert_int_equal(etl_writer_begin(w), 0);
    return w;
}

/* Cross-checks every event of `file` (testdata-relative); `import_dir` (may be NULL): manifests to load.
 * Returns 0, or -1 when the file cannot be opened. */
static int crosscheck_trace(const char *file, const char *import_dir, tally *t)
{
    run *r = calloc(1, sizeof *r);
    assert_non_null(r);
    memset(t, 0, sizeof *t);
    r->tally = t;
    snprintf(t->file, sizeof t->file, "testdata/%.255s", file);
    const char *paths[] = {t->file};
    etl_trace *trace = NULL;
    etl_error err;
    if (etl_open(&trace, paths, 1, NULL, &err) != ETL_OK) {
        free(r);
        return -1;
    }
    etl_schema_registry *registry = etl_schema_registry_new();
    assert_non_null(registry);
    if (import_dir)
        assert_int_equal(etl_schema_load_directory(registry, import_dir, ETL_SOURCE_USER_MANIFEST, &err), ETL_OK);
    r->decoder = etl_decoder_new(registry, trace);
    assert_non_null(r->decoder);
    etl_writer_options opt = {0};
    opt.table_columns = ETL_TABLE_TIME | ETL_TABLE_PID | ETL_TABLE_TID;
    opt.flush_every_event = 1; /* the checks read each event's text right after etl_writer_event */
    r->csv = writer("csv", &r->csv_out, &opt);
    r->json = writer("jsonl", &r->json_out, &opt);
    r->table = writer("table", &r->table_out, &opt);
    r->xml = writer("xml", &r->xml_out, &opt);
    assert_true(etl_process(trace, on_event, r) >= 0);
    assert_int_equal(t->events, etl_trace_get_stats(trace)->events);
    print_message("%-60s %8" PRIu64 " events cross-checked\n", t->file, t->events);
    etl_writer_free(r->csv);
    etl_writer_free(r->json);
    etl_writer_free(r->table);
    etl_writer_free(r->xml);
    free(r->csv_out.data);
    free(r->json_out.data);
    free(r->table_out.data);
    free(r->xml_out.data);
    cells_free(&r->csv_cells);
    cells_free(&r->table_cells);
    cells_free(&r->values);
    cells_free(&r->parsed.keys);
    cells_free(&r->parsed.values);
    etl_decoder_free(r->decoder);
    etl_schema_registry_free(registry);
    etl_close(trace);
    free(r);
    return 0;
}

static corpus_trace traces[64];
static tally tallies[64];
static size_t trace_count;

static void test_every_corpus_trace(void **state)
{
    (void)state;
    trace_count = corpus_traces(traces, 64);
    assert_true(trace_count >= 25);
    for (size_t i = 0; i < trace_count; i++) {
        if (crosscheck_trace(traces[i].file, NULL, &tallies[i]) != 0) {
            /* only the 0-byte edge case may fail to open */
            assert_string_equal(traces[i].file, "etwanalyzer/empty.etl");
        }
    }
}

static const tally *tally_of(const char *file, uint64_t *census_count, const char *kind)
{
    for (size_t i = 0; i < trace_count; i++)
        if (strcmp(traces[i].file, file) == 0) {
            *census_count = corpus_census_count(traces[i].census, kind);
            return &tallies[i];
        }
    fail_msg("%s not in the corpus", file);
    return NULL;
}

/* Kernel (classic MOF) events: census PERFINFO64:8645 + SYSTEM64:8433, all decoded by the kernel tables,
 * each with EventData and ExtendedTracingInfo/EventGuid. */
static void test_kind_kernel(void **state)
{
    (void)state;
    uint64_t perfinfo = 0, system = 0;
    const tally *t = tally_of("airbus-cert/ShutdownPerfDiagLogger.etl.gz", &perfinfo, "PERFINFO64");
    tally_of("airbus-cert/ShutdownPerfDiagLogger.etl.gz", &system, "SYSTEM64");
    assert_int_equal(t->by_source[ETL_SOURCE_KERNEL_MOF], perfinfo + system);
    assert_int_equal(t->xml_extended, t->xml_checked);
    assert_int_equal(t->xml_event_data, t->xml_checked);
}

/* TraceLogging: census EVENT64:19, every one decoded from its own metadata. */
static void test_kind_tracelogging(void **state)
{
    (void)state;
    uint64_t events64;
    const tally *t = tally_of("airbus-cert/AMSITrace.etl.gz", &events64, "EVENT64");
    assert_int_equal(t->by_source[ETL_SOURCE_TRACELOGGING], events64);
}

/* .NET EventSource: events decoded from the manifest the trace carries. */
static void test_kind_eventsource(void **state)
{
    (void)state;
    uint64_t unused;
    const tally *t = tally_of("perfview/net.4.5.2.x86.etl.gz", &unused, "EVENT32");
    assert_true(t->by_source[ETL_SOURCE_EVENTSOURCE] > 0);
}

/* Undecodable: without its manifest, tx/Process's EVENT64:10343 records have no schema and become
 * BinaryEventData. */
static void test_kind_undecodable(void **state)
{
    (void)state;
    uint64_t events64;
    const tally *t = tally_of("tx/Process.etl.gz", &events64, "EVENT64");
    assert_int_equal(t->by_source[ETL_SOURCE_NONE], events64);
    assert_int_equal(t->xml_binary + t->xml_extended, t->xml_checked);  /* the rest is the kernel header */
}

/* Manifest: the same trace with the Tx sample manifests imported decodes every EVENT64 record. */
static void test_kind_manifest(void **state)
{
    (void)state;
    uint64_t events64;
    tally_of("tx/Process.etl.gz", &events64, "EVENT64");
    static tally t;
    assert_int_equal(crosscheck_trace("tx/Process.etl.gz", "testdata/schemas/real-man/microsoft-Tx", &t), 0);
    assert_int_equal(t.by_source[ETL_SOURCE_USER_MANIFEST], events64);
    assert_int_equal(t.xml_event_data, t.xml_checked);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_corpus_trace),
        cmocka_unit_test(test_kind_kernel),
        cmocka_unit_test(test_kind_tracelogging),
        cmocka_unit_test(test_kind_eventsource),
        cmocka_unit_test(test_kind_undecodable),
        cmocka_unit_test(test_kind_manifest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
