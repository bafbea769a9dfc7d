/* formats/fast_text.h: the writers' inline number, time, GUID and copy helpers against their plain forms.
 * fmt_w_u64 / fmt_w_i64 (digit pairs, groups of 8 above 2^32) against printf on the edges of every digit
 * count and 2 million pseudo-random values of every magnitude; fmt_w_time (the current second kept, only the
 * fraction written) against the out-of-line fmt_w_event_time with its own clock, over times that stay in a
 * second, step over seconds, days and years, go back, and for 7, 8 and 9 digits; fmt_w_guid (all-zero
 * inline) against fmt_guid; fmt_w_short (a 16-byte move when the block lies in one 4 KiB block) on texts
 * ending at a page's end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "../formats/fast_text.h"

static uint64_t next(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

static void check_number(uint64_t v, int *failures)
{
    char mine[32], plain[32];
    *fmt_w_u64(mine, v) = '\0';
    snprintf(plain, sizeof plain, "%" PRIu64, v);
    if (strcmp(mine, plain) != 0 && (*failures)++ < 5) fprintf(stderr, "u64 %s, printf %s\n", mine, plain);
    int64_t s = (int64_t)v;
    *fmt_w_i64(mine, s) = '\0';
    snprintf(plain, sizeof plain, "%" PRId64, s);
    if (strcmp(mine, plain) != 0 && (*failures)++ < 5) fprintf(stderr, "i64 %s, printf %s\n", mine, plain);
}

static void test_numbers(void **state)
{
    (void)state;
    int failures = 0;
    uint64_t p10 = 1;
    for (int d = 0; d < 20; d++, p10 *= 10) { /* around every power of ten */
        for (int k = -2; k <= 2; k++) check_number(p10 + (uint64_t)k, &failures);
    }
    static const uint64_t edges[] = {0, UINT32_MAX, (uint64_t)UINT32_MAX + 1, 429496729599999999ull,
                                     429496729600000000ull, 132404547802659300ull, INT64_MAX,
                                     (uint64_t)INT64_MAX + 1, UINT64_MAX};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) check_number(edges[i], &failures);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 2000000; i++) {
        uint64_t r = next(&x);
        check_number(r >> (r & 63), &failures);
    }
    assert_int_equal(failures, 0);
}

static void test_time(void **state)
{
    (void)state;
    int failures = 0;
    uint64_t x = 12345;
    for (int digits = 7; digits <= 9; digits++) {
        fmt_clock inline_clock = {0}, plain_clock = {0};
        int64_t t = 132404547802659300; /* 2020-07-29 */
        for (int i = 0; i < 300000; i++) {
            uint64_t r = next(&x);
            switch (r % 8) { /* mostly within the second, sometimes beyond it, a day, years, or back */
            case 0: t += (int64_t)(r >> 40); break;
            case 1: t += 864000000000LL; break;
            case 2: t -= (int64_t)(r >> 44); break;
            case 3: t = (int64_t)(r >> 6); break;
            default: t += (int64_t)(r >> 54); break;
            }
            if (t < 0) t = -t;
            char mine[FMT_TIME_CAP], plain[FMT_TIME_CAP];
            *fmt_w_time(&inline_clock, t, digits, mine) = '\0';
            *fmt_w_event_time(&plain_clock, t, digits, plain) = '\0';
            if (strcmp(mine, plain) != 0 && failures++ < 5)
                fprintf(stderr, "time %" PRId64 " (%d digits): %s, plain %s\n", t, digits, mine, plain);
        }
    }
    assert_int_equal(failures, 0);
}

static void test_guid_and_short_copy(void **state)
{
    (void)state;
    etl_guid zero = {0}, some = {0x12345678, 0x9abc, 0xdef0, {1, 2, 3, 4, 5, 6, 7, 0x89}};
    etl_guid last_byte = {0};
    last_byte.data4[7] = 1;
    const etl_guid *guids[] = {&zero, &some, &last_byte};
    for (size_t i = 0; i < 3; i++) {
        char mine[48], plain[48];
        *fmt_w_guid(mine, guids[i]) = '\0';
        fmt_guid(guids[i], plain);
        assert_string_equal(mine, plain);
    }
    long page = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(map != MAP_FAILED);
    assert_int_equal(mprotect(map + page, (size_t)page, PROT_NONE), 0);
    for (size_t n = 0; n <= 20; n++) {
        for (size_t back = n + 1; back <= n + 21; back++) { /* its NUL `back - n - 1` bytes before the end */
            char *text = map + page - back;
            for (size_t k = 0; k < n; k++) text[k] = (char)('A' + k);
            text[n] = '\0';
            char out[64];
            memset(out, '#', sizeof out);
            char *end = fmt_w_short(out, text, n);
            assert_ptr_equal(end, out + n);
            assert_memory_equal(out, text, n);
        }
    }
    munmap(map, (size_t)page * 2);
}

/* fmt_buf_put_hex (16 bytes a step with SSE2, byte by byte for the rest) against printf's %02X / %02x. */
static void test_hex(void **state)
{
    (void)state;
    uint8_t bytes[80];
    uint32_t seed = 99;
    fmt_buf mine = {0};
    char reference[2 * sizeof bytes + 1];
    for (int round = 0; round < 200; round++) {
        for (size_t k = 0; k < sizeof bytes; k++) {
            seed = seed * 1103515245u + 12345u;
            bytes[k] = round == 0 ? (uint8_t)k * 3u : (uint8_t)(seed >> 16);
        }
        for (size_t n = 0; n <= sizeof bytes; n++) {
            for (int upper = 0; upper <= 1; upper++) {
                etl_textbuf_reset(&mine);
                etl_textbuf_putc(&mine, 'x');
                fmt_buf_put_hex(&mine, bytes, n, upper);
                for (size_t k = 0; k < n; k++) snprintf(reference + 2 * k, 3, upper ? "%02X" : "%02x", bytes[k]);
                reference[2 * n] = '\0';
                assert_int_equal(mine.length, 1 + 2 * n);
                assert_memory_equal(mine.data + 1, reference, 2 * n);
            }
        }
    }
    etl_textbuf_free(&mine);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_time),
        cmocka_unit_test(test_guid_and_short_copy),
        cmocka_unit_test(test_hex),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
