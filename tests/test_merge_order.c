/* The merge of per-processor streams (src/reader/trace.c: a binary heap whose root is kept without sifting while
 * it is still before its smaller child) against a plain oracle: a linear scan that delivers, at every step, the
 * first of all stream heads by the documented order (log-file header first, then FILETIME, file, raw timestamp,
 * processor, position in the stream). Each stream's records are taken from the reader's own output in delivery
 * order (a stream's records always come out in stream order), so the check is on how the streams interleave.
 * Every single-file corpus trace, and net.4.5.2.x86 (compressed) again under a 192 KiB memory budget, which
 * evicts and reloads stream payloads mid-merge. And the same records when etl_process pauses and goes on (with
 * etl_trace_read_ahead, as the -j pipeline reads). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etl/etl.h"
#include "support/corpus.h"

typedef struct seen {
    int64_t filetime, raw;
    uint64_t file_offset;
    uint32_t record_offset, file_index;
    uint16_t processor;
    int header; /* the log-file header record at the start of file 0 */
} seen;

typedef struct seen_list {
    seen *items;
    size_t count, cap;
    uint64_t first_offset; /* file offset of the first buffer of file 0 read so far */
} seen_list;

static int is_logfile_header(const etl_event_record *r)
{
    return (r->kind == ETL_KIND_SYSTEM32 || r->kind == ETL_KIND_SYSTEM64) && r->kernel_group == 0 &&
           r->header.descriptor.opcode == 0 && r->file_index == 0 && r->record_offset == 0;
}

static int collect(const etl_event_record *r, void *ctx)
{
    seen_list *l = ctx;
    if (l->count == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4096;
        l->items = realloc(l->items, l->cap * sizeof *l->items);
        assert_non_null(l->items);
    }
    l->items[l->count++] = (seen){r->header.timestamp, r->raw_timestamp, r->file_offset, r->record_offset,
                                  r->file_index, r->buffer_context.processor_index, is_logfile_header(r)};
    return 0;
}

/* a before b by the documented merge order; `order` is each record's position in its stream */
static int before(const seen *a, size_t a_order, const seen *b, size_t b_order)
{
    if (a->header != b->header) return a->header;
    if (a->filetime != b->filetime) return a->filetime < b->filetime;
    if (a->file_index != b->file_index) return a->file_index < b->file_index;
    if (a->raw != b->raw) return a->raw < b->raw;
    if (a->processor != b->processor) return a->processor < b->processor;
    return a_order < b_order;
}

#define MAX_STREAMS 256

/* Splits the delivered records into streams (file, processor) and merges them again by linear scan; fails at
 * the first record where the two orders differ. Returns the number of streams. */
static size_t check_order(const char *name, const seen_list *l)
{
    uint32_t stream_file[MAX_STREAMS];
    uint16_t stream_cpu[MAX_STREAMS];
    size_t stream_count = 0;
    size_t *stream_of = malloc((l->count ? l->count : 1) * sizeof *stream_of);
    size_t *next = calloc(l->count + 1, sizeof *next); /* next record of the same stream, l->count = none */
    size_t head[MAX_STREAMS], tail[MAX_STREAMS], taken[MAX_STREAMS];
    assert_non_null(stream_of);
    assert_non_null(next);
    for (size_t i = 0; i < l->count; i++) {
        size_t s;
        for (s = 0; s < stream_count; s++)
            if (stream_file[s] == l->items[i].file_index && stream_cpu[s] == l->items[i].processor) break;
        if (s == stream_count) {
            assert_true(stream_count < MAX_STREAMS);
            stream_file[s] = l->items[i].file_index;
            stream_cpu[s] = l->items[i].processor;
            head[s] = i;
            stream_count++;
        } else {
            next[tail[s]] = i;
        }
        tail[s] = i;
        next[i] = l->count;
        stream_of[i] = s;
    }
    memset(taken, 0, sizeof taken);
    for (size_t i = 0; i < l->count; i++) {
        size_t best = MAX_STREAMS;
        for (size_t s = 0; s < stream_count; s++) {
            if (head[s] == l->count) continue;
            if (best == MAX_STREAMS ||
                before(&l->items[head[s]], taken[s], &l->items[head[best]], taken[best]))
                best = s;
        }
        assert_true(best != MAX_STREAMS);
        if (head[best] != i)
            fail_msg("%s: record %zu of %zu: the reader delivered one of file %u CPU %u (buffer 0x%llx, offset "
                     "0x%x), the oracle one of file %u CPU %u (buffer 0x%llx, offset 0x%x)", name, i, l->count,
                     l->items[i].file_index, l->items[i].processor, (unsigned long long)l->items[i].file_offset,
                     l->items[i].record_offset, l->items[head[best]].file_index, l->items[head[best]].processor,
                     (unsigned long long)l->items[head[best]].file_offset, l->items[head[best]].record_offset);
        head[best] = next[head[best]];
        taken[best]++;
    }
    free(next);
    free(stream_of);
    return stream_count;
}

static size_t merge_and_check(const char *rel, size_t budget)
{
    char path[512];
    snprintf(path, sizeof path, "testdata/%s", rel);
    const char *paths[] = {path};
    etl_open_options opt = {0, NULL, NULL};
    etl_error err;
    etl_trace *t;
    assert_int_equal(etl_open(&t, paths, 1, &opt, &err), ETL_OK);
    if (budget) etl_trace_set_memory_budget(t, budget);
    seen_list l = {0};
    assert_int_equal(etl_process(t, collect, &l), ETL_OK);
    etl_close(t);
    size_t streams = check_order(rel, &l);
    free(l.items);
    return streams;
}

static void test_every_corpus_trace(void **state)
{
    (void)state;
    corpus_trace traces[64];
    size_t n = corpus_traces(traces, 64), checked = 0, multi = 0;
    for (size_t i = 0; i < n; i++) {
        if (strstr(traces[i].census, "0 bytes")) continue; /* empty.etl */
        multi += merge_and_check(traces[i].file, 0) > 2;
        checked++;
    }
    assert_true(checked >= 30);
    assert_true(multi >= 10); /* traces with three or more streams to interleave */
}

static void test_small_memory_budget(void **state)
{
    (void)state;
    assert_true(merge_and_check("perfview/net.4.5.2.x86.etl.gz", 192 << 10) >= 4);
}

/* etl_process_pause (the -j workers read a trace in turns, one batch each): pausing after every `every`-th
 * record and calling etl_process again delivers the records of one uninterrupted call, in the same order. */
typedef struct pausing {
    seen_list list;
    etl_trace *trace;
    size_t every;
} pausing;

static int collect_and_pause(const etl_event_record *r, void *ctx)
{
    pausing *p = ctx;
    collect(r, &p->list);
    if (p->list.count % p->every == 0) etl_process_pause(p->trace);
    return 0;
}

static void check_paused(const char *rel, size_t budget, size_t every)
{
    char path[512];
    snprintf(path, sizeof path, "testdata/%s", rel);
    const char *paths[] = {path};
    etl_open_options opt = {0, NULL, NULL};
    etl_error err;
    etl_trace *whole, *paused;
    assert_int_equal(etl_open(&whole, paths, 1, &opt, &err), ETL_OK);
    assert_int_equal(etl_open(&paused, paths, 1, &opt, &err), ETL_OK);
    if (budget) etl_trace_set_memory_budget(whole, budget), etl_trace_set_memory_budget(paused, budget);
    etl_trace_read_ahead(paused, 1);  /* as the -j pipeline reads: the same records */
    seen_list once = {0};
    assert_int_equal(etl_process(whole, collect, &once), ETL_OK);
    pausing p = {{0}, paused, every};
    size_t pauses = 0;
    int rc;
    while ((rc = etl_process(paused, collect_and_pause, &p)) == ETL_PAUSED) {
        pauses++;
        assert_true(pauses <= once.count);  /* each pause follows a record */
    }
    assert_int_equal(rc, ETL_OK);
    assert_int_equal(etl_process(paused, collect_and_pause, &p), ETL_ERR_ARG);  /* read to its end: done */
    if (p.list.count != once.count)
        fail_msg("%s, pause every %zu: %zu records, %zu in one call", rel, every, p.list.count, once.count);
    /* a pause asked at the last record has nothing to go on with: etl_process returns ETL_OK then */
    assert_int_equal(pauses, once.count / every - (once.count && once.count % every == 0));
    for (size_t i = 0; i < once.count; i++) {
        const seen *a = &once.items[i], *b = &p.list.items[i];
        if (a->filetime != b->filetime || a->raw != b->raw || a->file_offset != b->file_offset ||
            a->record_offset != b->record_offset || a->file_index != b->file_index || a->processor != b->processor ||
            a->header != b->header)
            fail_msg("%s, pause every %zu: record %zu differs", rel, every, i);
    }
    free(once.items);
    free(p.list.items);
    etl_close(whole);
    etl_close(paused);
}

static void test_pause_and_go_on(void **state)
{
    (void)state;
    corpus_trace traces[64];
    size_t n = corpus_traces(traces, 64), checked = 0;
    for (size_t i = 0; i < n; i++) {
        if (strstr(traces[i].census, "0 bytes")) continue; /* empty.etl */
        check_paused(traces[i].file, 0, 256);
        check_paused(traces[i].file, 0, 7);
        checked++;
    }
    assert_true(checked >= 30);
    check_paused("perfview/net.4.5.2.x86.etl.gz", 0, 1);
    check_paused("perfview/net.4.5.2.x86.etl.gz", 192 << 10, 5);  /* payloads evicted and reloaded meanwhile */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_corpus_trace),
        cmocka_unit_test(test_small_memory_budget),
        cmocka_unit_test(test_pause_and_go_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
