/* Overlays over a shared base registry (src/schema/registry.c, issue 14): the schemas the command line names
 * are parsed once into a base that every -j worker and --each file reads; what a trace teaches goes into the
 * conversion's own overlay. Oracles:
 *  - one plain registry that got the same adds in the same order (the base's, then the overlay's): what every
 *    registry did before overlays. Every key, version, kind and provider is looked up in both, and both visit
 *    the same descriptions;
 *  - a user manifest and an EventSource manifest describing the same event: the user's wins, as it does in
 *    one registry (ETL_SOURCE_USER_MANIFEST comes first in the lookup order); a bundled one loses;
 *  - a decoder over an overlay sees a schema the trace teaches mid-way from the next event on (its cache
 *    follows the overlay's generation), and the base is unchanged by it;
 *  - corpus traces decoded on two threads at once through overlays of one shared base (deferred bundled
 *    manifests loading under its lock) decode as with a plain registry of their own. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etl/etl_schema.h"
#include "schema/sources.h"
#include "support/synthetic_record.h"

static const etl_guid guids[2] = {
    {0x1a2b3c4d, 0x1111, 0x2222, {0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0x00}},
    {0x5e6f7a8b, 0x3333, 0x4444, {0x55, 0x66, 0x77, 0x88, 0x99, 0x00, 0x11, 0x22}},
};

static void add_event(etl_schema_registry *r, etl_schema_source source, int guid, uint16_t id, uint8_t version,
                      etl_schema_key_kind kind, const char *task, const char *provider_name)
{
    etl_event_info info;
    memset(&info, 0, sizeof info);
    info.source = source;
    info.provider_guid = guids[guid];
    info.event_guid = guids[guid];
    info.descriptor = (etl_event_descriptor){id, version, 0, 4, (uint8_t)id, 0, 0};
    info.provider_name = provider_name;
    info.task_name = task;
    assert_int_equal(etl_schema_registry_add(r, &info, kind), ETL_OK);
}

static const char *task_of(const etl_event_info *info) { return info ? info->task_name : "(none)"; }

/* ---- the same adds into one registry, and into a base then an overlay ------------------------------------ */

static uint32_t next_random(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

typedef struct seen {
    char lines[4096][96];
    size_t count;
} seen;

static int collect(const etl_event_info *info, etl_schema_key_kind kind, void *ctx)
{
    seen *s = ctx;
    assert_true(s->count < 4096);
    snprintf(s->lines[s->count++], 96, "%d %08x %u %u %s %d", kind,
             kind == ETL_KEY_MANIFEST ? info->provider_guid.data1 : info->event_guid.data1,
             kind == ETL_KEY_MANIFEST ? info->descriptor.id : info->descriptor.opcode, info->descriptor.version,
             info->task_name, info->source);
    return 0;
}

static int by_text(const void *a, const void *b) { return strcmp(a, b); }

static void test_overlay_resolves_as_one_registry(void **state)
{
    (void)state;
    /* sources the base gets (command line) and the overlay gets (the trace); the kernel tables and a user
     * manifest on both sides make ties, which the later add (the overlay's) wins in one registry */
    static const etl_schema_source base_sources[] = {ETL_SOURCE_USER_MANIFEST, ETL_SOURCE_USER_WEVT, ETL_SOURCE_BUNDLED,
                                                     ETL_SOURCE_KERNEL_MOF};
    static const etl_schema_source overlay_sources[] = {ETL_SOURCE_EVENTSOURCE, ETL_SOURCE_EMBEDDED_TDH,
                                                        ETL_SOURCE_KERNEL_MOF, ETL_SOURCE_USER_MANIFEST};
    static const char *const names[] = {"Alpha", "Beta", "Gamma"};
    unsigned compared = 0, from_overlay = 0, from_base = 0;
    for (uint32_t round = 0; round < 40; round++) {
        uint32_t seed = round * 7919u + 1;
        etl_schema_registry *one = etl_schema_registry_new(), *base = etl_schema_registry_new();
        assert_non_null(one);
        assert_non_null(base);
        char task[64];
        int adds = 4 + (int)(next_random(&seed) % 24);
        for (int side = 0; side < 2; side++) {
            etl_schema_registry *overlay = NULL;
            if (side == 1) {
                assert_int_equal(etl_schema_registry_share(base), ETL_OK);
                overlay = etl_schema_registry_new_overlay(base);
                assert_non_null(overlay);
                assert_ptr_equal(etl_schema_registry_base(overlay), base);
            }
            for (int i = 0; i < adds; i++) {
                etl_schema_source source = side == 0 ? base_sources[next_random(&seed) % 4]
                                                     : overlay_sources[next_random(&seed) % 4];
                int g = (int)(next_random(&seed) % 2);
                uint16_t id = (uint16_t)(next_random(&seed) % 3);
                uint8_t version = (uint8_t)(next_random(&seed) % 5);
                etl_schema_key_kind kind = next_random(&seed) % 4 == 0 ? ETL_KEY_CLASSIC : ETL_KEY_MANIFEST;
                const char *name = next_random(&seed) % 3 == 0 ? NULL : names[next_random(&seed) % 3];
                snprintf(task, sizeof task, "%s%d.%d", side ? "overlay" : "base", (int)round, i);
                add_event(one, source, g, id, version, kind, task, name);
                add_event(side ? overlay : base, source, g, id, version, kind, task, name);
            }
            if (side == 0) continue;
            /* every key, every version 0..5 (exact, below, above, none), both kinds */
            for (int g = 0; g < 2; g++) {
                for (int kind = 0; kind < 2; kind++)
                    for (uint16_t id = 0; id < 4; id++)
                        for (uint8_t v = 0; v < 6; v++) {
                            const etl_event_info *want = etl_schema_registry_find(one, (etl_schema_key_kind)kind,
                                                                                  &guids[g], id, v);
                            const etl_event_info *got = etl_schema_registry_find(overlay, (etl_schema_key_kind)kind,
                                                                                 &guids[g], id, v);
                            assert_string_equal(task_of(got), task_of(want));
                            if (got) assert_int_equal(got->source, want->source);
                            if (got && strncmp(got->task_name, "overlay", 7) == 0) from_overlay++;
                            else if (got) from_base++;
                            compared++;
                        }
                const char *want = etl_schema_registry_provider_name(one, &guids[g]);
                const char *got = etl_schema_registry_provider_name(overlay, &guids[g]);
                assert_string_equal(got ? got : "(none)", want ? want : "(none)");
            }
            static seen a, b;
            a.count = b.count = 0;
            etl_schema_registry_visit(one, collect, &a);
            etl_schema_registry_visit(overlay, collect, &b);
            assert_int_equal(a.count, b.count);
            qsort(a.lines, a.count, sizeof a.lines[0], by_text);
            qsort(b.lines, b.count, sizeof b.lines[0], by_text);
            for (size_t i = 0; i < a.count; i++) assert_string_equal(a.lines[i], b.lines[i]);
            etl_schema_registry_free(overlay);
        }
        etl_schema_registry_free(one);
        etl_schema_registry_free(base);
    }
    printf("overlay over base = one registry: %u lookups (%u resolved in the overlay, %u in the base)\n", compared,
           from_overlay, from_base);
    /* both sides must really have been exercised */
    assert_true(from_overlay > 200 && from_base > 200);
}

/* ---- the same event from a user manifest (base) and an EventSource manifest in the trace (overlay) -------- */

static void test_user_manifest_beats_eventsource(void **state)
{
    (void)state;
    etl_schema_registry *base = etl_schema_registry_new();
    add_event(base, ETL_SOURCE_USER_MANIFEST, 0, 7, 1, ETL_KEY_MANIFEST, "FromUserManifest", "User-Named");
    add_event(base, ETL_SOURCE_BUNDLED, 1, 7, 1, ETL_KEY_MANIFEST, "FromBundled", "Bundled-Named");
    assert_int_equal(etl_schema_registry_share(base), ETL_OK);
    etl_schema_registry *overlay = etl_schema_registry_new_overlay(base);
    add_event(overlay, ETL_SOURCE_EVENTSOURCE, 0, 7, 1, ETL_KEY_MANIFEST, "FromEventSource", "EventSource-Named");
    add_event(overlay, ETL_SOURCE_EVENTSOURCE, 1, 7, 1, ETL_KEY_MANIFEST, "FromEventSource", "EventSource-Named");
    /* user manifest first, then EventSource, then bundled: as in one registry */
    assert_string_equal(etl_schema_registry_find(overlay, ETL_KEY_MANIFEST, &guids[0], 7, 1)->task_name,
                        "FromUserManifest");
    assert_string_equal(etl_schema_registry_provider_name(overlay, &guids[0]), "User-Named");
    assert_string_equal(etl_schema_registry_find(overlay, ETL_KEY_MANIFEST, &guids[1], 7, 1)->task_name,
                        "FromEventSource");
    assert_string_equal(etl_schema_registry_provider_name(overlay, &guids[1]), "EventSource-Named");
    /* the base never sees what the overlay learnt: a second conversion's overlay starts from the base alone */
    etl_schema_registry *next = etl_schema_registry_new_overlay(base);
    assert_string_equal(etl_schema_registry_find(next, ETL_KEY_MANIFEST, &guids[1], 7, 1)->task_name, "FromBundled");
    assert_string_equal(etl_schema_registry_provider_name(next, &guids[1]), "Bundled-Named");
    /* an overlay cannot be a base, a shared base takes no overlay of an overlay */
    assert_null(etl_schema_registry_new_overlay(overlay));
    assert_int_equal(etl_schema_registry_share(overlay), ETL_ERR_ARG);
    etl_schema_registry_free(next);
    etl_schema_registry_free(overlay);
    etl_schema_registry_free(base);
}

/* ---- a decoder over an overlay: a schema taught mid-trace is used from the next event on ------------------ */

static const uint8_t payload[4] = {0x2A, 0, 0, 0};

static void test_overlay_change_reaches_the_decoder(void **state)
{
    (void)state;
    static const etl_property_info props[] = {{"Value", 0, ETL_IN_UINT32, ETL_OUT_NULL, 0, 0, 1, 0, NULL}};
    etl_schema_registry *base = etl_schema_registry_new();
    etl_event_info info;
    memset(&info, 0, sizeof info);
    info.source = ETL_SOURCE_BUNDLED;
    info.provider_guid = guids[0];
    info.descriptor = (etl_event_descriptor){9, 0, 0, 4, 0, 0, 0};
    info.provider_name = "Shared-Provider";
    info.task_name = "FromBase";
    info.properties = props;
    info.property_count = info.top_level_count = 1;
    assert_int_equal(etl_schema_registry_add(base, &info, ETL_KEY_MANIFEST), ETL_OK);
    assert_int_equal(etl_schema_registry_share(base), ETL_OK);
    etl_schema_registry *overlay = etl_schema_registry_new_overlay(base);
    etl_decoder *d = etl_decoder_new(overlay, NULL);
    assert_non_null(d);
    etl_event_record rec;
    assert_int_equal(synthetic_record(&rec, "1a2b3c4d-1111-2222-3344-556677889900", 9, 0, 4, 0, payload, sizeof payload), 0);
    const etl_decoded_event *ev;
    assert_int_equal(etl_decode_event(d, &rec, &ev), ETL_OK);
    assert_string_equal(ev->event_name, "FromBase");
    assert_int_equal(ev->source, ETL_SOURCE_BUNDLED);
    uint64_t generation = etl_schema_registry_generation(overlay);
    info.source = ETL_SOURCE_EVENTSOURCE;
    info.task_name = "FromTrace";
    assert_int_equal(etl_schema_registry_add(overlay, &info, ETL_KEY_MANIFEST), ETL_OK);
    assert_true(etl_schema_registry_generation(overlay) != generation);
    assert_int_equal(etl_decode_event(d, &rec, &ev), ETL_OK);
    assert_string_equal(ev->event_name, "FromTrace");
    assert_int_equal(ev->source, ETL_SOURCE_EVENTSOURCE);
    assert_int_equal(ev->field_count, 1);
    assert_string_equal(ev->fields[0].value, "42");
    etl_decoder_free(d);
    etl_schema_registry_free(overlay);
    etl_schema_registry_free(base);
}

/* ---- corpus traces on two threads through overlays of one shared base ------------------------------------ */

static const char *const traces[] = {
    "testdata/perfview/gcevents.PerfViewData.etl.gz",            /* CLR: deferred bundled manifests */
    "testdata/perfview/gcrundownevents.PerfViewData.clrRundown.etl.gz",
    "testdata/tx/BondEtwSample.etl.gz",                          /* microsoft/Tx manifests, bundled */
    "testdata/perfview/SelfDescribingSingleEvent.etl.gz",
    "testdata/tx/KernelNetwork.etl.gz",                          /* kernel MOF */
    "testdata/perfview/primitive-types.etl.gz",
};
#define TRACE_COUNT (sizeof traces / sizeof traces[0])

typedef struct digest_ctx {
    etl_decoder *decoder;
    uint64_t hash;
    unsigned long events;
    uint64_t *each;     /* optional: one hash per event */
    size_t each_cap;
} digest_ctx;

static void mix_text(uint64_t *h, const char *s)
{
    for (; s && *s; s++) *h = (*h ^ (unsigned char)*s) * 0x100000001b3ULL;
    *h = (*h ^ 0xFF) * 0x100000001b3ULL;
}

static int on_record(const etl_event_record *rec, void *arg)
{
    digest_ctx *c = arg;
    const etl_decoded_event *ev;
    if (etl_decode_event(c->decoder, rec, &ev) != ETL_OK) return 1;
    char head[64];
    uint64_t h = 0xcbf29ce484222325ULL;
    snprintf(head, sizeof head, "%d %d", ev->status, ev->source);
    mix_text(&h, head);
    mix_text(&h, ev->provider_name);
    mix_text(&h, ev->event_name);
    for (size_t i = 0; i < ev->field_count; i++) {
        mix_text(&h, ev->fields[i].name);
        mix_text(&h, ev->fields[i].value);
    }
    c->hash = (c->hash ^ h) * 0x100000001b3ULL;
    if (c->each && c->events < c->each_cap) c->each[c->events] = h;
    c->events++;
    return 0;
}

static uint64_t digest_each(const char *path, etl_schema_registry *registry, unsigned long *events, uint64_t *each,
                            size_t each_cap)
{
    const char *paths[1] = {path};
    etl_trace *trace;
    etl_error err;
    if (etl_open(&trace, paths, 1, NULL, &err) != ETL_OK) return 0;
    digest_ctx c = {etl_decoder_new(registry, trace), 0xcbf29ce484222325ULL, 0, each, each_cap};
    int rc = c.decoder ? etl_process(trace, on_record, &c) : ETL_ERR_NOMEM;
    etl_decoder_free(c.decoder);
    etl_close(trace);
    *events = c.events;
    return rc == ETL_OK ? c.hash : 0;
}

static uint64_t digest(const char *path, etl_schema_registry *registry, unsigned long *events)
{
    return digest_each(path, registry, events, NULL, 0);
}

static uint64_t want_digest[TRACE_COUNT];

typedef struct thread_job {
    const etl_schema_registry *base;
    int backwards;
    int mismatches, failures;
} thread_job;

static void *decode_all(void *arg)
{
    thread_job *job = arg;
    for (size_t k = 0; k < TRACE_COUNT; k++) {
        size_t i = job->backwards ? TRACE_COUNT - 1 - k : k;
        etl_schema_registry *overlay = etl_schema_registry_new_overlay(job->base);
        unsigned long events;
        uint64_t got = overlay ? digest(traces[i], overlay, &events) : 0;
        if (!got) job->failures++;
        else if (got != want_digest[i]) job->mismatches++;
        etl_schema_registry_free(overlay);
    }
    return NULL;
}

static void test_two_threads_share_one_base(void **state)
{
    (void)state;
    unsetenv("ETLCONV_SCHEMA_PATH");
    etl_error err;
    unsigned long total = 0;
    for (size_t i = 0; i < TRACE_COUNT; i++) {
        etl_schema_registry *plain = etl_schema_registry_new();
        assert_int_equal(etl_schema_load_bundled(plain, &err), ETL_OK);
        unsigned long events;
        want_digest[i] = digest(traces[i], plain, &events);
        assert_true(want_digest[i] != 0);
        total += events;
        etl_schema_registry_free(plain);
    }
    etl_schema_registry *base = etl_schema_registry_new();
    assert_int_equal(etl_schema_load_bundled(base, &err), ETL_OK);
    assert_int_equal(etl_schema_registry_share(base), ETL_OK);
    thread_job jobs[2] = {{base, 0, 0, 0}, {base, 1, 0, 0}};
    pthread_t threads[2];
    for (int t = 0; t < 2; t++) assert_int_equal(pthread_create(&threads[t], NULL, decode_all, &jobs[t]), 0);
    for (int t = 0; t < 2; t++) assert_int_equal(pthread_join(threads[t], NULL), 0);
    for (int t = 0; t < 2; t++) {
        assert_int_equal(jobs[t].failures, 0);
        assert_int_equal(jobs[t].mismatches, 0);
    }
    printf("%zu corpus traces (%lu events) decoded on 2 threads over one shared base as with a registry each\n",
           TRACE_COUNT, total);
    etl_schema_registry_free(base);
}

/* ---- what one --each file teaches stays in its overlay ------------------------------------------------------ */

#define TAUGHT "testdata/etwanalyzer/TraceLoggingTester.etl.gz"
#define LEARNER "testdata/perfview/net.4.5.x86.PerfViewData.etl.gz"
#define LEARNER_MAX 400000

static void test_file_schemas_stay_in_their_overlay(void **state)
{
    (void)state;
    unsetenv("ETLCONV_SCHEMA_PATH");
    etl_error err;
    uint64_t *alone = calloc(LEARNER_MAX, sizeof *alone), *after = calloc(LEARNER_MAX, sizeof *after);
    assert_non_null(alone);
    assert_non_null(after);
    etl_schema_registry *plain = etl_schema_registry_new();
    assert_int_equal(etl_schema_load_bundled(plain, &err), ETL_OK);
    unsigned long events, taught_events, after_events;
    uint64_t want = digest_each(LEARNER, plain, &events, alone, LEARNER_MAX);
    assert_true(want != 0 && events > 100000 && events <= LEARNER_MAX);

    etl_schema_registry *base = etl_schema_registry_new();
    assert_int_equal(etl_schema_load_bundled(base, &err), ETL_OK);
    assert_int_equal(etl_schema_registry_share(base), ETL_OK);
    etl_schema_registry *first = etl_schema_registry_new_overlay(base), *second = etl_schema_registry_new_overlay(base);
    assert_true(digest(TAUGHT, first, &taught_events) != 0);
    /* the second file through an overlay of its own: as alone */
    assert_int_equal(digest(LEARNER, second, &after_events), want);
    /* witness that the check can fail: through the first file's overlay (what one registry for both files
     * did), events of the second decode otherwise */
    assert_true(digest_each(LEARNER, first, &after_events, after, LEARNER_MAX) != want);
    assert_int_equal(after_events, events);
    unsigned long differ = 0;
    for (unsigned long i = 0; i < events; i++) differ += alone[i] != after[i];
    printf("%s after %s: 0 events differ through its own overlay, %lu of %lu through the first file's\n", LEARNER,
           TAUGHT, differ, events);
    assert_true(differ > 0);
    etl_schema_registry_free(first);
    etl_schema_registry_free(second);
    etl_schema_registry_free(base);
    etl_schema_registry_free(plain);
    free(alone);
    free(after);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlay_resolves_as_one_registry),
        cmocka_unit_test(test_user_manifest_beats_eventsource),
        cmocka_unit_test(test_overlay_change_reaches_the_decoder),
        cmocka_unit_test(test_two_threads_share_one_base),
        cmocka_unit_test(test_file_schemas_stay_in_their_overlay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
