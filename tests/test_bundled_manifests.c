/* The bundled Windows component manifests (src/schema/bundled: SystemEvents.man, HTTP_Server.man, ... from
 * microsoft/Tx) decode manifest providers with no option. Oracles:
 *  - net.4.5.2.x86 carries the recording machine's own description of its Microsoft-Windows-Kernel-* events
 *    (KernelTraceControl metadata written by Windows' TDH; test_perfview_baselines checks that decode
 *    against PerfView). Decoded instead with the bundled manifests alone (trace schemas ignored), every one
 *    of those events must give the same field names and values, and per provider there must be as many as
 *    PerfView's COUNT lines say;
 *  - the microsoft/Tx traces, recorded to be read with these manifests, decode without a no-schema event.
 * Bundled manifests load when a lookup first names one of their GUIDs (deferred_files.h): every corpus trace
 * must decode exactly as with the folder loaded up front. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etl/etl_schema.h"
#include "schema/deferred_files.h"
#include "support/baseline.h"
#include "support/corpus.h"

#define NET452 "testdata/perfview/net.4.5.2.x86.etl.gz"
#define NET452_BASELINE "testdata/perfview/net.4.5.2.x86.baseline.txt"
#define KERNEL_PREFIX "Microsoft-Windows-Kernel-"
#define MAX_PROVIDERS 16

typedef struct provider_tally {
    char name[128];
    unsigned long compared, differ;
} provider_tally;

typedef struct comparison {
    etl_decoder *embedded, *bundled;
    provider_tally providers[MAX_PROVIDERS];
    size_t provider_count;
    unsigned long printed;
} comparison;

/* etl_open reads .etl.gz directly */
static etl_trace *open_trace(const char *gz)
{
    const char *paths[1] = {gz};
    etl_trace *trace;
    etl_error err;
    if (etl_open(&trace, paths, 1, NULL, &err) != ETL_OK) fail_msg("%s", err.message);
    return trace;
}

/* What etlconv loads with no option (ignoring a caller's $ETLCONV_SCHEMA_PATH). */
static etl_schema_registry *bundled_registry(void)
{
    etl_schema_registry *reg = etl_schema_registry_new();
    assert_non_null(reg);
    unsetenv("ETLCONV_SCHEMA_PATH");
    etl_error err;
    if (etl_schema_load_bundled(reg, &err) != ETL_OK) fail_msg("%s", err.message);
    return reg;
}

static provider_tally *tally_for(comparison *c, const char *provider)
{
    for (size_t i = 0; i < c->provider_count; i++)
        if (strcmp(c->providers[i].name, provider) == 0) return &c->providers[i];
    assert_true(c->provider_count < MAX_PROVIDERS);
    provider_tally *t = &c->providers[c->provider_count++];
    snprintf(t->name, sizeof t->name, "%s", provider);
    return t;
}

/* Same fields, in the same order, with the same values (each decoder owns its result, so both are valid). */
static int same_fields(const etl_decoded_event *a, const etl_decoded_event *b, char *why, size_t cap)
{
    if (a->field_count != b->field_count) {
        snprintf(why, cap, "%zu fields vs %zu", a->field_count, b->field_count);
        return 0;
    }
    for (size_t i = 0; i < a->field_count; i++) {
        const etl_field *x = &a->fields[i], *y = &b->fields[i];
        if (strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0 ||
            strcmp(x->value ? x->value : "", y->value ? y->value : "") != 0) {
            snprintf(why, cap, "field %zu: %s=%s vs %s=%s", i, x->name, x->value, y->name, y->value);
            return 0;
        }
    }
    return 1;
}

static int on_record(const etl_event_record *rec, void *ctx)
{
    comparison *c = ctx;
    const etl_decoded_event *a, *b;
    if (etl_decode_event(c->embedded, rec, &a) != ETL_OK) return 1;
    if (a->source != ETL_SOURCE_EMBEDDED_TDH || strncmp(a->provider_name, KERNEL_PREFIX, strlen(KERNEL_PREFIX)))
        return etl_decode_event(c->bundled, rec, &b) != ETL_OK;  /* keep the second decoder's state in step */
    /* etl_decode_event's result lives until the decoder's next call, so both can be held at once */
    if (etl_decode_event(c->bundled, rec, &b) != ETL_OK) return 1;
    provider_tally *t = tally_for(c, a->provider_name);
    t->compared++;
    char why[512] = "";
    int ok = b->status == ETL_DECODE_OK && b->source == ETL_SOURCE_BUNDLED &&
             strcmp(a->provider_name, b->provider_name) == 0 && same_fields(a, b, why, sizeof why);
    if (!ok) {
        t->differ++;
        if (c->printed++ < 10)
            printf("  DIFFER %s %s id %u v%u: bundled status %d source %d %s\n", a->provider_name, a->event_name,
                   rec->header.descriptor.id, rec->header.descriptor.version, b->status, b->source, why);
    }
    return 0;
}

/* PerfView's COUNT lines summed per provider ("<Provider>/<Event>:N"). */
static unsigned long perfview_count(const baseline *base, const char *provider)
{
    unsigned long n = 0;
    size_t len = strlen(provider);
    for (size_t i = 0; i < base->count_count; i++)
        if (strncmp(base->counts[i].key, provider, len) == 0 && base->counts[i].key[len] == '/')
            n += base->counts[i].count;
    return n;
}

static void test_kernel_providers_match_trace_metadata(void **state)
{
    (void)state;
    etl_trace *trace = open_trace(NET452);
    etl_schema_registry *none = etl_schema_registry_new(), *bundled = bundled_registry();
    assert_non_null(none);
    comparison c;
    memset(&c, 0, sizeof c);
    c.embedded = etl_decoder_new(none, trace);
    c.bundled = etl_decoder_new(bundled, trace);
    assert_non_null(c.embedded);
    assert_non_null(c.bundled);
    etl_decoder_set_flags(c.bundled, ETL_DECODER_NO_TRACE_SCHEMAS);
    assert_int_equal(etl_process(trace, on_record, &c), ETL_OK);

    baseline base;
    char berr[256];
    if (baseline_load(NET452_BASELINE, &base, berr, sizeof berr) != 0) fail_msg("%s", berr);
    unsigned long total = 0, differ = 0, want_total = 0;
    for (size_t i = 0; i < c.provider_count; i++) {
        const provider_tally *t = &c.providers[i];
        unsigned long want = perfview_count(&base, t->name);
        printf("%s: %lu events described by the trace's metadata, %lu differ with the bundled manifests "
               "(PerfView COUNT lines: %lu)\n", t->name, t->compared, t->differ, want);
        assert_int_equal(t->compared, want);
        total += t->compared;
        differ += t->differ;
    }
    /* every Kernel-* provider PerfView counted was compared (none missed because its decode failed) */
    for (size_t i = 0; i < base.count_count; i++)
        if (strncmp(base.counts[i].key, KERNEL_PREFIX, strlen(KERNEL_PREFIX)) == 0) want_total += base.counts[i].count;
    assert_true(total > 0);
    assert_int_equal(total, want_total);
    assert_int_equal(differ, 0);

    baseline_free(&base);
    etl_decoder_free(c.embedded);
    etl_decoder_free(c.bundled);
    etl_schema_registry_free(none);
    etl_schema_registry_free(bundled);
    etl_close(trace);
}

/* ---- the Tx traces with no option ------------------------------------------------------------------------ */

static int on_decode(const etl_event_record *rec, void *ctx)
{
    const etl_decoded_event *ev;
    return etl_decode_event(ctx, rec, &ev) != ETL_OK;
}

static void decode_with_defaults(const char *gz)
{
    etl_trace *trace = open_trace(gz);
    etl_schema_registry *reg = bundled_registry();
    etl_decoder *d = etl_decoder_new(reg, trace);
    assert_non_null(d);
    assert_int_equal(etl_process(trace, on_decode, d), ETL_OK);
    const etl_decode_stats *s = etl_decoder_get_stats(d);
    printf("%s: %lu decoded (%lu by bundled manifests), %lu no schema, %lu errors\n", gz,
           (unsigned long)s->decoded, (unsigned long)s->by_source[ETL_SOURCE_BUNDLED], (unsigned long)s->no_schema,
           (unsigned long)s->decode_errors);
    /* the header event is the kernel's; every other event is the manifest provider's */
    assert_int_equal(s->no_schema, 0);
    assert_int_equal(s->decode_errors, 0);
    assert_int_equal(s->by_source[ETL_SOURCE_BUNDLED] + s->by_source[ETL_SOURCE_KERNEL_MOF], s->decoded);
    assert_true(s->by_source[ETL_SOURCE_BUNDLED] > 0);
    etl_decoder_free(d);
    etl_schema_registry_free(reg);
    etl_close(trace);
}

static void test_tx_traces_decode_with_no_option(void **state)
{
    (void)state;
    decode_with_defaults("testdata/tx/Process.etl.gz");
    decode_with_defaults("testdata/tx/KernelNetwork.etl.gz");
    decode_with_defaults("testdata/tx/CrossMachineHTTP.etl.gz");
}

/* ---- deferred loading -------------------------------------------------------------------------------------- */

static unsigned loads_a, loads_b;
static void load_a(etl_schema_registry *r, const char *path) { (void)r, (void)path, loads_a++; }
static void load_b(etl_schema_registry *r, const char *path) { (void)r, (void)path, loads_b++; }
static int count_entries(const etl_event_info *info, etl_schema_key_kind kind, void *ctx)
{
    (void)info, (void)kind;
    ++*(unsigned *)ctx;
    return 0;
}

static void test_deferred_files_load_on_first_lookup(void **state)
{
    (void)state;
    etl_guid a1, a2, b1, other;
    assert_int_equal(etl_guid_parse("{22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716}", &a1), 0);
    assert_int_equal(etl_guid_parse("{7dd42a49-5329-4832-8dfd-43d979153a88}", &a2), 0);
    assert_int_equal(etl_guid_parse("{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}", &b1), 0);
    /* same low byte of data1 as a1: passes the one-byte filter, must still not load anything */
    assert_int_equal(etl_guid_parse("{000000d6-0000-0000-0000-000000000000}", &other), 0);
    etl_schema_registry *r = etl_schema_registry_new();
    assert_non_null(r);
    etl_guid ga[2] = {a1, a2};
    assert_int_equal(etl_schema_registry_defer_file(r, "a.man", ga, 2, load_a), ETL_OK);
    assert_int_equal(etl_schema_registry_defer_file(r, "b.man", &b1, 1, load_b), ETL_OK);
    loads_a = loads_b = 0;
    assert_null(etl_schema_registry_find(r, ETL_KEY_MANIFEST, &other, 1, 0));
    assert_null(etl_schema_registry_provider_name(r, &other));
    assert_int_equal(loads_a + loads_b, 0);
    assert_null(etl_schema_registry_find(r, ETL_KEY_MANIFEST, &a2, 1, 0));
    assert_int_equal(loads_a, 1);
    assert_null(etl_schema_registry_provider_name(r, &a1));   /* loaded already: not again */
    assert_int_equal(loads_a, 1);
    assert_int_equal(loads_b, 0);
    unsigned n = 0;
    etl_schema_registry_visit(r, count_entries, &n);           /* a visit sees everything: b loads */
    assert_int_equal(loads_b, 1);
    etl_schema_registry_free(r);
}

/* The GUIDs a manifest names, in UTF-8 and in UTF-16 (both byte orders, with and without byte order mark):
 * provider guid, task eventGUID (either quote, spaces around '='), each once; other attributes and text
 * ignored. */
static size_t scan_as(const char *text, int utf16, int big_endian, int bom, etl_guid *out, size_t max)
{
    size_t n = strlen(text), size = utf16 ? 2 * n + (bom ? 2 : 0) : n;
    unsigned char *buf = malloc(size ? size : 1), *p = buf;
    assert_non_null(buf);
    if (utf16 && bom) *p++ = big_endian ? 0xFE : 0xFF, *p++ = big_endian ? 0xFF : 0xFE;
    for (size_t i = 0; i < n; i++) {
        if (!utf16) *p++ = (unsigned char)text[i];
        else if (big_endian) *p++ = 0, *p++ = (unsigned char)text[i];
        else *p++ = (unsigned char)text[i], *p++ = 0;
    }
    size_t found = etl_deferred_scan_guids(buf, size, out, max);
    free(buf);
    return found;
}

static void test_guid_scan(void **state)
{
    (void)state;
    static const char doc[] =
        "<instrumentationManifest><provider name=\"P\" guid=\"{22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716}\">"
        "<task name=\"T\" eventGUID = '{7dd42a49-5329-4832-8dfd-43d979153a88}'/>"
        "<provider name=\"Q\" guid=\"{22FB2CD6-0E7B-422B-A0C7-2FAD1FD0E716}\"/>"
        "<data name=\"guid\" inType=\"win:GUID\"/> guid=not-an-attribute {e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}"
        "</instrumentationManifest>";
    etl_guid want[2], got[8];
    assert_int_equal(etl_guid_parse("{22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716}", &want[0]), 0);
    assert_int_equal(etl_guid_parse("{7dd42a49-5329-4832-8dfd-43d979153a88}", &want[1]), 0);
    for (int form = 0; form < 5; form++) {
        int utf16 = form > 0, be = form == 2 || form == 4, bom = form <= 2;
        size_t n = scan_as(doc, utf16, be, bom, got, 8);
        assert_int_equal(n, 2);
        assert_true(etl_guid_equal(&got[0], &want[0]));
        assert_true(etl_guid_equal(&got[1], &want[1]));
    }
    /* more GUIDs than the caller keeps: 0, so the file is loaded at once instead */
    assert_int_equal(scan_as(doc, 0, 0, 0, got, 1), 0);
}

/* ---- deferred bundled loading = loading the folder up front ---------------------------------------------------- */

typedef struct twin {
    etl_decoder *eager, *lazy;
    unsigned long events, differ;
} twin;

static int on_twin(const etl_event_record *rec, void *ctx)
{
    twin *t = ctx;
    const etl_decoded_event *a, *b;
    if (etl_decode_event(t->eager, rec, &a) != ETL_OK || etl_decode_event(t->lazy, rec, &b) != ETL_OK) return 1;
    t->events++;
    char why[512] = "";
    if (a->status != b->status || a->source != b->source || strcmp(a->provider_name, b->provider_name) != 0 ||
        strcmp(a->event_name, b->event_name) != 0 || !same_fields(a, b, why, sizeof why)) {
        if (t->differ++ < 5)
            printf("  DIFFER %s %s: status %d/%d source %d/%d %s\n", a->provider_name, a->event_name, a->status,
                   b->status, a->source, b->source, why);
    }
    return 0;
}

static void test_deferred_bundled_decodes_like_eager(void **state)
{
    (void)state;
    corpus_trace traces[64];
    size_t n = corpus_traces(traces, 64);
    assert_true(n >= 30);
    unsigned long total = 0;
    for (size_t i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, "testdata/%.255s", traces[i].file);
        struct stat st;
        if (stat(path, &st) != 0 || st.st_size == 0) continue;   /* etwanalyzer/empty.etl: nothing to decode */
        etl_trace *trace = open_trace(path);
        etl_schema_registry *eager = etl_schema_registry_new(), *lazy = bundled_registry();
        etl_error err;
        if (etl_schema_load_directory(eager, "src/schema/bundled", ETL_SOURCE_BUNDLED, &err) != ETL_OK)
            fail_msg("%s", err.message);
        twin t = {etl_decoder_new(eager, trace), etl_decoder_new(lazy, trace), 0, 0};
        assert_int_equal(etl_process(trace, on_twin, &t), ETL_OK);
        if (t.differ) printf("%s: %lu of %lu events differ\n", path, t.differ, t.events);
        assert_int_equal(t.differ, 0);
        total += t.events;
        etl_decoder_free(t.eager);
        etl_decoder_free(t.lazy);
        etl_schema_registry_free(eager);
        etl_schema_registry_free(lazy);
        etl_close(trace);
    }
    printf("deferred bundled manifests: %lu events of %zu corpus traces decoded as with the folder loaded up front\n",
           total, n);
    assert_true(total > 100000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deferred_files_load_on_first_lookup),
        cmocka_unit_test(test_guid_scan),
        cmocka_unit_test(test_deferred_bundled_decodes_like_eager),
        cmocka_unit_test(test_kernel_providers_match_trace_metadata),
        cmocka_unit_test(test_tx_traces_decode_with_no_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
