/* Schema registry (src/schema/registry.c): keys, deep copies, source precedence, version fallback, provider
 * names, visit. The rules under test are the contract in include/etl/etl_schema.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etl/etl_schema.h"

static const etl_guid provider = {0x0745b9d3, 0xbc9a, 0x4c33, {0x95, 0x3c, 0x77, 0xde, 0x89, 0x33, 0x6b, 0x0d}};
static const etl_guid process_class = {0x3d6fa8d0, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};

static etl_event_info manifest_event(uint16_t id, uint8_t version, etl_schema_source source, const char *name)
{
    etl_event_info info;
    memset(&info, 0, sizeof info);
    info.source = source;
    info.provider_guid = provider;
    info.descriptor.id = id;
    info.descriptor.version = version;
    info.provider_name = "ClientEventSource";
    info.event_name = name;
    return info;
}

static void test_exact_and_deep_copy(void **state)
{
    (void)state;
    etl_schema_registry *r = etl_schema_registry_new();
    /* everything the caller passes lives on its stack / heap and is destroyed after the add */
    char *name = strdup("Request");
    char *prop_name = strdup("id");
    char *map_name = strdup("FlagsMap");
    char *entry_name = strdup("On");
    etl_map_entry *entries = malloc(sizeof *entries);
    entries[0] = (etl_map_entry){1, entry_name};
    etl_map_info *map = malloc(sizeof *map);
    *map = (etl_map_info){map_name, ETL_MAP_VALUEMAP, 1, entries};
    etl_property_info *props = calloc(2, sizeof *props);
    props[0] = (etl_property_info){prop_name, 0, ETL_IN_GUID, ETL_OUT_GUID, 0, 0, 1, 0, NULL};
    props[1] = (etl_property_info){"flags", 0, ETL_IN_UINT32, 0, 0, 0, 1, 0, map};
    const char *kw[] = {"Session0"};
    etl_event_info info = manifest_event(30, 0, ETL_SOURCE_USER_MANIFEST, name);
    info.properties = props;
    info.property_count = 2;
    info.top_level_count = 2;
    info.keyword_names = kw;
    info.keyword_name_count = 1;
    info.message = "Request %1";
    assert_int_equal(etl_schema_registry_add(r, &info, ETL_KEY_MANIFEST), ETL_OK);
    memset(name, 'X', strlen(name));
    memset(prop_name, 'X', strlen(prop_name));
    memset(entry_name, 'X', strlen(entry_name));
    free(name), free(prop_name), free(map_name), free(entry_name), free(entries), free(map), free(props);

    const etl_event_info *found = etl_schema_registry_find(r, ETL_KEY_MANIFEST, &provider, 30, 0);
    assert_non_null(found);
    assert_string_equal(found->event_name, "Request");
    assert_int_equal(found->property_count, 2);
    assert_string_equal(found->properties[0].name, "id");
    assert_string_equal(found->properties[1].map->entries[0].name, "On");
    assert_string_equal(found->properties[1].map->name, "FlagsMap");
    assert_string_equal(found->keyword_names[0], "Session0");
    assert_string_equal(found->message, "Request %1");
    /* other ids, other kinds, other GUIDs do not match */
    assert_null(etl_schema_registry_find(r, ETL_KEY_MANIFEST, &provider, 31, 0));
    assert_null(etl_schema_registry_find(r, ETL_KEY_CLASSIC, &provider, 30, 0));
    assert_null(etl_schema_registry_find(r, ETL_KEY_MANIFEST, &process_class, 30, 0));
    etl_schema_registry_free(r);
}

static void test_precedence(void **state)
{
    (void)state;
    etl_schema_registry *r = etl_schema_registry_new();
    etl_event_info bundled = manifest_event(1, 0, ETL_SOURCE_BUNDLED, "bundled");
    etl_event_info eventsource = manifest_event(1, 0, ETL_SOURCE_EVENTSOURCE, "eventsource");
    etl_event_info user = manifest_event(1, 0, ETL_SOURCE_USER_MANIFEST, "user");
    etl_event_info kernel = manifest_event(1, 0, ETL_SOURCE_KERNEL_MOF, "kernel");
    assert_int_equal(etl_schema_registry_add(r, &bundled, ETL_KEY_MANIFEST), ETL_OK);
    /* an earlier source in the lookup order replaces */
    assert_int_equal(etl_schema_registry_add(r, &eventsource, ETL_KEY_MANIFEST), ETL_OK);
    assert_string_equal(etl_schema_registry_find(r, ETL_KEY_MANIFEST, &provider, 1, 0)->event_name, "eventsource");
    /* a later one does not */
    assert_int_equal(etl_schema_registry_add(r, &kernel, ETL_KEY_MANIFEST), ETL_OK);
    assert_int_equal(etl_schema_registry_add(r, &bundled, ETL_KEY_MANIFEST), ETL_OK);
    assert_string_equal(etl_schema_registry_find(r, ETL_KEY_MANIFEST, &provider, 1, 0)->event_name, "eventsource");
    /* the same source again replaces (an EventSource re-sends its manifest) */
    eventsource.event_name = "eventsource v2";
    assert_int_equal(etl_schema_registry_add(r, &eventsource, ETL_KEY_MANIFEST), ETL_OK);
    assert_string_equal(etl_schema_registry_find(r, ETL_KEY_MANIFEST, &provider, 1, 0)->event_name, "eventsource v2");
    /* re-sent unchanged (EventSource manifests are sent again at every capture state): the stored copy stays */
    const etl_event_info *before = etl_schema_registry_find(r, ETL_KEY_MANIFEST, &provider, 1, 0);
    static const etl_map_entry entries[] = {{1, "One"}};
    static const etl_map_info map = {"M", ETL_MAP_VALUEMAP, 1, entries};
    etl_property_info props[1] = {{"p", 0, ETL_IN_UINT32, 0, 0, 0, 1, 0, &map}};
    eventsource.properties = props;
    eventsource.property_count = eventsource.top_level_count = 1;
    assert_int_equal(etl_schema_registry_add(r, &eventsource, ETL_KEY_MANIFEST), ETL_OK);
    const etl_event_info *with_props = etl_schema_registry_find(r, ETL_KEY_MANIFEST, &provider, 1, 0);
    assert_ptr_not_equal(with_props, before);
    assert_int_equal(etl_schema_registry_add(r, &eventsource, ETL_KEY_MANIFEST), ETL_OK);
    assert_ptr_equal(etl_schema_registry_find(r, ETL_KEY_MANIFEST, &provider, 1, 0), with_props);
    /* any difference, down to a map entry name, is a new description */
    static const etl_map_entry renamed[] = {{1, "Uno"}};
    static const etl_map_info map2 = {"M", ETL_MAP_VALUEMAP, 1, renamed};
    props[0].map = &map2;
    assert_int_equal(etl_schema_registry_add(r, &eventsource, ETL_KEY_MANIFEST), ETL_OK);
    const etl_event_info *renamed_info = etl_schema_registry_find(r, ETL_KEY_MANIFEST, &provider, 1, 0);
    assert_ptr_not_equal(renamed_info, with_props);
    assert_string_equal(renamed_info->properties[0].map->entries[0].name, "Uno");

    assert_int_equal(etl_schema_registry_add(r, &user, ETL_KEY_MANIFEST), ETL_OK);
    const etl_event_info *f = etl_schema_registry_find(r, ETL_KEY_MANIFEST, &provider, 1, 0);
    assert_string_equal(f->event_name, "user");
    assert_int_equal(f->source, ETL_SOURCE_USER_MANIFEST);
    etl_schema_registry_free(r);
}

static void test_version_fallback(void **state)
{
    (void)state;
    etl_schema_registry *r = etl_schema_registry_new();
    /* classic key: (class GUID, opcode, version) */
    const uint8_t versions[] = {2, 4, 5};
    for (size_t i = 0; i < sizeof versions; i++) {
        etl_event_info info;
        memset(&info, 0, sizeof info);
        info.source = ETL_SOURCE_KERNEL_MOF;
        info.event_guid = process_class;
        info.descriptor.opcode = 1;
        info.descriptor.version = versions[i];
        char name[8];
        snprintf(name, sizeof name, "v%u", versions[i]);
        info.opcode_name = name;
        assert_int_equal(etl_schema_registry_add(r, &info, ETL_KEY_CLASSIC), ETL_OK);
    }
    struct { uint8_t asked; const char *got; } cases[] = {
        {4, "v4"}, {3, "v2"}, /* exact, else the highest version below */
        {9, "v5"}, {255, "v5"},
        {1, "v2"}, {0, "v2"}, /* nothing below: the lowest version above */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const etl_event_info *f = etl_schema_registry_find(r, ETL_KEY_CLASSIC, &process_class, 1, cases[i].asked);
        assert_non_null(f);
        assert_string_equal(f->opcode_name, cases[i].got);
    }
    /* another opcode of the same class has no versions at all */
    assert_null(etl_schema_registry_find(r, ETL_KEY_CLASSIC, &process_class, 2, 4));
    etl_schema_registry_free(r);
}

static int count_visit(const etl_event_info *info, etl_schema_key_kind key, void *ctx)
{
    (void)info;
    (void)key;
    return ++*(int *)ctx >= 1000000;
}

static void test_many_and_visit(void **state)
{
    (void)state;
    etl_schema_registry *r = etl_schema_registry_new();
    /* enough entries to make the tables grow several times */
    for (unsigned id = 0; id < 5000; id++) {
        etl_event_info info = manifest_event((uint16_t)id, (uint8_t)(id % 3), ETL_SOURCE_BUNDLED, "e");
        assert_int_equal(etl_schema_registry_add(r, &info, ETL_KEY_MANIFEST), ETL_OK);
    }
    for (unsigned id = 0; id < 5000; id++) {
        const etl_event_info *f = etl_schema_registry_find(r, ETL_KEY_MANIFEST, &provider, (uint16_t)id, (uint8_t)(id % 3));
        assert_non_null(f);
        assert_int_equal(f->descriptor.id, id);
    }
    int n = 0;
    etl_schema_registry_visit(r, count_visit, &n);
    assert_int_equal(n, 5000);
    etl_schema_registry_free(r);
}

static void test_provider_names(void **state)
{
    (void)state;
    etl_schema_registry *r = etl_schema_registry_new();
    assert_null(etl_schema_registry_provider_name(r, &provider));
    assert_int_equal(etl_schema_registry_add_provider(r, &provider, "FromKernel", ETL_SOURCE_KERNEL_MOF), ETL_OK);
    assert_string_equal(etl_schema_registry_provider_name(r, &provider), "FromKernel");
    assert_int_equal(etl_schema_registry_add_provider(r, &provider, "FromUser", ETL_SOURCE_USER_MANIFEST), ETL_OK);
    assert_int_equal(etl_schema_registry_add_provider(r, &provider, "FromBundle", ETL_SOURCE_BUNDLED), ETL_OK);
    assert_string_equal(etl_schema_registry_provider_name(r, &provider), "FromUser");
    /* adding an event names its provider too */
    etl_event_info info;
    memset(&info, 0, sizeof info);
    info.source = ETL_SOURCE_KERNEL_MOF;
    info.event_guid = process_class;
    info.provider_name = "MSNT_SystemTrace";
    assert_int_equal(etl_schema_registry_add(r, &info, ETL_KEY_CLASSIC), ETL_OK);
    assert_string_equal(etl_schema_registry_provider_name(r, &process_class), "MSNT_SystemTrace");
    assert_int_equal(etl_schema_registry_add_provider(r, &provider, NULL, ETL_SOURCE_USER_MANIFEST), ETL_ERR_ARG);
    etl_schema_registry_free(r);
}

static void test_source_names(void **state)
{
    (void)state;
    assert_string_equal(etl_schema_source_name(ETL_SOURCE_TRACELOGGING), "tracelogging");
    assert_string_equal(etl_schema_source_name(ETL_SOURCE_USER_MANIFEST), "manifest");
    assert_string_equal(etl_schema_source_name(ETL_SOURCE_USER_WEVT), "wevt");
    assert_string_equal(etl_schema_source_name(ETL_SOURCE_EVENTSOURCE), "eventsource");
    assert_string_equal(etl_schema_source_name(ETL_SOURCE_EMBEDDED_TDH), "embedded");
    assert_string_equal(etl_schema_source_name(ETL_SOURCE_BUNDLED), "bundled");
    assert_string_equal(etl_schema_source_name(ETL_SOURCE_KERNEL_MOF), "kernel");
    assert_string_equal(etl_schema_source_name(ETL_SOURCE_TMF), "tmf");
    assert_string_equal(etl_schema_source_name(ETL_SOURCE_NONE), "none");
    assert_string_equal(etl_schema_source_name((etl_schema_source)99), "none");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_and_deep_copy), cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_version_fallback),    cmocka_unit_test(test_many_and_visit),
        cmocka_unit_test(test_provider_names),      cmocka_unit_test(test_source_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
