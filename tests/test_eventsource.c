/* EventSource in-stream manifests (event 0xFFFE chunks) → manifest parser → registry. Oracles: the envelope and
 * reassembly rules of docs/schemas.md §4.6 / docs/etl-format.md §5.2 (hand-made chunks of a hand-written
 * manifest), and PerfView's ManifestData lines (corpus/perfview/net.4.5.2.x86.baseline.txt: fields Format=1,
 * MajorVersion=1, MinorVersion=0, Magic=91, TotalChunks=1, ChunkNumber=0). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "schema/eventsource.h"
#include "selfdesc_perfview.h"
#include "selfdesc_records.h"

static const etl_guid my_provider = {0x7d2a1b3c, 0x1111, 0x4222, {0x83, 0x33, 0x44, 0x44, 0x55, 0x55, 0x66, 0x66}};

static const char manifest_xml[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\n"
    " <instrumentation xmlns:xs=\"http://www.w3.org/2001/XMLSchema\" "
    "xmlns:win=\"http://manifests.microsoft.com/win/2004/08/windows/events\">\n"
    "  <events>\n"
    "   <provider name=\"My-Test-Source\" guid=\"{7d2a1b3c-1111-4222-8333-444455556666}\" symbol=\"MyTestSource\">\n"
    "    <tasks><task name=\"Work\" value=\"1\"/></tasks>\n"
    "    <templates>\n"
    "     <template tid=\"WorkArgs\">\n"
    "      <data name=\"Name\" inType=\"win:UnicodeString\"/>\n"
    "      <data name=\"Count\" inType=\"win:Int32\"/>\n"
    "     </template>\n"
    "    </templates>\n"
    "    <events>\n"
    "     <event value=\"1\" version=\"0\" task=\"Work\" template=\"WorkArgs\" symbol=\"DoWork\"/>\n"
    "    </events>\n"
    "   </provider>\n"
    "  </events>\n"
    " </instrumentation>\n"
    "</instrumentationManifest>\n";

static uint8_t g_payload[70000];

static etl_event_record chunk_record(const etl_guid *provider, uint16_t total, uint16_t number, const void *data,
                                     size_t n, uint8_t magic)
{
    g_payload[0] = 1;  /* Format: SimpleXml */
    g_payload[1] = 1;  /* MajorVersion */
    g_payload[2] = 0;  /* MinorVersion */
    g_payload[3] = magic;
    g_payload[4] = (uint8_t)total;
    g_payload[5] = (uint8_t)(total >> 8);
    g_payload[6] = (uint8_t)number;
    g_payload[7] = (uint8_t)(number >> 8);
    memcpy(g_payload + 8, data, n);
    etl_event_record r;
    memset(&r, 0, sizeof r);
    r.kind = ETL_KIND_EVENT64;
    r.pointer_size = 8;
    r.header.provider_id = *provider;
    r.header.process_id = 100;
    r.header.thread_id = 200;
    r.header.descriptor.id = 0xFFFE;
    r.header.descriptor.version = 1;
    r.header.descriptor.opcode = 0xFE;
    r.header.descriptor.task = 0xFFFE;
    r.header.descriptor.keyword = 0x00FFFFFFFFFFFFFFull;
    r.user_data = g_payload;
    r.user_data_length = (uint16_t)(n + 8);
    return r;
}

/* Sends the manifest in `parts` chunks; `skip` (if < parts) is a chunk that gets lost. */
static void send_manifest(etl_eventsource_state *s, const etl_guid *provider, uint16_t parts, int skip)
{
    size_t len = strlen(manifest_xml), step = (len + parts - 1) / parts;
    for (uint16_t i = 0; i < parts; i++) {
        size_t off = i * step, n = off + step > len ? len - off : step;
        etl_event_record r = chunk_record(provider, parts, i, manifest_xml + off, n, 0x5B);
        if (i != skip) assert_int_equal(etl_eventsource_observe(s, &r), 1);
    }
}

static void test_chunks_reassembled_and_loaded(void **state)
{
    (void)state;
    etl_schema_registry *reg = etl_schema_registry_new();
    etl_eventsource_state *s = etl_eventsource_new(reg);
    send_manifest(s, &my_provider, 3, -1);
    const etl_eventsource_stats *st = etl_eventsource_get_stats(s);
    if (st->manifests_loaded != 1) fail_msg("not loaded: %s", etl_eventsource_last_error(s));
    assert_int_equal(st->chunks, 3);
    assert_int_equal(st->chunks_dropped, 0);
    const etl_event_info *info = etl_schema_registry_find(reg, ETL_KEY_MANIFEST, &my_provider, 1, 0);
    assert_non_null(info);
    assert_int_equal(info->source, ETL_SOURCE_EVENTSOURCE);
    assert_int_equal(info->top_level_count, 2);
    assert_string_equal(info->properties[0].name, "Name");
    assert_string_equal(info->properties[1].name, "Count");
    assert_string_equal(etl_schema_registry_provider_name(reg, &my_provider), "My-Test-Source");

    /* The ManifestData event itself: PerfView's six envelope fields. */
    info = etl_schema_registry_find(reg, ETL_KEY_MANIFEST, &my_provider, 0xFFFE, 1);
    assert_non_null(info);
    static const char *const fields[] = {"Format", "MajorVersion", "MinorVersion", "Magic", "TotalChunks",
                                         "ChunkNumber"};
    assert_int_equal(info->top_level_count, 6);
    for (int i = 0; i < 6; i++) assert_string_equal(info->properties[i].name, fields[i]);
    assert_int_equal(info->properties[4].in_type, ETL_IN_UINT16);
    assert_string_equal(info->event_name, "ManifestData");

    /* An identical re-send is not parsed again. */
    send_manifest(s, &my_provider, 1, -1);
    assert_int_equal(st->manifests_repeated, 1);
    assert_int_equal(st->manifests_loaded, 1);
    etl_eventsource_free(s);
    etl_schema_registry_free(reg);
}

static void test_lost_chunk_invalidates_manifest(void **state)
{
    (void)state;
    etl_schema_registry *reg = etl_schema_registry_new();
    etl_eventsource_state *s = etl_eventsource_new(reg);
    send_manifest(s, &my_provider, 4, 2);
    const etl_eventsource_stats *st = etl_eventsource_get_stats(s);
    assert_int_equal(st->manifests_loaded, 0);
    assert_int_equal(st->chunks_dropped, 3);
    assert_null(etl_schema_registry_find(reg, ETL_KEY_MANIFEST, &my_provider, 1, 0));
    /* A fresh complete sequence still works afterwards. */
    send_manifest(s, &my_provider, 2, -1);
    assert_int_equal(st->manifests_loaded, 1);
    etl_eventsource_free(s);
    etl_schema_registry_free(reg);
}

static void test_not_chunks(void **state)
{
    (void)state;
    etl_schema_registry *reg = etl_schema_registry_new();
    etl_eventsource_state *s = etl_eventsource_new(reg);
    etl_event_record r = chunk_record(&my_provider, 1, 0, "<x/>", 4, 0x5A);
    assert_int_equal(etl_eventsource_observe(s, &r), 0);      /* wrong magic */
    r = chunk_record(&my_provider, 1, 0, "", 0, 0x5B);
    assert_int_equal(etl_eventsource_observe(s, &r), 0);      /* envelope only */
    r = chunk_record(&my_provider, 1, 0, "<x/>", 4, 0x5B);
    r.header.descriptor.id = 12;
    assert_int_equal(etl_eventsource_observe(s, &r), 0);      /* another event */
    etl_extended_item tl = {ETL_EXT_EVENT_SCHEMA_TL, 0, NULL};
    r = chunk_record(&my_provider, 1, 0, "<x/>", 4, 0x5B);
    r.extended_data = &tl;
    r.extended_data_count = 1;
    assert_int_equal(etl_eventsource_observe(s, &r), 0);      /* a TraceLogging event that happens to match */
    r = chunk_record(&my_provider, 2, 5, "<x/>", 4, 0x5B);
    assert_int_equal(etl_eventsource_observe(s, &r), 1);      /* chunk number beyond total */
    r = chunk_record(&my_provider, 0, 0, "<x/>", 4, 0x5B);
    assert_int_equal(etl_eventsource_observe(s, &r), 1);      /* zero chunks */
    assert_int_equal(etl_eventsource_get_stats(s)->chunks_dropped, 2);
    assert_int_equal(etl_eventsource_get_stats(s)->manifests_loaded, 0);

    /* A manifest the parser refuses: counted, with a message. */
    r = chunk_record(&my_provider, 1, 0, "<instrumentationManifest", 24, 0x5B);
    assert_int_equal(etl_eventsource_observe(s, &r), 1);
    assert_int_equal(etl_eventsource_get_stats(s)->manifests_failed, 1);
    assert_non_null(etl_eventsource_last_error(s));

    /* The .NET runtime's own manifest is ignored. */
    static const etl_guid runtime = {0xe13c0d23, 0xccbc, 0x4e12, {0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4}};
    send_manifest(s, &runtime, 1, -1);
    assert_int_equal(etl_eventsource_get_stats(s)->manifests_ignored, 1);
    etl_eventsource_free(s);
    etl_schema_registry_free(reg);
}

/* A manifest that would exceed the 32 MiB bound is dropped, not accumulated. */
static void test_manifest_size_bound(void **state)
{
    (void)state;
    etl_schema_registry *reg = etl_schema_registry_new();
    etl_eventsource_state *s = etl_eventsource_new(reg);
    static uint8_t chunk[65000];
    memset(chunk, 'x', sizeof chunk);
    for (uint16_t i = 0; i < 600; i++) {
        etl_event_record r = chunk_record(&my_provider, 1000, i, chunk, sizeof chunk, 0x5B);
        assert_int_equal(etl_eventsource_observe(s, &r), 1);
    }
    const etl_eventsource_stats *st = etl_eventsource_get_stats(s);
    assert_true(st->chunks_dropped >= 516); /* 516 chunks of 65,000 bytes exceed 32 MiB */
    assert_int_equal(st->manifests_loaded + st->manifests_failed, 0);
    etl_eventsource_free(s);
    etl_schema_registry_free(reg);
}

static void test_fuzzed_chunks(void **state)
{
    (void)state;
    etl_schema_registry *reg = etl_schema_registry_new();
    etl_eventsource_state *s = etl_eventsource_new(reg);
    uint32_t seed = 99;
    for (int i = 0; i < 20000; i++) {
        seed = seed * 1103515245u + 12345u;
        etl_guid g = my_provider;
        g.data1 += seed % 7;
        etl_event_record r = chunk_record(&g, (uint16_t)(seed >> 8) % 5, (uint16_t)(seed >> 12) % 6, manifest_xml,
                                          (seed >> 16) % 300, 0x5B);
        r.header.thread_id = (seed >> 20) % 3;
        etl_eventsource_observe(s, &r);
    }
    assert_true(etl_eventsource_get_stats(s)->chunks > 0);
    etl_eventsource_free(s);
    etl_schema_registry_free(reg);
}

/* ---- real traces --------------------------------------------------------------------------------------- */

#define MAX_KEYS 64

typedef struct key_count {
    char key[160];
    long count;
} key_count;

typedef struct trace_ctx {
    etl_schema_registry *registry;
    etl_eventsource_state *state;
    const etl_guid *providers;
    size_t provider_count;
    key_count keys[MAX_KEYS];
    size_t key_count;
    long without_schema;
} trace_ctx;

static void count_key(trace_ctx *c, const char *key)
{
    for (size_t i = 0; i < c->key_count; i++)
        if (strcmp(c->keys[i].key, key) == 0) {
            c->keys[i].count++;
            return;
        }
    assert_true(c->key_count < MAX_KEYS);
    snprintf(c->keys[c->key_count].key, sizeof c->keys[0].key, "%.150s", key);
    c->keys[c->key_count++].count = 1;
}

/* Every event of the EventSource providers must find its schema when it arrives; counted under PerfView's
 * "Provider/Task[/Opcode]" key (ManifestData for the chunks). */
static int on_record(const etl_event_record *r, void *vctx)
{
    trace_ctx *c = vctx;
    etl_eventsource_observe(c->state, r);
    size_t i = 0;
    while (i < c->provider_count && !etl_guid_equal(&c->providers[i], &r->header.provider_id)) i++;
    if (i == c->provider_count) return 0;
    const etl_event_info *info = etl_schema_registry_find(c->registry, ETL_KEY_MANIFEST, &r->header.provider_id,
                                                         r->header.descriptor.id, r->header.descriptor.version);
    if (!info) {
        c->without_schema++;
        return 0;
    }
    const char *provider = etl_schema_registry_provider_name(c->registry, &r->header.provider_id);
    char key[160];
    if (info->event_name && strcmp(info->event_name, "ManifestData") == 0)
        snprintf(key, sizeof key, "%s/ManifestData", provider ? provider : "?");
    else if (info->opcode_name && r->header.descriptor.opcode != 0)
        snprintf(key, sizeof key, "%s/%s/%s", provider ? provider : "?", info->task_name ? info->task_name : "?",
                 info->opcode_name);
    else
        snprintf(key, sizeof key, "%s/%s", provider ? provider : "?", info->task_name ? info->task_name : "?");
    count_key(c, key);
    return 0;
}

/* COUNT lines of a PerfView baseline whose key starts with one of `prefixes`. */
static size_t baseline_counts(const char *path, const char *const *prefixes, size_t n, key_count *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    size_t count = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "COUNT ", 6) != 0) continue;
        char *key = line + 6, *colon = strrchr(key, ':');
        if (!colon) continue;
        *colon = '\0';
        for (size_t i = 0; i < n; i++)
            if (strncmp(key, prefixes[i], strlen(prefixes[i])) == 0 && count < cap) {
                snprintf(out[count].key, sizeof out[0].key, "%.150s", key);
                out[count++].count = strtol(colon + 1, NULL, 10);
            }
    }
    fclose(f);
    return count;
}

/* Reads a trace with a fresh registry and EventSource state, counting the events of `guids`. */
static trace_ctx *run_trace(const char *path, const char *const *guids, size_t n, etl_guid *providers)
{
    static trace_ctx c;
    memset(&c, 0, sizeof c);
    for (size_t i = 0; i < n; i++) assert_int_equal(etl_guid_parse(guids[i], &providers[i]), 0);
    c.registry = etl_schema_registry_new();
    c.state = etl_eventsource_new(c.registry);
    c.providers = providers;
    c.provider_count = n;
    long reader_errors = 0;
    assert_true(sd_for_each_record(path, on_record, &c, &reader_errors) > 0);
    assert_int_equal(reader_errors, 0);
    return &c;
}

static void free_trace(trace_ctx *c)
{
    etl_eventsource_free(c->state);
    etl_schema_registry_free(c->registry);
}

static void test_net452_eventsources(void **state)
{
    (void)state;
    /* perfview/net.4.5.2.x86: the EventSources PerfView, TplEventSource and FrameworkEventSource write their
     * manifests into the trace (PerfView's twice). Every event of theirs must decode with the manifest seen
     * before it, and the per-event-type counts must be PerfView's COUNT lines. */
    static const char *const names[] = {"PerfView/", "System.Threading.Tasks.TplEventSource/",
                                        "System.Diagnostics.Eventing.FrameworkEventSource/"};
    static const char *const guids[] = {"{a8a71ac1-040f-54a2-07ca-00a89b5ab761}",
                                        "{2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5}",
                                        "{8e9f5090-2d75-4d03-8a81-e5afbf85daf1}"};
    etl_guid providers[3];
    trace_ctx *c = run_trace("testdata/perfview/net.4.5.2.x86.etl.gz", guids, 3, providers);
    const etl_eventsource_stats *st = etl_eventsource_get_stats(c->state);
    assert_int_equal(st->chunks, 4);
    assert_int_equal(st->manifests_loaded, 3);
    assert_int_equal(st->manifests_repeated, 1);
    assert_int_equal(st->manifests_failed, 0);
    assert_int_equal(c->without_schema, 0);

    key_count want[MAX_KEYS];
    size_t n = baseline_counts("testdata/perfview/net.4.5.2.x86.baseline.txt", names, 3, want, MAX_KEYS);
    assert_int_equal(n, 21);
    for (size_t i = 0; i < n; i++) {
        long got = 0;
        for (size_t k = 0; k < c->key_count; k++)
            if (strcmp(c->keys[k].key, want[i].key) == 0) got = c->keys[k].count;
        if (got != want[i].count) fail_msg("%s: %ld events, PerfView counts %ld", want[i].key, got, want[i].count);
    }
    assert_int_equal(c->key_count, n);

    /* Field lists PerfView prints for a few of them. */
    const etl_event_info *info = etl_schema_registry_find(c->registry, ETL_KEY_MANIFEST, &providers[0], 11, 0);
    assert_non_null(info);
    static const char *const session[] = {"sessionName", "sessionFileName", "bufferSizeMB", "circularBuffSizeMB"};
    assert_int_equal(info->top_level_count, 4);
    for (int i = 0; i < 4; i++) assert_string_equal(info->properties[i].name, session[i]);
    free_trace(c);
}

static void test_terraingen_eventsources(void **state)
{
    (void)state;
    /* terraingen2d/PerfViewData: manifests of PerfView and of the application's own EventSource, each sent
     * more than once. The provider names are confirmed by their GUIDs, which EventSource derives from the
     * name (schemas.md §4.5: SHA-1 name hash, checked with Python's hashlib). */
    static const char *const guids[] = {"{a8a71ac1-040f-54a2-07ca-00a89b5ab761}",
                                        "{550bde9a-7248-5bfa-8400-3572cf6fb950}"};
    etl_guid providers[2];
    trace_ctx *c = run_trace("testdata/terraingen2d/PerfViewData.etl.gz", guids, 2, providers);
    const etl_eventsource_stats *st = etl_eventsource_get_stats(c->state);
    assert_int_equal(st->manifests_loaded, 2);
    assert_int_equal(st->manifests_failed, 0);
    assert_int_equal(st->chunks_dropped, 0);
    assert_string_equal(etl_schema_registry_provider_name(c->registry, &providers[1]),
                        "JohnLudlow.TerrainGeneration2D.Performance");
    assert_string_equal(etl_schema_registry_provider_name(c->registry, &providers[0]), "PerfView");
    free_trace(c);
}

/* ---- rendered values against PerfView's baseline ------------------------------------------------------ */

/* PerfView-only renderings, skipped with the reason. */
static int skipped_field(const char *key, const char *name)
{
    size_t n = strlen(key);
    if (n > 13 && strcmp(key + n - 13, "/ManifestData") == 0 && strcmp(name, "PayloadLength") == 0)
        return 1; /* PerfView adds the payload length; it is not a field */
    if ((strcmp(key, "PerfView/ProviderEnableParameters") == 0 || strcmp(key, "PerfView/ClrEnableParameters") == 0) &&
        strcmp(name, "keywords") == 0)
        return 1; /* win:UInt64 without a hex out-type: TDH prints decimal, PerfView hex */
    return 0;
}

static void test_net452_values_match_perfview(void **state)
{
    (void)state;
    /* Every EVENT line of perfview/net.4.5.2.x86.baseline.txt for the EventSources (PerfView, Tpl, Framework)
     * and for the providers PerfView decoded from the trace's MetaData events (DNS-Client, Immersive-Shell,
     * Kernel-EventTracing): our event of the same key and rank carries the same field values. */
    static const char *const providers[] = {
        "PerfView/", "System.Threading.Tasks.TplEventSource/", "System.Diagnostics.Eventing.FrameworkEventSource/",
        "Microsoft-Windows-DNS-Client/", "Microsoft-Windows-Immersive-Shell/", "Microsoft-Windows-Kernel-EventTracing/"};
    pv_compare *c = pv_compare_trace("testdata/perfview/net.4.5.2.x86.etl.gz",
                                     "testdata/perfview/net.4.5.2.x86.baseline.txt", providers, 6, skipped_field);
    assert_int_equal(c->line_count, 76); /* EVENT lines of these providers in the baseline */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunks_reassembled_and_loaded),
        cmocka_unit_test(test_lost_chunk_invalidates_manifest),
        cmocka_unit_test(test_not_chunks),
        cmocka_unit_test(test_manifest_size_bound),
        cmocka_unit_test(test_fuzzed_chunks),
        cmocka_unit_test(test_net452_eventsources),
        cmocka_unit_test(test_terraingen_eventsources),
        cmocka_unit_test(test_net452_values_match_perfview),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
