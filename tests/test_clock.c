/* Raw timestamp -> FILETIME (src/reader/clock.c). Clocks of 100 ns ticks take a shortcut, start + (raw - anchor);
 * it must give exactly what the general split-arithmetic conversion gives, which the same clock with the
 * shortcut switched off computes: checked on raw values around the anchor, around the ±2^61 limits of the
 * shortcut and at the int64 extremes, for anchors and start times near those limits too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "etl/etl.h"
#include "reader/clock.h"

static const int64_t LIMIT = (int64_t)1 << 61;

static etl_clock make_clock(uint32_t reserved_flags, int64_t perf_freq, uint32_t cpu_mhz, int64_t start,
                            int64_t anchor)
{
    etl_logfile_header h;
    memset(&h, 0, sizeof h);
    h.reserved_flags = reserved_flags;
    h.perf_freq = perf_freq;
    h.cpu_speed_mhz = cpu_mhz;
    h.start_time = start;
    h.header_raw_timestamp = anchor;
    etl_clock c;
    etl_clock_init(&c, &h);
    return c;
}

static void test_shortcut_equals_general_conversion(void **state)
{
    (void)state;
    const int64_t places[] = {0, 1, -1, 131000000000000000LL, 25000000000LL, LIMIT - 1, LIMIT, -LIMIT + 1, -LIMIT,
                              INT64_MAX / 2, INT64_MIN / 2, INT64_MAX, INT64_MIN};
    const int64_t offsets[] = {0, 1, -1, 9999999, 10000000, 10000001, -9999999, -10000000, -10000001,
                               123456789012LL, -123456789012LL};
    const size_t np = sizeof places / sizeof *places, no = sizeof offsets / sizeof *offsets;
    size_t shortcut = 0;
    /* QPC at 10 MHz, the fallback for an unusable clock (PerfFreq 0), and a 10 MHz cycle clock */
    const struct { uint32_t flags; int64_t freq; uint32_t mhz; } kinds[] = {{1, 10000000, 0}, {1, 0, 0}, {3, 0, 10}};
    for (size_t k = 0; k < 3; k++)
        for (size_t s = 0; s < np; s++)
            for (size_t a = 0; a < np; a++) {
                etl_clock fast = make_clock(kinds[k].flags, kinds[k].freq, kinds[k].mhz, places[s], places[a]);
                etl_clock general = fast;
                general.hundred_ns = 0;
                shortcut += fast.hundred_ns != 0;
                for (size_t r = 0; r < np; r++)
                    for (size_t o = 0; o < no; o++) {
                        int64_t raw;
                        if (__builtin_add_overflow(places[r], offsets[o], &raw)) continue;
                        int64_t want = etl_clock_to_filetime(&general, raw), got = etl_clock_to_filetime(&fast, raw);
                        if (got != want)
                            fail_msg("start %lld anchor %lld raw %lld: %lld, general conversion %lld",
                                     (long long)places[s], (long long)places[a], (long long)raw, (long long)got,
                                     (long long)want);
                    }
            }
    assert_true(shortcut >= 3 * 49); /* start and anchor each within the limits: 7 x 7 per clock kind */
}

static void test_known_values(void **state)
{
    (void)state;
    /* 10 MHz: one tick is one FILETIME unit; 3 MHz: 3,000,000 ticks are one second (10^7 units) */
    etl_clock c = make_clock(1, 10000000, 0, 1000, 500);
    assert_true(c.hundred_ns);
    assert_int_equal(etl_clock_to_filetime(&c, 500 + 12345678), 1000 + 12345678);
    assert_int_equal(etl_clock_to_filetime(&c, 400), 900);
    c = make_clock(1, 3000000, 0, 1000, 500);
    assert_false(c.hundred_ns);
    assert_int_equal(etl_clock_to_filetime(&c, 500 + 3000000), 1000 + 10000000);
    assert_int_equal(etl_clock_to_filetime(&c, 500 + 1), 1000 + 3); /* 10/3 rounded down */
    assert_int_equal(etl_clock_to_filetime(&c, 500 - 1), 1000 - 4); /* floor, not toward zero */
    /* system-time clock: raw values are FILETIMEs already */
    c = make_clock(2, 0, 0, 1000, 500);
    assert_false(c.hundred_ns);
    assert_int_equal(etl_clock_to_filetime(&c, 77), 77);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shortcut_equals_general_conversion),
        cmocka_unit_test(test_known_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
