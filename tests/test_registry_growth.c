/* Registry growth (issue 11): adding entries must not reallocate at every add — under ASan each realloc copies,
 * so 1e5 EventSource/TraceLogging events made registration quadratic (25 s, 1 GB). This binary is linked with
 * -Wl,--wrap=realloc (Makefile), so every realloc the library makes is counted here: 1e5 distinct events in
 * 1e3 providers must take O(log n) reallocations, and every one must still be found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etl/etl_schema.h"

void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n);
static size_t realloc_calls;
void *__wrap_realloc(void *p, size_t n)
{
    realloc_calls++;
    return __real_realloc(p, n);
}

enum { EVENTS = 100000, PROVIDERS = 1000 };

static etl_event_info event(uint32_t i)
{
    etl_event_info info;
    memset(&info, 0, sizeof info);
    info.source = ETL_SOURCE_EVENTSOURCE;
    info.provider_guid = (etl_guid){0x11110000u + i % PROVIDERS, 0x2222, 0x4333, {0x84, 0x44, 5, 5, 6, 6, 7, 7}};
    info.descriptor.id = (uint16_t)(i / PROVIDERS);
    info.descriptor.version = (uint8_t)(i % 3);
    info.event_name = "E";
    return info;
}

static void test_1e5_entries_grow_geometrically(void **state)
{
    (void)state;
    etl_schema_registry *r = etl_schema_registry_new();
    assert_non_null(r);
    realloc_calls = 0;
    for (uint32_t i = 0; i < EVENTS; i++) {
        etl_event_info info = event(i);
        assert_int_equal(etl_schema_registry_add(r, &info, ETL_KEY_MANIFEST), ETL_OK);
    }
    print_message("%d entries: %zu realloc calls\n", EVENTS, realloc_calls);
    assert_true(realloc_calls < 200);  /* 1e5 before the fix; ~ 4 arrays × log2(1e5) after */
    for (uint32_t i = 0; i < EVENTS; i += 7) {
        etl_event_info want = event(i);
        const etl_event_info *got = etl_schema_registry_find(r, ETL_KEY_MANIFEST, &want.provider_guid,
                                                             want.descriptor.id, want.descriptor.version);
        assert_non_null(got);
        assert_int_equal(got->descriptor.id, want.descriptor.id);
        assert_int_equal(got->descriptor.version, want.descriptor.version);
    }
    etl_schema_registry_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_1e5_entries_grow_geometrically),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
