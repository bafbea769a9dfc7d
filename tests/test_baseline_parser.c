/* The PerfView baseline parser and value normalisations (tests/support/baseline.c), checked on hand-made lines
 * and on the real baseline files; the comparison itself is in test_perfview_baselines.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "support/baseline.h"

static void test_parse_header_line(void **state)
{
    (void)state;
    baseline_event ev;
    char err[160];
    const char *line =
        "EVENT 8,184.674: Windows Kernel/EventTrace/Extension PID=-1; TID=-1; PName=; ProceNum=7; DataLen=36; "
        "GroupMask1=75,535; Value=a; b=c; FileName=\\\\DfsClient\\;Z:00000...; ";
    assert_int_equal(baseline_parse_event_line(line, &ev, err, sizeof err), 0);
    assert_int_equal(ev.time_us, 8184674);
    assert_string_equal(ev.provider, "Windows Kernel");
    assert_string_equal(ev.event_name, "EventTrace/Extension");
    assert_int_equal(ev.pid, -1);
    assert_int_equal(ev.tid, -1);
    assert_string_equal(ev.pname, "");
    assert_int_equal(ev.proc_num, 7);
    assert_int_equal(ev.data_len, 36);
    assert_int_equal(ev.field_count, 4);
    assert_string_equal(ev.fields[0].name, "GroupMask1");
    assert_string_equal(ev.fields[0].value, "75,535");
    /* "a; b=c" is ambiguous in the format; a "; " followed by Name= always starts a new field */
    assert_string_equal(ev.fields[1].value, "a");
    assert_string_equal(ev.fields[2].name, "b");
    /* a ';' without a following space stays in the value */
    assert_string_equal(ev.fields[3].value, "\\\\DfsClient\\;Z:00000...");
    assert_null(ev.container_id);
    baseline_event_free(&ev);
}

static void test_parse_rejects_malformed(void **state)
{
    (void)state;
    baseline_event ev;
    char err[160];
    assert_int_equal(baseline_parse_event_line("EVENT 1.5: A/B PID=1; TID=2; PName=x; ProceNum=0; DataLen=0; ", &ev,
                                               err, sizeof err), -1);   /* two decimals */
    assert_int_equal(baseline_parse_event_line("EVENT 1.500: AB PID=1; TID=2; PName=x; ProceNum=0; DataLen=0; ", &ev,
                                               err, sizeof err), -1);   /* no provider/event slash */
    assert_int_equal(baseline_parse_event_line("EVENT 1.500: A/B PID=1; TID=2; PName=x; DataLen=0; ", &ev, err,
                                               sizeof err), -1);        /* ProceNum missing */
    assert_int_equal(baseline_parse_event_line("EVENT 1.500: A/B PID=1; TID=2; PName=x; ProceNum=0; DataLen=0; x=1",
                                               &ev, err, sizeof err), -1);  /* no final "; " */
    assert_int_equal(baseline_parse_event_line("EVENT 1.500: A/B PID=1; TID=2; PName=x; ProceNum=0; DataLen=0; "
                                               "ContainerID=abc; ", &ev, err, sizeof err), 0);
    assert_int_equal(ev.field_count, 0);
    assert_string_equal(ev.container_id, "abc");
    baseline_event_free(&ev);
}

/* The real files: counts from shared/corpus/EXPECTED.md §2, and a few values read off the files by eye. */
static void test_load_real_baselines(void **state)
{
    (void)state;
    static const struct { const char *path; size_t events, counts; } files[] = {
        {"testdata/perfview/primitive-types.baseline.txt", 6, 2},
        {"testdata/perfview/gcevents.baseline.txt", 52, 21},
        {"testdata/perfview/gcrundownevents.baseline.txt", 25, 10},
        {"testdata/perfview/net.4.5.2.x86.baseline.txt", 503, 156},
        {"testdata/perfview/net.4.5.x86.baseline.txt", 365, 125},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        baseline b;
        char err[256];
        if (baseline_load(files[i].path, &b, err, sizeof err) != 0) fail_msg("%s", err);
        assert_int_equal(b.event_count, files[i].events);
        assert_int_equal(b.count_count, files[i].counts);
        baseline_free(&b);
    }
    baseline b;
    char err[256];
    assert_int_equal(baseline_load("testdata/perfview/primitive-types.baseline.txt", &b, err, sizeof err), 0);
    const baseline_event *mercury = &b.events[1];
    assert_string_equal(mercury->provider, "solar_system");
    assert_string_equal(mercury->event_name, "PrimitiveTypesTest");
    assert_int_equal(mercury->time_us, 2942306);
    assert_int_equal(mercury->pid, 33984);
    assert_int_equal(mercury->tid, 21768);
    assert_int_equal(mercury->data_len, 78);
    assert_int_equal(mercury->field_count, 12);
    assert_string_equal(baseline_find_field(mercury, "string_type")->value, "Mercury");
    assert_string_equal(baseline_find_field(mercury, "int64_type")->value, "-204");
    assert_string_equal(b.counts[1].key, "solar_system/PrimitiveTypesTest");
    assert_int_equal(b.counts[1].count, 5);
    baseline_free(&b);
}

static void test_cut_rules(void **state)
{
    (void)state;
    char buf[64];
    assert_true(baseline_is_cut("C:\\Windows\\System32\\..."));
    assert_false(baseline_is_cut("C:\\Windows\\System3..."));
    assert_true(baseline_is_cut("Microsoft\xc2\xae Windows\xc2\xae ..."));   /* ® is one UTF-16 unit */
    baseline_perfview_cut("Microsoft\xc2\xae Windows\xc2\xae Operating System", buf, sizeof buf);
    assert_string_equal(buf, "Microsoft\xc2\xae Windows\xc2\xae ...");
    baseline_perfview_cut("exactly twenty chars", buf, sizeof buf);
    assert_string_equal(buf, "exactly twenty chars");
    baseline_perfview_cut("line one\nline two is long", buf, sizeof buf);
    assert_string_equal(buf, "line one\\nline two is...");
}

static void test_integer_and_date_forms(void **state)
{
    (void)state;
    int neg;
    uint64_t v;
    assert_int_equal(baseline_parse_integer("65,536", &neg, &v), 0);
    assert_int_equal(v, 65536);
    assert_int_equal(baseline_parse_integer("-1,726,546,814", &neg, &v), 0);
    assert_true(neg);
    assert_int_equal(v, 1726546814u);
    assert_int_equal(baseline_parse_integer("0x00187000", &neg, &v), 0);
    assert_int_equal(v, 0x187000);
    assert_int_equal(baseline_parse_integer("0xFFFFF800217D9200", &neg, &v), 0);
    assert_int_equal(v, 0xFFFFF800217D9200ull);
    assert_int_equal(baseline_parse_integer("C:", &neg, &v), -1);
    assert_int_equal(baseline_parse_integer(",5", &neg, &v), -1);
    char buf[40];
    assert_int_equal(baseline_iso_to_perfview_date("2021-09-09T14:59:35.7912345Z", buf, sizeof buf), 0);
    assert_string_equal(buf, "21/09/09 14:59:35.791234");
    assert_int_equal(baseline_iso_to_perfview_date("2021-09-09T14:59:35Z", buf, sizeof buf), 0);
    assert_string_equal(buf, "21/09/09 14:59:35.000000");
    assert_int_equal(baseline_iso_to_perfview_date("2021-09-09T14:59:35+02:00", buf, sizeof buf), -1);
    assert_int_equal(baseline_filetime_to_perfview_date(0, buf, sizeof buf), 0);
    assert_string_equal(buf, "01/01/01 00:00:00.000000");
    /* 1970-01-01, PerfView's BuildTime for TimeDateStamp 0 */
    assert_int_equal(baseline_filetime_to_perfview_date(116444736000000000ull, buf, sizeof buf), 0);
    assert_string_equal(buf, "70/01/01 00:00:00.000000");
    /* 2000-02-29 12:34:56.7890123 (leap day) */
    assert_int_equal(baseline_filetime_to_perfview_date(125963012967890123ull, buf, sizeof buf), 0);
    assert_string_equal(buf, "00/02/29 12:34:56.789012");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_header_line),
        cmocka_unit_test(test_parse_rejects_malformed),
        cmocka_unit_test(test_load_real_baselines),
        cmocka_unit_test(test_cut_rules),
        cmocka_unit_test(test_integer_and_date_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
