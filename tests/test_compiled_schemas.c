/* Compiled bundled manifests (src/schema/compiled_set.h): the form the build writes must give exactly what
 * the XML parser gives, must never stand in for edited manifest bytes, and a damaged blob must be refused
 * without harm. Oracles: the parser's own set of every bundled manifest, compared field by field by the
 * comparison test_wevt/test_pe use (test_manifest_compare.h) plus the fields it does not look at. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "schema/compiled_set.h"
#include "schema/deferred_files.h"
#include "test_manifest_compare.h"

#define BUNDLED "src/schema/bundled"
#define MAX_MANIFESTS 32

static int is_manifest(const char *name)
{
    size_t n = strlen(name);
    return (n > 4 && (strcmp(name + n - 4, ".man") == 0 || strcmp(name + n - 4, ".xml") == 0)) ||
           (n > 9 && strcmp(name + n - 9, ".manifest") == 0);
}

/* The bundled manifests' file names, sorted. */
static size_t bundled_names(char names[][256])
{
    struct dirent **list;
    int n = scandir(BUNDLED, &list, NULL, alphasort);
    assert_true(n > 0);
    size_t count = 0;
    for (int i = 0; i < n; i++) {
        if (is_manifest(list[i]->d_name) && count < MAX_MANIFESTS)
            snprintf(names[count++], 256, "%s", list[i]->d_name);
        free(list[i]);
    }
    free(list);
    return count;
}

static unsigned char *read_manifest(const char *name, size_t *size)
{
    char path[512];
    snprintf(path, sizeof path, BUNDLED "/%s", name);
    unsigned char *data = read_whole_file(path, size);
    assert_non_null(data);
    return data;
}

static int same_str(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* What compare_sets does not look at: source, event GUID, user data, providers and the unresolved count. */
static int other_differences(const etl_schema_set *a, const etl_schema_set *b)
{
    int d = 0;
    if (a->provider_count != b->provider_count || a->unresolved_strings != b->unresolved_strings) return 1;
    for (size_t i = 0; i < a->provider_count; i++)
        d += !etl_guid_equal(&a->providers[i].guid, &b->providers[i].guid) ||
             !same_str(a->providers[i].name, b->providers[i].name) ||
             !same_str(a->providers[i].message, b->providers[i].message);
    for (size_t i = 0; i < a->event_count && i < b->event_count; i++) {
        const etl_event_info *x = &a->events[i], *y = &b->events[i];
        d += x->source != y->source || !etl_guid_equal(&x->event_guid, &y->event_guid) ||
             !same_str(x->user_data, y->user_data) || x->descriptor.keyword != y->descriptor.keyword;
    }
    return d;
}

static void assert_sets_equal(etl_schema_set *parsed, etl_schema_set *compiled, const char *name)
{
    /* independent of the library's own comparison first, then that one (the build tool's check) */
    etl_schema_set_sort(parsed);
    etl_schema_set_sort(compiled);
    int d = other_differences(parsed, compiled);
    d += compare_sets(parsed, compiled, 0);
    if (d) fail_msg("%s: %d differences between the parsed and the compiled set", name, d);
    assert_true(etl_schema_set_same(parsed, compiled));
}

/* Every bundled manifest: parse, write, read back; and the file the build wrote is found and equal. */
static void test_every_bundled_manifest_round_trips(void **state)
{
    (void)state;
    char names[MAX_MANIFESTS][256];
    size_t count = bundled_names(names), events = 0;
    etl_guid *guids = malloc(ETL_DEFERRED_MAX_GUIDS * sizeof *guids), *back = malloc(ETL_DEFERRED_MAX_GUIDS * sizeof *back);
    assert_true(guids && back);
    assert_true(count >= 7);
    for (size_t m = 0; m < count; m++) {
        size_t size;
        unsigned char *data = read_manifest(names[m], &size);
        etl_schema_set parsed, compiled, built;
        etl_schema_set_init(&parsed);
        etl_schema_set_init(&compiled);
        etl_schema_set_init(&built);
        etl_error err;
        assert_int_equal(etl_manifest_parse(&parsed, (const char *)data, size, names[m], &err), ETL_OK);
        assert_true(parsed.event_count > 0);
        events += parsed.event_count;
        unsigned char *blob;
        size_t blob_size, guid_count = etl_deferred_scan_guids(data, size, guids, ETL_DEFERRED_MAX_GUIDS), got;
        assert_true(guid_count > 0);
        uint64_t hash = etl_compiled_source_hash(data, size);
        assert_int_equal(etl_compiled_set_write(&parsed, guids, guid_count, size, hash, &blob, &blob_size), ETL_OK);
        assert_int_equal(etl_compiled_set_read(&compiled, blob, blob_size, size, hash, names[m], &err), ETL_OK);
        char path[512];
        snprintf(path, sizeof path, BUNDLED "/%s", names[m]);
        /* the build's own compiled file ($(BUILD)/schemas-compiled, beside this test's folder) */
        if (etl_compiled_bundled_load(&built, path, data, size) != ETL_OK)
            fail_msg("%s: no usable compiled form from the build", names[m]);
        assert_sets_equal(&parsed, &built, names[m]);
        /* the GUIDs a deferred load waits for: the scan's, from the build's file and from a fresh blob */
        assert_int_equal(etl_compiled_bundled_guids(path, data, size, back, ETL_DEFERRED_MAX_GUIDS, &got), ETL_OK);
        assert_int_equal(got, guid_count);
        assert_memory_equal(back, guids, guid_count * sizeof *guids);
        assert_int_equal(etl_compiled_set_guids(blob, blob_size, size, hash, back, ETL_DEFERRED_MAX_GUIDS, &got, "b", &err),
                         ETL_OK);
        assert_int_equal(got, guid_count);
        assert_memory_equal(back, guids, guid_count * sizeof *guids);
        assert_int_equal(etl_compiled_set_guids(blob, blob_size, size, hash, back, guid_count - 1, &got, "b", &err), 1);
        assert_sets_equal(&parsed, &compiled, names[m]);
        free(blob);
        free(data);
        etl_schema_set_free(&parsed);
        etl_schema_set_free(&compiled);
        etl_schema_set_free(&built);
    }
    free(guids);
    free(back);
    printf("  %zu bundled manifests, %zu events compared\n", count, events);
}

/* The comparison can fail: one changed property name, map entry or keyword name is seen. */
static void test_comparison_sees_a_difference(void **state)
{
    (void)state;
    size_t size;
    unsigned char *data = read_manifest("ClrEtwAll.man", &size);
    etl_schema_set a, b;
    etl_schema_set_init(&a);
    etl_schema_set_init(&b);
    etl_error err;
    assert_int_equal(etl_manifest_parse(&a, (const char *)data, size, "a", &err), ETL_OK);
    assert_int_equal(etl_manifest_parse(&b, (const char *)data, size, "b", &err), ETL_OK);
    assert_true(etl_schema_set_same(&a, &b));
    size_t i = 0;
    while (i < b.event_count && !b.events[i].user_data) i++;
    assert_true(i < b.event_count);
    b.events[i].user_data = "\x05";
    assert_false(etl_schema_set_same(&a, &b));
    assert_true(other_differences(&a, &b) > 0);
    free(data);
    etl_schema_set_free(&a);
    etl_schema_set_free(&b);
}

/* A compiled form is for the exact bytes it came from: another size, or the same size with one byte changed,
 * is stale (1), and a bundled folder holding an edited manifest decodes what the edit says. */
static void test_stale_compiled_form_is_not_used(void **state)
{
    (void)state;
    size_t size;
    unsigned char *data = read_manifest("ClrEtwAll.man", &size);
    etl_schema_set set;
    etl_schema_set_init(&set);
    assert_int_equal(etl_compiled_bundled_load(&set, BUNDLED "/ClrEtwAll.man", data, size), ETL_OK);
    etl_schema_set_free(&set);
    etl_schema_set_init(&set);
    /* same length: only the content key tells them apart */
    const char *from = "name=\"Microsoft-Windows-DotNETRuntime\"", *to = "name=\"Microsoft-Windows-DotNETRuntimX\"";
    char *at = strstr((char *)data, from);
    assert_non_null(at);
    memcpy(at, to, strlen(to));
    assert_int_equal(etl_compiled_bundled_load(&set, BUNDLED "/ClrEtwAll.man", data, size), 1);
    assert_int_equal(set.event_count, 0);
    assert_int_equal(etl_compiled_bundled_load(&set, BUNDLED "/ClrEtwAll.man", data, size - 1), 1);

    /* the whole path: a bundled folder with the edited ClrEtwAll.man (same name, so the build's compiled
     * file is looked up for it) names the provider as edited */
    char dir[] = "/tmp/etl_compiled_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[600];
    snprintf(path, sizeof path, "%s/ClrEtwAll.man", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
    etl_schema_registry *reg = etl_schema_registry_new();
    etl_error err;
    assert_int_equal(etl_schema_load_directory(reg, dir, ETL_SOURCE_BUNDLED, &err), ETL_OK);
    etl_guid runtime;
    assert_int_equal(etl_guid_parse("{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}", &runtime), 0);
    const char *name = etl_schema_registry_provider_name(reg, &runtime);
    assert_non_null(name);
    assert_string_equal(name, "Microsoft-Windows-DotNETRuntimX");
    etl_schema_registry_free(reg);
    unlink(path);
    rmdir(dir);
    free(data);
}

static uint32_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

/* Rewrites the body hash, so that a mutation reaches the structural checks instead of the checksum. */
static void reseal(unsigned char *blob, size_t size)
{
    uint64_t h = etl_compiled_source_hash(blob + 80, size - 80);
    for (int i = 0; i < 8; i++) blob[32 + i] = (unsigned char)(h >> (8 * i));
}

/* A blob that reads must also register and be found (what the deferred load does with it). */
static void use_if_read(etl_schema_set *set)
{
    etl_schema_registry *reg = etl_schema_registry_new();
    etl_error err;
    assert_int_equal(etl_schema_set_register(set, reg, ETL_SOURCE_BUNDLED, &err), ETL_OK);
    if (set->event_count)
        assert_non_null(etl_schema_registry_find(reg, ETL_KEY_MANIFEST, &set->events[0].provider_guid,
                                                 set->events[0].descriptor.id, set->events[0].descriptor.version));
    etl_schema_registry_free(reg);
}

/* Every truncation, and thousands of random mutations (sealed or not), are refused or read safely. */
static void test_damaged_blobs_are_refused(void **state)
{
    (void)state;
    const char *manifests[] = {"CSV.man", "ClrEtwRuntimeAdditions.man"};
    unsigned long refused = 0, stale = 0, read_ok = 0, truncations = 0;
    for (size_t m = 0; m < 2; m++) {
        size_t size, blob_size;
        unsigned char *data = read_manifest(manifests[m], &size), *blob;
        etl_schema_set set;
        etl_schema_set_init(&set);
        etl_error err;
        assert_int_equal(etl_manifest_parse(&set, (const char *)data, size, manifests[m], &err), ETL_OK);
        uint64_t hash = etl_compiled_source_hash(data, size);
        assert_int_equal(etl_compiled_set_write(&set, NULL, 0, size, hash, &blob, &blob_size), ETL_OK);
        etl_schema_set_free(&set);
        /* every truncation: refused, never read */
        for (size_t n = 0; n < blob_size; n++) {
            unsigned char *cut = malloc(n ? n : 1);   /* exact size: ASan sees any read past it */
            memcpy(cut, blob, n);
            etl_schema_set_init(&set);
            int rc = etl_compiled_set_read(&set, cut, n, size, hash, "cut", &err);
            if (rc == ETL_OK) fail_msg("%s truncated to %zu bytes was read", manifests[m], n);
            assert_int_equal(set.event_count, 0);
            etl_schema_set_free(&set);
            free(cut);
            truncations++;
        }
        uint64_t seed = 0x9E3779B97F4A7C15ULL + m;
        unsigned char *copy = malloc(blob_size);
        for (int round = 0; round < 3000; round++) {
            memcpy(copy, blob, blob_size);
            int changes = 1 + (int)(next_random(&seed) % 8), sealed = round % 4 != 0;
            for (int c = 0; c < changes; c++) {
                size_t at = next_random(&seed) % blob_size;
                /* half the mutations aim at the record sections (counts, offsets, references) */
                if (round % 2 && blob_size > 4096) at = 80 + next_random(&seed) % 4096;
                copy[at] ^= (unsigned char)(1 + next_random(&seed) % 255);
            }
            if (sealed) reseal(copy, blob_size);
            etl_schema_set_init(&set);
            int rc = etl_compiled_set_read(&set, copy, blob_size, size, hash, "mutant", &err);
            if (rc == ETL_OK) {
                /* an unsealed mutation of the body never gets past the checksum */
                if (!sealed && memcmp(copy, blob, 80) == 0) fail_msg("unsealed mutation %d read", round);
                use_if_read(&set);
                read_ok++;
            } else if (rc == 1) {
                stale++;
            } else {
                assert_int_equal(rc, ETL_ERR_FORMAT);
                assert_int_equal(set.event_count, 0);
                assert_true(strstr(err.message, "mutant: offset 0x") == err.message);
                refused++;
            }
            etl_schema_set_free(&set);
        }
        free(copy);
        free(blob);
        free(data);
    }
    printf("  %lu truncations refused; 6000 mutations: %lu refused, %lu stale, %lu read\n", truncations, refused,
           stale, read_ok);
    assert_true(refused > 3000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_bundled_manifest_round_trips),
        cmocka_unit_test(test_comparison_sees_a_difference),
        cmocka_unit_test(test_stale_compiled_form_is_not_used),
        cmocka_unit_test(test_damaged_blobs_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
