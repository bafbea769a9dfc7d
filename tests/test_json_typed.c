/* Typed JSON edge cases the corpus does not reach (issue 15): the value-kind rule per in/out type, NaN and
 * infinities as null, values that did not fit their type as null, mapped names with their numbers (scalar
 * and array, with and without the value bytes), --json-bigint string, and the ECS writer leaving the
 * "NAME.value" members out. Expected JSON is written by hand from the rule in etlconv(1), TYPED OUTPUT. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "decode/value_kind.h"
#include "etl/etl_writer.h"
#include "support/json_parse.h"
#include "support/mem_sink.h"

static char *run_writer(const char *format, const etl_writer_options *opt, const etl_decoded_event *ev)
{
    mem_sink m = {0};
    etl_sink sink = {mem_sink_write, &m};
    etl_writer *w = etl_writer_new(etl_writer_format_find(format), &sink, opt);
    assert_non_null(w);
    assert_int_equal(etl_writer_begin(w), 0);
    assert_int_equal(etl_writer_event(w, ev), 0);
    assert_int_equal(etl_writer_end(w, NULL), 0);
    etl_writer_free(w);
    assert_non_null(m.data);
    return m.data;
}

/* The "fields":{...} part of a JSON Lines object. */
static char *fields_of(char *line)
{
    char *start = strstr(line, "\"fields\":{");
    assert_non_null(start);
    start += 9;
    int depth = 0;
    char *p = start;
    for (int in_string = 0; *p; p++) {
        if (in_string) {
            if (*p == '\\') p++;
            else if (*p == '"') in_string = 0;
        } else if (*p == '"') {
            in_string = 1;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if ((*p == '}' || *p == ']') && --depth == 0) {
            break;
        }
    }
    p[1] = '\0';
    return start;
}

static void test_value_kinds(void **state)
{
    (void)state;
    static const etl_map_entry entries[] = {{2, "Handle"}};
    static const etl_map_info map = {"TypeMap", ETL_MAP_VALUEMAP, 1, entries};
    static const struct { uint16_t in, out; const etl_map_info *map; etl_value_kind kind; } cases[] = {
        {ETL_IN_UINT32, ETL_OUT_NULL, NULL, ETL_VALUE_INTEGER},
        {ETL_IN_INT64, ETL_OUT_LONG, NULL, ETL_VALUE_INTEGER},
        {ETL_IN_UINT16, ETL_OUT_PORT, NULL, ETL_VALUE_INTEGER},
        {ETL_IN_UINT32, ETL_OUT_PID, NULL, ETL_VALUE_INTEGER},
        {ETL_IN_UINT32, ETL_OUT_HEXINT32, NULL, ETL_VALUE_STRING},
        {ETL_IN_UINT32, ETL_OUT_NTSTATUS, NULL, ETL_VALUE_STRING},
        {ETL_IN_INT32, ETL_OUT_HRESULT, NULL, ETL_VALUE_STRING},
        {ETL_IN_HEXINT64, ETL_OUT_NULL, NULL, ETL_VALUE_STRING},
        {ETL_IN_HEXINT32, ETL_OUT_UNSIGNEDINT, NULL, ETL_VALUE_INTEGER},
        {ETL_IN_SIZET, ETL_OUT_NULL, NULL, ETL_VALUE_STRING},
        {ETL_IN_POINTER, ETL_OUT_NULL, NULL, ETL_VALUE_STRING},
        {ETL_IN_UINT16, ETL_OUT_STRING, NULL, ETL_VALUE_STRING},
        {ETL_IN_UINT32, ETL_OUT_IPV4, NULL, ETL_VALUE_STRING},
        {ETL_IN_UINT64, ETL_OUT_DATETIME, NULL, ETL_VALUE_STRING},
        {ETL_IN_UINT8, ETL_OUT_BOOLEAN, NULL, ETL_VALUE_BOOLEAN},
        {ETL_IN_BOOLEAN, ETL_OUT_NULL, NULL, ETL_VALUE_BOOLEAN},
        {ETL_IN_FLOAT, ETL_OUT_NULL, NULL, ETL_VALUE_FLOAT},
        {ETL_IN_DOUBLE, ETL_OUT_NULL, NULL, ETL_VALUE_FLOAT},
        {ETL_IN_GUID, ETL_OUT_NULL, NULL, ETL_VALUE_STRING},
        {ETL_IN_BINARY, ETL_OUT_NULL, NULL, ETL_VALUE_STRING},
        {ETL_IN_UINT32, ETL_OUT_NULL, &map, ETL_VALUE_MAPPED},
        {ETL_IN_UINT32, ETL_OUT_HEXINT32, &map, ETL_VALUE_MAPPED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (etl_value_kind_of(cases[i].in, cases[i].out, cases[i].map) != cases[i].kind)
            fail_msg("case %zu: in %u out %u: kind %d, want %d", i, cases[i].in, cases[i].out,
                     etl_value_kind_of(cases[i].in, cases[i].out, cases[i].map), cases[i].kind);
    }
    assert_true(etl_value_is_json_number("-1.5e+20"));
    assert_false(etl_value_is_json_number("nan"));
    assert_false(etl_value_is_json_number("-inf"));
    assert_false(etl_value_is_json_number("01"));
    assert_null(etl_value_integer_text("0x0102030405"));  /* a size that did not fit: hex bytes */
    assert_string_equal(etl_value_integer_text("-42"), "-42");
}

typedef struct fixture {
    etl_event_record record;
    etl_decoded_event event;
    etl_field fields[16];
    etl_field_bytes bytes[16];
    etl_property_info props[4];
} fixture;

static const etl_map_entry type_entries[] = {{0, "File"}, {2, "Handle"}};
static const etl_map_info type_map = {"TypeMap", ETL_MAP_VALUEMAP, 2, type_entries};
static const uint8_t two[4] = {2, 0, 0, 0}, seven[4] = {7, 0, 0, 0}, big[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

static void add(fixture *fx, etl_field_kind kind, const char *name, const char *value, uint16_t in, uint16_t out,
                const etl_property_info *prop, const uint8_t *bytes, uint32_t size)
{
    size_t i = fx->event.field_count++;
    fx->fields[i] = (etl_field){kind, name, value, in, out, 0, -1, prop};
    fx->bytes[i] = (etl_field_bytes){bytes, size};
}

static void make_event(fixture *fx, int with_bytes)
{
    memset(fx, 0, sizeof *fx);
    fx->record.header.descriptor.keyword = 0x8000000000000010ULL;
    fx->record.raw_timestamp = 9007199254740993LL;  /* 2^53 + 1 */
    fx->props[0] = (etl_property_info){"Type", 0, ETL_IN_UINT32, ETL_OUT_NULL, 0, 0, 0, 0, &type_map};
    fx->props[1] = (etl_property_info){"Types", ETL_PROP_PARAM_FIXED_COUNT, ETL_IN_UINT32, ETL_OUT_NULL, 0, 0, 2, 0, &type_map};
    etl_decoded_event *ev = &fx->event;
    ev->record = &fx->record;
    ev->status = ETL_DECODE_OK;
    ev->provider_name = "P";
    ev->event_name = "E";
    ev->fields = fx->fields;
    ev->field_bytes = with_bytes ? fx->bytes : NULL;
    add(fx, ETL_FIELD_VALUE, "Type", "Handle", ETL_IN_UINT32, ETL_OUT_NULL, &fx->props[0], two, 4);
    add(fx, ETL_FIELD_ARRAY_BEGIN, "Types", NULL, ETL_IN_UINT32, ETL_OUT_NULL, &fx->props[1], NULL, 0);
    add(fx, ETL_FIELD_VALUE, "Types", "Handle", ETL_IN_UINT32, ETL_OUT_NULL, &fx->props[1], two, 4);
    add(fx, ETL_FIELD_VALUE, "Types", "7", ETL_IN_UINT32, ETL_OUT_NULL, &fx->props[1], seven, 4);  /* no name */
    add(fx, ETL_FIELD_ARRAY_END, "Types", NULL, ETL_IN_UINT32, ETL_OUT_NULL, &fx->props[1], NULL, 0);
    add(fx, ETL_FIELD_VALUE, "F", "nan", ETL_IN_FLOAT, ETL_OUT_NULL, NULL, NULL, 0);
    add(fx, ETL_FIELD_VALUE, "D", "-2.5e-07", ETL_IN_DOUBLE, ETL_OUT_NULL, NULL, NULL, 0);
    add(fx, ETL_FIELD_VALUE, "B", "0x01020304050607", ETL_IN_BOOLEAN, ETL_OUT_NULL, NULL, NULL, 0);  /* did not fit */
    add(fx, ETL_FIELD_VALUE, "U", "18446744073709551615", ETL_IN_UINT64, ETL_OUT_NULL, NULL, big, 8);
    add(fx, ETL_FIELD_VALUE, "I", "-5", ETL_IN_INT8, ETL_OUT_NULL, NULL, NULL, 0);
    add(fx, ETL_FIELD_VALUE, "H", "0xFF", ETL_IN_HEXINT32, ETL_OUT_NULL, NULL, NULL, 0);
}

static void test_jsonl_typed_values(void **state)
{
    (void)state;
    fixture fx;
    make_event(&fx, 1);
    etl_writer_options opt = {0};
    char *out = run_writer("jsonl", &opt, &fx.event);
    assert_int_equal(json_parse(out, strlen(out), NULL, NULL), 0);
    assert_non_null(strstr(out, "\"timestamp\":9007199254740993,"));
    assert_non_null(strstr(out, "\"keywords\":9223372036854775824,\"keyword_names\":[]"));
    assert_non_null(strstr(out, ",\"schema\":1}\n"));
    assert_string_equal(fields_of(out),
                        "{\"Type\":\"Handle\",\"Type.value\":2,\"Types\":[\"Handle\",\"7\"],\"Types.value\":[2,7],"
                        "\"F\":null,\"D\":-2.5e-07,\"B\":null,\"U\":18446744073709551615,\"I\":-5,\"H\":\"0xFF\"}");
    free(out);

    opt.json_bigint_string = 1;
    out = run_writer("jsonl", &opt, &fx.event);
    assert_non_null(strstr(out, "\"timestamp\":\"9007199254740993\","));
    assert_non_null(strstr(out, "\"keywords\":\"9223372036854775824\","));
    assert_non_null(strstr(out, "\"U\":\"18446744073709551615\""));
    assert_non_null(strstr(out, "\"Type.value\":2,"));  /* a 32-bit number stays a number */
    free(out);

    make_event(&fx, 0);  /* a producer without value bytes: the number is unknown, not guessed */
    opt.json_bigint_string = 0;
    out = run_writer("jsonl", &opt, &fx.event);
    assert_non_null(strstr(out, "\"Type\":\"Handle\",\"Type.value\":null,"));
    assert_non_null(strstr(out, "\"Types.value\":[null,null]"));
    free(out);
}

static void test_ecs_has_no_dotted_members(void **state)
{
    (void)state;
    fixture fx;
    make_event(&fx, 1);
    etl_writer_options opt = {0};
    char *out = run_writer("ecs", &opt, &fx.event);
    assert_int_equal(json_parse(out, strlen(out), NULL, NULL), 0);
    assert_null(strstr(out, ".value"));
    assert_non_null(strstr(out, "\"event_data\":{\"Type\":\"Handle\",\"Types\":[\"Handle\",\"7\"],"));
    assert_non_null(strstr(out, "\"keywords_raw\":\"0x8000000000000010\""));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_kinds),
        cmocka_unit_test(test_jsonl_typed_values),
        cmocka_unit_test(test_ecs_has_no_dotted_members),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
