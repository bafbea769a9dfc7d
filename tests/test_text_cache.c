/* formats/text_cache.c: the writers' per-schema static text must follow the schema. A description that
 * changes for the same event key (an EventSource manifest re-sent with other names, a TraceLogging
 * description freed and another allocated at the same address) gets a new serial and must be rendered
 * anew; a provider name the registry learns mid-trace (no schema name) must show at once; descriptions
 * without a serial are never cached. Each case runs the four text writers with the cache and with
 * ETLCONV_TEXT_CACHE=off and wants the same bytes, and checks the new names are in the output (a cache
 * keyed by the description's address alone fails these). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etl/etl_writer.h"
#include "support/mem_sink.h"

static const char *const formats[] = {"xml", "csv", "table", "jsonl"};

typedef struct fixture {
    etl_event_record record;
    etl_event_info info;
    etl_property_info props[2];
    etl_field fields[2];
    etl_decoded_event event;
    char provider[64];   /* the registry's provider name (no schema name): mutable on purpose */
    char task[32], prop_name[32], value[32];
} fixture;

static void make_event(fixture *fx)
{
    memset(fx, 0, sizeof *fx);
    etl_guid_parse("{12345678-1234-1234-1234-123456789abc}", &fx->record.header.provider_id);
    fx->record.kind = ETL_KIND_EVENT64;
    fx->record.header.descriptor.id = 7;
    fx->record.header.descriptor.level = 4;
    fx->record.header.timestamp = 130350384206129958LL;
    strcpy(fx->task, "Alpha");
    strcpy(fx->prop_name, "First");
    strcpy(fx->value, "42");
    fx->info.source = ETL_SOURCE_EVENTSOURCE;
    fx->info.provider_guid = fx->record.header.provider_id;
    fx->info.descriptor = fx->record.header.descriptor;
    fx->info.task_name = fx->task;
    fx->info.property_count = 1;
    fx->info.top_level_count = 1;
    fx->info.properties = fx->props;
    fx->info.serial = etl_event_info_next_serial();
    fx->props[0].name = fx->prop_name;
    fx->props[0].in_type = ETL_IN_UINT32;
    fx->fields[0] = (etl_field){ETL_FIELD_VALUE, fx->prop_name, fx->value, ETL_IN_UINT32, 0, 0, -1, &fx->props[0]};
    strcpy(fx->provider, "{12345678-1234-1234-1234-123456789abc}");
    etl_decoded_event *ev = &fx->event;
    ev->record = &fx->record;
    ev->info = &fx->info;
    ev->source = ETL_SOURCE_EVENTSOURCE;
    ev->provider_name = fx->provider;
    ev->event_name = fx->task;
    ev->task_name = fx->task;
    ev->fields = fx->fields;
    ev->field_count = 1;
}

/* -lr for the writers of the next runs */
static int best_effort;

/* Changes applied to the fixture between the events of one run. */
typedef void (*mutation)(fixture *fx, int step);

/* One writer over `steps` events, mutating the fixture before each; the whole output (caller frees). */
static char *run(const char *format, fixture *fx, mutation mutate, int steps, int cached)
{
    if (cached)
        unsetenv("ETLCONV_TEXT_CACHE");
    else
        setenv("ETLCONV_TEXT_CACHE", "off", 1);
    make_event(fx);
    mem_sink m = {0};
    etl_sink sink = {mem_sink_write, &m};
    etl_writer_options opt;
    memset(&opt, 0, sizeof opt);
    opt.table_columns = ETL_TABLE_PID | ETL_TABLE_PROVIDER;
    opt.best_effort = best_effort;
    etl_writer *w = etl_writer_new(etl_writer_format_find(format), &sink, &opt);
    assert_non_null(w);
    assert_int_equal(etl_writer_begin(w), 0);
    for (int i = 0; i < steps; i++) {
        mutate(fx, i);
        assert_int_equal(etl_writer_event(w, &fx->event), 0);
    }
    const char *files[] = {"a.etl"};
    etl_run_totals totals = {1, files, 4, 1718, 4, 0, 0, 486, 122.0};
    assert_int_equal(etl_writer_end(w, &totals), 0);
    etl_writer_free(w);
    unsetenv("ETLCONV_TEXT_CACHE");
    return m.data ? m.data : calloc(1, 1);
}

/* Every writer: cached output == uncached output; the `wanted` texts in the XML and JSON outputs (they show
 * provider, event and field names; CSV and the table only some of them). */
static void check(mutation mutate, int steps, const char *const *wanted, size_t wanted_count)
{
    fixture *fx = calloc(1, sizeof *fx);
    assert_non_null(fx);
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        char *cached = run(formats[f], fx, mutate, steps, 1);
        char *fresh = run(formats[f], fx, mutate, steps, 0);
        if (strcmp(cached, fresh) != 0) fprintf(stderr, "%s cached:\n%s\nuncached:\n%s\n", formats[f], cached, fresh);
        assert_string_equal(cached, fresh);
        for (size_t i = 0; i < wanted_count && (f == 0 || f == 3); i++) {
            if (!strstr(cached, wanted[i])) fprintf(stderr, "%s: \"%s\" missing in\n%s\n", formats[f], wanted[i], cached);
            assert_non_null(strstr(cached, wanted[i]));
        }
        free(cached);
        free(fresh);
    }
    free(fx);
}

/* Step 1: the same description object (same address) now describes the event otherwise, as a freed
 * TraceLogging description reused by malloc or an EventSource manifest re-sent with new names would. */
static void renamed_in_place(fixture *fx, int step)
{
    if (step != 1) return;
    strcpy(fx->task, "Beta");
    strcpy(fx->prop_name, "Second");
    fx->info.serial = etl_event_info_next_serial();
}

static void test_new_serial_renders_again(void **state)
{
    (void)state;
    const char *const wanted[] = {"Alpha", "Beta"};
    check(renamed_in_place, 3, wanted, 2);
    fixture *fx = calloc(1, sizeof *fx);
    char *xml = run("xml", fx, renamed_in_place, 2, 1);
    assert_non_null(strstr(xml, "<Data Name=\"First\">42</Data>"));
    assert_non_null(strstr(xml, "<Data Name=\"Second\">42</Data>"));
    assert_non_null(strstr(xml, "<Task>Beta</Task>"));
    free(xml);
    free(fx);
}

/* Step 1: the provider (no name in the schema) gets a name from the registry, same pointer. */
static void provider_named(fixture *fx, int step)
{
    if (step == 1) strcpy(fx->provider, "Contoso-Named-Later");
}

static void test_provider_name_learned_mid_trace(void **state)
{
    (void)state;
    const char *const wanted[] = {"{12345678-1234-1234-1234-123456789abc}", "Contoso-Named-Later"};
    check(provider_named, 3, wanted, 2);
}

/* Same as renamed_in_place without a new serial, on a description that has none: never cached. */
static void renamed_without_serial(fixture *fx, int step)
{
    fx->info.serial = 0;
    if (step == 1) {
        strcpy(fx->task, "Gamma");
        strcpy(fx->prop_name, "Third");
    }
}

static void test_no_serial_never_cached(void **state)
{
    (void)state;
    const char *const wanted[] = {"Alpha", "Gamma", "Third"};
    check(renamed_without_serial, 2, wanted, 3);
}

/* More event kinds than the cache holds, each seen twice: the cache starts over and stays right. */
static void many_kinds(fixture *fx, int step)
{
    fx->record.header.descriptor.id = (uint16_t)(step % 1500);
    fx->record.header.descriptor.task = (uint16_t)(step % 1500);
    fx->info.serial = 1000000000u + (uint64_t)(step % 1500); /* stable per kind, like the registry's copies */
    snprintf(fx->task, sizeof fx->task, "Task%d", step % 1500);
}

static void test_bounded_and_still_right(void **state)
{
    (void)state;
    const char *const wanted[] = {"Task0", "Task1499"};
    check(many_kinds, 3000, wanted, 2);
}

/* Events without a schema: provider name and GUID from the header, cached by the header key. */
static void no_schema(fixture *fx, int step)
{
    fx->event.info = NULL;
    fx->event.task_name = NULL;
    fx->event.field_count = 0;
    fx->event.status = ETL_DECODE_NO_SCHEMA;
    fx->record.header.descriptor.id = (uint16_t)(step % 2);
    if (step == 2) strcpy(fx->provider, "Later-Name");
}

static void test_events_without_schema(void **state)
{
    (void)state;
    const char *const wanted[] = {"Later-Name"};
    check(no_schema, 4, wanted, 1);
}

/* A described event that decoded to no fields and hands over no field array (fields NULL): the writers must not
 * form NULL + 0 (clang's UBSan stops there; found by fuzz_convert in the XML writer's field loop). */
static void no_fields(fixture *fx, int step)
{
    static const uint8_t tail[] = {1, 2, 3};
    (void)step;
    fx->event.field_count = 0;
    fx->event.fields = NULL;
    fx->event.undecoded = tail;  /* with -lr the bytes after the last property are shown: the field loop runs */
    fx->event.undecoded_length = sizeof tail;
}

static void test_event_without_fields(void **state)
{
    (void)state;
    const char *const wanted[] = {"Alpha"};
    best_effort = 1;
    check(no_fields, 2, wanted, 1);
    best_effort = 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_serial_renders_again),
        cmocka_unit_test(test_provider_name_learned_mid_trace),
        cmocka_unit_test(test_no_serial_never_cached),
        cmocka_unit_test(test_bounded_and_still_right),
        cmocka_unit_test(test_events_without_schema),
        cmocka_unit_test(test_event_without_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
