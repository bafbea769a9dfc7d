/* Schema sources through the registry: folder walk, PE binaries, the bundled manifest, $ETLCONV_SCHEMA_PATH,
 * precedence between user-supplied and bundled schemas, and -export through the registry. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "schema/pe_resources.h"
#include "test_manifest_compare.h"
#include "util/le.h"

/* .NET runtime provider and its Runtime/Start event (ClrEtwAll.man: value 187 version 0) */
#define CLR_GUID "{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}"

static const etl_event_info *find(const etl_schema_registry *r, const char *guid, uint16_t id, uint8_t v)
{
    etl_guid g;
    assert_int_equal(etl_guid_parse(guid, &g), 0);
    return etl_schema_registry_find(r, ETL_KEY_MANIFEST, &g, id, v);
}

static void test_directory_walk(void **state)
{
    (void)state;
    etl_schema_registry *r = etl_schema_registry_new();
    etl_error err;
    int rc = etl_schema_load_directory(r, "testdata/schemas/real-man", ETL_SOURCE_USER_MANIFEST, &err);
    if (rc != ETL_OK) fail_msg("%s", err.message);
    /* Kernel-Process ProcessStart v1 from SystemEvents.man; HttpService from HTTP_Server.man */
    const etl_event_info *e = find(r, "{22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716}", 1, 1);
    assert_non_null(e);
    assert_int_equal(e->source, ETL_SOURCE_USER_MANIFEST);
    assert_string_equal(e->provider_name, "Microsoft-Windows-Kernel-Process");
    etl_guid http;
    assert_int_equal(etl_guid_parse("{dd5ef90a-6398-47a4-ad34-4dcecdef795f}", &http), 0);
    assert_string_equal(etl_schema_registry_provider_name(r, &http), "Microsoft-Windows-HttpService");
    etl_schema_registry_free(r);

    /* binaries: the synthetic DLLs load as compiled manifests */
    r = etl_schema_registry_new();
    rc = etl_schema_load_directory(r, "testdata/schemas/pe-wevt/synthetic-from-mc-testcases", ETL_SOURCE_USER_MANIFEST,
                                   &err);
    if (rc != ETL_OK) fail_msg("%s", err.message);
    etl_guid wpf;
    assert_int_equal(etl_guid_parse("{E13B77A8-14B6-11DE-8069-001B212B5009}", &wpf), 0);
    assert_string_equal(etl_schema_registry_provider_name(r, &wpf), "Microsoft-Windows-WPF");
    etl_schema_registry_free(r);

    /* a missing folder, a file that is not a manifest */
    r = etl_schema_registry_new();
    assert_int_not_equal(etl_schema_load_directory(r, "testdata/schemas/no-such-folder", ETL_SOURCE_USER_MANIFEST,
                                                   &err), ETL_OK);
    assert_int_not_equal(etl_schema_load_path(r, "testdata/schemas/wevt-mc-testcases/LICENSE.txt",
                                              ETL_SOURCE_USER_MANIFEST, &err, NULL), ETL_OK);
    assert_non_null(strstr(err.message, "LICENSE.txt"));
    etl_schema_registry_free(r);
}

static void write_bytes(const char *dir, const char *name, const void *data, size_t len)
{
    char path[1024];
    assert_true(snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path));
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* A folder as users have them: a UTF-16 manifest, unrelated XML, a .dll that is no PE, a broken manifest.
 * The good manifest loads, the unrelated files are skipped silently, the broken one is reported by name. */
static void test_directory_mixed(void **state)
{
    (void)state;
    char dir[] = "/tmp/etl_schema_dir_XXXXXX";
    assert_non_null(mkdtemp(dir));
    static const char man[] =
        "<?xml version=\"1.0\" encoding=\"UTF-16\"?>"
        "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\"><instrumentation><events>"
        "<provider name=\"Utf16-Provider\" guid=\"{11111111-2222-3333-4444-555555555555}\">"
        "<events><event value=\"9\" message=\"from UTF-16\"/></events>"
        "</provider></events></instrumentation></instrumentationManifest>";
    size_t n = sizeof(man) - 1;
    unsigned char *u16 = malloc(2 * n + 2);
    u16[0] = 0xFF;
    u16[1] = 0xFE;
    for (size_t i = 0; i < n; i++) { u16[2 + 2 * i] = (unsigned char)man[i]; u16[3 + 2 * i] = 0; }
    write_bytes(dir, "utf16.man", u16, 2 * n + 2);
    free(u16);
    static const char other[] = "<?xml version=\"1.0\"?><configuration><appSettings/></configuration>";
    write_bytes(dir, "app.config.xml", other, sizeof(other) - 1);
    write_bytes(dir, "notape.dll", "just text", 9);
    static const char broken[] = "<instrumentationManifest><instrumentation><events><provider";
    write_bytes(dir, "zbroken.man", broken, sizeof(broken) - 1);

    etl_schema_registry *r = etl_schema_registry_new();
    etl_error err;
    assert_int_equal(etl_schema_load_directory(r, dir, ETL_SOURCE_USER_MANIFEST, &err), ETL_ERR_SCHEMA);
    assert_non_null(strstr(err.message, "zbroken.man"));
    assert_null(strstr(err.message, "more failures"));   /* the other files were not failures */
    const etl_event_info *e = find(r, "{11111111-2222-3333-4444-555555555555}", 9, 0);
    assert_non_null(e);
    assert_string_equal(e->message, "from UTF-16");
    etl_schema_registry_free(r);
    const char *names[] = {"utf16.man", "app.config.xml", "notape.dll", "zbroken.man"};
    for (size_t i = 0; i < 4; i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* A copy of System32 with its language folder: the binary has WEVT_TEMPLATE but no message table, the
 * strings are in en-US/<name>.mui; the walk loads the binary, uses the .mui and does not load the .mui as a
 * binary of its own. */
static void test_directory_mui(void **state)
{
    (void)state;
    size_t len;
    unsigned char *b = read_whole_file("testdata/schemas/pe-wevt/synthetic-from-mc-testcases/TaskOpcodes.dll", &len);
    assert_non_null(b);
    char dir[] = "/tmp/etl_system32_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char lang[600];
    snprintf(lang, sizeof(lang), "%s/en-US", dir);
    assert_int_equal(mkdir(lang, 0700), 0);
    write_bytes(lang, "prov.dll.mui", b, len);
    etl_pe_image pe;
    etl_error err;
    assert_int_equal(etl_pe_open(&pe, b, len, "TaskOpcodes.dll", &err), ETL_OK);
    size_t root = pe.rsrc_offset, n = (size_t)b[root + 12] + b[root + 14];
    for (size_t i = 0; i < n; i++)
        if (b[root + 16 + 8 * i] == ETL_RT_MESSAGETABLE && b[root + 17 + 8 * i] == 0) b[root + 16 + 8 * i] = 99;
    write_bytes(dir, "prov.dll", b, len);

    etl_schema_registry *r = etl_schema_registry_new();
    assert_int_equal(etl_schema_load_directory(r, dir, ETL_SOURCE_USER_MANIFEST, &err), ETL_OK);
    /* TaskOpcodes.man event 1: level win:Error, task Task1 ($(string.task.1.1) = "Task.1.1") */
    const etl_event_info *e = find(r, "{00000000-0000-0000-0000-000000000001}", 1, 0);
    assert_non_null(e);
    assert_int_equal(e->source, ETL_SOURCE_USER_WEVT);
    assert_string_equal(e->level_name, "Error");
    assert_string_equal(e->task_name, "Task.1.1");
    etl_schema_registry_free(r);

    /* a copied Windows folder keeps Windows' case: "PROV.DLL" with "de-DE/prov.dll.mui" */
    char from[700], to[700];
    snprintf(from, sizeof(from), "%s/prov.dll", dir);
    snprintf(to, sizeof(to), "%s/PROV.DLL", dir);
    assert_int_equal(rename(from, to), 0);
    char de[600];
    snprintf(de, sizeof(de), "%s/de-DE", dir);
    assert_int_equal(rename(lang, de), 0);
    r = etl_schema_registry_new();
    assert_int_equal(etl_schema_load_directory(r, dir, ETL_SOURCE_USER_MANIFEST, &err), ETL_OK);
    e = find(r, "{00000000-0000-0000-0000-000000000001}", 1, 0);
    assert_non_null(e);
    assert_non_null(e->task_name);
    assert_string_equal(e->task_name, "Task.1.1");
    etl_schema_registry_free(r);

    char path[700];
    snprintf(path, sizeof(path), "%s/prov.dll.mui", de);
    unlink(path);
    unlink(to);
    rmdir(de);
    rmdir(dir);
    free(b);
}

/* Offset of the UTF-16LE form of `ascii` inside b[from, to), or 0. */
static size_t find_utf16(const unsigned char *b, size_t from, size_t to, const char *ascii)
{
    size_t n = strlen(ascii);
    for (size_t i = from; i + 2 * n <= to; i++) {
        size_t k = 0;
        while (k < n && b[i + 2 * k] == (unsigned char)ascii[k] && b[i + 2 * k + 1] == 0) k++;
        if (k == n) return i;
    }
    return 0;
}

static void remove_files(const char *dir, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char path[1600];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        unlink(path);
    }
}

/* A copy of a Windows folder: manifests also live in control panel applets (powercfg.cpl) and printer
 * drivers (winspool.drv) — libyal/winevt-kb lists both as provider message files — and the files skipped
 * without an error (a binary without WEVT_TEMPLATE, a .dll that is no PE) are counted. */
static void test_windows_folder_extensions_and_counts(void **state)
{
    (void)state;
    size_t len, large_len;
    unsigned char *b = read_whole_file("testdata/schemas/pe-wevt/synthetic-from-mc-testcases/TaskOpcodes.dll", &len);
    unsigned char *large = read_whole_file("testdata/schemas/pe-wevt/synthetic-from-mc-testcases/Large.dll",
                                           &large_len);
    assert_non_null(b);
    assert_non_null(large);
    char dir[] = "/tmp/etl_windows_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_bytes(dir, "POWERCFG.CPL", b, len);
    write_bytes(dir, "winspool.drv", large, large_len);
    write_bytes(dir, "fake.dll", "just text", 9);
    size_t name = find_utf16(b, 0, len, "WEVT_TEMPLATE");
    assert_true(name != 0);
    b[name] = 'X';                              /* the type is now "XEVT_TEMPLATE": no manifest */
    write_bytes(dir, "nomanifest.exe", b, len);

    etl_schema_registry *r = etl_schema_registry_new();
    etl_error err;
    etl_schema_load_stats stats;
    assert_int_equal(etl_schema_load_path_stats(r, dir, ETL_SOURCE_USER_MANIFEST, &err, &stats), ETL_OK);
    assert_int_equal(stats.loaded, 2);
    assert_int_equal(stats.without_manifest, 1);
    assert_int_equal(stats.not_pe, 1);
    assert_int_equal(stats.failed, 0);
    assert_non_null(find(r, "{00000000-0000-0000-0000-000000000001}", 1, 0));
    etl_guid g;
    assert_int_equal(etl_guid_parse("{716EFEF7-5AC2-4EE0-8277-D9226411A155}", &g), 0);
    assert_string_equal(etl_schema_registry_provider_name(r, &g), "ProviderName1.716EFEF75AC24EE08277D9226411A155");
    etl_schema_registry_free(r);
    static const char *const names[] = {"POWERCFG.CPL", "winspool.drv", "fake.dll", "nomanifest.exe"};
    remove_files(dir, names, 4);
    rmdir(dir);
    free(b);
    free(large);
}

/* Which message table wins when a binary has its own and a .mui exists: Windows takes localizable resources
 * from the .mui and falls back to the language-neutral binary, so an en-US .mui comes first (ids it lacks
 * come from the binary), while a .mui of another language only stands behind the binary's own table. */
static void test_mui_precedence(void **state)
{
    (void)state;
    size_t len;
    unsigned char *b = read_whole_file("testdata/schemas/pe-wevt/synthetic-from-mc-testcases/TaskOpcodes.dll", &len);
    assert_non_null(b);
    unsigned char *mui = malloc(len);
    memcpy(mui, b, len);
    etl_pe_image pe;
    etl_error err;
    const uint8_t *table;
    size_t table_len;
    assert_int_equal(etl_pe_open(&pe, mui, len, "mui", &err), ETL_OK);
    assert_int_equal(etl_pe_find_resource(&pe, NULL, ETL_RT_MESSAGETABLE, &table, &table_len, &err), ETL_OK);
    size_t from = (size_t)(table - mui);
    size_t error_text = find_utf16(mui, from, from + table_len, "Error\r\n");
    assert_true(error_text != 0);
    mui[error_text] = 'X';                      /* the .mui says "Xrror" for win:Error */

    char dir[] = "/tmp/etl_mui_order_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char lang[600], de[600];
    snprintf(lang, sizeof(lang), "%s/en-US", dir);
    snprintf(de, sizeof(de), "%s/de-DE", dir);
    assert_int_equal(mkdir(lang, 0700), 0);
    write_bytes(dir, "prov.dll", b, len);
    write_bytes(lang, "prov.dll.mui", mui, len);
    char path[700];
    snprintf(path, sizeof(path), "%s/prov.dll", dir);

    etl_schema_set set;
    etl_schema_set_init(&set);
    assert_int_equal(etl_pe_schema_parse(&set, path, &err), ETL_OK);
    const etl_event_info *e = NULL;
    for (size_t i = 0; i < set.event_count; i++)
        if (set.events[i].descriptor.id == 1) e = &set.events[i];
    assert_non_null(e);
    assert_string_equal(e->level_name, "Xrror");
    etl_schema_set_free(&set);

    /* the same .mui in de-DE: the binary's own (English) table wins */
    assert_int_equal(rename(lang, de), 0);
    etl_schema_set_init(&set);
    assert_int_equal(etl_pe_schema_parse(&set, path, &err), ETL_OK);
    for (size_t i = 0; i < set.event_count; i++)
        if (set.events[i].descriptor.id == 1) e = &set.events[i];
    assert_string_equal(e->level_name, "Error");
    etl_schema_set_free(&set);
    assert_int_equal(rename(de, lang), 0);

    /* an en-US .mui whose table has no messages: every string comes from the binary's own table */
    memset((unsigned char *)table, 0, 4);       /* block count 0 */
    write_bytes(lang, "prov.dll.mui", mui, len);
    etl_schema_set_init(&set);
    assert_int_equal(etl_pe_schema_parse(&set, path, &err), ETL_OK);
    assert_int_equal(set.unresolved_strings, 0);
    for (size_t i = 0; i < set.event_count; i++)
        if (set.events[i].descriptor.id == 1) e = &set.events[i];
    assert_string_equal(e->level_name, "Error");
    assert_string_equal(e->task_name, "Task.1.1");
    etl_schema_set_free(&set);

    static const char *const mui_name[] = {"prov.dll.mui"};
    remove_files(lang, mui_name, 1);
    static const char *const bin_name[] = {"prov.dll"};
    remove_files(dir, bin_name, 1);
    rmdir(lang);
    rmdir(dir);
    free(mui);
    free(b);
}

static const etl_event_info *event_of(const etl_schema_set *set, uint16_t id)
{
    for (size_t i = 0; i < set->event_count; i++)
        if (set->events[i].descriptor.id == id) return &set->events[i];
    return NULL;
}

/* Since Windows 10 1903 some binaries keep their language-neutral resources, WEVT_TEMPLATE included, in
 * %SystemRoot%\SystemResources\NAME.mun (plaso issue #4259; artemis reads wisp.dll's there), while the strings
 * stay in System32\en-US\NAME.mui. A copy of the Windows folder: System32/prov.dll without WEVT_TEMPLATE,
 * SystemResources/PROV.DLL.MUN with it and no strings, System32/en-US/prov.dll.mui with the strings. */
static void test_systemresources_mun(void **state)
{
    (void)state;
    size_t len;
    unsigned char *b = read_whole_file("testdata/schemas/pe-wevt/synthetic-from-mc-testcases/TaskOpcodes.dll", &len);
    assert_non_null(b);
    char root[] = "/tmp/etl_windows_mun_XXXXXX";
    assert_non_null(mkdtemp(root));
    char sys32[600], lang[700], res[600];
    snprintf(sys32, sizeof(sys32), "%s/System32", root);
    snprintf(lang, sizeof(lang), "%s/en-US", sys32);
    snprintf(res, sizeof(res), "%s/SystemResources", root);
    assert_int_equal(mkdir(sys32, 0700), 0);
    assert_int_equal(mkdir(lang, 0700), 0);
    assert_int_equal(mkdir(res, 0700), 0);
    write_bytes(lang, "prov.dll.mui", b, len);
    unsigned char *mun = malloc(len), *dll = malloc(len);
    memcpy(mun, b, len);
    memcpy(dll, b, len);
    etl_pe_image pe;
    etl_error err;
    assert_int_equal(etl_pe_open(&pe, mun, len, "mun", &err), ETL_OK);
    size_t rsrc = pe.rsrc_offset, entries = (size_t)etl_le16(mun + rsrc + 12) + etl_le16(mun + rsrc + 14);
    for (size_t i = 0; i < entries; i++)       /* the .mun keeps no message table */
        if (etl_le32(mun + rsrc + 16 + 8 * i) == ETL_RT_MESSAGETABLE) mun[rsrc + 16 + 8 * i] = 99;
    write_bytes(res, "PROV.DLL.MUN", mun, len);
    size_t wevt = find_utf16(dll, 0, len, "WEVT_TEMPLATE");
    assert_true(wevt != 0);
    dll[wevt] = 'X';                            /* the binary has no WEVT_TEMPLATE of its own */
    write_bytes(sys32, "prov.dll", dll, len);

    /* the binary named alone finds its manifest in ../SystemResources */
    char path[800];
    snprintf(path, sizeof(path), "%s/prov.dll", sys32);
    etl_schema_set set;
    etl_schema_set_init(&set);
    if (etl_pe_schema_parse(&set, path, &err) != ETL_OK) fail_msg("%s", err.message);
    const etl_event_info *e = event_of(&set, 1);
    assert_non_null(e);
    assert_string_equal(e->level_name, "Error");
    assert_string_equal(e->task_name, "Task.1.1");
    etl_schema_set_free(&set);
    /* the .mun named alone takes its strings from ../System32/en-US/prov.dll.mui */
    snprintf(path, sizeof(path), "%s/PROV.DLL.MUN", res);
    etl_schema_set_init(&set);
    if (etl_pe_schema_parse(&set, path, &err) != ETL_OK) fail_msg("%s", err.message);
    e = event_of(&set, 1);
    assert_non_null(e);
    assert_string_equal(e->task_name, "Task.1.1");
    assert_int_equal(set.unresolved_strings, 0);
    etl_schema_set_free(&set);
    /* and the whole copy walked: both load, nothing is skipped */
    etl_schema_registry *r = etl_schema_registry_new();
    etl_schema_load_stats stats;
    assert_int_equal(etl_schema_load_path_stats(r, root, ETL_SOURCE_USER_MANIFEST, &err, &stats), ETL_OK);
    assert_int_equal(stats.loaded, 2);
    assert_int_equal(stats.without_manifest, 0);
    e = find(r, "{00000000-0000-0000-0000-000000000001}", 1, 0);
    assert_non_null(e);
    assert_string_equal(e->task_name, "Task.1.1");
    etl_schema_registry_free(r);

    static const char *const in_lang[] = {"prov.dll.mui"}, *const in_sys32[] = {"prov.dll"},
                             *const in_res[] = {"PROV.DLL.MUN"};
    remove_files(lang, in_lang, 1);
    remove_files(sys32, in_sys32, 1);
    remove_files(res, in_res, 1);
    rmdir(lang);
    rmdir(sys32);
    rmdir(res);
    rmdir(root);
    free(dll);
    free(mun);
    free(b);
}

static void test_pe_file(void **state)
{
    (void)state;
    etl_schema_registry *r = etl_schema_registry_new();
    etl_error err;
    assert_int_equal(etl_schema_load_pe_file(r, "testdata/schemas/pe-wevt/synthetic-from-mc-testcases/wpf-etw.dll", &err),
                     ETL_OK);
    etl_guid wpf;
    assert_int_equal(etl_guid_parse("{E13B77A8-14B6-11DE-8069-001B212B5009}", &wpf), 0);
    int found = 0;
    for (uint16_t id = 0; id < 2000 && !found; id++) {
        const etl_event_info *e = etl_schema_registry_find(r, ETL_KEY_MANIFEST, &wpf, id, 0);
        if (e) { found = 1; assert_int_equal(e->source, ETL_SOURCE_USER_WEVT); }
    }
    assert_true(found);
    /* a PE without WEVT_TEMPLATE is an error when named explicitly */
    assert_int_not_equal(etl_schema_load_pe_file(r, "testdata/schemas/pe-wevt/evtx_wevt_template_minimal_pe.bin", &err),
                         ETL_OK);
    etl_schema_registry_free(r);
}

static const char user_clr[] =
    "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\"><instrumentation><events>"
    "<provider name=\"Microsoft-Windows-DotNETRuntime\" guid=\"" CLR_GUID "\">"
    "<events><event value=\"187\" version=\"0\" message=\"user supplied\"/></events>"
    "</provider></events></instrumentation></instrumentationManifest>";

/* docs/schemas.md "Precedence": user-supplied beats bundled whatever the loading order. */
static void test_bundled_and_precedence(void **state)
{
    (void)state;
    etl_error err;
    unsetenv("ETLCONV_SCHEMA_PATH");
    etl_schema_registry *r = etl_schema_registry_new();
    assert_int_equal(etl_schema_load_bundled(r, &err), ETL_OK);
    const etl_event_info *e = find(r, CLR_GUID, 187, 0);
    assert_non_null(e);
    assert_int_equal(e->source, ETL_SOURCE_BUNDLED);
    assert_string_equal(e->task_name, "Runtime");
    assert_int_equal(etl_schema_load_manifest_memory(r, user_clr, sizeof(user_clr) - 1, "user.man",
                                                     ETL_SOURCE_USER_MANIFEST, &err), ETL_OK);
    e = find(r, CLR_GUID, 187, 0);
    assert_int_equal(e->source, ETL_SOURCE_USER_MANIFEST);
    assert_string_equal(e->message, "user supplied");
    etl_schema_registry_free(r);

    r = etl_schema_registry_new();
    assert_int_equal(etl_schema_load_manifest_memory(r, user_clr, sizeof(user_clr) - 1, "user.man",
                                                     ETL_SOURCE_USER_MANIFEST, &err), ETL_OK);
    assert_int_equal(etl_schema_load_bundled(r, &err), ETL_OK);
    e = find(r, CLR_GUID, 187, 0);
    assert_string_equal(e->message, "user supplied");
    /* other CLR events still come from the bundled manifest (GC/Start is value 1) */
    e = find(r, CLR_GUID, 1, 0);
    assert_non_null(e);
    assert_int_equal(e->source, ETL_SOURCE_BUNDLED);
    etl_schema_registry_free(r);

    /* $ETLCONV_SCHEMA_PATH entries are user-supplied */
    char dir[] = "/tmp/etl_schema_path_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/clr.man", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(user_clr, f);
    fclose(f);
    char env[600];
    snprintf(env, sizeof(env), "/nonexistent-etlconv:%s", dir);
    setenv("ETLCONV_SCHEMA_PATH", env, 1);
    r = etl_schema_registry_new();
    assert_int_not_equal(etl_schema_load_bundled(r, &err), ETL_OK);   /* the missing entry is reported */
    assert_non_null(strstr(err.message, "nonexistent-etlconv"));
    e = find(r, CLR_GUID, 187, 0);
    assert_non_null(e);
    assert_int_equal(e->source, ETL_SOURCE_USER_MANIFEST);
    etl_schema_registry_free(r);
    unsetenv("ETLCONV_SCHEMA_PATH");
    unlink(path);
    rmdir(dir);
}

typedef struct collected { const etl_event_info *v[2048]; size_t n; } collected;
static int collect(const etl_event_info *info, etl_schema_key_kind key, void *ctx)
{
    collected *c = ctx;
    if (key == ETL_KEY_MANIFEST && c->n < 2048) c->v[c->n++] = info;
    return 0;
}

/* -export through the registry, then -import into a fresh registry: every description is found again with the
 * same content. */
static void test_export_import_registry(void **state)
{
    (void)state;
    etl_error err;
    etl_schema_registry *a = etl_schema_registry_new();
    assert_int_equal(etl_schema_load_manifest_file(a, "testdata/schemas/real-man/perfview/ClrEtwAll.man",
                                                   ETL_SOURCE_BUNDLED, &err), ETL_OK);
    assert_int_equal(etl_schema_load_pe_file(a, "testdata/schemas/pe-wevt/synthetic-from-mc-testcases/Large.dll", &err),
                     ETL_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_int_equal(etl_schema_export_manifest(a, NULL, 0, out, &err), ETL_OK);
    fclose(out);
    etl_schema_registry *b = etl_schema_registry_new();
    assert_int_equal(etl_schema_load_manifest_memory(b, text, len, "exported.man", ETL_SOURCE_USER_MANIFEST, &err),
                     ETL_OK);
    collected *ca = calloc(1, sizeof(*ca));
    etl_schema_registry_visit(a, collect, ca);
    assert_true(ca->n > 384);
    for (size_t i = 0; i < ca->n; i++) {
        const etl_event_info *x = ca->v[i];
        const etl_event_info *y = etl_schema_registry_find(b, ETL_KEY_MANIFEST, &x->provider_guid, x->descriptor.id,
                                                           x->descriptor.version);
        assert_non_null(y);
        assert_int_equal(y->descriptor.version, x->descriptor.version);
        assert_int_equal(compare_event(x, y, 0), 0);
    }
    /* one provider only */
    etl_guid clr;
    assert_int_equal(etl_guid_parse(CLR_GUID, &clr), 0);
    free(text);
    text = NULL;
    out = open_memstream(&text, &len);
    assert_int_equal(etl_schema_export_manifest(a, &clr, 1, out, &err), ETL_OK);
    fclose(out);
    assert_non_null(strstr(text, "Microsoft-Windows-DotNETRuntime\""));
    assert_null(strstr(text, "Microsoft-Windows-DotNETRuntimeRundown"));
    free(text);
    free(ca);
    etl_schema_registry_free(a);
    etl_schema_registry_free(b);
}

/* Found by fuzzing (tests/fuzz/fuzz_schema.c): an empty registry exports a valid, empty manifest, and names
 * from a binary with characters XML cannot carry (here U+001D patched into a CRIM blob's UTF-16 event name)
 * are exported as U+FFFD instead of making the whole manifest unreadable. */
static void test_export_edge_cases(void **state)
{
    (void)state;
    etl_error err;
    char *text = NULL;
    size_t len = 0;
    etl_schema_registry *empty = etl_schema_registry_new();
    FILE *out = open_memstream(&text, &len);
    assert_int_equal(etl_schema_export_manifest(empty, NULL, 0, out, &err), ETL_OK);
    fclose(out);
    etl_schema_registry *back = etl_schema_registry_new();
    assert_int_equal(etl_schema_load_manifest_memory(back, text, len, "empty.man", ETL_SOURCE_USER_MANIFEST, &err),
                     ETL_OK);
    etl_schema_registry_free(back);
    etl_schema_registry_free(empty);
    free(text);

    size_t size = 0;
    unsigned char *crim = read_whole_file("testdata/schemas/wevt-mc-testcases/EventAttributes.wevt.v5.bin", &size);
    assert_non_null(crim);
    static const unsigned char name16[] = {'E', 0, 'v', 0, 'e', 0, 'n', 0, 't', 0, 'N', 0, 'a', 0, 'm', 0, 'e', 0, '4', 0};
    unsigned char *at = NULL;
    for (size_t i = 0; !at && i + sizeof name16 <= size; i++)
        if (memcmp(crim + i, name16, sizeof name16) == 0) at = crim + i;
    assert_non_null(at);
    at[12] = 0x1D; /* the "a" of "EventName4" */
    etl_schema_set set;
    etl_schema_set_init(&set);
    assert_int_equal(etl_wevt_parse(&set, crim, size, NULL, "patched.crim", &err), ETL_OK);
    etl_schema_registry *r = etl_schema_registry_new();
    assert_int_equal(etl_schema_set_register(&set, r, ETL_SOURCE_USER_WEVT, &err), ETL_OK);
    text = NULL;
    out = open_memstream(&text, &len);
    assert_int_equal(etl_schema_export_manifest(r, NULL, 0, out, &err), ETL_OK);
    fclose(out);
    assert_non_null(strstr(text, "EventN\xEF\xBF\xBDme4"));
    back = etl_schema_registry_new();
    assert_int_equal(etl_schema_load_manifest_memory(back, text, len, "exported.man", ETL_SOURCE_USER_MANIFEST, &err),
                     ETL_OK);
    etl_schema_registry_free(back);
    etl_schema_registry_free(r);
    etl_schema_set_free(&set);
    free(text);
    free(crim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_directory_walk),
        cmocka_unit_test(test_directory_mixed),
        cmocka_unit_test(test_directory_mui),
        cmocka_unit_test(test_windows_folder_extensions_and_counts),
        cmocka_unit_test(test_mui_precedence),
        cmocka_unit_test(test_systemresources_mun),
        cmocka_unit_test(test_pe_file),
        cmocka_unit_test(test_bundled_and_precedence),
        cmocka_unit_test(test_export_import_registry),
        cmocka_unit_test(test_export_edge_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
