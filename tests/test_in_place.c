/* Which records are read in place (issue 14: the -j batches keep pointers to those instead of copying their
 * bytes): etl_span_holds at its edges, and etl_trace_record_in_place / etl_trace_file_mapping on every corpus
 * trace against where the record must lie when it was not decompressed: its buffer's file offset plus its
 * offset in the buffer, inside the file's mapping. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "etl/etl.h"
#include "support/corpus.h"
#include "util/span.h"

static void test_span_edges(void **state)
{
    (void)state;
    static const uint8_t bytes[128];  /* the span is the first 64: addresses past it stay inside the array */
    const uint8_t *base = bytes;
    assert_true(etl_span_holds(base, 64, base, 64));          /* the whole */
    assert_true(etl_span_holds(base, 64, base + 10, 54));     /* up to the end */
    assert_true(etl_span_holds(base, 64, base + 64, 0));      /* empty, at the end */
    assert_false(etl_span_holds(base, 64, base + 10, 55));    /* one past the end */
    assert_false(etl_span_holds(base, 64, base + 65, 0));     /* starts past the end */
    assert_false(etl_span_holds(base + 1, 63, base, 1));      /* starts before */
    assert_false(etl_span_holds(base, 64, base + 8, UINT64_MAX));  /* a length that would wrap */
    assert_false(etl_span_holds(NULL, 64, base, 1));
    assert_false(etl_span_holds(base, 64, NULL, 0));
    assert_true(etl_span_holds(base, UINT64_MAX, base + 63, UINT64_MAX - 63));
}

typedef struct tally {
    etl_trace *trace;     /* of one file */
    const uint8_t *base;  /* its mapping, when mapped */
    uint64_t size;
    int mapped;
    uint64_t in_place, copied, wrong;
    char first_wrong[160];
} tally;

static int check_record(const etl_event_record *r, void *ctx)
{
    tally *t = ctx;
    int said = etl_trace_record_in_place(t->trace, r);
    uint64_t at = r->file_offset + 0x48 + r->record_offset;  /* the buffer header, then the records */
    int expected = r->file_index == 0 && t->mapped && r->raw && at <= t->size && r->raw_size <= t->size - at &&
                   (uintptr_t)r->raw == (uintptr_t)t->base + at;
    if (said) t->in_place++;
    else t->copied++;
    if (said != expected && t->wrong++ == 0)
        snprintf(t->first_wrong, sizeof t->first_wrong, "buffer at %llu, record at %u (%u bytes): said %d",
                 (unsigned long long)r->file_offset, r->record_offset, r->raw_size, said);
    return 0;
}

/* Every record of every corpus trace: in place exactly when it lies in the mapping where the file holds it. */
static void test_every_corpus_record(void **state)
{
    (void)state;
    corpus_trace traces[64];
    size_t n = corpus_traces(traces, 64);
    assert_true(n >= 30);
    uint64_t in_place = 0, copied = 0;
    size_t traces_with_copies = 0;
    for (size_t i = 0; i < n; i++) {
        if (strstr(traces[i].census, "0 bytes")) continue;  /* empty.etl */
        char path[512];
        snprintf(path, sizeof path, "testdata/%s", traces[i].file);
        const char *paths[] = {path};
        etl_open_options opt = {0, NULL, NULL};
        etl_error err;
        tally t = {0};
        assert_int_equal(etl_open(&t.trace, paths, 1, &opt, &err), ETL_OK);
        assert_int_equal(etl_trace_file_count(t.trace), 1);
        t.mapped = etl_trace_file_mapping(t.trace, 0, &t.base, &t.size);
        const uint8_t *b;
        uint64_t s;
        assert_false(etl_trace_file_mapping(t.trace, 1, &b, &s));  /* no such file */
        assert_int_equal(etl_process(t.trace, check_record, &t), ETL_OK);
        if (t.wrong) fail_msg("%s: %llu records misjudged, first %s", traces[i].file, (unsigned long long)t.wrong,
                              t.first_wrong);
        in_place += t.in_place;
        copied += t.copied;
        if (t.copied) traces_with_copies++;
        etl_close(t.trace);
    }
    /* both kinds occur: mapped plain buffers, and compressed ones decompressed elsewhere */
    assert_true(in_place > 100000);
    assert_true(copied > 1000);
    assert_true(traces_with_copies >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_span_edges),
        cmocka_unit_test(test_every_corpus_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
