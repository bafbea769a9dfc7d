/* Hostile and damaged copies of corpus traces (issue 11), built here: decompression bombs (peak RSS measured
 * with getrusage in a child process), files cut at a buffer boundary or ending in zeros, repeated and foreign
 * buffers, unusable clocks. Each must be reported (an error naming file and offset) with the rest read. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etl/etl.h"
#include "support/corpus.h"
#include "support/damage.h"

/* Under ASan, freed blocks wait in a quarantine (256 MiB by default) that would hide what the reader frees. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "quarantine_size_mb=4"; }

typedef struct run_result {
    uint64_t events, errors, warnings, out_of_order, diagnostics;
    int64_t first_time, last_time, last_header_time;
    int diag_without_offset;
    char first_error[600];
} run_result;

static void on_diag(const etl_diagnostic *d, void *ctx)
{
    run_result *r = ctx;
    r->diagnostics++;
    if (!strstr(d->message, "offset 0x")) r->diag_without_offset = 1;
    if (d->severity == ETL_ERROR && !r->first_error[0]) snprintf(r->first_error, sizeof r->first_error, "%s", d->message);
}

static int on_event(const etl_event_record *rec, void *ctx)
{
    run_result *r = ctx;
    if (r->events == 0) r->first_time = rec->header.timestamp;
    else if (rec->header.timestamp < r->last_time) r->out_of_order++;
    r->last_time = rec->header.timestamp;
    volatile uint8_t sink = 0;  /* touch the payload: an evicted buffer must have been reloaded */
    for (uint16_t k = 0; k < rec->user_data_length; k++) sink ^= rec->user_data[k];
    (void)sink;
    r->events++;
    return 0;
}

/* Reads `size` bytes as a trace with the given memory budget (0: default). */
static int read_bytes(const uint8_t *data, size_t size, size_t budget, run_result *r)
{
    memset(r, 0, sizeof *r);
    char path[64];
    if (corpus_write_temp(data, size, path) != 0) return -1;
    const char *paths[] = {path};
    etl_open_options opt = {0, on_diag, r};
    etl_trace *t;
    int rc = etl_open(&t, paths, 1, &opt, NULL);
    if (rc == ETL_OK) {
        etl_trace_set_memory_budget(t, budget);
        rc = etl_process(t, on_event, r);
        r->errors = etl_trace_get_stats(t)->errors;
        r->warnings = etl_trace_get_stats(t)->warnings;
        etl_close(t);
    }
    unlink(path);
    return rc;
}

static uint8_t *load(const char *rel, size_t *size)
{
    uint8_t *p = corpus_load(rel, size);
    assert_non_null(p);
    return p;
}

/* Records of the buffer at `offset` (its valid bytes after the header). */
static size_t buffer_records(const uint8_t *file, size_t offset, const uint8_t **records)
{
    *records = file + offset + DAMAGE_BUFFER_HEADER;
    return damage_get32(file + offset + 0x30) - DAMAGE_BUFFER_HEADER;
}

/* ---- decompression bombs -------------------------------------------------------------------------------- */

typedef struct bomb {
    uint8_t *data;
    size_t size;
    size_t budget;
    run_result result;
} bomb;

/* primitive-types' header buffer, then `streams` compressed buffers (processors 0..streams-1) that each expand
 * its data buffer's records plus filler to `claim` bytes; the header's BufferSize becomes `header_buffer_size`. */
static bomb make_bomb(unsigned streams, uint32_t claim, uint32_t header_buffer_size, uint64_t *records_per_buffer)
{
    size_t size;
    uint8_t *orig = load("testdata/perfview/primitive-types.etl.gz", &size);
    assert_int_equal(size, 2 * 8192);
    assert_int_equal(damage_get32(orig + DAMAGE_LFH_BUFFER_SIZE), 8192);  /* the header field is where we think */
    const uint8_t *records;
    size_t records_len = buffer_records(orig, 8192, &records);
    size_t cap = 8192 + (size_t)streams * (records_len + records_len / 8 + 128);
    bomb b = {calloc(1, cap), 0, 0, {0}};
    assert_non_null(b.data);
    memcpy(b.data, orig, 8192);
    damage_put32(b.data + DAMAGE_LFH_BUFFER_SIZE, header_buffer_size);
    b.size = 8192;
    uint16_t logger = (uint16_t)(orig[8192 + 0x2A] | orig[8192 + 0x2B] << 8);
    for (unsigned i = 0; i < streams; i++) {
        size_t n = damage_bomb_buffer(b.data + b.size, cap - b.size, records, records_len, claim, (uint16_t)i,
                                      100 + i, logger);
        assert_true(n > 0);
        b.size += n;
    }
    /* the records of one data buffer: the original trace's events minus the header buffer's */
    run_result whole;
    assert_int_equal(read_bytes(orig, size, 0, &whole), ETL_OK);
    run_result head;
    assert_int_equal(read_bytes(orig, 8192, 0, &head), ETL_OK);
    *records_per_buffer = whole.events - head.events;
    assert_true(*records_per_buffer > 0);
    free(orig);
    return b;
}

static int read_bomb(void *ctx)
{
    bomb *b = ctx;
    return read_bytes(b->data, b->size, b->budget, &b->result) == ETL_OK ? 0 : 1;
}

static int do_nothing(void *ctx)
{
    (void)ctx;
    return 0;
}

/* Peak RSS growth (KiB) of reading the bomb in a child, over a child that does nothing. */
static long bomb_rss_growth(bomb *b, int *status)
{
    int st;
    long base = damage_child_peak_rss_kib(do_nothing, NULL, &st);
    long peak = damage_child_peak_rss_kib(read_bomb, b, status);
    assert_true(base > 0 && peak > 0);
    return peak - base;
}

/* A buffer may not expand beyond the header's BufferSize: 16 buffers that each claim 16 MiB in a trace of
 * 8 KiB buffers are reported and skipped (before: 16 × 16 MiB = 256 MiB resident). */
static void test_bomb_above_buffer_size(void **state)
{
    (void)state;
    uint64_t per_buffer;
    bomb b = make_bomb(16, 16u << 20, 8192, &per_buffer);
    print_message("bomb file: %zu bytes\n", b.size);
    int status;
    long growth = bomb_rss_growth(&b, &status);
    print_message("bomb above BufferSize: 16 buffers claiming 16 MiB each; peak RSS growth %ld KiB\n", growth);
    assert_int_equal(status, 0);
    assert_true(growth < 32 * 1024);
    assert_int_equal(read_bomb(&b), 0);
    assert_int_equal(b.result.errors, 16);
    assert_false(b.result.diag_without_offset);
    assert_non_null(strstr(b.result.first_error, "more than the 8192 of the log-file header's BufferSize"));
    free(b.data);
}

/* Many streams of buffers within BufferSize: the header claims 2 GiB buffers (clamped to 16 MiB, with a
 * warning) and 48 processors each hold a 16 MiB buffer: 768 MiB if every stream kept its buffer. With a 64 MiB
 * budget, peak RSS stays near the budget, and every event still arrives, in order. */
static void test_bomb_many_streams_within_budget(void **state)
{
    (void)state;
    uint64_t per_buffer;
    bomb b = make_bomb(48, 16u << 20, 0x80000000u, &per_buffer);
    b.budget = 64u << 20;
    int status;
    long growth = bomb_rss_growth(&b, &status);
    print_message("48 streams x 16 MiB, budget 64 MiB: peak RSS growth %ld KiB\n", growth);
    assert_int_equal(status, 0);
    assert_true(growth < (64 + 16 + 16 + 32) * 1024);  /* budget + one buffer + compressed scratch + slack */
    assert_int_equal(read_bomb(&b), 0);
    if (b.result.errors) print_message("%s\n", b.result.first_error);
    assert_int_equal(b.result.errors, 0);
    assert_int_equal(b.result.warnings, 1);  /* BufferSize clamped */
    assert_int_equal(b.result.out_of_order, 0);
    run_result head;
    assert_int_equal(read_bytes(b.data, 8192, 0, &head), ETL_OK);
    assert_int_equal(b.result.events, head.events + 48 * per_buffer);
    free(b.data);
}

/* ---- silent loss ------------------------------------------------------------------------------------------ */

/* lxcore_kernel: three 8 KiB buffers, BuffersWritten 3. Cut after the second buffer (exactly at a boundary), or
 * with the third replaced by a short zero tail: reported, the first two buffers still read. */
static void test_cut_at_buffer_boundary(void **state)
{
    (void)state;
    size_t size;
    uint8_t *lx = load("testdata/airbus-cert/lxcore_kernel.etl.gz", &size);
    assert_int_equal(size, 3 * 8192);
    run_result whole, two;
    assert_int_equal(read_bytes(lx, size, 0, &whole), ETL_OK);
    assert_int_equal(whole.errors, 0);
    assert_int_equal(read_bytes(lx, 2 * 8192, 0, &two), ETL_OK);
    assert_int_equal(two.errors, 1);
    assert_non_null(strstr(two.first_error, "offset 0x4000: the log-file header says 3 buffers were written"));
    assert_true(two.events > 0 && two.events < whole.events);
    memset(lx + 2 * 8192, 0, 3000);
    run_result tail;
    assert_int_equal(read_bytes(lx, 2 * 8192 + 3000, 0, &tail), ETL_OK);
    assert_int_equal(tail.errors, 1);
    assert_int_equal(tail.events, two.events);
    free(lx);
}

/* A record the parser cannot read ends its buffer's walk, and the error names that record: its first byte in the
 * file for a plain buffer (the buffer, its 0x48-byte header, the record's offset after it), the buffer's offset
 * and the record's place in the decompressed records for a compressed one. The place is computed here from the
 * file's bytes: primitive-types' records have their Size at +0 and start 8-byte aligned. */
static void test_bad_record_named(void **state)
{
    (void)state;
    size_t size;
    uint8_t *orig = load("testdata/perfview/primitive-types.etl.gz", &size);
    assert_int_equal(size, 2 * 8192);
    const uint8_t *records;
    size_t records_len = buffer_records(orig, 8192, &records);
    size_t third = 0;  /* the data buffer's third record */
    for (int i = 0; i < 2; i++) third += ((size_t)(records[third] | records[third + 1] << 8) + 7) & ~(size_t)7;
    assert_true(third > 0 && third + 8 < records_len);
    assert_int_equal(records[third + 3], 0xC0);  /* the marker's flags byte: cleared below */
    run_result head;
    assert_int_equal(read_bytes(orig, 8192, 0, &head), ETL_OK);
    char want[160];

    uint8_t *plain = malloc(size);
    assert_non_null(plain);
    memcpy(plain, orig, size);
    plain[8192 + DAMAGE_BUFFER_HEADER + third + 3] = 0;
    run_result r;
    assert_int_equal(read_bytes(plain, size, 0, &r), ETL_OK);
    assert_int_equal(r.errors, 1);
    assert_int_equal(r.events, head.events + 2);
    snprintf(want, sizeof want, "offset 0x%zx: invalid record marker; rest of buffer skipped",
             (size_t)8192 + DAMAGE_BUFFER_HEADER + third);
    assert_non_null(strstr(r.first_error, want));

    uint8_t *bad = malloc(records_len);
    size_t cap = 8192 + records_len + records_len / 8 + 128;
    uint8_t *packed = calloc(1, cap);
    assert_true(bad && packed);
    memcpy(bad, records, records_len);
    bad[third + 3] = 0;
    memcpy(packed, orig, 8192);
    uint16_t logger = (uint16_t)(orig[8192 + 0x2A] | orig[8192 + 0x2B] << 8);
    size_t n = damage_bomb_buffer(packed + 8192, cap - 8192, bad, records_len, 8192, 0, 100, logger);
    assert_true(n > 0);
    assert_int_equal(read_bytes(packed, 8192 + n, 0, &r), ETL_OK);
    assert_int_equal(r.errors, 1);
    assert_int_equal(r.events, head.events + 2);
    snprintf(want, sizeof want, "offset 0x2000: compressed buffer, record 0x%zx bytes into its decompressed records: "
             "invalid record marker; rest of buffer skipped", third);
    assert_non_null(strstr(r.first_error, want));
    free(packed);
    free(bad);
    free(plain);
    free(orig);
}

/* A buffer that appears twice (same processor and SequenceNumber) is reported and delivered once. */
static void test_repeated_buffer(void **state)
{
    (void)state;
    size_t size;
    uint8_t *lx = load("testdata/airbus-cert/lxcore_kernel.etl.gz", &size);
    uint8_t *dup = malloc(size + 8192);
    assert_non_null(dup);
    memcpy(dup, lx, size);
    memcpy(dup + size, lx + 8192, 8192);
    run_result whole, twice;
    assert_int_equal(read_bytes(lx, size, 0, &whole), ETL_OK);
    assert_int_equal(read_bytes(dup, size + 8192, 0, &twice), ETL_OK);
    assert_int_equal(twice.errors, 1);
    assert_non_null(strstr(twice.first_error, "offset 0x6000: buffer repeats the one at offset 0x2000"));
    assert_int_equal(twice.events, whole.events);
    free(dup);
    free(lx);
}

/* Buffers of another trace appended: one of another session (primitive-types, LoggerId 61, same 8 KiB size)
 * and one of this session but another BufferSize. Both reported and skipped. */
static void test_foreign_buffers(void **state)
{
    (void)state;
    size_t size, psize;
    uint8_t *lx = load("testdata/airbus-cert/lxcore_kernel.etl.gz", &size);
    uint8_t *pt = load("testdata/perfview/primitive-types.etl.gz", &psize);
    uint8_t *mix = calloc(1, size + 8192 + 16384);
    assert_non_null(mix);
    memcpy(mix, lx, size);
    memcpy(mix + size, pt + 8192, 8192);
    run_result whole, other_logger;
    assert_int_equal(read_bytes(lx, size, 0, &whole), ETL_OK);
    assert_int_equal(read_bytes(mix, size + 8192, 0, &other_logger), ETL_OK);
    assert_int_equal(other_logger.errors, 1);
    assert_non_null(strstr(other_logger.first_error, "offset 0x6000: buffer of another trace (LoggerId 61"));
    assert_int_equal(other_logger.events, whole.events);
    /* lxcore's second buffer as a 16 KiB buffer with a new SequenceNumber */
    memcpy(mix + size, lx + 8192, 8192);
    memset(mix + size + 8192, 0, 8192);
    damage_put32(mix + size, 16384);
    damage_put64(mix + size + 0x18, 999);
    run_result other_size;
    assert_int_equal(read_bytes(mix, size + 16384, 0, &other_size), ETL_OK);
    assert_int_equal(other_size.errors, 1);
    assert_non_null(strstr(other_size.first_error, "buffer of another trace (BufferSize 16384"));
    assert_int_equal(other_size.events, whole.events);
    free(mix);
    free(pt);
    free(lx);
}

/* Reordered buffers are not damage: the same events in the same order, no report. */
static void test_reordered_buffers(void **state)
{
    (void)state;
    size_t size;
    uint8_t *lx = load("testdata/airbus-cert/lxcore_kernel.etl.gz", &size);
    uint8_t *swapped = malloc(size);
    assert_non_null(swapped);
    memcpy(swapped, lx, 8192);
    memcpy(swapped + 8192, lx + 16384, 8192);
    memcpy(swapped + 16384, lx + 8192, 8192);
    run_result a, b;
    assert_int_equal(read_bytes(lx, size, 0, &a), ETL_OK);
    assert_int_equal(read_bytes(swapped, size, 0, &b), ETL_OK);
    assert_int_equal(b.errors + b.warnings, 0);
    assert_int_equal(b.events, a.events);
    assert_int_equal(b.out_of_order, 0);
    assert_int_equal(b.last_time, a.last_time);
    free(swapped);
    free(lx);
}

/* A header whose clock cannot be used: QPC with PerfFreq 0, CPU cycles without a CPU speed, an unknown clock
 * type. Reported; times count 100 ns ticks from StartTime (never 1601), in order. */
static void test_unusable_clock(void **state)
{
    (void)state;
    size_t size;
    uint8_t *pt = load("testdata/perfview/primitive-types.etl.gz", &size);
    assert_int_equal(damage_get32(pt + DAMAGE_LFH_PERF_FREQ), 10000000);  /* the field is where we think */
    assert_int_equal(damage_get32(pt + DAMAGE_LFH_RESERVED_FLAGS), 1);
    run_result good;
    assert_int_equal(read_bytes(pt, size, 0, &good), ETL_OK);
    const struct { uint32_t clock; int64_t freq; uint32_t cpu_mhz; } cases[] = {
        {1, 0, 2304}, {1, -5, 2304}, {3, 10000000, 0}, {0, 0, 2304}, {7, 10000000, 2304},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        damage_put32(pt + DAMAGE_LFH_RESERVED_FLAGS, cases[i].clock);
        damage_put64(pt + DAMAGE_LFH_PERF_FREQ, (uint64_t)cases[i].freq);
        damage_put32(pt + DAMAGE_LFH_CPU_SPEED, cases[i].cpu_mhz);
        run_result bad;
        assert_int_equal(read_bytes(pt, size, 0, &bad), ETL_OK);
        assert_int_equal(bad.errors, 1);
        assert_non_null(strstr(bad.first_error, "event times count 100 ns ticks from StartTime"));
        assert_int_equal(bad.events, good.events);
        assert_int_equal(bad.out_of_order, 0);
        /* same PerfFreq as the real one (10 MHz): identical times */
        assert_int_equal(bad.first_time, good.first_time);
        assert_int_equal(bad.last_time, good.last_time);
    }
    free(pt);
}

int main(void)
{
    alarm(300);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bomb_above_buffer_size),
        cmocka_unit_test(test_bomb_many_streams_within_budget),
        cmocka_unit_test(test_cut_at_buffer_boundary),
        cmocka_unit_test(test_bad_record_named),
        cmocka_unit_test(test_repeated_buffer),
        cmocka_unit_test(test_foreign_buffers),
        cmocka_unit_test(test_reordered_buffers),
        cmocka_unit_test(test_unusable_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
