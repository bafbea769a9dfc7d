/* The records a decoder that does not decode them must observe (src/decode/observe_filter.c; the -j N workers
 * observe only those of the batches they do not own, src/pipeline/parallel.c).
 * Oracle: a decoder that observes every record. On every trace of the corpus (testdata/ and, when it is there,
 * ../shared/corpus), one decoder observes every record and another only the records the filter lists (and every
 * record while it says it needs them all), either owning nothing or decoding one batch of 7 records in 3 as its
 * own (both decoders decode those). After every record both give the same process name for the record's PID at
 * its time and the same schema for its key (provider name too), every 256 records (every record for the first
 * 4096) and at the end the same process table (every lifetime, name and TID -> PID: etl_process_table_describe),
 * and the same decoded events for the records they own. A hand-made sequence checks what the corpus lacks: two
 * embedded EventInfos with the same key, the first held back for a map and registered by the next ordinary
 * record, the second complete (the record between them must be observed, or the first would win); a kernel
 * Thread event that maps a TID the header cache holds to another process (the next header with the old pair
 * must be observed again). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <glob.h>

#include "decode/observe_filter.h"
#include "decode/process_table.h"
#include "etl/etl.h"
#include "etl/etl_schema.h"
#include "schema/sources.h"
#include "support/corpus.h"

typedef struct pair_run {
    etl_decoder *all, *listed;
    etl_observe_filter *filter;
    int mixed;                /* decode one batch of 7 in 3 in both decoders */
    const char *path;
    uint64_t records, observed, mismatches;
    uint64_t chunks, metadata, process_events;
    etl_textbuf a, b;
} pair_run;

static void mismatch(pair_run *p, const char *what)
{
    if (p->mismatches++ < 5)
        fprintf(stderr, "%s%s: record %llu: %s differs\n", p->path, p->mixed ? " (mixed)" : "",
                (unsigned long long)p->records, what);
}

static int same_text(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

static int same_info(const etl_event_info *a, const etl_event_info *b)
{
    if (!a || !b) return a == b;
    if (a->source != b->source || a->property_count != b->property_count || !same_text(a->event_name, b->event_name) ||
        !same_text(a->task_name, b->task_name) || !same_text(a->provider_name, b->provider_name))
        return 0;
    for (uint32_t i = 0; i < a->property_count; i++)
        if (!same_text(a->properties[i].name, b->properties[i].name) || !a->properties[i].map != !b->properties[i].map)
            return 0;
    return 1;
}

static const etl_event_info *find(etl_schema_registry *r, const etl_event_record *rec)
{
    const etl_event_header *h = &rec->header;
    int manifest = rec->kind == ETL_KIND_EVENT32 || rec->kind == ETL_KIND_EVENT64;
    return etl_schema_registry_find(r, manifest ? ETL_KEY_MANIFEST : ETL_KEY_CLASSIC, &h->provider_id,
                                    manifest ? h->descriptor.id : h->descriptor.opcode, h->descriptor.version);
}

static void compare_tables(pair_run *p)
{
    etl_textbuf_reset(&p->a);
    etl_textbuf_reset(&p->b);
    assert_int_equal(etl_process_table_describe(etl_decoder_process_table(p->all), &p->a), ETL_OK);
    assert_int_equal(etl_process_table_describe(etl_decoder_process_table(p->listed), &p->b), ETL_OK);
    if (p->a.length != p->b.length || (p->a.length && memcmp(p->a.data, p->b.data, p->a.length) != 0))
        mismatch(p, "process table");
}

static void compare_events(pair_run *p, const etl_decoded_event *a, const etl_decoded_event *b)
{
    if (a->status != b->status || a->process_id != b->process_id || a->field_count != b->field_count ||
        !same_text(a->process_name, b->process_name) || !same_text(a->provider_name, b->provider_name) ||
        !same_text(a->event_name, b->event_name) || !same_text(a->message, b->message) || !same_info(a->info, b->info))
        mismatch(p, "decoded event");
    for (size_t i = 0; i < a->field_count && i < b->field_count; i++)
        if (!same_text(a->fields[i].value, b->fields[i].value)) {
            mismatch(p, "field value");
            break;
        }
}

/* One record in trace order, as a worker that owns its batch or not sees it (pipeline/parallel.c). */
static void step(pair_run *p, etl_schema_registry *ra, etl_schema_registry *rb, const etl_event_record *rec)
{
    int wanted = etl_observe_filter_wants(p->filter, rec);
    p->chunks += etl_eventsource_takes(rec);
    p->metadata += etl_embedded_takes(rec);
    p->process_events += etl_process_table_learns_from(rec);
    if (p->mixed && (p->records / 7) % 3 == 1) {
        const etl_decoded_event *a, *b;
        assert_int_equal(etl_decode_event(p->all, rec, &a), ETL_OK);
        assert_int_equal(etl_decode_event(p->listed, rec, &b), ETL_OK);
        compare_events(p, a, b);
        p->observed++;
    } else {
        assert_int_equal(etl_decoder_observe(p->all, rec), ETL_OK);
        if (wanted || etl_decoder_needs_every_record(p->listed)) {
            assert_int_equal(etl_decoder_observe(p->listed, rec), ETL_OK);
            p->observed++;
        }
    }
    /* a lookup only fills the table's per-PID answer cache (process_table.h): the decoders' tables are not const */
    etl_process_table *ta = (etl_process_table *)etl_decoder_process_table(p->all);
    etl_process_table *tb = (etl_process_table *)etl_decoder_process_table(p->listed);
    if (!same_text(etl_process_table_name(ta, rec->header.process_id, rec->header.timestamp),
                   etl_process_table_name(tb, rec->header.process_id, rec->header.timestamp)))
        mismatch(p, "process name");
    if (!same_info(find(ra, rec), find(rb, rec))) mismatch(p, "schema");
    if (!same_text(etl_schema_registry_provider_name(ra, &rec->header.provider_id),
                   etl_schema_registry_provider_name(rb, &rec->header.provider_id)))
        mismatch(p, "provider name");
    p->records++;
    if (p->records < 4096 || p->records % 256 == 0) compare_tables(p);
}

/* Two decoders over registries `ra` and `rb` (the run frees them) and a filter. */
static void pair_begin(pair_run *p, etl_schema_registry *ra, etl_schema_registry *rb, const etl_trace *trace,
                       const char *name, int mixed)
{
    memset(p, 0, sizeof *p);
    p->all = etl_decoder_new(ra, trace);
    p->listed = etl_decoder_new(rb, trace);
    p->filter = etl_observe_filter_new(0);
    p->mixed = mixed;
    p->path = name;
    assert_non_null(p->all);
    assert_non_null(p->listed);
    assert_non_null(p->filter);
}

/* The tables at the end, no mismatch anywhere; frees all. */
static void pair_end(pair_run *p, etl_schema_registry *ra, etl_schema_registry *rb)
{
    compare_tables(p);
    assert_int_equal(p->mismatches, 0);
    etl_textbuf_free(&p->a);
    etl_textbuf_free(&p->b);
    etl_observe_filter_free(p->filter);
    etl_decoder_free(p->all);
    etl_decoder_free(p->listed);
    etl_schema_registry_free(ra);
    etl_schema_registry_free(rb);
}

typedef struct trace_walk {
    pair_run *run;
    etl_schema_registry *ra, *rb;
} trace_walk;

static int on_record(const etl_event_record *rec, void *ctx)
{
    trace_walk *w = ctx;
    step(w->run, w->ra, w->rb, rec);
    return 0;
}

typedef struct totals {
    uint64_t traces, records, observed, chunks, metadata, process_events;
} totals;

static const etl_schema_registry *shared_base(void)
{
    static etl_schema_registry *base;
    if (!base) {
        etl_error err;
        base = etl_schema_registry_new();
        assert_non_null(base);
        etl_schema_load_bundled(base, &err);
        assert_int_equal(etl_schema_registry_share(base), ETL_OK);
    }
    return base;
}

static void run_trace(const char *path, int mixed, totals *t)
{
    const char *paths[1] = {path};
    etl_trace *trace;
    etl_error err;
    if (etl_open(&trace, paths, 1, NULL, &err) != ETL_OK) return;  /* empty.etl and the like */
    etl_schema_registry *ra = etl_schema_registry_new_overlay(shared_base());
    etl_schema_registry *rb = etl_schema_registry_new_overlay(shared_base());
    pair_run p;
    pair_begin(&p, ra, rb, trace, path, mixed);
    trace_walk w = {&p, ra, rb};
    etl_process(trace, on_record, &w);
    t->traces++;
    t->records += p.records;
    t->observed += p.observed;
    t->chunks += p.chunks;
    t->metadata += p.metadata;
    t->process_events += p.process_events;
    pair_end(&p, ra, rb);
    etl_close(trace);
}

static void corpus_pass(int mixed, totals *t)
{
    static corpus_trace traces[128];
    size_t n = corpus_traces(traces, 128);
    assert_true(n >= 30);
    for (size_t i = 0; i < n; i++) {
        char path[300];
        snprintf(path, sizeof path, "testdata/%.255s", traces[i].file);
        run_trace(path, mixed, t);
    }
    /* ../shared/corpus: the traces testdata/ does not have (same relative path) */
    static const char *const patterns[] = {"../shared/corpus/*/*.etl", "../shared/corpus/*/*.etl.gz"};
    for (size_t k = 0; k < 2; k++) {
        glob_t g;
        if (glob(patterns[k], 0, NULL, &g) != 0) continue;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            char mine[600];
            snprintf(mine, sizeof mine, "testdata/%s", g.gl_pathv[i] + strlen("../shared/corpus/"));
            FILE *f = fopen(mine, "rb");
            if (f) fclose(f);
            else run_trace(g.gl_pathv[i], mixed, t);
        }
        globfree(&g);
    }
}

static void test_corpus_listed_equals_all(void **state)
{
    (void)state;
    totals t = {0};
    corpus_pass(0, &t);
    printf("# %llu traces, %llu records: %llu observed (%.1f %%); %llu manifest chunks, %llu MetaData records, "
           "%llu process/thread events\n",
           (unsigned long long)t.traces, (unsigned long long)t.records, (unsigned long long)t.observed,
           100.0 * (double)t.observed / (double)(t.records ? t.records : 1), (unsigned long long)t.chunks,
           (unsigned long long)t.metadata, (unsigned long long)t.process_events);
    assert_true(t.traces >= 30);
    /* the filter leaves most records out, and the corpus exercises every kind it lists */
    assert_true(t.observed * 4 < t.records);
    assert_true(t.chunks > 0 && t.metadata > 0 && t.process_events > 0);
}

static void test_corpus_mixed_ownership(void **state)
{
    (void)state;
    totals t = {0};
    corpus_pass(1, &t);
    assert_true(t.traces >= 30);
}

/* ---- embedded MetaData: the flush after a MetaData record ---------------------------------------------- */

static const etl_guid task_guid = {0xbbccf6c1, 0x6cd1, 0x48c4, {0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71}};
static const etl_guid provider = {0x11223344, 0x5566, 0x7788, {1, 2, 3, 4, 5, 6, 7, 8}};

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)v), put16(p + 2, (uint16_t)(v >> 16)); }

static uint32_t add_wstr(uint8_t *b, size_t *len, const char *s)
{
    uint32_t off = (uint32_t)*len;
    for (; *s; s++, *len += 2) put16(b + *len, (uint8_t)*s);
    put16(b + *len, 0);
    *len += 2;
    return off;
}

/* TRACE_EVENT_INFO of event 5 of `provider` with one UINT32 property `name`, naming map `map` (or none). */
static size_t event_info(uint8_t *b, const char *name, const char *map)
{
    memset(b, 0, 512);
    put32(b, provider.data1);
    put16(b + 4, provider.data2);
    put16(b + 6, provider.data3);
    memcpy(b + 8, provider.data4, 8);
    put16(b + 0x20, 5);
    put32(b + 0x64, 1);
    put32(b + 0x68, 1);
    size_t len = 0x70 + 24;
    put32(b + 0x34, add_wstr(b, &len, "Test-Provider"));
    put32(b + 0x70 + 4, add_wstr(b, &len, name));
    put16(b + 0x70 + 8, ETL_IN_UINT32);
    if (map) put32(b + 0x70 + 12, add_wstr(b, &len, map));
    put16(b + 0x70 + 16, 1);
    put16(b + 0x70 + 18, 4);
    return len;
}

static etl_event_record record_of(int metadata, const uint8_t *payload, size_t len, uint32_t tid)
{
    etl_event_record r;
    memset(&r, 0, sizeof r);
    r.pointer_size = 8;
    r.header.process_id = 100;
    r.header.thread_id = tid;
    if (metadata) {
        r.kind = ETL_KIND_FULL64;
        r.header.flags = ETL_EVENT_FLAG_CLASSIC_HEADER;
        r.header.provider_id = task_guid;
        r.header.descriptor.opcode = 32;
        r.user_data = payload;
        r.user_data_length = (uint16_t)len;
    } else {
        r.kind = ETL_KIND_EVENT64;
        r.header.provider_id = provider;
        r.header.descriptor.id = 5;
    }
    return r;
}

/* Both decoders through a hand-made sequence; returns how many records the listed one observed. */
/* last: the sequence ends with an event of the EventInfo named "Complete" */
static uint64_t run_sequence(const char *name, const etl_event_record *seq, size_t n, int last)
{
    etl_schema_registry *ra = etl_schema_registry_new(), *rb = etl_schema_registry_new();
    pair_run p;
    pair_begin(&p, ra, rb, NULL, name, 0);
    for (size_t i = 0; i < n; i++) step(&p, ra, rb, &seq[i]);
    if (last) {
        const etl_event_info *info = find(rb, &seq[n - 1]);
        assert_non_null(info);
        assert_string_equal(info->properties[0].name, "Complete");
    }
    uint64_t observed = p.observed;
    pair_end(&p, ra, rb);
    return observed;
}

static void test_embedded_flush_is_listed(void **state)
{
    (void)state;
    static uint8_t first[512], second[512];
    size_t n1 = event_info(first, "Held", "NeverMap"), n2 = event_info(second, "Complete", NULL);
    /* the same thread throughout: only the flush rule lists the ordinary record between the two EventInfos */
    etl_event_record seq[] = {record_of(0, NULL, 0, 8), record_of(1, first, n1, 8), record_of(0, NULL, 0, 8),
                              record_of(1, second, n2, 8), record_of(0, NULL, 0, 8), record_of(0, NULL, 0, 8)};
    /* one thread ends with the second EventInfo; the first must not come back over it. Observed: the first
     * record, the two EventInfos and the record after each. */
    assert_int_equal(run_sequence("hand-made MetaData sequence", seq, 6, 1), 5);
}

/* A kernel Thread event remaps a TID the cache holds: the next header with the old pair is listed again. */
static void test_thread_event_clears_cache(void **state)
{
    (void)state;
    static const etl_guid thread_class = {0x3d6fa8d1, 0xfe05, 0x11d0,
                                          {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
    static uint8_t payload[8];
    put32(payload, 8);        /* TThreadId (Thread_V0_TypeGroup1) */
    put32(payload + 4, 200);  /* ProcessId */
    etl_event_record start = record_of(0, NULL, 0, 12);
    start.kind = ETL_KIND_FULL64;
    start.header.provider_id = thread_class;
    start.header.descriptor.id = 0;
    start.header.descriptor.opcode = 1;
    start.header.process_id = 4;
    start.user_data = payload;
    start.user_data_length = sizeof payload;
    etl_event_record seq[] = {record_of(0, NULL, 0, 8), start, record_of(0, NULL, 0, 8), record_of(0, NULL, 0, 8)};
    assert_int_equal(run_sequence("hand-made Thread sequence", seq, 4, 0), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_embedded_flush_is_listed),
        cmocka_unit_test(test_thread_event_clears_cache),
        cmocka_unit_test(test_corpus_listed_equals_all),
        cmocka_unit_test(test_corpus_mixed_ownership),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
