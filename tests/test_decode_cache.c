/* What the decoder remembers between events (src/decode/decode_cache.c, issue 14) must never change what it
 * decodes: a schema that arrives or is replaced mid-trace (an EventSource manifest, embedded metadata, a
 * closer version) is used from the next event on, names follow each record's level and opcode, and the two-step
 * decode (etl_decode_begin + etl_decode_skip) leaves the same statistics, status and error as etl_decode_event.
 * Oracle: the same records decoded by a fresh decoder after all schemas were added (no cache history), and the
 * statistics of etl_decode_event. Also the integer writers of src/decode/render_int.h against snprintf. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "decode/decode_cache.h"
#include "decode/render_int.h"
#include "decode/walk.h"
#include "etl/etl_schema.h"

static const etl_guid provider = {0x1a2b3c4d, 0x1111, 0x2222, {0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0x00}};

static const etl_property_info first_props[] = {
    {"Count", 0, ETL_IN_UINT32, ETL_OUT_NULL, 0, 0, 1, 0, NULL},
    {"Address", 0, ETL_IN_POINTER, ETL_OUT_NULL, 0, 0, 1, 0, NULL},
};
static const etl_property_info second_props[] = {
    {"Total", 0, ETL_IN_INT32, ETL_OUT_NULL, 0, 0, 1, 0, NULL},
    {"Where", 0, ETL_IN_HEXINT64, ETL_OUT_NULL, 0, 0, 1, 0, NULL},
};

static void add_schema(etl_schema_registry *r, etl_schema_source source, uint8_t version, const char *task,
                       const etl_property_info *props)
{
    etl_event_info info;
    memset(&info, 0, sizeof info);
    info.source = source;
    info.provider_guid = provider;
    info.descriptor = (etl_event_descriptor){5, version, 0, 4, 0, 0, 0};
    info.provider_name = "Mid-Trace";
    info.task_name = task;
    info.properties = props;
    info.property_count = 2;
    info.top_level_count = 2;
    assert_int_equal(etl_schema_registry_add(r, &info, ETL_KEY_MANIFEST), ETL_OK);
}

static const uint8_t payload[12] = {0xFE, 0xFF, 0xFF, 0xFF, 0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE};

static etl_event_record record(uint8_t version, uint8_t level, uint8_t opcode, size_t size)
{
    etl_event_record r;
    memset(&r, 0, sizeof r);
    r.kind = ETL_KIND_EVENT64;
    r.pointer_size = 8;
    r.header.provider_id = provider;
    r.header.descriptor = (etl_event_descriptor){5, version, 0, level, opcode, 0, 0};
    r.header.process_id = 10;
    r.header.thread_id = 20;
    r.user_data = payload;
    r.user_data_length = (uint16_t)size;
    return r;
}

/* "name=value;..." of an event, for comparing two decodes */
static void describe(const etl_decoded_event *ev, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "%d|%d|%s|%s|%s|%s|", ev->status, ev->source, ev->provider_name,
                                ev->event_name, ev->level_name ? ev->level_name : "-",
                                ev->opcode_name ? ev->opcode_name : "-");
    for (size_t i = 0; i < ev->field_count && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s=%s;", ev->fields[i].name, ev->fields[i].value ? ev->fields[i].value : "");
}

static void decode_fresh(etl_schema_registry *r, const etl_event_record *rec, char *out, size_t cap)
{
    etl_decoder *d = etl_decoder_new(r, NULL);
    assert_non_null(d);
    const etl_decoded_event *ev;
    assert_int_equal(etl_decode_event(d, rec, &ev), ETL_OK);
    describe(ev, out, cap);
    etl_decoder_free(d);
}

static void test_schema_arrives_and_changes_mid_trace(void **state)
{
    (void)state;
    etl_schema_registry *r = etl_schema_registry_new();
    etl_decoder *d = etl_decoder_new(r, NULL);
    assert_non_null(d);
    const etl_decoded_event *ev;
    char got[512], want[512];
    etl_event_record v1 = record(1, 4, 0, sizeof payload);

    /* before any schema: no schema (and the lookup is remembered as such) */
    assert_int_equal(etl_decode_event(d, &v1, &ev), ETL_OK);
    assert_int_equal(ev->status, ETL_DECODE_NO_SCHEMA);
    assert_int_equal(etl_decode_event(d, &v1, &ev), ETL_OK);
    assert_int_equal(ev->status, ETL_DECODE_NO_SCHEMA);

    /* an EventSource manifest arrives with version 0: the version-1 record falls back to it at once */
    add_schema(r, ETL_SOURCE_EVENTSOURCE, 0, "First", first_props);
    assert_int_equal(etl_decode_event(d, &v1, &ev), ETL_OK);
    describe(ev, got, sizeof got);
    decode_fresh(r, &v1, want, sizeof want);
    assert_string_equal(got, want);
    assert_string_equal(got, "0|4|Mid-Trace|First|Information|Info|Count=4294967294;Address=0xFEDCBA9876543210;");

    /* the exact version arrives: it wins over the fallback */
    add_schema(r, ETL_SOURCE_EVENTSOURCE, 1, "Second", second_props);
    assert_int_equal(etl_decode_event(d, &v1, &ev), ETL_OK);
    describe(ev, got, sizeof got);
    decode_fresh(r, &v1, want, sizeof want);
    assert_string_equal(got, want);
    assert_string_equal(got, "0|4|Mid-Trace|Second|Information|Info|Total=-2;Where=0xFEDCBA9876543210;");

    /* the manifest is sent again, changed (same source replaces): the new layout from the next event on */
    add_schema(r, ETL_SOURCE_EVENTSOURCE, 1, "Third", first_props);
    assert_int_equal(etl_decode_event(d, &v1, &ev), ETL_OK);
    describe(ev, got, sizeof got);
    assert_string_equal(got, "0|4|Mid-Trace|Third|Information|Info|Count=4294967294;Address=0xFEDCBA9876543210;");

    /* same description, other level and opcode per record: the names follow the record */
    etl_event_record other = record(1, 2, 1, sizeof payload);
    assert_int_equal(etl_decode_event(d, &other, &ev), ETL_OK);
    describe(ev, got, sizeof got);
    decode_fresh(r, &other, want, sizeof want);
    assert_string_equal(got, want);
    assert_string_equal(ev->level_name, "Error");
    assert_string_equal(ev->event_name, "Third/Start");
    assert_int_equal(etl_decode_event(d, &v1, &ev), ETL_OK);
    assert_string_equal(ev->level_name, "Information");
    assert_string_equal(ev->event_name, "Third");

    etl_decoder_free(d);
    etl_schema_registry_free(r);
}

/* begin + skip against etl_decode_event: same statistics, and for a payload that does not fit the same status,
 * error and undecoded bytes (skip renders those in full) */
static void test_skip_counts_as_decode(void **state)
{
    (void)state;
    etl_schema_registry *r = etl_schema_registry_new();
    add_schema(r, ETL_SOURCE_USER_MANIFEST, 0, "First", first_props);
    etl_decoder *full = etl_decoder_new(r, NULL), *skipping = etl_decoder_new(r, NULL);
    assert_non_null(full);
    assert_non_null(skipping);
    etl_event_record unknown = record(0, 4, 0, 4);
    unknown.header.descriptor.id = 6;
    const etl_event_record recs[] = {
        record(0, 4, 0, sizeof payload),      /* fits */
        record(0, 4, 0, sizeof payload - 3),  /* ends inside Address: decode error */
        record(0, 4, 0, 4),                   /* ends right after Count: decode error */
        unknown,                              /* no schema */
    };
    for (size_t i = 0; i < sizeof recs / sizeof recs[0]; i++) {
        const etl_decoded_event *a, *b;
        assert_int_equal(etl_decode_event(full, &recs[i], &a), ETL_OK);
        etl_decode_status status = a->status;
        size_t undecoded = a->undecoded_length;
        char error[600];
        snprintf(error, sizeof error, "%s", a->error ? a->error : "");
        assert_int_equal(etl_decode_begin(skipping, &recs[i], &b), ETL_OK);
        assert_string_equal(b->event_name, i < 3 ? "First" : "EventID(6)");
        assert_int_equal(etl_decode_skip(skipping, &b), ETL_OK);
        assert_int_equal(b->status, status);
        assert_int_equal(b->undecoded_length, undecoded);
        assert_string_equal(b->error ? b->error : "", error);
    }
    const etl_decode_stats *sa = etl_decoder_get_stats(full), *sb = etl_decoder_get_stats(skipping);
    assert_memory_equal(sa, sb, sizeof *sa);
    assert_int_equal(sa->decoded, 1);
    assert_int_equal(sa->decode_errors, 2);
    assert_int_equal(sa->no_schema, 1);
    etl_decoder_free(full);
    etl_decoder_free(skipping);
    etl_schema_registry_free(r);
}

/* Near the 1 MiB text cap the sizing walk cannot tell without rendering: it says so, and skip decodes in full.
 * 40000 one-byte elements of a bitmap whose names make each element's text ~60 bytes: 2.4 MB of text. */
static void test_skip_near_text_cap(void **state)
{
    (void)state;
    static etl_map_entry entries[] = {{1, "FirstFlagWithAQuiteLongNameIndeed"}, {2, "SecondFlagWithALongName"}};
    static const etl_map_info map = {"Flags", ETL_MAP_BITMAP, 2, entries};
    static const etl_property_info props[] = {
        {"Count", 0, ETL_IN_UINT16, ETL_OUT_NULL, 0, 0, 1, 0, NULL},
        {"Flags", ETL_PROP_PARAM_COUNT, ETL_IN_UINT8, ETL_OUT_NULL, 0, 0, 0, 0, &map},
    };
    etl_schema_registry *r = etl_schema_registry_new();
    etl_event_info info;
    memset(&info, 0, sizeof info);
    info.source = ETL_SOURCE_USER_MANIFEST;
    info.provider_guid = provider;
    info.descriptor = (etl_event_descriptor){9, 0, 0, 4, 0, 0, 0};
    info.task_name = "Capped";
    info.properties = props;
    info.property_count = 2;
    info.top_level_count = 2;
    assert_int_equal(etl_schema_registry_add(r, &info, ETL_KEY_MANIFEST), ETL_OK);
    static uint8_t big[2 + 40000];
    big[0] = 40000 & 0xFF;
    big[1] = 40000 >> 8;
    memset(big + 2, 3, 40000);
    etl_event_record rec = record(0, 4, 0, 0);
    rec.header.descriptor.id = 9;
    rec.user_data = big;
    rec.user_data_length = sizeof big;

    etl_walk walk;
    etl_walk_init(&walk);
    etl_walk_plan plan;
    const etl_event_info *stored = etl_schema_registry_find(r, ETL_KEY_MANIFEST, &provider, 9, 0);
    assert_non_null(stored);
    assert_int_equal(etl_walk_plan_build(&plan, stored), 0);
    assert_int_equal(etl_walk_event_sized(&walk, stored, &plan, big, sizeof big, NULL), ETL_WALK_NEEDS_RENDERING);
    /* a short array of the same and a byte more: sized without rendering, consumed as the full walk consumes */
    static const uint8_t small[2 + 10 + 1] = {10, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0xAA};
    assert_int_equal(etl_walk_event_sized(&walk, stored, &plan, small, sizeof small, NULL), ETL_DECODE_OK);
    assert_int_equal(walk.consumed, 2 + 10);
    assert_int_equal(etl_walk_event_planned(&walk, stored, &plan, small, sizeof small, NULL), ETL_DECODE_OK);
    assert_int_equal(walk.consumed, 2 + 10);
    /* ten elements but nine bytes: the full walk stops with a message, so the sizing walk asks for it */
    assert_int_equal(etl_walk_event_sized(&walk, stored, &plan, small, 2 + 9, NULL), ETL_WALK_NEEDS_RENDERING);
    etl_walk_plan_free(&plan);
    etl_walk_free(&walk);

    etl_decoder *full = etl_decoder_new(r, NULL), *skipping = etl_decoder_new(r, NULL);
    const etl_decoded_event *a, *b;
    assert_int_equal(etl_decode_event(full, &rec, &a), ETL_OK);
    assert_int_equal(a->status, ETL_DECODE_ERROR); /* truncated at the cap */
    assert_non_null(strstr(a->error, "bytes of text in one event"));
    char error[600];
    snprintf(error, sizeof error, "%s", a->error);
    assert_int_equal(etl_decode_begin(skipping, &rec, &b), ETL_OK);
    assert_int_equal(etl_decode_skip(skipping, &b), ETL_OK);
    assert_int_equal(b->status, ETL_DECODE_ERROR);
    assert_string_equal(b->error, error);
    assert_memory_equal(etl_decoder_get_stats(full), etl_decoder_get_stats(skipping), sizeof(etl_decode_stats));
    etl_decoder_free(full);
    etl_decoder_free(skipping);
    etl_schema_registry_free(r);
}

static void check_int(etl_int_style style, uint64_t v, size_t size)
{
    char got[ETL_INT_TEXT_MAX + 1], want[64];
    size_t n = etl_int_format(got, style, v, size);
    got[n] = '\0';
    uint64_t mask = size >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1;
    uint64_t u = v & mask;
    int64_t sv = size >= 8 ? (int64_t)u : (u >> (8 * size - 1)) ? (int64_t)(u | ~mask) : (int64_t)u;
    switch (style) {
    case ETL_INT_SIGNED: snprintf(want, sizeof want, "%" PRId64, sv); break;
    case ETL_INT_HEX: snprintf(want, sizeof want, "0x%" PRIX64, u); break;
    case ETL_INT_HEX8: snprintf(want, sizeof want, "0x%08" PRIX64, u); break;
    case ETL_INT_BOOLEAN: snprintf(want, sizeof want, "%s", u ? "true" : "false"); break;
    default: snprintf(want, sizeof want, "%" PRIu64, u); break;
    }
    if (strcmp(got, want) != 0) fail_msg("style %d size %zu value 0x%" PRIX64 ": '%s', printf says '%s'", style, size, u, got, want);
}

static void test_integer_text_matches_printf(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 2, 4, 8};
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int style = ETL_INT_UNSIGNED; style <= ETL_INT_BOOLEAN; style++)
        for (size_t s = 0; s < 4; s++) {
            size_t size = sizes[s];
            uint64_t mask = size >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1;
            /* every power of ten and of two, their neighbours, and pseudo-random values */
            for (uint64_t p = 1, t = 1; p; p = p * 10 > p ? p * 10 : 0, t <<= 1) {
                const uint64_t vs[] = {p - 1, p, p + 1, t - 1, t, t + 1};
                for (size_t k = 0; k < 6; k++) check_int((etl_int_style)style, vs[k] & mask, size);
                if (!t) break;
            }
            for (int i = 0; i < 20000; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                check_int((etl_int_style)style, (x >> (i % 64)) & mask, size);
            }
            check_int((etl_int_style)style, 0, size);
            check_int((etl_int_style)style, mask, size);
        }
}

/* Plans and names are keyed by description address, so which descriptions share a slot depends on where the
 * heap put them. Any two descriptions used in turn must both stay remembered (a direct-mapped table rebuilt a
 * plan on every event for two busy event types that met in one slot: 1.43x the work at -j 2 in one run, none in
 * the next). 300 descriptions side by side in memory give hundreds of pairs that share a set; every pair is
 * tried. A plan that was rebuilt loses the mark written into it. */
#define CACHE_DESCRIPTIONS 300
static void test_descriptions_used_in_turn_stay_cached(void **state)
{
    (void)state;
    static etl_event_info infos[CACHE_DESCRIPTIONS];
    static const etl_property_info prop = {"Value", 0, ETL_IN_UINT32, ETL_OUT_NULL, 0, 0, 1, 0, NULL};
    for (size_t i = 0; i < CACHE_DESCRIPTIONS; i++) {
        infos[i].properties = &prop;
        infos[i].property_count = infos[i].top_level_count = 1;
    }
    etl_decode_cache *c = etl_decode_cache_new();
    assert_non_null(c);
    size_t pairs = 0;
    for (size_t i = 0; i < CACHE_DESCRIPTIONS; i++)
        for (size_t j = i + 1; j < CACHE_DESCRIPTIONS; j++) {
            etl_walk_plan *a = NULL, *b = NULL;
            for (int round = 0; round < 2; round++) { /* the first round may replace what earlier pairs left */
                a = (etl_walk_plan *)etl_decode_cache_plan(c, &infos[i]);
                b = (etl_walk_plan *)etl_decode_cache_plan(c, &infos[j]);
                assert_non_null(a);
                assert_non_null(b);
            }
            a->style[0] = 0xA1, b->style[0] = 0xB2;
            for (int round = 0; round < 3; round++) {
                const etl_walk_plan *again_a = etl_decode_cache_plan(c, &infos[i]);
                const etl_walk_plan *again_b = etl_decode_cache_plan(c, &infos[j]);
                if (again_a->style[0] != 0xA1 || again_b->style[0] != 0xB2)
                    fail_msg("the plans of descriptions %zu and %zu, used in turn, were rebuilt", i, j);
            }
            a->style[0] = b->style[0] = 0; /* as built (ETL_INT_UNSIGNED) for the pairs to come */

            etl_names_key ka = {&infos[i], 1, 0, 4, 0, 0, 0}, kb = {&infos[j], 1, 0, 4, 0, 0, 0};
            etl_event_names na = {.event_name = "A"}, nb = {.event_name = "B"};
            assert_non_null(etl_decode_cache_keep_names(c, &ka, &na));
            assert_non_null(etl_decode_cache_keep_names(c, &kb, &nb));
            const etl_event_names *got_a = etl_decode_cache_names(c, &ka), *got_b = etl_decode_cache_names(c, &kb);
            if (!got_a || !got_b || strcmp(got_a->event_name, "A") != 0 || strcmp(got_b->event_name, "B") != 0)
                fail_msg("the names of descriptions %zu and %zu, kept in turn, were not both remembered (%s, %s)", i, j, got_a ? got_a->event_name : "-", got_b ? got_b->event_name : "-");
            pairs++;
        }
    assert_int_equal(pairs, CACHE_DESCRIPTIONS * (CACHE_DESCRIPTIONS - 1) / 2);
    etl_decode_cache_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema_arrives_and_changes_mid_trace),
        cmocka_unit_test(test_skip_counts_as_decode),
        cmocka_unit_test(test_skip_near_text_cap),
        cmocka_unit_test(test_integer_text_matches_printf),
        cmocka_unit_test(test_descriptions_used_in_turn_stay_cached),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
