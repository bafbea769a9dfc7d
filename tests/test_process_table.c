/* The process table's bounds (src/decode/process_table.c): a hostile trace can log millions of process starts
 * for one PID or a new TID in every record header; memory and the cost of a lookup stay bounded, what does
 * not fit is counted, and what fitted is still named right. Events are built by hand: the table reads only
 * the record header and the decoded fields' texts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "decode/observe_filter.h"
#include "decode/process_table.h"
#include "etl/etl_schema.h"
#include "support/first_diagnostic.h"

/* kernel Process class (MOF), as the table knows it */
static const etl_guid process_class = {0x3d6fa8d0, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};

typedef struct fake_event {
    etl_event_record record;
    etl_event_info info;
    etl_field fields[2];
    char pid_text[16];
    char image[64];
    etl_decoded_event ev;
} fake_event;

/* A kernel Process event (opcode 1 Start, 2 End, 3 DCStart) of `pid` named `image` at `ts`. */
static const etl_decoded_event *process_event(fake_event *f, uint8_t opcode, uint32_t pid, const char *image,
                                              int64_t ts)
{
    memset(f, 0, sizeof *f);
    f->record.kind = ETL_KIND_FULL64;
    f->record.header.provider_id = process_class;
    f->record.header.descriptor.opcode = opcode;
    f->record.header.timestamp = ts;
    f->record.header.process_id = UINT32_MAX;
    f->record.header.thread_id = UINT32_MAX;
    snprintf(f->pid_text, sizeof f->pid_text, "0x%x", pid);
    snprintf(f->image, sizeof f->image, "%s", image);
    f->fields[0] = (etl_field){ETL_FIELD_VALUE, "ProcessId", f->pid_text, 0, 0, 0, -1, NULL};
    f->fields[1] = (etl_field){ETL_FIELD_VALUE, "ImageFileName", f->image, 0, 0, 0, -1, NULL};
    f->ev.record = &f->record;
    f->ev.info = &f->info;
    f->ev.status = ETL_DECODE_OK;
    f->ev.fields = f->fields;
    f->ev.field_count = 2;
    return &f->ev;
}

static etl_event_record header_record(uint32_t pid, uint32_t tid)
{
    etl_event_record r;
    memset(&r, 0, sizeof r);
    r.kind = ETL_KIND_EVENT64;
    r.header.process_id = pid;
    r.header.thread_id = tid;
    return r;
}

/* 200,000 starts of one PID: the first 256 lifetimes are kept (each lookup walks at most those), the rest are
 * counted; names inside the kept lifetimes stay right, later times get the last kept name. Without the bound
 * this is 200,000 lifetimes and ~2e10 list steps. */
static void test_one_pid_restarted(void **state)
{
    (void)state;
    etl_process_table *t = etl_process_table_new();
    assert_non_null(t);
    fake_event f;
    const uint32_t starts = 200000;
    for (uint32_t i = 0; i < starts; i++) {
        char name[32];
        snprintf(name, sizeof name, "p%u.exe", i);
        assert_int_equal(etl_process_table_observe(t, process_event(&f, 1, 0x1234, name, 1000 + 10 * (int64_t)i)),
                         0);
    }
    assert_int_equal(etl_process_table_dropped(t), starts - 256);
    assert_string_equal(etl_process_table_name(t, 0x1234, 1000), "p0");
    assert_string_equal(etl_process_table_name(t, 0x1234, 1000 + 10 * 17 + 5), "p17");
    assert_string_equal(etl_process_table_name(t, 0x1234, 1000 + 10 * 255), "p255");
    /* the 256th lifetime was closed by the 257th start, which was left out: later times take the latest
     * lifetime that started before them, as for events still in flight after an End */
    assert_string_equal(etl_process_table_name(t, 0x1234, 1000 + 10 * 100000), "p255");
    /* other PIDs still learn */
    assert_int_equal(etl_process_table_observe(t, process_event(&f, 3, 0x88, "\\Windows\\x.exe", 5)), 0);
    assert_string_equal(etl_process_table_name(t, 0x88, 7), "x");
    etl_process_table_free(t);
}

/* A new TID in every header: at most 2^19 threads are kept, the others counted; kept ones still map. */
static void test_many_threads(void **state)
{
    (void)state;
    etl_process_table *t = etl_process_table_new();
    assert_non_null(t);
    const uint32_t threads = 1u << 20;
    for (uint32_t i = 1; i <= threads; i++) {
        etl_event_record r = header_record(4 + (i & 0xFF) * 4, i * 4);
        assert_int_equal(etl_process_table_observe_header(t, &r), 0);
    }
    assert_int_equal(etl_process_table_dropped(t), threads - (1u << 19));
    /* a kernel record with no PID in its header is attributed through its TID: kept threads map, the ones
     * left out do not */
    etl_event_info info;
    memset(&info, 0, sizeof info);
    etl_decoded_event ev;
    memset(&ev, 0, sizeof ev);
    etl_event_record r = header_record(UINT32_MAX, 0);
    r.kind = ETL_KIND_FULL64;
    ev.record = &r;
    ev.info = &info;
    ev.status = ETL_DECODE_OK;
    const uint32_t kept[] = {1, 1000, 1u << 18, 1u << 19};
    for (size_t k = 0; k < sizeof kept / sizeof kept[0]; k++) {
        r.header.thread_id = kept[k] * 4;
        assert_int_equal(etl_process_table_event_pid(t, &ev), 4 + (kept[k] & 0xFF) * 4);
    }
    r.header.thread_id = ((1u << 19) + 5) * 4;
    assert_int_equal(etl_process_table_event_pid(t, &ev), UINT32_MAX);
    etl_process_table_free(t);
}

/* The decoder says once, at the record where it first happened, that the table left something out. */
static void test_decoder_warns_once(void **state)
{
    (void)state;
    etl_schema_registry *reg = etl_schema_registry_new();
    etl_decoder *d = etl_decoder_new(reg, NULL);
    assert_non_null(d);
    first_diagnostic w = {NULL, 0, 0, ""};
    etl_decoder_set_diagnostic(d, first_diagnostic_catch, &w);
    const uint32_t threads = (1u << 19) + 1000;
    for (uint32_t i = 1; i <= threads; i++) {
        etl_event_record r = header_record(8, i * 4);
        r.file_offset = 0x10000;
        r.record_offset = i;
        assert_int_equal(etl_decoder_learn(d, &r), 0);
    }
    assert_int_equal(w.count, 1);
    assert_int_equal(w.offset, 0x10000 + 0x48 + (1u << 19) + 1);  /* the buffer, its 0x48-byte header, the record */
    assert_non_null(strstr(w.message, "offset 0x"));
    assert_non_null(strstr(w.message, "process table is full"));
    etl_decoder_free(d);
    etl_schema_registry_free(reg);
}

/* Without a process table (ETL_DECODER_NO_PROCESSES: outputs that show header IDs only) the decoder learns
 * nothing, so the table can neither fill nor warn, and the -j observe filter lists no record for it. */
static void test_decoder_without_processes(void **state)
{
    (void)state;
    etl_schema_registry *reg = etl_schema_registry_new();
    etl_decoder *d = etl_decoder_new(reg, NULL);
    assert_non_null(d);
    etl_decoder_set_flags(d, ETL_DECODER_NO_PROCESSES | ETL_DECODER_NO_TRACE_SCHEMAS);
    first_diagnostic w = {NULL, 0, 0, ""};
    etl_decoder_set_diagnostic(d, first_diagnostic_catch, &w);
    const uint32_t threads = (1u << 19) + 1000;  /* what makes test_decoder_warns_once warn */
    for (uint32_t i = 1; i <= threads; i++) {
        etl_event_record r = header_record(8, i * 4);
        assert_int_equal(etl_decoder_learn(d, &r), 0);
    }
    assert_int_equal(w.count, 0);
    assert_int_equal(etl_process_table_dropped(etl_decoder_process_table(d)), 0);
    fake_event f;
    const etl_decoded_event *start = process_event(&f, 1, 77, "probe.exe", 10);
    assert_int_equal(etl_decoder_learn(d, start->record), 0);
    assert_null(etl_process_table_name((etl_process_table *)etl_decoder_process_table(d), 77, 20));
    etl_observe_filter *keeps = etl_observe_filter_new(ETL_DECODER_NO_TRACE_SCHEMAS);
    etl_observe_filter *none = etl_observe_filter_new(ETL_DECODER_NO_TRACE_SCHEMAS | ETL_DECODER_NO_PROCESSES);
    assert_non_null(keeps);
    assert_non_null(none);
    etl_event_record r = header_record(8, 4);
    assert_int_equal(etl_observe_filter_wants(keeps, &r), 1);  /* a new (TID, PID): the table learns it */
    assert_int_equal(etl_observe_filter_wants(none, &r), 0);
    assert_int_equal(etl_observe_filter_wants(keeps, start->record), 1);  /* a process start */
    assert_int_equal(etl_observe_filter_wants(none, start->record), 0);
    etl_observe_filter_free(keeps);
    etl_observe_filter_free(none);
    etl_decoder_free(d);
    etl_schema_registry_free(reg);
}

/* The expected name from what the table describes (etl_process_table_describe: each PID's lifetimes in list
 * order): the latest named lifetime containing ts, else the latest named one that started before it; ties go
 * to the first in list order. Independent of the table's own lookup and of what it caches. */
static const char *expected_name(const char *described, uint32_t pid, int64_t ts, char *out, size_t cap)
{
    char head[32];
    snprintf(head, sizeof head, "pid %u:", pid);
    const char *line = strstr(described, head);
    if (!line || (line != described && line[-1] != '\n')) return NULL;
    const char *p = line + strlen(head);
    int have_in = 0, have_before = 0;
    long long in_start = 0, before_start = 0;
    char in_name[64] = "", before_name[64] = "";
    while (*p == ' ') {
        long long start, end;
        char name[64];
        int used = 0;
        if (sscanf(p, " [%lld,%lld] %63s%n", &start, &end, name, &used) != 3) break;
        p += used;
        if (strcmp(name, "-") == 0 || start > ts) continue;
        if (ts <= end) {
            if (!have_in || start > in_start) have_in = 1, in_start = start, snprintf(in_name, sizeof in_name, "%s", name);
        } else if (!have_before || start > before_start) {
            have_before = 1, before_start = start, snprintf(before_name, sizeof before_name, "%s", name);
        }
    }
    if (!have_in && !have_before) return NULL;
    snprintf(out, cap, "%s", have_in ? in_name : before_name);
    return out;
}

static uint64_t next_random(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* The table's name for (pid, ts) is the one its lifetimes give; returns 1 (a lookup checked). */
static unsigned check_name(etl_process_table *t, const char *described, uint32_t pid, int64_t ts)
{
    char want[64];
    const char *expect = expected_name(described, pid, ts, want, sizeof want);
    const char *got = etl_process_table_name(t, pid, ts);
    if (!expect) assert_null(got);
    else assert_string_equal(got ? got : "(none)", expect);
    return 1;
}

/* Each PID remembers its last answer and the times it holds for: lookups swept in time order (the decoder's
 * case, mostly answered from that), at random times, at the extremes, and after every change of the table
 * (starts, ends, rundowns in any time order, so lifetimes overlap and reopen) all give the name the lifetimes
 * say. Fails when the remembered span is one tick too wide at either end. */
static void test_name_lookups_match_lifetimes(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    const int64_t extremes[] = {INT64_MIN, INT64_MIN + 1, -1, 0, INT64_MAX - 1, INT64_MAX};
    unsigned checked = 0;
    for (int round = 0; round < 40; round++) {
        etl_process_table *t = etl_process_table_new();
        assert_non_null(t);
        etl_textbuf described;
        memset(&described, 0, sizeof described);
        fake_event f;
        for (int step = 0; step < 50; step++) {
            uint32_t pid = 4 + 4 * (uint32_t)(next_random(&seed) % 3);
            uint8_t opcode = (uint8_t)(1 + next_random(&seed) % 4);
            char name[16];
            snprintf(name, sizeof name, "p%u.exe", (unsigned)(next_random(&seed) % 5));
            int64_t at = (int64_t)(next_random(&seed) % 200);
            int64_t probe = (int64_t)(next_random(&seed) % 200);
            for (uint32_t q = 0; q < 3; q++) etl_process_table_name(t, 4 + 4 * q, probe); /* remembered... */
            assert_int_equal(etl_process_table_observe(t, process_event(&f, opcode, pid, name, at)), 0);
            etl_textbuf_reset(&described);
            assert_int_equal(etl_process_table_describe(t, &described), 0);
            const char *text = etl_textbuf_at(&described, 0);
            for (uint32_t q = 0; q < 3; q++) {
                uint32_t qpid = 4 + 4 * q;
                checked += check_name(t, text, qpid, probe); /* ...and asked again after the change */
                for (int64_t ts = -2; ts <= 202; ts += 1 + (int64_t)(next_random(&seed) % 3)) /* in time order */
                    checked += check_name(t, text, qpid, ts);
                for (int k = 0; k < 40; k++) /* anywhere, then the extremes */
                    checked += check_name(t, text, qpid, k < 34 ? (int64_t)(next_random(&seed) % 210) - 5 : extremes[k - 34]);
            }
        }
        etl_textbuf_free(&described);
        etl_process_table_free(t);
    }
    assert_true(checked > 600000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_pid_restarted),
        cmocka_unit_test(test_name_lookups_match_lifetimes),
        cmocka_unit_test(test_many_threads),
        cmocka_unit_test(test_decoder_warns_once),
        cmocka_unit_test(test_decoder_without_processes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
