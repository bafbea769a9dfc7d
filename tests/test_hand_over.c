/* Two passes, one decompression (etl_trace_hand_over, src/reader/hand_over.c): the decoding pass reads the
 * buffers a first pass decompressed instead of decompressing them again. The oracle is a plain read of the
 * same file: every corpus trace delivers the same records (every header field, payload, extended item, file
 * and buffer offset) and diagnostics in the same order after a full first pass (merged, or by stream), after
 * a first pass that stopped part way (some buffers handed over, the rest decompressed by the reader), under a
 * 192 KiB memory budget (payloads evicted and read again) and with decompress-ahead; and through
 * etl_learn_processes on 1 and 2 threads. The hand-over must happen (its count = the compressed buffers read)
 * and must not where it may not (other files, a trace already read, a trace without compressed buffers, and
 * a trace whose compressed buffers decompress to more than ETL_HAND_OVER_BYTES: copies of net.4.5.2.x86 made
 * by the benchmark generator, one copy fewer fitting). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "etl/etl.h"
#include "etl/etl_schema.h"
#include "pipeline/learn.h"
#include "reader/prefetch.h"
#include "reader/trace_internal.h"
#include "support/corpus.h"
#include "support/record_digest.h"

static etl_trace *open_trace(const char *path, record_digest *diagnostics)
{
    etl_open_options o = {0, diagnostics ? record_digest_diagnostic : NULL, diagnostics};
    etl_trace *t;
    etl_error err;
    return etl_open(&t, &path, 1, &o, &err) == ETL_OK ? t : NULL;
}

static int count_record(const etl_event_record *r, void *ctx)
{
    (void)r;
    (*(uint64_t *)ctx)++;
    return 0;
}

typedef struct stop_after {
    uint64_t seen, limit;
} stop_after;

static int stop_record(const etl_event_record *r, uint64_t position, int header_first, void *ctx)
{
    (void)r, (void)position, (void)header_first;
    stop_after *s = ctx;
    return ++s->seen > s->limit;
}

/* Reads every stream of `t` unmerged: all of each, or (part way) 3000 records of every other stream. */
static void read_streams(etl_trace *t, int part_way)
{
    for (size_t i = 0; i < etl_trace_stream_count(t); i++) {
        stop_after s = {0, part_way ? (i % 2 ? 0 : 3000) : UINT64_MAX};
        int rc = etl_process_stream(t, i, stop_record, &s);
        assert_true(rc == ETL_OK || rc == ETL_STOPPED);
    }
}

enum first_pass { MERGED, BY_STREAM, PART_BY_STREAM, PART_THEN_MERGED };

/* Reads `path` after a first pass of kind `how` handed its buffers over; *handed: buffers taken. */
static record_digest read_after(const char *path, enum first_pass how, size_t budget, unsigned prefetch,
                                uint64_t *handed, uint64_t *compressed)
{
    record_digest d;
    record_digest_init(&d);
    etl_trace *second = open_trace(path, &d), *first = open_trace(path, NULL);
    assert_non_null(second);
    assert_non_null(first);
    int will = etl_trace_hand_over(first, second);
    assert_true(will == 0 || will == 1);
    *compressed = etl_trace_get_stats(second)->buffers_compressed;
    if (how == PART_THEN_MERGED) {  /* as learn.c when reading by stream gives up: a second first pass */
        read_streams(first, 1);
        etl_close(first);
        first = open_trace(path, NULL);
        assert_non_null(first);
        assert_int_equal(etl_trace_hand_over(first, second), will);
    }
    if (how == MERGED || how == PART_THEN_MERGED) {
        uint64_t n = 0;
        assert_int_equal(etl_process(first, count_record, &n), ETL_OK);
    } else {
        read_streams(first, how == PART_BY_STREAM);
    }
    etl_close(first);
    etl_trace_set_memory_budget(second, budget);
    if (prefetch) {
        assert_int_equal(etl_trace_set_prefetch(second, prefetch), ETL_OK);
        etl_prefetch_settle(second);
    }
    int rc = etl_process(second, record_digest_record, &d);
    record_digest_mix(&d, &rc, sizeof rc);
    *handed = etl_trace_get_stats(second)->buffers_handed_over;
    if (!will) assert_int_equal(*handed, 0);
    etl_close(second);
    return d;
}

static record_digest read_plain(const char *path, size_t budget)
{
    record_digest d;
    record_digest_init(&d);
    etl_trace *t = open_trace(path, &d);
    assert_non_null(t);
    etl_trace_set_memory_budget(t, budget);
    int rc = etl_process(t, record_digest_record, &d);
    record_digest_mix(&d, &rc, sizeof rc);
    assert_int_equal(etl_trace_get_stats(t)->buffers_handed_over, 0);
    etl_close(t);
    return d;
}

static void test_second_pass_reads_the_same_records(void **state)
{
    (void)state;
    static corpus_trace traces[128];
    size_t n = corpus_traces(traces, 128), compressed_traces = 0;
    assert_true(n >= 30);
    for (size_t i = 0; i < n; i++) {
        char path[300];
        snprintf(path, sizeof path, "testdata/%.255s", traces[i].file);
        etl_trace *probe = open_trace(path, NULL);
        if (!probe) continue;  /* empty.etl */
        etl_close(probe);
        uint64_t full, part, small, ahead, compressed;
        record_digest plain = read_plain(path, 0), plain_small = read_plain(path, 192 << 10);
        record_digest merged = read_after(path, MERGED, 0, 0, &full, &compressed);
        record_digest_assert_same(&plain, &merged, "after a merged first pass", path);
        record_digest by_stream = read_after(path, BY_STREAM, 0, 0, &full, &compressed);
        record_digest_assert_same(&plain, &by_stream, "after a first pass by stream", path);
        record_digest partial = read_after(path, PART_BY_STREAM, 0, 0, &part, &compressed);
        record_digest_assert_same(&plain, &partial, "after a first pass that stopped part way", path);
        uint64_t twice;
        record_digest again = read_after(path, PART_THEN_MERGED, 0, 0, &twice, &compressed);
        record_digest_assert_same(&plain, &again, "after a part-way first pass and a merged one", path);
        assert_int_equal(twice, full);  /* each buffer handed over once */
        record_digest budget = read_after(path, BY_STREAM, 192 << 10, 0, &small, &compressed);
        record_digest_assert_same(&plain_small, &budget, "192 KiB budget", path);
        record_digest prefetch = read_after(path, PART_BY_STREAM, 0, 1, &ahead, &compressed);
        record_digest_assert_same(&plain, &prefetch, "stopped part way, decompress-ahead", path);
        if (!compressed) {
            assert_int_equal(full + part + small + ahead, 0);
            continue;
        }
        compressed_traces++;
        assert_true(full > 0);          /* every compressed buffer with records, read once by the first pass */
        assert_true(part <= full);
        if (strstr(path, "net.4.5.2.x86")) {
            assert_int_equal(full, 275);
            assert_true(part > 0 && part < full);  /* the rest the reader decompressed itself */
        }
    }
    /* not vacuous: net.4.5.2.x86, smallEtlFile, SelfDescribingSingleEvent, PktMon, terraingen2d */
    assert_true(compressed_traces >= 3);
}

static void test_no_hand_over_where_it_may_not(void **state)
{
    (void)state;
    const char *compressed = "testdata/perfview/net.4.5.2.x86.etl.gz";
    const char *other = "testdata/perfview/primitive-types.etl.gz";
    etl_trace *a = open_trace(compressed, NULL), *b = open_trace(other, NULL), *c = open_trace(compressed, NULL);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    assert_int_equal(etl_trace_hand_over(a, b), 0);  /* other files */
    assert_int_equal(etl_trace_hand_over(b, a), 0);
    assert_int_equal(etl_trace_hand_over(a, a), 0);
    uint64_t n = 0;
    assert_int_equal(etl_process(c, count_record, &n), ETL_OK);
    assert_int_equal(etl_trace_hand_over(a, c), 0);  /* already read */
    etl_close(a);
    etl_close(b);
    etl_close(c);
    etl_trace *u1 = open_trace(other, NULL), *u2 = open_trace(other, NULL);
    assert_int_equal(etl_trace_hand_over(u1, u2), 0);  /* nothing compressed */
    etl_close(u1);
    etl_close(u2);
}

/* Bytes the compressed buffers of `path` decompress to (their payloads, from the buffer index). */
static uint64_t compressed_payload(etl_trace *t)
{
    uint64_t total = 0;
    for (size_t i = 0; i < t->file_count; i++)
        for (size_t k = 0; k < t->files[i].buffer_count; k++) {
            const etl_buffer_ref *b = &t->files[i].buffers[k];
            if ((b->flags & ETL_BUFFER_FLAG_COMPRESSED) && b->valid > ETL_BUFFER_HEADER_SIZE)
                total += b->valid - ETL_BUFFER_HEADER_SIZE;
        }
    return total;
}

/* `copies` of net.4.5.2.x86 (tests/bench/gen_trace.c): handed over exactly when their payloads fit. */
static uint64_t hand_over_copies(const char *gen, unsigned copies, int *will)
{
    char out[] = "/tmp/test_hand_over_XXXXXX", command[1024];
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    snprintf(command, sizeof command, "'%s' testdata/perfview/net.4.5.2.x86.etl.gz '%s' %u > /dev/null", gen, out,
             copies);
    assert_int_equal(system(command), 0);
    etl_trace *first = open_trace(out, NULL), *second = open_trace(out, NULL);
    assert_non_null(first);
    assert_non_null(second);
    uint64_t total = compressed_payload(second);
    *will = etl_trace_hand_over(first, second);
    uint64_t n = 0;
    assert_int_equal(etl_process(first, count_record, &n), ETL_OK);
    etl_close(first);
    assert_int_equal(etl_process(second, count_record, &n), ETL_OK);
    uint64_t handed = etl_trace_get_stats(second)->buffers_handed_over;
    assert_true(*will ? handed == etl_trace_get_stats(second)->buffers_compressed : handed == 0);
    etl_close(second);
    unlink(out);
    return total;
}

static void test_too_large_is_not_handed_over(void **state)
{
    (void)state;
    const char *build = getenv("BUILD");
    char gen[512];
    snprintf(gen, sizeof gen, "%s/bench/gen_trace", build && *build ? build : "build");
    assert_int_equal(access(gen, X_OK), 0);  /* built by `make check` (build-tests) */
    etl_trace *t = open_trace("testdata/perfview/net.4.5.2.x86.etl.gz", NULL);
    assert_non_null(t);
    uint64_t one = compressed_payload(t);
    etl_close(t);
    assert_true(one > 0 && one <= ETL_HAND_OVER_BYTES);
    unsigned over = (unsigned)(ETL_HAND_OVER_BYTES / one) + 1;  /* the fewest copies that do not fit */
    int will;
    uint64_t fits = hand_over_copies(gen, over - 1, &will);
    assert_true(fits <= ETL_HAND_OVER_BYTES);
    assert_int_equal(will, 1);
    uint64_t too_much = hand_over_copies(gen, over, &will);
    assert_true(too_much > ETL_HAND_OVER_BYTES);
    assert_int_equal(will, 0);
}

/* The first pass as the command line runs it: etl_learn_processes with the decoding pass's handle. */
static void test_learn_processes_hands_over(void **state)
{
    (void)state;
    const char *path = "testdata/perfview/net.4.5.2.x86.etl.gz";
    record_digest plain = read_plain(path, 0);
    for (unsigned threads = 1; threads <= 2; threads++) {
        etl_schema_registry *registry = etl_schema_registry_new();
        assert_non_null(registry);
        record_digest d;
        record_digest_init(&d);
        etl_trace *t = open_trace(path, &d);
        etl_decoder *decoder = etl_decoder_new(registry, t);
        assert_non_null(decoder);
        assert_int_equal(etl_learn_processes(decoder, registry, &path, 1, threads, t), ETL_OK);
        int rc = etl_process(t, record_digest_record, &d);
        record_digest_mix(&d, &rc, sizeof rc);
        record_digest_assert_same(&plain, &d, threads == 1 ? "after etl_learn_processes" : "after 2 threads", path);
        assert_int_equal(etl_trace_get_stats(t)->buffers_handed_over, 275);
        etl_decoder_free(decoder);
        etl_close(t);
        etl_schema_registry_free(registry);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_pass_reads_the_same_records),
        cmocka_unit_test(test_no_hand_over_where_it_may_not),
        cmocka_unit_test(test_too_large_is_not_handed_over),
        cmocka_unit_test(test_learn_processes_hands_over),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
