/* A writer that says it shows header IDs only (etl_writer_format.header_ids_only) lets a run decode without a
 * process table and skip the first pass (src/cli/convert.c, issue 14): it must then write the same bytes
 * whatever event->process_id and event->process_name hold. Each registered writer gets the events of a real
 * trace twice, once as decoded (process table and names) and once with another PID and name; the flagged
 * writers' outputs must be equal, and the others' must differ somewhere (they show what was changed: the
 * check can fail). And a decoder without a process table (ETL_DECODER_NO_PROCESSES) gives those writers the
 * same output as one with it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etl/etl.h"
#include "etl/etl_schema.h"
#include "etl/etl_writer.h"
#include "support/record_digest.h"

#define MAX_WRITERS 32
#define EVENTS 40000  /* the first ones of the trace: process rundowns, kernel and CLR events with names */

typedef struct digest_sink {
    record_digest digest;
    uint64_t bytes;
} digest_sink;

static int digest_write(void *ctx, const void *data, size_t length)
{
    digest_sink *s = ctx;
    record_digest_mix(&s->digest, data, length);
    s->bytes += length;
    return 0;
}

#define SAMPLE "testdata/perfview/net.4.5.2.x86.etl.gz"

static etl_schema_registry *bundled_registry(void)
{
    etl_schema_registry *registry = etl_schema_registry_new();
    assert_non_null(registry);
    etl_error err;
    etl_schema_load_bundled(registry, &err);
    return registry;
}

/* The sample trace, and writer options over it. */
static etl_trace *open_sample(etl_writer_options *options)
{
    etl_error err;
    const char *paths[1] = {SAMPLE};
    etl_trace *trace;
    assert_int_equal(etl_open(&trace, paths, 1, NULL, &err), ETL_OK);
    memset(options, 0, sizeof *options);
    options->trace = trace;
    options->table_columns = ETL_TABLE_DEFAULT;
    return trace;
}

typedef struct pair {
    const etl_writer_format *format;
    digest_sink as_decoded, changed;
    etl_writer *a, *b;
} pair;

typedef struct run {
    etl_decoder *decoder;
    pair pairs[MAX_WRITERS];
    size_t pair_count;
    size_t events, named;
} run;

static int on_record(const etl_event_record *record, void *ctx)
{
    run *r = ctx;
    const etl_decoded_event *ev;
    if (etl_decode_event(r->decoder, record, &ev) != ETL_OK) return 1;
    etl_decoded_event other = *ev;
    other.process_id = ev->process_id == 4242 ? 4243 : 4242;
    other.process_name = ev->process_name && strcmp(ev->process_name, "ProbeName") == 0 ? "OtherProbe" : "ProbeName";
    r->named += ev->process_name != NULL;
    for (size_t i = 0; i < r->pair_count; i++) {
        assert_int_equal(etl_writer_event(r->pairs[i].a, ev), 0);
        assert_int_equal(etl_writer_event(r->pairs[i].b, &other), 0);
    }
    return ++r->events >= EVENTS;
}

static void test_header_ids_only_writers_ignore_process_identity(void **state)
{
    (void)state;
    etl_schema_registry *registry = bundled_registry();
    etl_writer_options options;
    etl_trace *trace = open_sample(&options);
    static run r;
    memset(&r, 0, sizeof r);
    r.decoder = etl_decoder_new(registry, trace);
    assert_non_null(r.decoder);
    for (size_t i = 0; i < etl_writer_format_count() && r.pair_count < MAX_WRITERS; i++) {
        const etl_writer_format *f = etl_writer_format_at(i);
        if (strstr(f->name, "split")) continue;  /* they write files of their own into --split DIR */
        pair *p = &r.pairs[r.pair_count++];
        p->format = f;
        record_digest_init(&p->as_decoded.digest);
        record_digest_init(&p->changed.digest);
        etl_sink sa = {digest_write, &p->as_decoded}, sb = {digest_write, &p->changed};
        p->a = etl_writer_new(f, &sa, &options);
        p->b = etl_writer_new(f, &sb, &options);
        assert_non_null(p->a);
        assert_non_null(p->b);
        assert_int_equal(etl_writer_begin(p->a), 0);
        assert_int_equal(etl_writer_begin(p->b), 0);
    }
    etl_process(trace, on_record, &r);
    assert_int_equal(r.events, EVENTS);
    assert_true(r.named > EVENTS / 4);  /* the table named many: what the flagged writers are said to ignore */
    size_t flagged = 0, others = 0;
    for (size_t i = 0; i < r.pair_count; i++) {
        pair *p = &r.pairs[i];
        assert_int_equal(etl_writer_end(p->a, NULL), 0);
        assert_int_equal(etl_writer_end(p->b, NULL), 0);
        etl_writer_free(p->a);
        etl_writer_free(p->b);
        int same = p->as_decoded.bytes == p->changed.bytes &&
                   memcmp(&p->as_decoded.digest, &p->changed.digest, sizeof p->as_decoded.digest) == 0;
        if (p->format->header_ids_only) {
            flagged++;
            if (!same) fail_msg("%s says it shows header IDs only, but its output changed with the process", p->format->name);
        } else {
            others++;
            if (same) fail_msg("%s is not flagged, and its output did not show the process: flag it", p->format->name);
        }
    }
    assert_true(flagged >= 3 && others >= 2);  /* xml, csv, table ... and jsonl, baseline */
    etl_decoder_free(r.decoder);
    etl_close(trace);
    etl_schema_registry_free(registry);
}

/* Digests of every flagged writer's output for the first EVENTS events, decoded with `flags`. */
typedef struct flagged_run {
    etl_decoder *decoder;
    digest_sink sinks[MAX_WRITERS];
    etl_writer *writers[MAX_WRITERS];
    size_t count, events, without_process;
} flagged_run;

static int on_flagged_record(const etl_event_record *record, void *ctx)
{
    flagged_run *r = ctx;
    const etl_decoded_event *ev;
    if (etl_decode_event(r->decoder, record, &ev) != ETL_OK) return 1;
    r->without_process += ev->process_id == UINT32_MAX && !ev->process_name;
    for (size_t i = 0; i < r->count; i++) assert_int_equal(etl_writer_event(r->writers[i], ev), 0);
    return ++r->events >= EVENTS;
}

static void run_flagged(flagged_run *r, etl_schema_registry *registry, unsigned flags)
{
    etl_writer_options options;
    etl_trace *trace = open_sample(&options);
    memset(r, 0, sizeof *r);
    r->decoder = etl_decoder_new(registry, trace);
    assert_non_null(r->decoder);
    etl_decoder_set_flags(r->decoder, flags);
    for (size_t i = 0; i < etl_writer_format_count() && r->count < MAX_WRITERS; i++) {
        const etl_writer_format *f = etl_writer_format_at(i);
        if (!f->header_ids_only) continue;
        record_digest_init(&r->sinks[r->count].digest);
        etl_sink sink = {digest_write, &r->sinks[r->count]};
        assert_non_null(r->writers[r->count] = etl_writer_new(f, &sink, &options));
        assert_int_equal(etl_writer_begin(r->writers[r->count]), 0);
        r->count++;
    }
    etl_process(trace, on_flagged_record, r);
    for (size_t i = 0; i < r->count; i++) {
        assert_int_equal(etl_writer_end(r->writers[i], NULL), 0);
        etl_writer_free(r->writers[i]);
    }
    etl_decoder_free(r->decoder);
    etl_close(trace);
}

/* What a run of those writers does (src/cli/convert.c): decode with ETL_DECODER_NO_PROCESSES. No event gets a
 * process then, and every flagged writer writes what it writes from a decoder that keeps the table. */
static void test_decoding_without_processes_changes_no_flagged_output(void **state)
{
    (void)state;
    etl_schema_registry *registry = bundled_registry();
    static flagged_run with, without;
    run_flagged(&with, registry, 0);
    run_flagged(&without, registry, ETL_DECODER_NO_PROCESSES);
    assert_int_equal(without.events, EVENTS);
    assert_int_equal(without.without_process, EVENTS);
    assert_true(with.without_process < EVENTS / 2);  /* the table is there otherwise */
    assert_int_equal(with.count, without.count);
    for (size_t i = 0; i < with.count; i++) {
        assert_int_equal(with.sinks[i].bytes, without.sinks[i].bytes);
        assert_memory_equal(&with.sinks[i].digest, &without.sinks[i].digest, sizeof with.sinks[i].digest);
    }
    etl_schema_registry_free(registry);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_ids_only_writers_ignore_process_identity),
        cmocka_unit_test(test_decoding_without_processes_changes_no_flagged_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
