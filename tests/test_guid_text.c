/* src/util/guid_text.h: etl_guid_text and etl_guid_format (which the writers' fmt_guid and fmt_w_guid use)
 * against printf's "%08x-%04x-..." in both cases: the all-zero GUID, every byte position with every value while
 * the others are zero, and 200,000 pseudo-random GUIDs; etl_guid_text writes exactly 38 bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "etl/etl.h"
#include "util/guid_text.h"

static void by_printf(const etl_guid *g, int upper, char *out)
{
    const char *fmt = upper ? "{%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X}"
                            : "{%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x}";
    snprintf(out, 39, fmt, (unsigned)g->data1, g->data2, g->data3, g->data4[0], g->data4[1], g->data4[2],
             g->data4[3], g->data4[4], g->data4[5], g->data4[6], g->data4[7]);
}

static void check(const etl_guid *g)
{
    for (int upper = 0; upper <= 1; upper++) {
        char want[39], got[39], text[40];
        by_printf(g, upper, want);
        assert_string_equal(etl_guid_format(g, got, upper), want);
        memset(text, '#', sizeof text);
        assert_ptr_equal(etl_guid_text(g, text, upper), text + 38);
        assert_memory_equal(text, want, 38);
        assert_int_equal(text[38], '#'); /* no NUL, nothing past the 38 bytes */
    }
}

static etl_guid from_bytes(const uint8_t b[16])
{
    etl_guid g;
    g.data1 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    g.data2 = (uint16_t)(b[4] << 8 | b[5]);
    g.data3 = (uint16_t)(b[6] << 8 | b[7]);
    memcpy(g.data4, b + 8, 8);
    return g;
}

static void test_zero_and_every_byte(void **state)
{
    (void)state;
    etl_guid zero = {0};
    check(&zero);
    for (int at = 0; at < 16; at++)
        for (int v = 1; v < 256; v++) {
            uint8_t b[16] = {0};
            b[at] = (uint8_t)v;
            etl_guid g = from_bytes(b);
            check(&g);
        }
}

static void test_random(void **state)
{
    (void)state;
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 200000; i++) {
        uint8_t b[16];
        for (int k = 0; k < 2; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            memcpy(b + 8 * k, &x, 8);
        }
        etl_guid g = from_bytes(b);
        check(&g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_and_every_byte),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
