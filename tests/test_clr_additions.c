/* The bundled ClrEtwRuntimeAdditions.man (the .NET 5+ runtime events PerfView's ClrEtwAll.man predates):
 * it declares no (provider, id, version) that ClrEtwAll.man has, so every event ClrEtwAll.man describes
 * decodes exactly as without it; and on the .NET 5+ PerfView traces every record it describes decodes with
 * all payload bytes consumed (the record sizes are the independent cross-check of the layouts). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etl/etl_schema.h"
#include "support/corpus.h"

#define CLR_ALL "src/schema/bundled/ClrEtwAll.man"
#define CLR_ADDITIONS "src/schema/bundled/ClrEtwRuntimeAdditions.man"

static etl_schema_registry *load(const char *const *files, size_t n)
{
    etl_schema_registry *reg = etl_schema_registry_new();
    assert_non_null(reg);
    for (size_t i = 0; i < n; i++) {
        etl_error err;
        if (etl_schema_load_manifest_file(reg, files[i], ETL_SOURCE_USER_MANIFEST, &err) != ETL_OK)
            fail_msg("%s", err.message);
    }
    return reg;
}

/* ---- no overlap ----------------------------------------------------------------------------------------- */

typedef struct overlap { const etl_schema_registry *other; unsigned events, shared; } overlap;

static int count_shared(const etl_event_info *info, etl_schema_key_kind kind, void *ctx)
{
    overlap *o = ctx;
    o->events++;
    const etl_event_info *f = etl_schema_registry_find(o->other, kind, &info->provider_guid, info->descriptor.id,
                                                       info->descriptor.version);
    if (f && f->descriptor.id == info->descriptor.id && f->descriptor.version == info->descriptor.version) {
        o->shared++;
        fprintf(stderr, "  both manifests declare %s id %u version %u\n", info->provider_name, info->descriptor.id,
                info->descriptor.version);
    }
    return 0;
}

/* Within one registry source a re-add replaces (registry.c), so an (id, version) in both files would make
 * the folder order decide the layout; the additions must only fill gaps. */
static void test_no_shared_event(void **state)
{
    (void)state;
    const char *all[] = {CLR_ALL}, *add[] = {CLR_ADDITIONS};
    etl_schema_registry *a = load(all, 1), *b = load(add, 1);
    overlap o = {a, 0, 0};
    etl_schema_registry_visit(b, count_shared, &o);
    fprintf(stderr, "%s: %u events, %u also in ClrEtwAll.man\n", CLR_ADDITIONS, o.events, o.shared);
    assert_true(o.events >= 60);
    assert_int_equal(o.shared, 0);
    etl_schema_registry_free(a);
    etl_schema_registry_free(b);
}

/* ---- same decoding with and without the additions ---------------------------------------------------------- */

typedef struct rendering {
    etl_decoder *decoder;
    const etl_schema_registry *classic_only;  /* ClrEtwAll.man alone: keep only records it has exactly; NULL: all */
    char **lines;
    size_t count, cap;
} rendering;

static void add_line(rendering *r, char *s)
{
    if (r->count == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 4096;
        r->lines = realloc(r->lines, r->cap * sizeof(*r->lines));
        assert_non_null(r->lines);
    }
    r->lines[r->count++] = s;
}

static int on_render(const etl_event_record *rec, void *ctx)
{
    rendering *r = ctx;
    const etl_decoded_event *ev;
    if (etl_decode_event(r->decoder, rec, &ev) != ETL_OK) return 1;
    if (r->classic_only) {
        const etl_event_info *f = etl_schema_registry_find(r->classic_only, ETL_KEY_MANIFEST, &rec->header.provider_id,
                                                           rec->header.descriptor.id, rec->header.descriptor.version);
        if (!f || f->descriptor.id != rec->header.descriptor.id ||
            f->descriptor.version != rec->header.descriptor.version)
            return 0;
    }
    size_t cap = 256, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    len += (size_t)snprintf(s, cap, "%d|%s|%s|%zu|", ev->status, ev->provider_name, ev->event_name,
                            ev->undecoded_length);
    for (size_t i = 0; i < ev->field_count; i++) {
        const etl_field *fl = &ev->fields[i];
        size_t need = strlen(fl->name ? fl->name : "") + strlen(fl->value ? fl->value : "") + 16;
        while (len + need >= cap) s = realloc(s, cap *= 2);
        len += (size_t)sprintf(s + len, "%d:%s=%s;", fl->kind, fl->name ? fl->name : "", fl->value ? fl->value : "");
    }
    add_line(r, s);
    return 0;
}

/* A corpus trace unpacked to the temporary file `tmp` (removed by the caller) and opened. */
static etl_trace *open_trace(const char *gz, char *tmp)
{
    size_t size;
    uint8_t *data = corpus_load(gz, &size);
    assert_non_null(data);
    assert_int_equal(corpus_write_temp(data, size, tmp), 0);
    free(data);
    const char *paths[1] = {tmp};
    etl_trace *t;
    etl_error err;
    assert_int_equal(etl_open(&t, paths, 1, NULL, &err), ETL_OK);
    return t;
}

static void render_trace(const char *gz, const char *const *files, size_t n, const etl_schema_registry *classic,
                         rendering *r)
{
    char tmp[256];
    etl_trace *t = open_trace(gz, tmp);
    etl_schema_registry *reg = load(files, n);
    r->decoder = etl_decoder_new(reg, t);
    r->classic_only = classic;
    /* the trace's own KernelTraceControl descriptions of the runtime providers would outrank the manifests */
    etl_decoder_set_flags(r->decoder, ETL_DECODER_NO_TRACE_SCHEMAS);
    etl_process(t, on_render, r);
    etl_decoder_free(r->decoder);
    etl_close(t);
    etl_schema_registry_free(reg);
    unlink(tmp);
}

static void free_rendering(rendering *r)
{
    for (size_t i = 0; i < r->count; i++) free(r->lines[i]);
    free(r->lines);
}

/* Decodes `trace` with manifest files `a` and then `b` (records `classic` has exactly, or all when NULL) and
 * asserts every record renders the same; `what` names the difference for the log. */
static void assert_same_rendering(const char *trace, const char *const *a, size_t na, const char *const *b,
                                  size_t nb, const etl_schema_registry *classic, const char *what)
{
    rendering ra, rb;
    memset(&ra, 0, sizeof(ra));
    memset(&rb, 0, sizeof(rb));
    render_trace(trace, a, na, classic, &ra);
    render_trace(trace, b, nb, classic, &rb);
    assert_int_equal(ra.count, rb.count);
    size_t differ = 0;
    for (size_t k = 0; k < ra.count; k++)
        if (strcmp(ra.lines[k], rb.lines[k]) != 0 && differ++ < 3)
            fprintf(stderr, "  before: %.200s\n  after:  %.200s\n", ra.lines[k], rb.lines[k]);
    fprintf(stderr, "%s: %zu records%s, %zu differ %s\n", trace, ra.count,
            classic ? " of events ClrEtwAll.man declares" : "", differ, what);
    assert_true(ra.count > 0);
    assert_int_equal(differ, 0);
    free_rendering(&ra);
    free_rendering(&rb);
}

/* Every record whose (provider, id, version) ClrEtwAll.man declares renders identically (status, names,
 * every field) whether the additions are loaded or not. */
static void test_classic_events_unchanged(void **state)
{
    (void)state;
    static const char *const traces[] = {
        "testdata/perfview/net.4.5.2.x86.etl.gz",
        "testdata/perfview/gcevents.PerfViewData.etl.gz",
        "testdata/perfview/gcrundownevents.PerfViewData.clrRundown.etl.gz",
    };
    const char *without[] = {CLR_ALL}, *with[] = {CLR_ALL, CLR_ADDITIONS};
    etl_schema_registry *classic = load(without, 1);
    for (size_t i = 0; i < sizeof(traces) / sizeof(traces[0]); i++)
        assert_same_rendering(traces[i], without, 1, with, 2, classic, "with the additions");
    etl_schema_registry_free(classic);
}

/* The bundled folder is loaded in name order (scandir + alphasort: ClrEtwAll.man, then
 * ClrEtwRuntimeAdditions.man); since the files share no event, the other order decodes every record the same. */
static void test_load_order_irrelevant(void **state)
{
    (void)state;
    const char *forward[] = {CLR_ALL, CLR_ADDITIONS}, *backward[] = {CLR_ADDITIONS, CLR_ALL};
    assert_same_rendering("testdata/perfview/gcevents.PerfViewData.etl.gz", forward, 2, backward, 2, NULL,
                          "with the files loaded in the other order");
    assert_same_rendering("testdata/perfview/gcrundownevents.PerfViewData.clrRundown.etl.gz", forward, 2, backward,
                          2, NULL, "with the files loaded in the other order");
}

/* ---- the additions' layouts against real payload sizes ----------------------------------------------------- */

typedef struct sizes {
    etl_decoder *decoder;
    const etl_schema_registry *additions;
    unsigned records, ok_exact, bad, buckets_checked;
    char names[32][96];
    unsigned counts[32];
    size_t name_count;
} sizes;

/* GC/FitBucketInfo carries its total and one element per bucket: with the element layout right (the
 * runtime's struct padding included) the bucket sizes add up to TotalSize and the indexes count 0, 1, ... */
static void check_buckets(const etl_decoded_event *ev, sizes *s)
{
    unsigned long long total = 0, sum = 0, next_index = 0;
    int bad_index = 0;
    for (size_t i = 0; i < ev->field_count; i++) {
        const etl_field *f = &ev->fields[i];
        if (f->kind != ETL_FIELD_VALUE || !f->name) continue;
        unsigned long long v = strtoull(f->value, NULL, 0);
        if (f->depth == 0 && strcmp(f->name, "TotalSize") == 0) total = v;
        if (f->depth == 2 && strcmp(f->name, "Size") == 0) sum += v;
        if (f->depth == 2 && strcmp(f->name, "Index") == 0) bad_index |= v != next_index++;
    }
    s->buckets_checked++;
    if (sum != total || bad_index || next_index == 0) {
        s->bad++;
        fprintf(stderr, "  GC/GCFitBucketInfo: bucket sizes add up to %llu, TotalSize %llu, %llu buckets%s\n", sum,
                total, next_index, bad_index ? ", indexes out of order" : "");
    }
}

static int on_sized(const etl_event_record *rec, void *ctx)
{
    sizes *s = ctx;
    const etl_decoded_event *ev;
    if (etl_decode_event(s->decoder, rec, &ev) != ETL_OK) return 1;
    const etl_event_info *f = etl_schema_registry_find(s->additions, ETL_KEY_MANIFEST, &rec->header.provider_id,
                                                       rec->header.descriptor.id, rec->header.descriptor.version);
    if (!f || f->descriptor.id != rec->header.descriptor.id || f->descriptor.version != rec->header.descriptor.version)
        return 0;
    s->records++;
    /* the runtime fires each event with the descriptor its manifest declares: level, task, opcode and
     * keywords of the record are a second check of the additions' header facts */
    const etl_event_descriptor *d = ev->info ? &ev->info->descriptor : NULL, *r = &rec->header.descriptor;
    if (d && (d->level != r->level || d->task != r->task || d->opcode != r->opcode || d->keyword != r->keyword)) {
        s->bad++;
        fprintf(stderr, "  %s: declared level %u task %u opcode %u keywords 0x%llx, record %u %u %u 0x%llx\n",
                ev->event_name, d->level, d->task, d->opcode, (unsigned long long)d->keyword, r->level, r->task,
                r->opcode, (unsigned long long)r->keyword);
    }
    if (ev->status == ETL_DECODE_OK && ev->undecoded_length == 0 && ev->info && ev->info->source == ETL_SOURCE_BUNDLED)
        s->ok_exact++;
    else {
        s->bad++;
        fprintf(stderr, "  %s/%s id %u v%u: status %d, %zu of %u bytes left\n", ev->provider_name, ev->event_name,
                rec->header.descriptor.id, rec->header.descriptor.version, ev->status, ev->undecoded_length,
                (unsigned)rec->user_data_length);
    }
    if (strcmp(ev->event_name, "GC/GCFitBucketInfo") == 0) check_buckets(ev, s);
    char name[96];
    snprintf(name, sizeof(name), "%s v%u", ev->event_name, rec->header.descriptor.version);
    size_t i = 0;
    while (i < s->name_count && strcmp(s->names[i], name) != 0) i++;
    if (i == s->name_count && s->name_count < 32) snprintf(s->names[s->name_count++], sizeof(s->names[0]), "%s", name);
    if (i < 32) s->counts[i]++;
    return 0;
}

/* With the default sources (bundled folder, trace-carried schemas) every record of an (id, version) the
 * additions declare decodes through them with no byte left over and none missing. The expected counts are
 * PerfView's COUNT lines in testdata/perfview/gc*.baseline.txt for the events it lists (GC/MarkWithType 13,
 * PerHeapHistory 2, GlobalHeapHistory 2, LOHCompact 1, FitBucketInfo 1; SettingsRundown 1,
 * SettingsDCStart 1); the other .NET 5+ events of these traces (AllocationTick V4, HeapStats V2, GCJoin, ...)
 * are covered by the byte check. */
static void test_additions_consume_payloads(void **state)
{
    (void)state;
    static const struct { const char *trace; unsigned min_records; } cases[] = {
        {"testdata/perfview/gcevents.PerfViewData.etl.gz", 13 + 2 + 2 + 1 + 1},
        {"testdata/perfview/gcrundownevents.PerfViewData.clrRundown.etl.gz", 2},
    };
    const char *add[] = {CLR_ADDITIONS};
    etl_schema_registry *additions = load(add, 1);
    unsetenv("ETLCONV_SCHEMA_PATH");
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        char tmp[256];
        etl_trace *t = open_trace(cases[c].trace, tmp);
        etl_schema_registry *reg = etl_schema_registry_new();
        etl_error err;
        if (etl_schema_load_bundled(reg, &err) != ETL_OK) fail_msg("%s", err.message);
        sizes s;
        memset(&s, 0, sizeof(s));
        s.decoder = etl_decoder_new(reg, t);
        s.additions = additions;
        etl_process(t, on_sized, &s);
        fprintf(stderr, "%s: %u records of events the additions declare, %u decode with every byte consumed:",
                cases[c].trace, s.records, s.ok_exact);
        for (size_t i = 0; i < s.name_count; i++) fprintf(stderr, "%s %s: %u", i ? "," : "", s.names[i], s.counts[i]);
        fprintf(stderr, "\n");
        assert_true(s.records >= cases[c].min_records);
        if (c == 0) assert_int_equal(s.buckets_checked, 1);
        assert_int_equal(s.bad, 0);
        assert_int_equal(s.ok_exact, s.records);
        etl_decoder_free(s.decoder);
        etl_close(t);
        etl_schema_registry_free(reg);
        unlink(tmp);
    }
    etl_schema_registry_free(additions);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_shared_event),
        cmocka_unit_test(test_classic_events_unchanged),
        cmocka_unit_test(test_load_order_irrelevant),
        cmocka_unit_test(test_additions_consume_payloads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
