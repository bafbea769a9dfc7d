/* The first pass on several threads (src/pipeline/learn.c, src/reader/prefetch.c): with buffers decompressed
 * ahead by other threads, every corpus trace delivers the same records (every header field, payload and
 * extended item, file and buffer offset) and the same diagnostics in the same order as without, also when a
 * small memory budget makes the reader evict and re-read buffers; and the first pass at -j 1, 2 and 4 leaves
 * the same process table (every lifetime, name and TID -> PID). The oracle for the table's content on a WPR
 * trace whose process rundown comes at the end: corpus EXPECTED.md §5.1 (TraceLoggingTester is the process
 * that wrote the CSharpTraceLoggingEventSource events; tests/cli_process.sh checks the names in the output). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "decode/process_table.h"
#include "etl/etl.h"
#include "etl/etl_schema.h"
#include "pipeline/learn.h"
#include "reader/prefetch.h"
#include "support/corpus.h"

typedef struct digest {
    uint64_t records, hash, diagnostics;
} digest;

static void mix(uint64_t *h, const void *data, size_t n)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++) *h = (*h ^ p[i]) * 1099511628211ull;
}

#define MIX(h, v) mix((h), &(v), sizeof(v))

static int on_record(const etl_event_record *r, void *ctx)
{
    digest *d = ctx;
    const etl_event_header *h = &r->header;
    d->records++;
    MIX(&d->hash, h->size);
    MIX(&d->hash, h->flags);
    MIX(&d->hash, h->thread_id);
    MIX(&d->hash, h->process_id);
    MIX(&d->hash, h->timestamp);
    MIX(&d->hash, h->provider_id);
    MIX(&d->hash, h->descriptor.id);
    MIX(&d->hash, h->descriptor.opcode);
    MIX(&d->hash, h->processor_time);
    MIX(&d->hash, h->activity_id);
    MIX(&d->hash, r->kind);
    MIX(&d->hash, r->raw_timestamp);
    MIX(&d->hash, r->file_index);
    MIX(&d->hash, r->file_offset);
    MIX(&d->hash, r->buffer_context.processor_index);
    MIX(&d->hash, r->user_data_length);
    if (r->user_data) mix(&d->hash, r->user_data, r->user_data_length);
    for (uint16_t i = 0; i < r->extended_data_count; i++) {
        MIX(&d->hash, r->extended_data[i].ext_type);
        mix(&d->hash, r->extended_data[i].data, r->extended_data[i].data_size);
    }
    return 0;
}

static void on_diagnostic(const etl_diagnostic *diag, void *ctx)
{
    digest *d = ctx;
    d->diagnostics++;
    mix(&d->hash, diag->message, strlen(diag->message));
}

/* Reads a trace with `prefetch` decompress-ahead threads (0: none) and a memory budget (0: default). */
static digest read_trace(const char *path, unsigned prefetch, size_t budget, uint64_t *prefetched)
{
    digest d = {0, 14695981039346656037ull, 0};
    etl_open_options o = {0, on_diagnostic, &d};
    etl_trace *t;
    etl_error err;
    int rc = etl_open(&t, &path, 1, &o, &err);
    *prefetched = 0;
    if (rc != ETL_OK) {  /* empty.etl: no trace, the same way each time */
        MIX(&d.hash, rc);
        return d;
    }
    etl_trace_set_memory_budget(t, budget);
    if (prefetch) {
        assert_int_equal(etl_trace_set_prefetch(t, prefetch), ETL_OK);
        etl_prefetch_settle(t);  /* the buffers decompressed ahead are then taken whatever the scheduling */
    }
    rc = etl_process(t, on_record, &d);
    MIX(&d.hash, rc);
    *prefetched = etl_trace_get_stats(t)->buffers_prefetched;
    etl_close(t);
    return d;
}

static void assert_same(const digest *a, const digest *b, const char *what, const char *file)
{
    if (a->records != b->records || a->hash != b->hash || a->diagnostics != b->diagnostics)
        fail_msg("%s: %s: %llu records, %llu diagnostics vs %llu, %llu (or different bytes)", file, what,
                 (unsigned long long)a->records, (unsigned long long)a->diagnostics,
                 (unsigned long long)b->records, (unsigned long long)b->diagnostics);
}

static void test_prefetch_delivers_the_same_records(void **state)
{
    (void)state;
    static corpus_trace traces[128];
    size_t n = corpus_traces(traces, 128);
    assert_true(n >= 30);
    uint64_t compressed_traces = 0, ahead_total = 0;
    for (size_t i = 0; i < n; i++) {
        char path[300];
        snprintf(path, sizeof path, "testdata/%.255s", traces[i].file);
        uint64_t ahead, ahead3, ahead_small, none;
        digest plain = read_trace(path, 0, 0, &none);
        digest one = read_trace(path, 1, 0, &ahead);
        digest three = read_trace(path, 3, 0, &ahead3);
        assert_int_equal(none, 0);
        assert_same(&plain, &one, "1 prefetch thread", path);
        assert_same(&plain, &three, "3 prefetch threads", path);
        /* 1 MiB budget: streams evict each other's payloads and read them again (reader/stream.c) */
        digest small_plain = read_trace(path, 0, 1 << 20, &none);
        digest small = read_trace(path, 2, 1 << 20, &ahead_small);
        assert_same(&small_plain, &small, "2 prefetch threads, 1 MiB budget", path);
        assert_same(&plain, &small_plain, "1 MiB budget", path);
        if (ahead) compressed_traces++;
        ahead_total += ahead + ahead3 + ahead_small;
        if (strstr(path, "net.4.5.2.x86")) assert_true(ahead > 0);  /* 275 compressed buffers */
    }
    /* not vacuous: the compressed traces (net.4.5.2.x86, smallEtlFile, SelfDescribingSingleEvent, PktMon,
     * terraingen2d) had buffers decompressed ahead */
    assert_true(compressed_traces >= 3);
    assert_true(ahead_total > 300);
}

/* The process table a first pass with `threads` leaves, as text. */
static void learn(etl_schema_registry *registry, const char *path, unsigned threads, etl_textbuf *out)
{
    etl_trace *t;
    etl_error err;
    if (etl_open(&t, &path, 1, NULL, &err) != ETL_OK) return;  /* empty.etl */
    etl_decoder *d = etl_decoder_new(registry, t);
    assert_non_null(d);
    assert_int_equal(etl_learn_processes(d, &path, 1, threads), ETL_OK);
    assert_int_equal(etl_process_table_describe(etl_decoder_process_table(d), out), ETL_OK);
    etl_decoder_free(d);
    etl_close(t);
}

static void test_parallel_first_pass_learns_the_same_table(void **state)
{
    (void)state;
    etl_schema_registry *registry = etl_schema_registry_new();
    etl_error err;
    etl_schema_load_bundled(registry, &err);
    static corpus_trace traces[128];
    size_t n = corpus_traces(traces, 128);
    size_t named = 0;
    for (size_t i = 0; i < n; i++) {
        char path[300];
        snprintf(path, sizeof path, "testdata/%.255s", traces[i].file);
        etl_textbuf one = {0}, two = {0}, four = {0};
        learn(registry, path, 1, &one);
        learn(registry, path, 2, &two);
        learn(registry, path, 4, &four);
        if (one.length != two.length || memcmp(one.data, two.data, one.length) != 0 || one.length != four.length ||
            memcmp(one.data, four.data, one.length) != 0)
            fail_msg("%s: the first pass on 2 or 4 threads learnt another process table", path);
        if (one.length && strstr(one.data, "pid ")) named++;
        if (strstr(path, "TraceLoggingTester")) {  /* WPR: the rundown at the end names the process */
            etl_textbuf_append(&one, "", 1);
            assert_non_null(strstr(one.data, "] TraceLoggingTester"));
        }
        if (strstr(path, "net.4.5.2.x86")) {  /* compressed: learnt through the prefetch threads */
            etl_textbuf_append(&one, "", 1);
            assert_non_null(strstr(one.data, "pid "));
        }
        etl_textbuf_free(&one);
        etl_textbuf_free(&two);
        etl_textbuf_free(&four);
    }
    assert_true(named >= 10);
    etl_schema_registry_free(registry);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefetch_delivers_the_same_records),
        cmocka_unit_test(test_parallel_first_pass_learns_the_same_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
