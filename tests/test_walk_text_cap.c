/* The walker's cap on rendered text per event (ETL_WALK_MAX_TEXT, src/decode/walk.h): a schema can make a few
 * payload bytes render to far more text (a value map whose names are long), so a hostile manifest plus a
 * 64 KiB payload could otherwise ask for gigabytes. The event must stop at the cap, be marked as a decode
 * error that says so, and keep the text it rendered up to there; an event just under the cap must not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "decode/walk.h"

#define NAME_BYTES 4096u

static char long_name[NAME_BYTES + 1];
static etl_map_entry entry = {7, long_name};
static const etl_map_info map = {"Long", ETL_MAP_VALUEMAP, 1, &entry};

/* An array of `count` UINT8 elements (count from the first property), every element mapped to the long name. */
static int walk_mapped_array(etl_walk *w, uint8_t *payload, uint16_t count)
{
    etl_property_info props[2] = {{"n", 0, ETL_IN_UINT16, 0, 0, 0, 0, 0, NULL},
                                  {"v", ETL_PROP_PARAM_COUNT, ETL_IN_UINT8, 0, 0, 0, 0, 0, &map}};
    etl_event_info info;
    memset(&info, 0, sizeof info);
    info.properties = props;
    info.property_count = 2;
    info.top_level_count = 2;
    payload[0] = (uint8_t)count;
    payload[1] = (uint8_t)(count >> 8);
    memset(payload + 2, 7, count);
    etl_render_context ctx = {8, NULL, 0, NULL};
    return etl_walk_event(w, &info, payload, 2u + count, &ctx);
}

static size_t mapped_values(const etl_walk *w)
{
    size_t n = 0;
    for (size_t i = 0; i < w->field_count; i++)
        if (w->fields[i].kind == ETL_FIELD_VALUE && w->fields[i].array_index >= 0) {
            assert_string_equal(w->fields[i].value, long_name);
            n++;
        }
    return n;
}

static void test_text_cap(void **state)
{
    (void)state;
    memset(long_name, 'N', NAME_BYTES);
    long_name[NAME_BYTES] = '\0';
    uint8_t *payload = malloc(2u + 65535u);
    assert_non_null(payload);
    etl_walk w;
    etl_walk_init(&w);

    /* 65535 elements x 4 KiB of name = 256 MiB asked: stops at the cap, says why, keeps what fits */
    assert_int_equal(walk_mapped_array(&w, payload, 65535), ETL_DECODE_ERROR);
    assert_non_null(strstr(w.error, "truncated: more than 1048576 bytes of text in one event"));
    size_t kept = mapped_values(&w);
    assert_true(kept >= ETL_WALK_MAX_TEXT / (NAME_BYTES + 1) - 1);
    assert_true(kept <= ETL_WALK_MAX_TEXT / (NAME_BYTES + 1) + 1);
    assert_true(w.text.capacity <= 2u * ETL_WALK_MAX_TEXT + 65536u); /* memory follows the cap, not the ask */

    /* 200 elements (~800 KiB): under the cap, decoded whole */
    assert_int_equal(walk_mapped_array(&w, payload, 200), ETL_DECODE_OK);
    assert_int_equal(mapped_values(&w), 200);
    assert_int_equal(w.consumed, 202);

    etl_walk_free(&w);
    free(payload);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_text_cap)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
