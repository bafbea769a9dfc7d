/* The diff library (include/etl/etl_diff.h, src/diff/): the alignment against an LCS computed by dynamic
 * programming, the stable view's rules on hand-built fields, and the two baseline forms (text rendering and
 * JSON Lines read back) agreeing line for line on real corpus events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "diff/align.h"
#include "etl/etl_diff.h"
#include "etl/etl_writer.h"
#include "support/mem_sink.h"
#include "util/textbuf.h"

/* ---- alignment ------------------------------------------------------------------------------------------- */

static uint32_t lcs_length(const uint64_t *a, uint32_t na, const uint64_t *b, uint32_t nb)
{
    uint32_t *dp = calloc((size_t)(na + 1) * (nb + 1), sizeof *dp);
    assert_non_null(dp);
    for (uint32_t i = 1; i <= na; i++)
        for (uint32_t j = 1; j <= nb; j++) {
            uint32_t up = dp[(i - 1) * (nb + 1) + j], left = dp[i * (nb + 1) + j - 1];
            dp[i * (nb + 1) + j] = a[i - 1] == b[j - 1] ? dp[(i - 1) * (nb + 1) + j - 1] + 1 : up > left ? up : left;
        }
    uint32_t n = dp[na * (nb + 1) + nb];
    free(dp);
    return n;
}

/* Runs in order, inside the sequences, matching equal elements; returns how many elements they match. */
static uint32_t check_runs(const align_runs *r, const uint64_t *a, uint32_t na, const uint64_t *b, uint32_t nb)
{
    uint32_t matched = 0, next_a = 0, next_b = 0;
    for (size_t k = 0; k < r->count; k++) {
        const align_run *x = &r->runs[k];
        assert_true(x->len > 0);
        assert_true(x->a >= next_a && x->b >= next_b);
        assert_true(x->a + x->len <= na && x->b + x->len <= nb);
        for (uint32_t i = 0; i < x->len; i++) assert_true(a[x->a + i] == b[x->b + i]);
        next_a = x->a + x->len;
        next_b = x->b + x->len;
        matched += x->len;
    }
    return matched;
}

static uint32_t rnd(uint32_t *state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 16;
}

/* Every element occurs at least twice on each side: no patience anchor, so Myers alone aligns and must find a
 * longest common subsequence. */
static void test_align_myers_is_minimal(void **state)
{
    (void)state;
    uint32_t seed = 7;
    for (int round = 0; round < 300; round++) {
        uint64_t a[80], b[80];
        uint32_t half_a = 1 + rnd(&seed) % 40, half_b = 1 + rnd(&seed) % 40, alphabet = 2 + rnd(&seed) % 6;
        for (uint32_t i = 0; i < half_a; i++) a[i] = a[half_a + i] = rnd(&seed) % alphabet;
        for (uint32_t i = 0; i < half_b; i++) b[i] = b[half_b + i] = rnd(&seed) % alphabet;
        align_runs runs = {0};
        assert_int_equal(etl_align(a, 2 * half_a, b, 2 * half_b, NULL, NULL, 0, &runs), 0);
        assert_int_equal(check_runs(&runs, a, 2 * half_a, b, 2 * half_b), lcs_length(a, 2 * half_a, b, 2 * half_b));
        align_runs_free(&runs);
    }
}

/* With unique elements (patience anchors) the runs stay valid; identical sequences are one run; an edit script
 * of a few deletions and insertions in a long sequence is found exactly. */
static void test_align_anchors(void **state)
{
    (void)state;
    uint32_t seed = 11;
    for (int round = 0; round < 300; round++) {
        uint64_t a[60], b[60];
        uint32_t na = rnd(&seed) % 60, nb = rnd(&seed) % 60;
        for (uint32_t i = 0; i < na; i++) a[i] = rnd(&seed) % 40;
        for (uint32_t i = 0; i < nb; i++) b[i] = rnd(&seed) % 40;
        align_runs runs = {0};
        assert_int_equal(etl_align(a, na, b, nb, NULL, NULL, 0, &runs), 0);
        uint32_t m = check_runs(&runs, a, na, b, nb);
        assert_true(m <= lcs_length(a, na, b, nb));
        align_runs_free(&runs);
    }
    enum { N = 5000 };
    uint64_t *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    for (uint32_t i = 0; i < N; i++) a[i] = i % 97;  /* repetitive, like real event streams */
    uint32_t nb = 0;
    for (uint32_t i = 0; i < N; i++) {
        if (i == 100 || i == 2500) continue;           /* two deleted */
        if (i == 4000) b[nb++] = 1000;                 /* one inserted */
        b[nb++] = a[i];
    }
    align_runs runs = {0};
    assert_int_equal(etl_align(a, N, b, nb, NULL, NULL, 0, &runs), 0);
    assert_int_equal(check_runs(&runs, a, N, b, nb), N - 2);
    align_runs_free(&runs);
    /* times: equal hashes whose times differ beyond the tolerance do not match */
    int64_t ta[3] = {0, 10, 20}, tb[3] = {0, 15, 20};
    uint64_t h[3] = {1, 2, 3};
    assert_int_equal(etl_align(h, 3, h, 3, ta, tb, 4, &runs), 0);
    assert_int_equal(check_runs(&runs, h, 3, h, 3), 2);
    assert_int_equal(etl_align(h, 3, h, 3, ta, tb, 5, &runs), 0);
    assert_int_equal(check_runs(&runs, h, 3, h, 3), 3);
    align_runs_free(&runs);
    free(a);
    free(b);
}

/* ---- stable view ----------------------------------------------------------------------------------------- */

static etl_field value_field(const char *name, const char *value, uint16_t in, uint16_t out)
{
    etl_field f;
    memset(&f, 0, sizeof f);
    f.kind = ETL_FIELD_VALUE;
    f.name = name;
    f.value = value;
    f.in_type = in;
    f.out_type = out;
    f.array_index = -1;
    return f;
}

static void test_stable_rules(void **state)
{
    (void)state;
    etl_event_record rec;
    memset(&rec, 0, sizeof rec);
    rec.header.timestamp = 1000000000;
    rec.header.process_id = 4711;
    rec.header.thread_id = 815;
    rec.buffer_context.processor_index = 7;
    rec.header.kernel_time = 3;
    rec.pointer_size = 8;
    etl_guid_parse("{11111111-2222-3333-4444-555555555555}", &rec.header.provider_id);
    etl_guid_parse("{aaaaaaaa-0000-0000-0000-000000000001}", &rec.header.activity_id);
    etl_field fields[] = {
        value_field("Ptr", "0x7FF612340000", ETL_IN_POINTER, ETL_OUT_HEXINT64),
        value_field("Size", "0x20", ETL_IN_SIZET, ETL_OUT_NULL),
        value_field("Addr", "0x7FF612340000", ETL_IN_UINT64, ETL_OUT_HEXINT64),
        value_field("Flags64", "0xFFFF", ETL_IN_HEXINT64, ETL_OUT_NULL),    /* < 0x10000: a flag, kept */
        value_field("Status", "0xC0000005", ETL_IN_UINT32, ETL_OUT_HEXINT32), /* 4 bytes in a 64-bit trace: kept */
        value_field("When", "2024-01-01T00:00:00Z", ETL_IN_FILETIME, ETL_OUT_NULL),
        value_field("Pid", "4711", ETL_IN_UINT32, ETL_OUT_PID),
        value_field("ProcessId", "99", ETL_IN_UINT32, ETL_OUT_NULL),
        value_field("TThreadId", "815", ETL_IN_UINT32, ETL_OUT_NULL),
        value_field("Duration", "12", ETL_IN_UINT32, ETL_OUT_NULL),
        value_field("Name", "keep me", ETL_IN_UNICODESTRING, ETL_OUT_NULL),
    };
    enum { COUNT = sizeof fields / sizeof fields[0] };
    etl_decoded_event ev;
    memset(&ev, 0, sizeof ev);
    ev.record = &rec;
    ev.provider_name = "MyProvider";
    ev.event_name = "Work/Start";
    ev.process_id = 4711;
    ev.fields = fields;
    ev.field_count = COUNT;

    etl_stable *s = etl_stable_new(0);
    assert_non_null(s);
    assert_int_equal(etl_stable_add_mask(s, "MyProvider:Work/Start:Duration"), 0);
    assert_int_equal(etl_stable_add_mask(s, "a:b"), -1);
    const etl_decoded_event *v;
    assert_int_equal(etl_stable_apply(s, &ev, &v), ETL_OK);
    static const char *const want[COUNT] = {"*", "*", "*", "0xFFFF", "0xC0000005", "*", "P1", "P2", "T1", "*",
                                            "keep me"};
    assert_int_equal(v->field_count, COUNT);
    for (size_t i = 0; i < COUNT; i++) assert_string_equal(v->fields[i].value, want[i]);
    assert_int_equal(v->record->header.timestamp, 0);
    assert_int_equal(v->record->header.process_id, 1);
    assert_int_equal(v->record->header.thread_id, 1);
    assert_int_equal(v->record->buffer_context.processor_index, 0);
    assert_int_equal(v->record->header.kernel_time, 0);
    etl_textbuf line = {0};
    etl_baseline_render(v, etl_stable_flags(s), &line);
    assert_string_equal(line.data, "+0.0000000\tP1\tT1\t-\tMyProvider\tWork/Start\t@activity=A1\tPtr=*\tSize=*\tAddr=*\t"
                                   "Flags64=0xFFFF\tStatus=0xC0000005\tWhen=*\tPid=P1\tProcessId=P2\tTThreadId=T1\t"
                                   "Duration=*\tName=keep me\n");
    /* a second event 1.5 s later on another thread: relative time, the next thread ordinal */
    rec.header.timestamp += 15000000;
    rec.header.thread_id = 900;
    ev.field_count = 0;
    assert_int_equal(etl_stable_apply(s, &ev, &v), ETL_OK);
    etl_textbuf_reset(&line);
    etl_baseline_render(v, etl_stable_flags(s), &line);
    assert_string_equal(line.data, "+1.5000000\tP1\tT2\t-\tMyProvider\tWork/Start\t@activity=A1\n");
    etl_stable_free(s);
    /* --mask time: no time */
    s = etl_stable_new(0);
    assert_int_equal(etl_stable_add_mask(s, "time,Name"), 0);
    assert_true(etl_stable_flags(s) & ETL_STABLE_NO_TIME);
    ev.field_count = COUNT;
    assert_int_equal(etl_stable_apply(s, &ev, &v), ETL_OK);
    etl_textbuf_reset(&line);
    etl_baseline_render(v, etl_stable_flags(s), &line);
    assert_true(strncmp(line.data, "-\tP1\tT1\t", 8) == 0);
    assert_non_null(strstr(line.data, "\tName=*\n"));
    etl_stable_free(s);
    etl_textbuf_free(&line);
}

/* ---- the two baseline forms agree on real events ------------------------------------------------------ */

typedef struct roundtrip {
    etl_decoder *decoder;
    etl_stable *stable;
    etl_writer *json;
    mem_sink json_out;
    etl_textbuf text, from_json;
    uint64_t events, fields;
} roundtrip;

static int on_event(const etl_event_record *record, void *ctx)
{
    roundtrip *r = ctx;
    const etl_decoded_event *ev, *v;
    assert_int_equal(etl_decode_event(r->decoder, record, &ev), ETL_OK);
    assert_int_equal(etl_stable_apply(r->stable, ev, &v), ETL_OK);
    etl_textbuf_reset(&r->text);
    etl_baseline_render(v, etl_stable_flags(r->stable), &r->text);
    r->json_out.length = 0;
    assert_int_equal(etl_writer_event(r->json, v), 0);
    etl_textbuf_reset(&r->from_json);
    assert_int_equal(etl_baseline_from_json(r->json_out.data, r->json_out.length - 1, &r->from_json, NULL, 0), 0);
    assert_string_equal(r->from_json.data, r->text.data);
    r->events++;
    r->fields += v->field_count;
    return 0;
}

static void test_json_baseline_equals_text(void **state)
{
    (void)state;
    static const char *const files[] = {
        "testdata/perfview/primitive-types.etl.gz", "testdata/perfview/SelfDescribingSingleEvent.etl.gz",
        "testdata/perfview/gcevents.PerfViewData.etl.gz", "testdata/tx/CrossMachineHTTP.etl.gz",
        "testdata/sonde/test.etl.gz", "testdata/terraingen2d/PerfViewData.etl.gz",
        "testdata/airbus-cert/AMSITrace.etl.gz", "testdata/krabsetw/powershell.etl.gz",
        "testdata/perfview/diaghub.user_paged.1.etl.gz", /* 5415 array elements and struct members */
    };
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        roundtrip r;
        memset(&r, 0, sizeof r);
        etl_trace *trace;
        etl_error err;
        assert_int_equal(etl_open(&trace, &files[k], 1, NULL, &err), ETL_OK);
        etl_schema_registry *registry = etl_schema_registry_new();
        assert_non_null(registry);
        etl_schema_load_bundled(registry, &err);
        r.decoder = etl_decoder_new(registry, trace);
        r.stable = etl_stable_new(0);
        etl_writer_options opt;
        memset(&opt, 0, sizeof opt);
        opt.stable = etl_stable_flags(r.stable);
        opt.flush_every_event = 1;
        etl_sink sink = {mem_sink_write, &r.json_out};
        r.json = etl_writer_new(etl_writer_format_find("jsonl"), &sink, &opt);
        assert_non_null(r.json);
        assert_true(etl_process(trace, on_event, &r) >= 0);
        assert_int_equal(r.events, etl_trace_get_stats(trace)->events);
        print_message("%-55s %6llu events, %7llu fields: JSON Lines read back = baseline text\n", files[k],
                      (unsigned long long)r.events, (unsigned long long)r.fields);
        etl_writer_free(r.json);
        free(r.json_out.data);
        etl_textbuf_free(&r.text);
        etl_textbuf_free(&r.from_json);
        etl_stable_free(r.stable);
        etl_decoder_free(r.decoder);
        etl_schema_registry_free(registry);
        etl_close(trace);
    }
    etl_textbuf out = {0};
    static const char header[] = "{\"etlconv_baseline\":1,\"options\":\"--stable --mask x\"}";
    char options[64];
    assert_int_equal(etl_baseline_from_json(header, strlen(header), &out, options, sizeof options), 1);
    assert_string_equal(options, "--stable --mask x");
    assert_int_equal(etl_baseline_from_json("{\"time\":", 8, &out, NULL, 0), -1);
    assert_int_equal(etl_baseline_from_json("[1,2]", 5, &out, NULL, 0), -1);
    etl_textbuf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_align_myers_is_minimal),
        cmocka_unit_test(test_align_anchors),
        cmocka_unit_test(test_stable_rules),
        cmocka_unit_test(test_json_baseline_equals_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
