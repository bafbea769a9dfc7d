/* PE resource reader and compiled manifests inside binaries: the synthetic resource-only DLLs wrap mc.exe's
 * WEVT_TEMPLATE vectors (and message tables); each must give the same model as its source .man. A .mui in a
 * language folder supplies the strings when the binary has none. Hostile PEs: truncated headers, resource
 * directories that loop or point outside the file, huge entry counts. */
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

#define PE_DIR "testdata/schemas/pe-wevt/synthetic-from-mc-testcases/"
#define MC_DIR "testdata/schemas/wevt-mc-testcases/"

static void parse_man(const char *name, etl_schema_set *set)
{
    char path[256];
    snprintf(path, sizeof(path), MC_DIR "%s.man", name);
    etl_error err;
    if (parse_manifest_path(path, set, &err) != ETL_OK) fail_msg("%s", err.message);
}

static void test_synthetic_dlls(void **state)
{
    (void)state;
    static const char *const names[] = {"EventAttributes", "Large", "ProviderTraits", "TaskOpcodes",
                                        "TypeMangling", "wpf-etw"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char path[256];
        snprintf(path, sizeof(path), PE_DIR "%s.dll", names[i]);
        fprintf(stderr, "%s\n", path);
        etl_schema_set man, pe;
        etl_schema_set_init(&man);
        etl_schema_set_init(&pe);
        parse_man(names[i], &man);
        etl_error err;
        int rc = etl_pe_schema_parse(&pe, path, &err);
        if (rc != ETL_OK) fail_msg("%s", err.message);
        assert_int_equal(pe.unresolved_strings, 0);
        assert_int_equal(compare_sets(&man, &pe, 0), 0);
        etl_schema_set_free(&man);
        etl_schema_set_free(&pe);
    }
}

/* omerbenamram/evtx's minimal PE32+: the walker finds a 16-byte WEVT_TEMPLATE (type name → id 1 → language
 * 0x409) whose CRIM header claims 19324 bytes; that must be refused with the offset, not over-read. */
static void test_evtx_minimal_pe(void **state)
{
    (void)state;
    size_t len;
    unsigned char *b = read_whole_file("testdata/schemas/pe-wevt/evtx_wevt_template_minimal_pe.bin", &len);
    assert_non_null(b);
    etl_pe_image pe;
    etl_error err;
    assert_int_equal(etl_pe_open(&pe, b, len, "minimal", &err), ETL_OK);
    const uint8_t *data;
    size_t size;
    assert_int_equal(etl_pe_find_resource(&pe, "WEVT_TEMPLATE", 0, &data, &size, &err), ETL_OK);
    assert_int_equal(size, 16);
    assert_memory_equal(data, "CRIM", 4);
    assert_int_equal(data - b, 0x500);
    assert_int_equal(etl_pe_find_resource(&pe, NULL, ETL_RT_MESSAGETABLE, &data, &size, &err), 1);
    etl_schema_set set;
    etl_schema_set_init(&set);
    assert_int_equal(etl_pe_schema_parse(&set, "testdata/schemas/pe-wevt/evtx_wevt_template_minimal_pe.bin", &err),
                     ETL_ERR_TRUNCATED);
    assert_non_null(strstr(err.message, "offset 0x4"));
    etl_schema_set_free(&set);
    free(b);
}

/* Root resource directory entry of numeric type `type` (file offset), found with the spec's layout. */
static size_t type_entry(const unsigned char *b, size_t len, uint32_t type)
{
    etl_pe_image pe;
    etl_error err;
    assert_int_equal(etl_pe_open(&pe, b, len, "x", &err), ETL_OK);
    size_t root = pe.rsrc_offset;
    size_t n = (size_t)etl_le16(b + root + 12) + etl_le16(b + root + 14);
    for (size_t i = 0; i < n; i++) {
        size_t e = root + 16 + 8 * i;
        if (etl_le32(b + e) == type) return e;
    }
    return 0;
}

static void write_file(const char *path, const unsigned char *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, len, f), len);
    fclose(f);
}

/* A binary without RT_MESSAGETABLE takes its strings from en-US/<name>.mui (Vista+ MUI split). */
static void test_mui_lookup(void **state)
{
    (void)state;
    size_t len;
    unsigned char *b = read_whole_file(PE_DIR "TaskOpcodes.dll", &len);
    assert_non_null(b);
    char dir[] = "/tmp/etl_mui_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[512], lang[512], mui[512];
    snprintf(path, sizeof(path), "%s/prov.dll", dir);
    snprintf(lang, sizeof(lang), "%s/en-US", dir);
    snprintf(mui, sizeof(mui), "%s/en-US/prov.dll.mui", dir);
    assert_int_equal(mkdir(lang, 0700), 0);
    write_file(mui, b, len);                 /* the original (with its message table) plays the .mui */
    size_t e = type_entry(b, len, ETL_RT_MESSAGETABLE);
    assert_true(e != 0);
    b[e] = 0x63;                             /* type 11 → 99: the binary itself has no message table now */
    write_file(path, b, len);

    etl_schema_set man, pe;
    etl_schema_set_init(&man);
    etl_schema_set_init(&pe);
    parse_man("TaskOpcodes", &man);
    etl_error err;
    assert_int_equal(etl_pe_schema_parse(&pe, path, &err), ETL_OK);
    assert_int_equal(compare_sets(&man, &pe, 0), 0);
    etl_schema_set_free(&pe);

    /* without the .mui the names fall back to the manifest names stored in the binary */
    unlink(mui);
    etl_schema_set_init(&pe);
    assert_int_equal(etl_pe_schema_parse(&pe, path, &err), ETL_OK);
    assert_int_equal(pe.event_count, 2);
    assert_null(pe.events[0].message);
    assert_string_equal(pe.events[0].level_name, "win:Error");
    etl_schema_set_free(&pe);
    etl_schema_set_free(&man);
    unlink(path);
    rmdir(lang);
    rmdir(dir);
    free(b);
}

/* File offset of the first level-1 (name) entry under the root entry of named type `type` ("WEVT_TEMPLATE"),
 * walked with the spec's layout (schemas.md §2.10). */
static size_t name_entry_of_named_type(const unsigned char *b, size_t len, const char *type)
{
    etl_pe_image pe;
    etl_error err;
    assert_int_equal(etl_pe_open(&pe, b, len, "x", &err), ETL_OK);
    size_t root = pe.rsrc_offset;
    size_t named = etl_le16(b + root + 12);
    for (size_t i = 0; i < named; i++) {
        size_t e = root + 16 + 8 * i;
        size_t str = root + (etl_le32(b + e) & 0x7FFFFFFFu);
        size_t n = etl_le16(b + str);
        if (n != strlen(type)) continue;
        size_t k = 0;
        while (k < n && b[str + 2 + 2 * k] == (unsigned char)type[k]) k++;
        if (k < n) continue;
        size_t sub = root + (etl_le32(b + e + 4) & 0x7FFFFFFFu);
        return sub + 16;
    }
    return 0;
}

/* Resource-tree variants: mc/rc name the WEVT_TEMPLATE resource 1 and Windows binaries store it under
 * language 0x409 or 0; another name id or language must still be found (the first numeric name, the first
 * language) rather than the manifest being lost. */
static void test_resource_variants(void **state)
{
    (void)state;
    size_t len;
    unsigned char *b = read_whole_file(PE_DIR "TaskOpcodes.dll", &len);
    assert_non_null(b);
    size_t name = name_entry_of_named_type(b, len, "WEVT_TEMPLATE");
    assert_true(name != 0);
    assert_int_equal(etl_le32(b + name), 1);
    etl_pe_image pe;
    etl_error err;
    const uint8_t *data, *expect;
    size_t size, expect_size;
    assert_int_equal(etl_pe_open(&pe, b, len, "variant.dll", &err), ETL_OK);
    assert_int_equal(etl_pe_find_resource(&pe, "WEVT_TEMPLATE", 0, &expect, &expect_size, &err), ETL_OK);
    b[name] = 2;                                   /* name id 1 → 2 */
    assert_int_equal(etl_pe_open(&pe, b, len, "variant.dll", &err), ETL_OK);
    assert_int_equal(etl_pe_find_resource(&pe, "WEVT_TEMPLATE", 0, &data, &size, &err), ETL_OK);
    assert_ptr_equal(data, expect);
    assert_int_equal(size, expect_size);
    /* and its language (the one entry under the name) → 0x407 */
    size_t lang_dir = pe.rsrc_offset + (etl_le32(b + name + 4) & 0x7FFFFFFFu);
    size_t lang = lang_dir + 16;
    b[lang] = 0x07;
    b[lang + 1] = 0x04;
    assert_int_equal(etl_pe_find_resource(&pe, "WEVT_TEMPLATE", 0, &data, &size, &err), ETL_OK);
    assert_ptr_equal(data, expect);
    /* and the type name in lower case ("wevt_template", as a resource compiler that keeps case writes it):
     * FindResource compares names ignoring case */
    etl_pe_image orig;
    assert_int_equal(etl_pe_open(&orig, b, len, "variant.dll", &err), ETL_OK);
    size_t root = orig.rsrc_offset, named = etl_le16(b + root + 12), lowered = 0;
    for (size_t i = 0; i < named; i++) {
        size_t str = root + (etl_le32(b + root + 16 + 8 * i) & 0x7FFFFFFFu);
        if (etl_le16(b + str) == 13 && b[str + 2] == 'W' && b[str + 4] == 'E' && b[str + 6] == 'V')
            for (size_t k = 0; k < 13; k++, lowered++)
                if (b[str + 2 + 2 * k] >= 'A' && b[str + 2 + 2 * k] <= 'Z') b[str + 2 + 2 * k] += 'a' - 'A';
    }
    assert_int_equal(lowered, 13);
    assert_int_equal(etl_pe_find_resource(&pe, "WEVT_TEMPLATE", 0, &data, &size, &err), ETL_OK);
    assert_ptr_equal(data, expect);
    free(b);
}

/* PE layouts seen in real binaries but not in mc's output: resource data reached through another section
 * whose raw bytes overlap .rsrc, a SizeOfOptionalHeader larger than the fields it holds (the section table
 * follows it, wherever that is), and fewer data directories than the resource entry needs (no resources, not
 * an error). TaskOpcodes.dll is PE32 with one section and room for one more section header. */
static void test_pe_layout_variants(void **state)
{
    (void)state;
    size_t len;
    unsigned char *b = read_whole_file(PE_DIR "TaskOpcodes.dll", &len);
    assert_non_null(b);
    etl_pe_image pe;
    etl_error err;
    const uint8_t *expect, *data;
    size_t expect_size, size;
    assert_int_equal(etl_pe_open(&pe, b, len, "layout.dll", &err), ETL_OK);
    assert_int_equal(etl_pe_find_resource(&pe, "WEVT_TEMPLATE", 0, &expect, &expect_size, &err), ETL_OK);
    size_t expect_off = (size_t)(expect - b);
    uint32_t lfanew = etl_le32(b + 0x3C);
    size_t coff = lfanew + 4, opt = coff + 20, optsize = etl_le16(b + coff + 16);
    size_t sections = opt + optsize;
    assert_int_equal(etl_le16(b + coff + 2), 1);
    uint32_t first_raw = etl_le32(b + sections + 20);
    assert_true(sections + 2 * 40 + 8 <= first_raw);      /* room for one more header, shifted by 8 */

    unsigned char *c = malloc(len);
    /* 1. a second section at RVA 0x40000 over the same raw bytes; WEVT_TEMPLATE's data entry points there */
    memcpy(c, b, len);
    memcpy(c + sections + 40, c + sections, 40);
    memcpy(c + sections + 40, ".alias\0\0", 8);
    uint32_t rsrc_va = etl_le32(c + sections + 12);
    c[sections + 40 + 12] = 0; c[sections + 40 + 13] = 0; c[sections + 40 + 14] = 4; c[sections + 40 + 15] = 0;
    c[coff + 2] = 2;
    size_t name = name_entry_of_named_type(b, len, "WEVT_TEMPLATE");
    size_t lang_dir = pe.rsrc_offset + (etl_le32(b + name + 4) & 0x7FFFFFFFu);
    size_t data_entry = pe.rsrc_offset + etl_le32(b + lang_dir + 16 + 4);
    uint32_t rva = etl_le32(b + data_entry) - rsrc_va + 0x40000;
    for (int k = 0; k < 4; k++) c[data_entry + k] = (unsigned char)(rva >> (8 * k));
    assert_int_equal(etl_pe_open(&pe, c, len, "alias.dll", &err), ETL_OK);
    assert_int_equal(etl_pe_find_resource(&pe, "WEVT_TEMPLATE", 0, &data, &size, &err), ETL_OK);
    assert_int_equal((size_t)(data - c), expect_off);
    assert_int_equal(size, expect_size);

    /* 2. SizeOfOptionalHeader 8 bytes larger, the section table 8 bytes later */
    memcpy(c, b, len);
    memmove(c + sections + 8, c + sections, 40);
    memset(c + sections, 0, 8);
    c[coff + 16] = (unsigned char)(optsize + 8);
    assert_int_equal(etl_pe_open(&pe, c, len, "optsize.dll", &err), ETL_OK);
    assert_int_equal(etl_pe_find_resource(&pe, "WEVT_TEMPLATE", 0, &data, &size, &err), ETL_OK);
    assert_int_equal((size_t)(data - c), expect_off);

    /* 3. NumberOfRvaAndSizes 2: the resource directory entry is not there, so there are no resources */
    memcpy(c, b, len);
    c[opt + 92] = 2; c[opt + 93] = 0; c[opt + 94] = 0; c[opt + 95] = 0;
    assert_int_equal(etl_pe_open(&pe, c, len, "fewdirs.dll", &err), ETL_OK);
    assert_int_equal(etl_pe_find_resource(&pe, "WEVT_TEMPLATE", 0, &data, &size, &err), 1);
    free(c);
    free(b);
}

static void put16(unsigned char *p, uint32_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void put32le(unsigned char *p, uint32_t v) { put16(p, v); put16(p + 2, v >> 16); }

/* A minimal PE32 whose only resource is an RT_MESSAGETABLE (name 1) in the given languages, each a one-message
 * table (id 1) whose text is the language's index digit: "0", "1", … Returns the file size. */
static size_t build_message_table_pe(unsigned char *b, size_t cap, const uint32_t *langs, size_t n)
{
    const size_t rsrc = 0x200, va = 0x1000;
    memset(b, 0, cap);
    b[0] = 'M'; b[1] = 'Z';
    put32le(b + 0x3C, 0x40);
    memcpy(b + 0x40, "PE\0\0", 4);
    put16(b + 0x44 + 2, 1);                     /* one section */
    put16(b + 0x44 + 16, 0xE0);                 /* SizeOfOptionalHeader */
    size_t opt = 0x44 + 20;
    put16(b + opt, 0x10B);
    put32le(b + opt + 92, 16);                  /* NumberOfRvaAndSizes */
    size_t sec = opt + 0xE0;
    memcpy(b + sec, ".rsrc", 5);
    /* tree: root (type 11) → name dir (id 1) → language dir (n entries) → data entries → tables */
    unsigned char *r = b + rsrc;
    size_t name_dir = 24, lang_dir = name_dir + 24, entries = lang_dir + 16 + 8 * n, tables = entries + 16 * n;
    put16(r + 14, 1);
    put32le(r + 16, 11);
    put32le(r + 20, 0x80000000u | (uint32_t)name_dir);
    put16(r + name_dir + 14, 1);
    put32le(r + name_dir + 16, 1);
    put32le(r + name_dir + 20, 0x80000000u | (uint32_t)lang_dir);
    put16(r + lang_dir + 14, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        size_t table = tables + 24 * i;
        put32le(r + lang_dir + 16 + 8 * i, langs[i]);
        put32le(r + lang_dir + 20 + 8 * i, (uint32_t)(entries + 16 * i));
        put32le(r + entries + 16 * i, (uint32_t)(va + table));
        put32le(r + entries + 16 * i + 4, 24);
        put32le(r + table, 1);                  /* one block: ids 1..1, entry at 16 */
        put32le(r + table + 4, 1);
        put32le(r + table + 8, 1);
        put32le(r + table + 12, 16);
        put16(r + table + 16, 8);               /* 8-byte ANSI entry */
        r[table + 20] = (unsigned char)('0' + i);
    }
    size_t raw = (tables + 24 * n + 0x1FF) & ~(size_t)0x1FF;
    assert_true(rsrc + raw <= cap);
    put32le(b + opt + 96 + 16, (uint32_t)va);   /* data directory 2: resources */
    put32le(b + opt + 96 + 20, (uint32_t)(tables + 24 * n));
    put32le(b + sec + 8, (uint32_t)raw);
    put32le(b + sec + 12, (uint32_t)va);
    put32le(b + sec + 16, (uint32_t)raw);
    put32le(b + sec + 20, (uint32_t)rsrc);
    return rsrc + raw;
}

/* Which language of a resource is read: en-US, else another English (0x009 "en" in XP-era binaries, 0x809),
 * else neutral, else the first — for a binary whose message tables come in several languages. */
static void test_resource_language_choice(void **state)
{
    (void)state;
    static const struct { uint32_t langs[3]; size_t n; char want; } cases[] = {
        {{0x407, 0x409, 0x40C}, 3, '1'},
        {{0x407, 0x809, 0}, 3, '1'},
        {{0x009, 0x407, 0}, 3, '0'},
        {{0x407, 0, 0x40C}, 3, '1'},
        {{0x407, 0x40C, 0}, 2, '0'},
    };
    unsigned char b[4096];
    etl_arena a;
    etl_arena_init(&a, 1 << 16);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len = build_message_table_pe(b, sizeof(b), cases[i].langs, cases[i].n);
        etl_pe_image pe;
        etl_error err;
        assert_int_equal(etl_pe_open(&pe, b, len, "langs.dll", &err), ETL_OK);
        const uint8_t *data;
        size_t size;
        assert_int_equal(etl_pe_find_resource(&pe, NULL, ETL_RT_MESSAGETABLE, &data, &size, &err), ETL_OK);
        etl_message_table t;
        assert_int_equal(etl_message_table_open(&t, data, size), ETL_OK);
        const char *text = etl_message_table_lookup(&t, 1, &a);
        assert_non_null(text);
        assert_int_equal(text[0], cases[i].want);
    }
    etl_arena_free(&a);
}

static int parse_pe_bytes(const unsigned char *b, size_t len, etl_error *err)
{
    etl_pe_image pe;
    int rc = etl_pe_open(&pe, b, len, "hostile.dll", err);
    if (rc != ETL_OK) return rc;
    const uint8_t *data;
    size_t size;
    rc = etl_pe_find_resource(&pe, "WEVT_TEMPLATE", 0, &data, &size, err);
    if (rc == ETL_OK) assert_true(data >= b && data + size <= b + len);
    const uint8_t *m;
    size_t ml;
    if (etl_pe_find_resource(&pe, NULL, ETL_RT_MESSAGETABLE, &m, &ml, err) == ETL_OK)
        assert_true(m >= b && m + ml <= b + len);
    return rc;
}

static void test_hostile_pe(void **state)
{
    (void)state;
    size_t len;
    unsigned char *b = read_whole_file(PE_DIR "TaskOpcodes.dll", &len);
    assert_non_null(b);
    etl_error err;
    assert_int_equal(parse_pe_bytes(b, len, &err), ETL_OK);
    /* every truncation */
    for (size_t cut = 0; cut < len; cut++) {
        unsigned char *c = malloc(cut ? cut : 1);
        memcpy(c, b, cut);
        (void)parse_pe_bytes(c, cut, &err);
        free(c);
    }
    unsigned char *c = malloc(len);
    /* a type entry whose sub-directory is the root itself: a loop, refused, not walked forever */
    memcpy(c, b, len);
    etl_pe_image pe;
    assert_int_equal(etl_pe_open(&pe, c, len, "hostile.dll", &err), ETL_OK);
    size_t root = pe.rsrc_offset;
    size_t n = (size_t)etl_le16(c + root + 12) + etl_le16(c + root + 14);
    for (size_t i = 0; i < n; i++) {
        unsigned char *t = c + root + 16 + 8 * i + 4;
        t[0] = t[1] = t[2] = 0;
        t[3] = 0x80;                           /* target = directory at offset 0 = root */
    }
    assert_int_not_equal(parse_pe_bytes(c, len, &err), ETL_OK);
    /* huge entry count in the root directory */
    memcpy(c, b, len);
    c[root + 14] = 0xFF;
    c[root + 15] = 0xFF;
    assert_int_equal(parse_pe_bytes(c, len, &err), ETL_ERR_TRUNCATED);
    assert_non_null(strstr(err.message, "hostile.dll"));
    /* e_lfanew beyond the file */
    memcpy(c, b, len);
    c[0x3C] = 0xF0; c[0x3D] = 0xFF; c[0x3E] = 0xFF; c[0x3F] = 0x7F;
    assert_int_equal(parse_pe_bytes(c, len, &err), ETL_ERR_FORMAT);
    /* every byte of the headers and resource tree flipped in turn */
    for (size_t i = 0; i < len && i < 0x600; i++) {
        memcpy(c, b, len);
        c[i] ^= 0xA5;
        (void)parse_pe_bytes(c, len, &err);
    }
    free(c);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_synthetic_dlls),
        cmocka_unit_test(test_evtx_minimal_pe),
        cmocka_unit_test(test_mui_lookup),
        cmocka_unit_test(test_resource_variants),
        cmocka_unit_test(test_pe_layout_variants),
        cmocka_unit_test(test_resource_language_choice),
        cmocka_unit_test(test_hostile_pe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
