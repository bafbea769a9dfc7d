/* The first pass on several threads (src/pipeline/learn.c, src/reader/prefetch.c, src/reader/stream_walk.c).
 * - Decompress-ahead: every corpus trace delivers the same records (every header field, payload and extended
 *   item, file and buffer offset) and the same diagnostics in the same order with 0, 1, 2 or 3 helper threads,
 *   also when a 1 MiB memory budget makes the reader evict and re-read buffers; also with no thread of its own,
 *   helped by the reading thread and another thread (etl_trace_prefetch_help, as the -j workers do).
 * - The process table (every lifetime, name and TID -> PID, etl_process_table_describe) learnt by stream on
 *   1, 2 and 5 threads (in one round, or rounds of 256 KiB), merged with decompress-ahead, and by etl_learn_processes equals the merged pass on one
 *   thread, on every corpus trace, also with every stream shared out among the threads in runs of one buffer;
 *   on copies made to exercise what the corpus lacks: a thread whose last record header names another process
 *   (the latest header must win across streams), or whose last header is followed by a thread event; a stream
 *   that goes back in time, inside a run or only between two runs read by different threads; a run that begins
 *   with a WPP message without a time of its own (by stream refuses in those three, merged is used).
 * - A trace with more threads than the table keeps: by stream refuses it, and the merged pass's warning names the
 *   record where the table first left one out.
 * The oracle for the table's content on a WPR trace with its process rundown at the end: corpus EXPECTED.md
 * §5.1 (TraceLoggingTester is the process that wrote the CSharpTraceLoggingEventSource events;
 * tests/cli_process.sh checks the names in the output). */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/process_table.h"
#include "etl/etl.h"
#include "etl/etl_schema.h"
#include "pipeline/learn.h"
#include "reader/prefetch.h"
#include "support/corpus.h"
#include "support/damage.h"
#include "support/first_diagnostic.h"
#include "support/record_digest.h"

typedef record_digest digest;

/* Reads a trace with `prefetch` decompress-ahead threads (0: none) and a memory budget (0: default). */
static digest read_trace(const char *path, unsigned prefetch, size_t budget, uint64_t *prefetched)
{
    digest d;
    record_digest_init(&d);
    etl_open_options o = {0, record_digest_diagnostic, &d};
    etl_trace *t;
    etl_error err;
    int rc = etl_open(&t, &path, 1, &o, &err);
    *prefetched = 0;
    if (rc != ETL_OK) {  /* empty.etl: no trace, the same way each time */
        record_digest_mix(&d, &rc, sizeof rc);
        return d;
    }
    etl_trace_set_memory_budget(t, budget);
    if (prefetch) {
        assert_int_equal(etl_trace_set_prefetch(t, prefetch), ETL_OK);
        etl_prefetch_settle(t);  /* the buffers decompressed ahead are then taken whatever the scheduling */
    }
    rc = etl_process(t, record_digest_record, &d);
    record_digest_mix(&d, &rc, sizeof rc);
    *prefetched = etl_trace_get_stats(t)->buffers_prefetched;
    etl_close(t);
    return d;
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
        record_digest_assert_same(&plain, &one, "1 prefetch thread", path);
        record_digest_assert_same(&plain, &three, "3 prefetch threads", path);
        /* 1 MiB budget: streams evict each other's payloads and read them again (reader/stream.c) */
        digest small_plain = read_trace(path, 0, 1 << 20, &none);
        digest small = read_trace(path, 2, 1 << 20, &ahead_small);
        record_digest_assert_same(&small_plain, &small, "2 prefetch threads, 1 MiB budget", path);
        record_digest_assert_same(&plain, &small_plain, "1 MiB budget", path);
        if (ahead) compressed_traces++;
        ahead_total += ahead + ahead3 + ahead_small;
        if (strstr(path, "net.4.5.2.x86")) assert_true(ahead > 0);  /* 275 compressed buffers */
    }
    /* not vacuous: the compressed traces (net.4.5.2.x86, smallEtlFile, SelfDescribingSingleEvent, PktMon,
     * terraingen2d) had buffers decompressed ahead */
    assert_true(compressed_traces >= 3);
    assert_true(ahead_total > 300);
}

/* Decompress-ahead by lent threads (etl_trace_prefetch_help, no thread of its own): the reading thread helps
 * every third record, and, when asked, a second thread helps all along while etl_process runs (the -j
 * workers' way). */
typedef struct helped {
    digest d;
    etl_trace *t;
    size_t records;
    uint64_t helps;
    atomic_int done;
} helped;

static int help_every_third(const etl_event_record *r, void *ctx)
{
    helped *h = ctx;
    if (++h->records % 3 == 0) h->helps += (uint64_t)etl_trace_prefetch_help(h->t);
    return record_digest_record(r, &h->d);
}

static void *help_all_along(void *arg)
{
    helped *h = arg;
    while (!atomic_load(&h->done))
        if (!etl_trace_prefetch_help(h->t)) sched_yield();
    return NULL;
}

static digest read_trace_helped(const char *path, size_t budget, int other_thread, uint64_t *prefetched,
                                uint64_t *helps)
{
    helped h = {.records = 0};
    record_digest_init(&h.d);
    etl_open_options o = {0, record_digest_diagnostic, &h.d};
    etl_error err;
    int rc = etl_open(&h.t, &path, 1, &o, &err);
    *prefetched = *helps = 0;
    if (rc != ETL_OK) {
        record_digest_mix(&h.d, &rc, sizeof rc);
        return h.d;
    }
    etl_trace_set_memory_budget(h.t, budget);
    assert_int_equal(etl_trace_set_prefetch(h.t, 0), ETL_OK);
    pthread_t other;
    if (other_thread) assert_int_equal(pthread_create(&other, NULL, help_all_along, &h), 0);
    rc = etl_process(h.t, help_every_third, &h);
    atomic_store(&h.done, 1);
    if (other_thread) pthread_join(other, NULL);
    record_digest_mix(&h.d, &rc, sizeof rc);
    *prefetched = etl_trace_get_stats(h.t)->buffers_prefetched;
    *helps = h.helps;
    etl_close(h.t);
    return h.d;
}

static void test_lent_threads_deliver_the_same_records(void **state)
{
    (void)state;
    static corpus_trace traces[128];
    size_t n = corpus_traces(traces, 128);
    uint64_t ahead_total = 0;
    int compressed_seen = 0;
    for (size_t i = 0; i < n; i++) {
        char path[300];
        snprintf(path, sizeof path, "testdata/%.255s", traces[i].file);
        uint64_t none, ahead, helps, ahead_two, helps_two, ahead_small, helps_small;
        digest plain = read_trace(path, 0, 0, &none);
        digest own = read_trace_helped(path, 0, 0, &ahead, &helps);
        record_digest_assert_same(&plain, &own, "the reading thread lent", path);
        digest two = read_trace_helped(path, 0, 1, &ahead_two, &helps_two);
        record_digest_assert_same(&plain, &two, "two threads lent", path);
        digest small_plain = read_trace(path, 0, 1 << 20, &none);
        digest small = read_trace_helped(path, 1 << 20, 1, &ahead_small, &helps_small);
        record_digest_assert_same(&small_plain, &small, "two threads lent, 1 MiB budget", path);
        ahead_total += ahead + ahead_two + ahead_small;
        if (strstr(path, "net.4.5.2.x86")) {  /* 275 compressed buffers: the reading thread alone (no race) */
            compressed_seen = 1;
            assert_true(helps > 0);   /* decompressed some itself ahead of need */
            assert_true(ahead > 0);   /* ... and took them decompressed later */
        }
    }
    assert_true(compressed_seen);
    assert_true(ahead_total > 100);  /* not vacuous: buffers were taken decompressed ahead */
}

enum { MERGED, BY_STREAM, AUTO };

/* The process table a first pass leaves, as text; by stream: ETL_LEARN_BY_STREAM_NOT when it could not. */
static int learn_rounds(etl_schema_registry *registry, const char *path, int how, unsigned threads,
                        uint64_t round_bytes, uint64_t run_bytes, etl_textbuf *out)
{
    etl_trace *t;
    etl_error err;
    if (etl_open(&t, &path, 1, NULL, &err) != ETL_OK) return -1;  /* empty.etl */
    etl_decoder *d = etl_decoder_new(registry, t);
    assert_non_null(d);
    int rc = how == MERGED      ? etl_learn_processes_merged(d, &path, 1, threads)
             : how == BY_STREAM ? etl_learn_processes_by_stream(d, registry, &path, 1, threads, round_bytes, run_bytes)
                                : etl_learn_processes(d, registry, &path, 1, threads, NULL);
    assert_true(rc == ETL_OK || (how == BY_STREAM && rc == ETL_LEARN_BY_STREAM_NOT));
    assert_int_equal(etl_process_table_describe(etl_decoder_process_table(d), out), ETL_OK);
    etl_textbuf_append(out, "", 1);
    etl_decoder_free(d);
    etl_close(t);
    return rc;
}

static int learn(etl_schema_registry *registry, const char *path, int how, unsigned threads, etl_textbuf *out)
{
    return learn_rounds(registry, path, how, threads, 0, 0, out);
}

static void assert_same_table(const etl_textbuf *a, const etl_textbuf *b, const char *what, const char *path)
{
    if (a->length != b->length || memcmp(a->data, b->data, a->length) != 0)
        fail_msg("%s: %s learnt another process table than the merged pass on one thread", path, what);
}

/* The buffers of the trace's longest stream. */
static size_t most_buffers(const char *path)
{
    etl_trace *t;
    etl_error err;
    size_t most = 0;
    if (etl_open(&t, &path, 1, NULL, &err) != ETL_OK) return 0;
    for (size_t i = 0; i < etl_trace_stream_count(t); i++)
        if (etl_trace_stream_buffer_count(t, i) > most) most = etl_trace_stream_buffer_count(t, i);
    etl_close(t);
    return most;
}

static void test_parallel_first_pass_learns_the_same_table(void **state)
{
    (void)state;
    etl_schema_registry *registry = etl_schema_registry_new();
    etl_error err;
    etl_schema_load_bundled(registry, &err);
    static corpus_trace traces[128];
    size_t n = corpus_traces(traces, 128);
    size_t named = 0, by_stream = 0, shared = 0;
    for (size_t i = 0; i < n; i++) {
        char path[300];
        snprintf(path, sizeof path, "testdata/%.255s", traces[i].file);
        etl_textbuf ref = {0}, other = {0};
        if (learn(registry, path, MERGED, 1, &ref) < 0) continue;
        /* rounds of 256 KiB: the small corpus traces are read in many rounds too (64 MiB by default) */
        /* runs of 1 byte: every buffer is a run, so each stream's buffers alternate between the threads */
        static const struct { int how; unsigned threads; uint64_t round_bytes, run_bytes; const char *what; } ways[] = {
            {MERGED, 2, 0, 0, "merged, 2 threads"}, {MERGED, 4, 0, 0, "merged, 4 threads"},
            {BY_STREAM, 1, 0, 0, "by stream, 1 thread"}, {BY_STREAM, 2, 0, 0, "by stream, 2 threads"},
            {BY_STREAM, 5, 0, 0, "by stream, 5 threads"}, {BY_STREAM, 1, 256 << 10, 0, "by stream, 1 thread, rounds"},
            {BY_STREAM, 3, 256 << 10, 0, "by stream, 3 threads, rounds"},
            {BY_STREAM, 2, 0, 1, "by stream, 2 threads, runs of one buffer"},
            {BY_STREAM, 3, 256 << 10, 1, "by stream, 3 threads, rounds, runs of one buffer"},
            {BY_STREAM, 2, 0, 128 << 10, "by stream, 2 threads, runs of 128 KiB"},
            {AUTO, 2, 0, 0, "etl_learn_processes, 2 threads"},
        };
        for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
            etl_textbuf_reset(&other);
            int rc = learn_rounds(registry, path, ways[w].how, ways[w].threads, ways[w].round_bytes,
                                  ways[w].run_bytes, &other);
            if (rc == ETL_LEARN_BY_STREAM_NOT) {
                assert_int_equal(other.length, 1);  /* learnt nothing: the merged pass then */
                continue;
            }
            if (ways[w].how == BY_STREAM && ways[w].threads == 1) by_stream++;
            if (ways[w].how == BY_STREAM && ways[w].run_bytes == 1 && most_buffers(path) >= 4) shared++;
            assert_same_table(&ref, &other, ways[w].what, path);
        }
        if (strstr(ref.data, "pid ")) named++;
        if (strstr(path, "TraceLoggingTester"))  /* WPR: the rundown at the end names the process */
            assert_non_null(strstr(ref.data, "] TraceLoggingTester"));
        if (strstr(path, "net.4.5.2.x86")) assert_non_null(strstr(ref.data, "pid "));  /* compressed */
        etl_textbuf_free(&ref);
        etl_textbuf_free(&other);
    }
    assert_true(named >= 10);
    assert_true(by_stream >= 20);  /* not vacuous: most traces are read by stream */
    assert_true(shared >= 20);     /* ... and with streams of several buffers shared out */
    etl_schema_registry_free(registry);
}

/* A thread whose process changes in the middle of the trace (a TID reused), seen on several processors: the
 * corpus has none, so one is made from TraceLoggingTester (uncompressed) by giving the last record of its
 * most widely seen thread another PID. The merged pass then ends with that PID for the TID; reading by
 * stream must keep, across streams and threads, the header that comes last in merge order. */
typedef struct last_of_tid {
    uint32_t tid, processors_seen;
    uint64_t processor_mask, file_offset;
    uint32_t record_offset, pid;
    uint8_t head[16];
} last_of_tid;

typedef struct tid_scan {
    last_of_tid slots[8192];
} tid_scan;

static int on_scan(const etl_event_record *r, void *ctx)
{
    tid_scan *sc = ctx;
    const etl_event_header *h = &r->header;
    if (etl_process_table_wants(r) || h->process_id == UINT32_MAX || h->thread_id == UINT32_MAX || !h->thread_id ||
        !r->raw || r->raw_size < 16)
        return 0;
    size_t i = (h->thread_id * 2654435761u) & 8191;
    while (sc->slots[i].tid && sc->slots[i].tid != h->thread_id) i = (i + 1) & 8191;
    last_of_tid *l = &sc->slots[i];
    l->tid = h->thread_id;
    uint64_t bit = 1ull << (r->buffer_context.processor_index & 63);
    if (!(l->processor_mask & bit)) l->processors_seen++;
    l->processor_mask |= bit;
    l->file_offset = r->file_offset;
    l->record_offset = r->record_offset;
    l->pid = h->process_id;
    memcpy(l->head, r->raw, 16);
    return 0;
}

/* Patches the PID of `l`'s record in a copy of `src`; the copy's path in `path`. */
static void patched_copy(const char *src, const last_of_tid *l, uint32_t pid, char *path)
{
    size_t size;
    uint8_t *bytes = corpus_load(src, &size);
    assert_non_null(bytes);
    uint64_t at = l->file_offset + 0x48 + l->record_offset;  /* buffer header, then the records */
    assert_true(at + 16 <= size);
    assert_memory_equal(bytes + at, l->head, 16);  /* it is that record */
    memcpy(bytes + at + 12, &pid, 4);              /* ProcessId, little-endian as on this machine */
    assert_int_equal(corpus_write_temp(bytes, size, path), 0);
    free(bytes);
}

static void test_reused_thread_id_across_streams(void **state)
{
    (void)state;
    /* uncompressed traces whose threads may have no thread event after their last record */
    static const char *const sources[] = {
        "testdata/perfview/diaghub.user_paged.1.etl.gz", "testdata/tx/CrossMachineHTTP.etl.gz",
        "testdata/tx/BondEtwSample.etl.gz", "testdata/perfview/gcevents.PerfViewData.etl.gz",
        "testdata/etwanalyzer/TraceLoggingTester.etl.gz",
    };
    static tid_scan scan;
    etl_schema_registry *registry = etl_schema_registry_new();
    int header_last = 0, event_after = 0;
    for (size_t k = 0; k < sizeof sources / sizeof sources[0]; k++) {
        const char *src = sources[k];
        memset(&scan, 0, sizeof scan);
        etl_trace *t;
        etl_error err;
        if (etl_open(&t, &src, 1, NULL, &err) != ETL_OK) continue;
        etl_process(t, on_scan, &scan);
        etl_close(t);
        for (int tries = 0; tries < 2; tries++) {
            last_of_tid *best = NULL;  /* the thread seen on most processors, not tried yet */
            for (size_t i = 0; i < 8192; i++)
                if (scan.slots[i].tid && scan.slots[i].processors_seen >= 2 &&
                    (!best || scan.slots[i].processors_seen > best->processors_seen))
                    best = &scan.slots[i];
            if (!best) break;
            uint32_t fresh = best->pid ^ 0x5a5a;
            char path[64], want[64];
            patched_copy(src, best, fresh, path);
            best->processors_seen = 0;
            etl_textbuf ref = {0}, one = {0}, three = {0};
            assert_int_equal(learn(registry, path, MERGED, 1, &ref), ETL_OK);
            snprintf(want, sizeof want, "tid %u pid %u\n", best->tid, fresh);
            /* either that header is the thread's last word in the merged pass, or a thread event after it
             * (a rundown at the end) gives the PID back: reading by stream must agree in both cases */
            if (strstr(ref.data, want)) header_last = 1;
            else event_after = 1;
            assert_int_equal(learn(registry, path, BY_STREAM, 1, &one), ETL_OK);
            assert_int_equal(learn_rounds(registry, path, BY_STREAM, 3, 1 << 20, 1, &three), ETL_OK);
            assert_same_table(&ref, &one, "by stream, 1 thread", path);
            assert_same_table(&ref, &three, "by stream, 3 threads, rounds of 1 MiB, runs of one buffer", path);
            unlink(path);
            etl_textbuf_free(&ref);
            etl_textbuf_free(&one);
            etl_textbuf_free(&three);
        }
    }
    assert_true(header_last && event_after);
    etl_schema_registry_free(registry);
}

/* A stream that goes back in time (a record's timestamp patched to an earlier one): the merged order is then
 * not the order of the merge keys, so reading by stream refuses, learns nothing, and etl_learn_processes
 * learns what the merged pass learns. */
typedef struct later_record {
    uint64_t seen, file_offset;
    uint32_t record_offset;
    int64_t raw;
    uint8_t head[16];
} later_record;

static int on_pick(const etl_event_record *r, void *ctx)
{
    later_record *p = ctx;
    int64_t stored;
    if (++p->seen < 1000 || p->raw || !r->raw || r->raw_size < 24 || r->record_offset == 0) return 0;
    memcpy(&stored, r->raw + 16, 8);  /* EVENT_HEADER and full headers keep the time there */
    if (stored != r->raw_timestamp || stored <= 0) return 0;
    p->file_offset = r->file_offset;
    p->record_offset = r->record_offset;
    p->raw = stored;
    memcpy(p->head, r->raw, 16);
    return 0;
}

static void test_stream_out_of_order_falls_back(void **state)
{
    (void)state;
    const char *src = "testdata/etwanalyzer/TraceLoggingTester.etl.gz";
    later_record pick = {0};
    etl_trace *t;
    etl_error err;
    assert_int_equal(etl_open(&t, &src, 1, NULL, &err), ETL_OK);
    etl_process(t, on_pick, &pick);
    etl_close(t);
    assert_true(pick.raw > 0);
    size_t size;
    uint8_t *bytes = corpus_load(src, &size);
    assert_non_null(bytes);
    uint64_t at = pick.file_offset + 0x48 + pick.record_offset;
    assert_memory_equal(bytes + at, pick.head, 16);
    int64_t earlier = pick.raw / 2;
    memcpy(bytes + at + 16, &earlier, 8);
    char path[64];
    assert_int_equal(corpus_write_temp(bytes, size, path), 0);
    free(bytes);
    etl_schema_registry *registry = etl_schema_registry_new();
    etl_textbuf ref = {0}, stream = {0}, any = {0};
    assert_int_equal(learn(registry, path, MERGED, 1, &ref), ETL_OK);
    assert_int_equal(learn(registry, path, BY_STREAM, 2, &stream), ETL_LEARN_BY_STREAM_NOT);
    assert_int_equal(stream.length, 1);  /* nothing learnt */
    assert_int_equal(learn(registry, path, AUTO, 2, &any), ETL_OK);
    assert_same_table(&ref, &any, "etl_learn_processes, 2 threads", path);
    assert_non_null(strstr(any.data, "] TraceLoggingTester"));
    unlink(path);
    etl_textbuf_free(&ref);
    etl_textbuf_free(&stream);
    etl_textbuf_free(&any);
    etl_schema_registry_free(registry);
}

/* A shared stream (runs of one buffer on two threads) whose buffer k begins before buffer k-1 ends but after
 * buffer k-2 does: each thread sees its own runs in order (k-2, then k), so only the check of the runs' ends
 * against each other can tell; reading by stream must refuse. */
typedef struct buffer_ends {
    size_t stream, buffers;
    int64_t last[4096];
    uint64_t first_file_offset[4096];
    uint32_t first_record_offset[4096];
    int64_t first_raw[4096];
    uint8_t first_head[4096][24];
    int first_patchable[4096];
    uint32_t first_size[4096];
} buffer_ends;

static int on_stream_scan(const etl_event_record *r, uint64_t position, int header_first, void *ctx)
{
    buffer_ends *e = ctx;
    size_t k = (size_t)(position >> 32);
    (void)header_first;
    if (k >= 4096) return 1;
    if (k + 1 > e->buffers) {  /* the buffer's first record */
        e->buffers = k + 1;
        int64_t stored = 0;
        if (r->raw && r->raw_size >= 24) memcpy(&stored, r->raw + 16, 8);
        e->first_patchable[k] = r->raw && r->raw_size >= 24 && stored == r->raw_timestamp;
        e->first_file_offset[k] = r->file_offset;
        e->first_record_offset[k] = r->record_offset;
        e->first_raw[k] = r->raw_timestamp;
        e->first_size[k] = r->raw_size;
        if (e->first_patchable[k]) memcpy(e->first_head[k], r->raw, 24);
    }
    e->last[k] = r->raw_timestamp;
    return 0;
}

/* The first buffer k of a stream of `src` (read whole) for which picks(ends, k) holds; 0 when none. */
static size_t pick_buffer(const char *src, buffer_ends *ends, int (*picks)(const buffer_ends *e, size_t k))
{
    etl_trace *t;
    etl_error err;
    assert_int_equal(etl_open(&t, &src, 1, NULL, &err), ETL_OK);
    size_t pick = 0;
    for (size_t i = 0; i < etl_trace_stream_count(t) && !pick; i++) {
        memset(ends, 0, sizeof *ends);
        assert_true(etl_process_stream(t, i, on_stream_scan, ends) >= 0);
        for (size_t k = 1; k < ends->buffers && !pick; k++)
            if (ends->first_patchable[k] && picks(ends, k)) pick = k;
    }
    etl_close(t);
    return pick;
}

/* A copy of `src` whose buffer `pick`'s first record has `n` bytes at `offset` replaced; its path in `path`. */
static void patch_first_record(const char *src, const buffer_ends *ends, size_t pick, size_t offset,
                               const void *patch, size_t n, char *path)
{
    size_t size;
    uint8_t *bytes = corpus_load(src, &size);
    assert_non_null(bytes);
    uint64_t at = ends->first_file_offset[pick] + 0x48 + ends->first_record_offset[pick];
    assert_true(at + 24 <= size && offset + n <= ends->first_size[pick]);
    assert_memory_equal(bytes + at, ends->first_head[pick], 24);  /* it is that record */
    memcpy(bytes + at + offset, patch, n);
    assert_int_equal(corpus_write_temp(bytes, size, path), 0);
    free(bytes);
}

/* The merged pass's table of `path` in *ref; reading by stream on two threads, runs of one buffer, refuses
 * and learns nothing; etl_learn_processes then learns the same as the merged pass. */
static void assert_sharing_refuses(etl_schema_registry *registry, const char *path, etl_textbuf *ref)
{
    etl_textbuf shared = {0}, any = {0};
    assert_int_equal(learn(registry, path, MERGED, 1, ref), ETL_OK);
    assert_int_equal(learn_rounds(registry, path, BY_STREAM, 2, 0, 1, &shared), ETL_LEARN_BY_STREAM_NOT);
    assert_int_equal(shared.length, 1);  /* nothing learnt */
    assert_int_equal(learn(registry, path, AUTO, 2, &any), ETL_OK);
    assert_same_table(ref, &any, "etl_learn_processes, 2 threads", path);
    etl_textbuf_free(&shared);
    etl_textbuf_free(&any);
}

static int begins_inside_the_run_before(const buffer_ends *e, size_t k)
{
    return k >= 2 && e->last[k - 2] + 2 < e->last[k - 1] && e->first_raw[k] > e->last[k - 1];
}

static void test_shared_stream_out_of_order_between_runs(void **state)
{
    (void)state;
    const char *src = "testdata/etwanalyzer/TraceLoggingTester.etl.gz";
    static buffer_ends ends;
    size_t pick = pick_buffer(src, &ends, begins_inside_the_run_before);
    assert_true(pick >= 2);  /* the trace has such a boundary */
    int64_t earlier = ends.last[pick - 1] - 1;  /* before buffer k-1's end, after buffer k-2's */
    char path[64];
    patch_first_record(src, &ends, pick, 16, &earlier, sizeof earlier, path);
    etl_schema_registry *registry = etl_schema_registry_new();
    etl_textbuf ref = {0};
    assert_sharing_refuses(registry, path, &ref);
    unlink(path);
    etl_textbuf_free(&ref);
    etl_schema_registry_free(registry);
}

static int any_buffer(const buffer_ends *e, size_t k)
{
    (void)e;
    return k >= 1;
}

/* A shared stream whose run begins with a WPP message logged without a time (it takes the time of the record
 * before it, in the other thread's run; with SYSTEMINFO it names a thread's process, so its time matters):
 * reading by stream on two threads must refuse; on one thread (the stream read whole) it may not. */

static void test_shared_run_starting_without_a_time(void **state)
{
    (void)state;
    const char *src = "testdata/etwanalyzer/TraceLoggingTester.etl.gz";
    static buffer_ends ends;
    size_t pick = pick_buffer(src, &ends, any_buffer);
    assert_true(pick >= 1);
    uint32_t record_size = ends.first_size[pick];
    assert_true(record_size >= 16 && record_size <= 0xFFFF);
    /* MESSAGE header (etl-format.md §2.8): size, marker 0x90 in the top byte; id 1; options SYSTEMINFO only */
    uint8_t message[16] = {(uint8_t)record_size, (uint8_t)(record_size >> 8), 0, 0x90, 1, 0, 0x20, 0,
                           0xF0, 0xDE, 0xBC, 0x0A, 0x78, 0x56, 0, 0};  /* TID 0x0ABCDEF0 (no other), PID 0x5678 */
    char path[64];
    patch_first_record(src, &ends, pick, 0, message, sizeof message, path);
    etl_schema_registry *registry = etl_schema_registry_new();
    etl_textbuf ref = {0}, whole = {0};
    assert_sharing_refuses(registry, path, &ref);
    assert_non_null(strstr(ref.data, "tid 180150000 pid 22136\n"));  /* the message names the thread's process */
    assert_int_equal(learn_rounds(registry, path, BY_STREAM, 1, 0, 1, &whole), ETL_OK);
    assert_same_table(&ref, &whole, "by stream, 1 thread", path);
    unlink(path);
    etl_textbuf_free(&ref);
    etl_textbuf_free(&whole);
    etl_schema_registry_free(registry);
}

/* The first pass plans its rounds by the buffers' flush times (etl_trace_time_range): they must lie where the
 * trace's records do, about StartTime..EndTime of the log-file header. The header buffer has none (0), and
 * net.4.5.2.x86's buffers carry FILETIMEs although its records count QPC ticks. */
static void test_time_range_is_the_traces(void **state)
{
    (void)state;
    static corpus_trace traces[128];
    size_t n = corpus_traces(traces, 128), inside = 0, checked = 0;
    const int64_t day = 864000000000;
    for (size_t i = 0; i < n; i++) {
        char path[300];
        snprintf(path, sizeof path, "testdata/%.255s", traces[i].file);
        const char *p = path;
        etl_trace *t;
        etl_error err;
        if (etl_open(&t, &p, 1, NULL, &err) != ETL_OK) continue;
        const etl_logfile_header *h = etl_trace_logfile_header(t, 0);
        int64_t first, last;
        if (h && h->end_time > h->start_time && etl_trace_time_range(t, &first, &last)) {
            checked++;
            assert_true(first > 0);  /* not the header buffer's 0 */
            inside += first >= h->start_time - day && last <= h->end_time + day;
            if (strstr(path, "net.4.5.2.x86")) {
                assert_true(first >= h->start_time - day && last <= h->end_time + day);
                assert_true(last - first < 100000000);  /* its buffers were flushed within 10 s */
            }
        }
        etl_close(t);
    }
    assert_true(checked >= 25);  /* of the 31 corpus traces, 29 have a header with both times */
    assert_true(inside >= checked - 1);  /* smallEtlFile's one buffer has a stamp of neither kind */
}

/* More threads than a process table keeps (2^19): primitive-types' header buffer, then kernel SYSTEM64 records of
 * 32 bytes (253 to a buffer), each with a TID of its own. By stream refuses such a trace (one round notes at most
 * 65536 threads, and what a full table leaves out depends on the order), so the merged pass learns it, and its
 * warning names the record where the table first left a thread out: the (2^19 + 1)-th distinct thread in
 * time order, whose place in the file is computed here from the layout written. */
enum { SYN_RECORD = 32, SYN_PER_BUFFER = (8192 - DAMAGE_BUFFER_HEADER) / SYN_RECORD, SYN_TID = 0x40000000 };

static uint8_t *many_threads_trace(uint32_t records, size_t *size)
{
    size_t orig_size;
    uint8_t *orig = corpus_load("testdata/perfview/primitive-types.etl.gz", &orig_size);
    assert_non_null(orig);
    assert_int_equal(orig_size, 2 * 8192);
    size_t buffers = (records + SYN_PER_BUFFER - 1) / SYN_PER_BUFFER;
    *size = 8192 * (1 + buffers);
    uint8_t *f = malloc(*size);
    assert_non_null(f);
    memcpy(f, orig, 8192);
    damage_put32(f + DAMAGE_LFH_BUFFERS_WRITTEN, (uint32_t)(1 + buffers));
    const uint8_t *data_header = orig + 8192;  /* its flags, type and logger: a data buffer of this trace */
    int64_t time = (int64_t)(damage_get32(data_header + 0x10) | (uint64_t)damage_get32(data_header + 0x14) << 32);
    for (size_t b = 0; b < buffers; b++) {
        uint8_t *buf = f + 8192 * (1 + b);
        memset(buf, 0xFF, 8192);
        memcpy(buf, data_header, DAMAGE_BUFFER_HEADER);
        uint32_t n = 0;
        for (; n < SYN_PER_BUFFER && b * SYN_PER_BUFFER + n < records; n++) {
            uint8_t *r = buf + DAMAGE_BUFFER_HEADER + n * SYN_RECORD;
            memset(r, 0, SYN_RECORD);
            damage_put32(r, 0xC0020002u);  /* version 2, SYSTEM64, trace header marker */
            damage_put32(r + 4, SYN_RECORD | 0x0F2Eu << 16);  /* Size, HookId: PerfInfo SampledProfile */
            damage_put32(r + 8, SYN_TID + (uint32_t)(b * SYN_PER_BUFFER + n) * 4);  /* ThreadId */
            damage_put32(r + 12, 4);  /* ProcessId */
            time += 10;
            damage_put32(r + 16, (uint32_t)time);
            damage_put32(r + 20, (uint32_t)((uint64_t)time >> 32));
        }
        damage_put32(buf + 0x04, DAMAGE_BUFFER_HEADER + n * SYN_RECORD);  /* SavedOffset */
        damage_put32(buf + 0x30, DAMAGE_BUFFER_HEADER + n * SYN_RECORD);  /* Offset: valid bytes */
        damage_put32(buf + 0x10, (uint32_t)time);  /* flushed after its last record */
        damage_put32(buf + 0x14, (uint32_t)((uint64_t)time >> 32));
        damage_put32(buf + 0x18, (uint32_t)(b + 1));  /* SequenceNumber */
        damage_put32(buf + 0x1C, 0);
        buf[0x28] = 0;  /* processor 0 */
        buf[0x29] = 0;
    }
    free(orig);
    return f;
}

static int count_header_threads(const etl_event_record *r, void *ctx)
{
    uint32_t *tids = ctx;  /* [0]: count, then the distinct TIDs */
    if (!etl_process_table_header_thread(r)) return 0;
    assert_true(r->header.thread_id < SYN_TID);
    for (uint32_t i = 1; i <= tids[0]; i++)
        if (tids[i] == r->header.thread_id) return 0;
    assert_true(tids[0] < 63);
    tids[++tids[0]] = r->header.thread_id;
    return 0;
}

static void test_full_process_table_warning_names_its_record(void **state)
{
    (void)state;
    etl_schema_registry *registry = etl_schema_registry_new();
    assert_non_null(registry);
    const uint32_t records = (1u << 19) + 300;
    size_t size;
    uint8_t *data = many_threads_trace(records, &size);
    char path[64];
    assert_int_equal(corpus_write_temp(data, size, path), 0);
    const char *paths[] = {path};

    /* the header buffer's own threads come first (their records are earlier) */
    char head_path[64];
    assert_int_equal(corpus_write_temp(data, 8192, head_path), 0);
    const char *head_paths[] = {head_path};
    etl_trace *t;
    assert_int_equal(etl_open(&t, head_paths, 1, NULL, NULL), ETL_OK);
    uint32_t tids[64] = {0};
    assert_int_not_equal(etl_process(t, count_header_threads, tids), ETL_STOPPED);
    etl_close(t);
    unlink(head_path);
    assert_true(tids[0] >= 1);
    uint32_t left_out = (1u << 19) - tids[0];  /* the synthetic record index of the first thread left out */
    uint64_t place = 8192 * (1 + left_out / SYN_PER_BUFFER) + DAMAGE_BUFFER_HEADER +
                     (left_out % SYN_PER_BUFFER) * SYN_RECORD;
    char want[64];
    snprintf(want, sizeof want, "offset 0x%llx: ", (unsigned long long)place);

    assert_int_equal(etl_open(&t, paths, 1, NULL, NULL), ETL_OK);
    for (int how = 0; how < 3; how++) {
        etl_decoder *d = etl_decoder_new(registry, t);
        assert_non_null(d);
        first_diagnostic w = {"process table", 0, 0, ""};
        etl_decoder_set_diagnostic(d, first_diagnostic_catch, &w);
        int rc = how == 0 ? etl_learn_processes_merged(d, paths, 1, 1)
                 : how == 1 ? etl_learn_processes_by_stream(d, registry, paths, 1, 2, 0, 0)
                            : etl_learn_processes(d, registry, paths, 1, 2, NULL);
        if (how == 1) {  /* refused, having learnt nothing */
            assert_int_equal(rc, ETL_LEARN_BY_STREAM_NOT);
            assert_int_equal(w.count, 0);
        } else {
            assert_int_equal(rc, ETL_OK);
            if (w.count != 1 || w.offset != place || !strstr(w.message, want) ||
                !strstr(w.message, "process table is full"))
                fail_msg("way %d: %d warnings, the first at 0x%llx (expected 0x%llx): %s", how, w.count,
                         (unsigned long long)w.offset, (unsigned long long)place, w.message);
        }
        etl_decoder_free(d);
    }
    etl_close(t);
    unlink(path);
    free(data);
    etl_schema_registry_free(registry);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefetch_delivers_the_same_records),
        cmocka_unit_test(test_lent_threads_deliver_the_same_records),
        cmocka_unit_test(test_parallel_first_pass_learns_the_same_table),
        cmocka_unit_test(test_reused_thread_id_across_streams),
        cmocka_unit_test(test_stream_out_of_order_falls_back),
        cmocka_unit_test(test_shared_stream_out_of_order_between_runs),
        cmocka_unit_test(test_shared_run_starting_without_a_time),
        cmocka_unit_test(test_time_range_is_the_traces),
        cmocka_unit_test(test_full_process_table_warning_names_its_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
