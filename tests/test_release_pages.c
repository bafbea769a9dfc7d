/* Deferred release of the mapped pages read (issue 14: a -j reader's turn no longer holds the 0.2-0.3 ms of
 * each release; etl_trace_defer_release / etl_trace_release_due). Measured on the process's own page table:
 * the resident size of the trace's mapping (/proc/self/smaps), sampled while etl_process reads the 26.5 MB
 * of plain buffers of net.4.5.x86.PerfViewData. A release comes due every 4 MiB of reading. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "etl/etl.h"

#define TRACE "testdata/perfview/net.4.5.x86.PerfViewData.etl.gz"
#define MIB (1024 * 1024)
#define SAMPLE_EVERY 500

/* Resident bytes of the mapping that starts at `base`, from /proc/self/smaps; -1 when it is not found. */
static long resident_bytes(const uint8_t *base)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int in_it = 0;
    long kib = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long start, end;
        if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {  /* a mapping's first line; field lines fail it */
            in_it = start == (unsigned long)(uintptr_t)base;
            continue;
        }
        if (in_it && sscanf(line, "Rss: %ld kB", &kib) == 1) break;
    }
    fclose(f);
    return kib < 0 ? -1 : kib * 1024;
}

typedef struct run {
    etl_trace *trace;
    const uint8_t *base;
    int release_every;      /* records; 0: never (by the callback) */
    uint64_t records, sum;  /* what was delivered: count, and a hash of times and sizes in order */
    long max_resident;
    int releases;           /* etl_trace_release_due said 1 */
    long after_release;     /* the largest resident size seen right after a release */
} run;

static int on_record(const etl_event_record *r, void *ctx)
{
    run *u = ctx;
    u->records++;
    u->sum = (u->sum ^ (uint64_t)r->raw_timestamp ^ ((uint64_t)r->raw_size << 48)) * 0x100000001b3ull;
    if (u->release_every && u->records % (uint64_t)u->release_every == 0 && etl_trace_release_due(u->trace)) {
        u->releases++;
        long now = resident_bytes(u->base);
        if (now > u->after_release) u->after_release = now;
    }
    if (u->records % SAMPLE_EVERY == 0) {
        long now = resident_bytes(u->base);
        assert_true(now >= 0);
        if (now > u->max_resident) u->max_resident = now;
    }
    return 0;
}

static void open_trace(run *u, int defer)
{
    const char *paths[] = {TRACE};
    etl_open_options opt = {0, NULL, NULL};
    etl_error err;
    assert_int_equal(etl_open(&u->trace, paths, 1, &opt, &err), ETL_OK);
    uint64_t size;
    assert_true(etl_trace_file_mapping(u->trace, 0, &u->base, &size));
    assert_true(size > 24 * MIB);  /* six releases' worth and more */
    if (defer) etl_trace_defer_release(u->trace, 1);
}

static void read_all(run *u)
{
    assert_int_equal(etl_process(u->trace, on_record, u), ETL_OK);
    assert_true(u->records > 100000);
}

/* The records a deferred run must deliver too: those of a plain read. */
static void assert_same_records_as_plain(const run *u)
{
    run plain = {0};
    open_trace(&plain, 0);
    read_all(&plain);
    etl_close(plain.trace);
    assert_int_equal(u->records, plain.records);
    assert_true(u->sum == plain.sum);
}

/* As ever: given back inside etl_process every 4 MiB; nothing is left due. */
static void test_default_releases_inline(void **state)
{
    (void)state;
    run u = {0};
    open_trace(&u, 0);
    read_all(&u);
    assert_true(u.max_resident > 2 * MIB);  /* the sampling sees the mapping fill */
    assert_true(u.max_resident < 5 * MIB);
    assert_int_equal(etl_trace_release_due(u.trace), 0);
    etl_close(u.trace);
}

/* Deferred, never released by the caller: every second release is done inline (the one still pending), so
 * the mapping fills past 4 MiB but stays under 8 MiB of reading; the same records in the same order. */
static void test_deferred_bounded_without_caller(void **state)
{
    (void)state;
    run u = {0};
    open_trace(&u, 1);
    read_all(&u);
    assert_true(u.max_resident > 5 * MIB);  /* a release was left to the caller */
    assert_true(u.max_resident < 9 * MIB);
    assert_same_records_as_plain(&u);
    etl_close(u.trace);
}

/* Deferred, released by the caller now and then: each release empties the mapping but for the pages read
 * since; the bound is the default one. */
static void test_deferred_released_by_caller(void **state)
{
    (void)state;
    run u = {0};
    open_trace(&u, 1);
    u.release_every = 256;
    read_all(&u);
    assert_true(u.releases >= 5);   /* 26.5 MB / 4 MiB */
    assert_true(u.after_release < MIB);
    assert_true(u.max_resident < 5 * MIB);
    etl_close(u.trace);
}

/* Another thread releasing all the while (as a -j worker does outside the reader's turn): the records stay
 * those of a plain read (pages in use are read again from the page cache). */
typedef struct releaser {
    etl_trace *trace;
    atomic_int stop;
    int releases;
} releaser;

static void *release_loop(void *arg)
{
    releaser *r = arg;
    while (!atomic_load(&r->stop)) r->releases += etl_trace_release_due(r->trace);
    return NULL;
}

static void test_deferred_released_by_another_thread(void **state)
{
    (void)state;
    run u = {0};
    open_trace(&u, 1);
    releaser r = {u.trace, 0, 0};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, release_loop, &r), 0);
    read_all(&u);
    atomic_store(&r.stop, 1);
    pthread_join(thread, NULL);
    assert_same_records_as_plain(&u);
    assert_true(r.releases >= 1);
    assert_true(u.max_resident < 9 * MIB);
    etl_close(u.trace);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_releases_inline),
        cmocka_unit_test(test_deferred_bounded_without_caller),
        cmocka_unit_test(test_deferred_released_by_caller),
        cmocka_unit_test(test_deferred_released_by_another_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
