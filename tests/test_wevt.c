/* Compiled manifests (CRIM/WEVT_TEMPLATE + RT_MESSAGETABLE) against their source manifests. The oracle is
 * mc.exe: for every vector in testdata/schemas/wevt-mc-testcases/ the model read from what mc compiled
 * must equal the model read from the .man (events, descriptors, names, keywords, templates, property
 * types/flags/counts/lengths, maps and message strings). Plus hostile CRIM blobs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_manifest_compare.h"
#include "util/le.h"

#define MC_DIR "testdata/schemas/wevt-mc-testcases/"

typedef struct vector {
    const char *name;      /* Foo → Foo.man */
    const char *wevt;      /* compiled blob */
    const char *msg;       /* message table, NULL when mc produced none */
    int skip;              /* fields CRIM v3 cannot carry */
    size_t events;         /* events in the .man: xmllint --xpath "count(//event)" Foo.man, any namespace */
} vector;

static const vector vectors[] = {
    {"Empty", "Empty.wevt.v3.bin", NULL, CMP_SKIP_PROVIDER_NAME | CMP_SKIP_EVENT_NAME, 0},
    {"Empty", "Empty.wevt.v5.bin", NULL, 0, 0},
    {"EventAttributes", "EventAttributes.wevt.v5.bin", "EventAttributes.msg.bin", 0, 7},
    {"ImportChannelFromProvider", "ImportChannelFromProvider.wevt.v3.bin", "ImportChannelFromProvider.msg.bin",
     CMP_SKIP_PROVIDER_NAME | CMP_SKIP_EVENT_NAME, 9},
    {"ImportChannelFromProvider", "ImportChannelFromProvider.wevt.v5.bin", "ImportChannelFromProvider.msg.bin", 0, 9},
    {"ImportChannels", "ImportChannels.wevt.v3.bin", "ImportChannels.msg.bin",
     CMP_SKIP_PROVIDER_NAME | CMP_SKIP_EVENT_NAME, 6},
    {"ImportChannels", "ImportChannels.wevt.v5.bin", "ImportChannels.msg.bin", 0, 6},
    {"Large", "Large.wevt.v5.bin", "Large.msg.bin", 0, 12},
    {"ProviderTraits", "ProviderTraits.wevt.v5.bin", "ProviderTraits.msg.bin", 0, 3},
    {"ReferenceChannels", "ReferenceChannels.wevt.v5.bin", "ReferenceChannels.msg.bin", 0, 9},
    {"TaskOpcodes", "TaskOpcodes.wevt.v3.bin", "TaskOpcodes.msg.bin", CMP_SKIP_PROVIDER_NAME | CMP_SKIP_EVENT_NAME, 2},
    {"TaskOpcodes", "TaskOpcodes.wevt.v5.bin", "TaskOpcodes.msg.bin", 0, 2},
    {"TypeMangling", "TypeMangling.wevt.v5.bin", NULL, 0, 137},
    {"wpf-etw", "wpf-etw.wevt.v3.bin", "wpf-etw.msg.bin", CMP_SKIP_PROVIDER_NAME | CMP_SKIP_EVENT_NAME, 333},
    {"wpf-etw", "wpf-etw.wevt.v3-8.1-compat.bin", "wpf-etw.msg.v3-8.1-compat.bin",
     CMP_SKIP_PROVIDER_NAME | CMP_SKIP_EVENT_NAME, 333},
    {"wpf-etw", "wpf-etw.wevt.v5.bin", "wpf-etw.msg.bin", 0, 333},
};

static void load_man(const char *name, etl_schema_set *set)
{
    char path[256];
    snprintf(path, sizeof(path), MC_DIR "%s.man", name);
    etl_error err;
    if (parse_manifest_path(path, set, &err) != ETL_OK) fail_msg("%s", err.message);
}

static void test_mc_vectors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
        const vector *v = &vectors[i];
        fprintf(stderr, "vector %s / %s\n", v->name, v->wevt);
        etl_schema_set man, wevt;
        etl_schema_set_init(&man);
        etl_schema_set_init(&wevt);
        load_man(v->name, &man);
        assert_int_equal(man.event_count, v->events);
        assert_int_equal(man.unresolved_strings, 0);

        char path[256];
        size_t blob_len, msg_len = 0;
        snprintf(path, sizeof(path), MC_DIR "%s", v->wevt);
        unsigned char *blob = read_whole_file(path, &blob_len);
        assert_non_null(blob);
        unsigned char *msg = NULL;
        etl_message_table table;
        if (v->msg) {
            snprintf(path, sizeof(path), MC_DIR "%s", v->msg);
            msg = read_whole_file(path, &msg_len);
            assert_non_null(msg);
            assert_int_equal(etl_message_table_open(&table, msg, msg_len), ETL_OK);
        }
        etl_error err;
        int rc = etl_wevt_parse(&wevt, blob, blob_len, v->msg ? &table : NULL, v->wevt, &err);
        if (rc != ETL_OK) fail_msg("%s", err.message);
        assert_int_equal(wevt.unresolved_strings, 0);
        assert_int_equal(compare_sets(&man, &wevt, v->skip), 0);
        /* CRIM v3 carries no provider name: the provider's display string stands in */
        if ((v->skip & CMP_SKIP_PROVIDER_NAME) && wevt.event_count) {
            const char *want = man.events[0].provider_message;
            if (want) assert_string_equal(wevt.events[0].provider_name, want);
            else assert_null(wevt.events[0].provider_name);
        }
        etl_schema_set_free(&man);
        etl_schema_set_free(&wevt);
        free(blob);
        free(msg);
    }
}

/* Facts read from mc's output that the XML alone does not state (schemas.md §1.6, §2.3): channel values
 * mc assigns and the channel keyword bits. Checked on the compiled side directly. */
static const etl_event_info *find_event(const etl_schema_set *set, uint16_t id, uint8_t version)
{
    for (size_t i = 0; i < set->event_count; i++)
        if (set->events[i].descriptor.id == id && set->events[i].descriptor.version == version) return &set->events[i];
    return NULL;
}

static void test_large_details(void **state)
{
    (void)state;
    etl_schema_set man;
    etl_schema_set_init(&man);
    load_man("Large", &man);
    /* event 5 v11: channel="P1/ChannelName2" (2nd channel, no value → mc gave it 17, the first free value from
     * 16 since ChannelName3 claims 16), level ns1:LevelName1 = 105, task 103, opcode 239, keywords
     * ns1:KeywordName1|KeywordName2 = 0x0000C00000000000 plus channel bit 62 */
    const etl_event_info *e = find_event(&man, 5, 11);
    assert_non_null(e);
    assert_int_equal(e->descriptor.channel, 17);
    assert_int_equal(e->descriptor.level, 105);
    assert_int_equal(e->descriptor.task, 103);
    assert_int_equal(e->descriptor.opcode, 239);
    assert_true(e->descriptor.keyword == 0x4000C00000000000ull);
    assert_string_equal(e->event_name, "EventName511");
    assert_string_equal(e->provider_name, "ProviderName1.716EFEF75AC24EE08277D9226411A155");
    assert_int_equal(e->keyword_name_count, 2);
    /* event 8: win:Error / win:None / win:Info / win:ResponseTime → winmeta display strings */
    e = find_event(&man, 8, 0);
    assert_non_null(e);
    assert_string_equal(e->level_name, "Error");
    assert_string_equal(e->opcode_name, "Info");
    assert_string_equal(e->task_name, "None");
    assert_int_equal(e->descriptor.level, 2);
    assert_true((e->descriptor.keyword & 0x0001000000000000ull) != 0);
    etl_schema_set_free(&man);
}

/* ---- hostile CRIM blobs ------------------------------------------------------------------------------ */

static int parse_blob(unsigned char *blob, size_t len, etl_error *err)
{
    etl_schema_set set;
    etl_schema_set_init(&set);
    int rc = etl_wevt_parse(&set, blob, len, NULL, "hostile.bin", err);
    etl_schema_set_free(&set);
    return rc;
}

static unsigned char *large_blob(size_t *len)
{
    unsigned char *b = read_whole_file(MC_DIR "Large.wevt.v5.bin", len);
    assert_non_null(b);
    return b;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); p[2] = (unsigned char)(v >> 16); p[3] = (unsigned char)(v >> 24);
}

/* offset of the first element with the given signature named in the first provider's descriptor table */
static uint32_t element(const unsigned char *b, const char *sig)
{
    uint32_t wevt = etl_le32(b + 16 + 16);
    uint32_t n = etl_le32(b + wevt + 12);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t off = etl_le32(b + wevt + 16 + 8 * i + 4);
        if (off && memcmp(b + off, sig, 4) == 0) return off;
    }
    return 0;
}

static void test_hostile_crim(void **state)
{
    (void)state;
    etl_error err;
    size_t len;
    unsigned char *b = large_blob(&len);
    /* every truncation: an error or a partial model, never an over-read (ASan) */
    for (size_t cut = 0; cut < len; cut += (cut < 256 ? 1 : 97)) {
        unsigned char *copy = malloc(cut ? cut : 1);
        memcpy(copy, b, cut);
        (void)parse_blob(copy, cut, &err);
        free(copy);
    }
    /* huge provider count */
    unsigned char *c = malloc(len);
    memcpy(c, b, len);
    put32(c + 12, 0x7FFFFFFF);
    assert_int_not_equal(parse_blob(c, len, &err), ETL_OK);
    assert_non_null(strstr(err.message, "hostile.bin"));
    /* huge EVNT count */
    memcpy(c, b, len);
    uint32_t evnt = element(c, "EVNT");
    assert_true(evnt != 0);
    put32(c + evnt + 8, 0x10000000);
    assert_int_not_equal(parse_blob(c, len, &err), ETL_OK);
    assert_non_null(strstr(err.message, "EVNT"));
    /* huge TEMP property count */
    memcpy(c, b, len);
    uint32_t ttbl = element(c, "TTBL");
    assert_true(ttbl != 0);
    put32(c + ttbl + 12 + 12, 0xFFFFFFF0);
    assert_int_not_equal(parse_blob(c, len, &err), ETL_OK);
    assert_non_null(strstr(err.message, "TEMP"));
    /* map item count beyond its block */
    memcpy(c, b, len);
    uint32_t maps = element(c, "MAPS");
    assert_true(maps != 0);
    uint32_t first_map = etl_le32(c + maps + 12);
    put32(c + first_map + 16, 0x40000000);
    assert_int_not_equal(parse_blob(c, len, &err), ETL_OK);
    /* CRIM size larger than the resource */
    memcpy(c, b, len);
    put32(c + 4, (uint32_t)len + 1000);
    assert_int_equal(parse_blob(c, len, &err), ETL_ERR_TRUNCATED);
    /* bytes flipped everywhere (deterministic): no crash */
    for (size_t i = 0; i < len; i += 7) {
        memcpy(c, b, len);
        c[i] ^= 0xFF;
        (void)parse_blob(c, len, &err);
    }
    free(c);
    free(b);
}

/* Hostile blobs whose pieces are shared to multiply the work: a minimal CRIM with one EVNT list of `events`
 * entries, pointed at by `providers` provider entries (one WEVT block); with `temp_props`, every event has its
 * own 40-byte TEMP header and all of them share one array of that many property entries (the first a UInt32,
 * the others arrays counted by it). */
static unsigned char *shared_blob(uint32_t providers, uint32_t events, uint32_t temp_props, size_t *len)
{
    uint32_t wevt = 16 + 20 * providers, evnt = wevt + 16 + 8, evnt_size = 16 + 48 * events;
    uint32_t temps = evnt + evnt_size, props = temps + (temp_props ? 40 * events : 0);
    uint32_t total = props + 20 * temp_props;
    unsigned char *b = calloc(1, total);
    assert_non_null(b);
    memcpy(b, "CRIM", 4);
    put32(b + 4, total);
    b[8] = 3, b[10] = 1;
    put32(b + 12, providers);
    for (uint32_t k = 0; k < providers; k++) {
        put32(b + 16 + 20 * k, k + 1);   /* distinct GUIDs */
        put32(b + 16 + 20 * k + 16, wevt);
    }
    memcpy(b + wevt, "WEVT", 4);
    put32(b + wevt + 4, total - wevt);
    put32(b + wevt + 8, 0xFFFFFFFF);
    put32(b + wevt + 12, 1);
    put32(b + wevt + 16, 4);   /* element kind EVNT */
    put32(b + wevt + 20, evnt);
    memcpy(b + evnt, "EVNT", 4);
    put32(b + evnt + 4, evnt_size);
    put32(b + evnt + 8, events);
    for (uint32_t i = 0; i < events; i++) {
        unsigned char *e = b + evnt + 16 + 48 * i;
        e[0] = (unsigned char)i, e[1] = (unsigned char)(i >> 8), e[4] = 4;
        put32(e + 16, 0xFFFFFFFF);
        if (!temp_props) continue;
        uint32_t t = temps + 40 * i;
        put32(e + 20, t);
        memcpy(b + t, "TEMP", 4);
        put32(b + t + 4, 40);
        put32(b + t + 8, temp_props);   /* all top-level */
        put32(b + t + 12, temp_props);
        put32(b + t + 16, props);
    }
    for (uint32_t i = 0; i < temp_props; i++) {
        unsigned char *p = b + props + 20 * i;
        p[4] = 8, p[5] = 8;             /* UInt32 */
        if (i) put32(p, 0x10);          /* count from property 0 */
    }
    *len = total;
    return b;
}

/* Found in review: shared pieces multiplied CPU (one 451 KB blob: 82 s) or memory (a 500 KB blob: 1.5 GB).
 * Each shared piece is now read once and the rest refused, so the cost stays proportional to the blob. */
static void test_shared_pieces_do_not_multiply(void **state)
{
    (void)state;
    size_t len;
    etl_error err;
    etl_schema_set set;
    unsigned char *b = shared_blob(1000, 2000, 0, &len);
    etl_schema_set_init(&set);
    assert_int_not_equal(etl_wevt_parse(&set, b, len, NULL, "shared.bin", &err), ETL_OK);
    assert_non_null(strstr(err.message, "EVNT list already read"));
    assert_int_equal(set.event_count, 2000);   /* the first provider's, once */
    etl_schema_set_free(&set);
    free(b);

    b = shared_blob(1, 300, 4000, &len);
    etl_schema_set_init(&set);
    assert_int_not_equal(etl_wevt_parse(&set, b, len, NULL, "shared.bin", &err), ETL_OK);
    assert_non_null(strstr(err.message, "templates share them"));
    assert_true(set.event_count < 10);
    etl_schema_set_free(&set);
    free(b);
}

/* Variants seen or possible in real binaries, built from mc's output: the parse must give the same model as
 * the unmodified blob. */
static void parse_same_as(const unsigned char *orig, size_t len, unsigned char *variant, const char *what)
{
    etl_schema_set a, b;
    etl_schema_set_init(&a);
    etl_schema_set_init(&b);
    etl_error err;
    assert_int_equal(etl_wevt_parse(&a, orig, len, NULL, "orig", &err), ETL_OK);
    if (etl_wevt_parse(&b, variant, len, NULL, what, &err) != ETL_OK) fail_msg("%s: %s", what, err.message);
    assert_true(a.event_count > 0);
    assert_int_equal(a.event_count, b.event_count);
    assert_int_equal(compare_sets(&a, &b, 0), 0);
    etl_schema_set_free(&a);
    etl_schema_set_free(&b);
}

static void test_real_binary_variants(void **state)
{
    (void)state;
    size_t len;
    unsigned char *b = large_blob(&len);
    unsigned char *c = malloc(len);
    /* CRIM versions other than 3.1/5.1 (the compilers between mc 15063 and 18362 are undocumented): the
     * layout is recognised by signatures, so a 4.2 or 6.0 header loads like 5.1 */
    static const uint16_t versions[][2] = {{4, 2}, {6, 0}, {3, 1}, {5, 7}};
    for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
        memcpy(c, b, len);
        c[8] = (unsigned char)versions[i][0]; c[9] = 0;
        c[10] = (unsigned char)versions[i][1]; c[11] = 0;
        parse_same_as(b, len, c, "version");
    }
    /* descriptors in reverse order (kinds are only hints; real binaries order them freely) */
    memcpy(c, b, len);
    uint32_t wevt = etl_le32(b + 16 + 16);
    uint32_t n = etl_le32(b + wevt + 12);
    for (uint32_t i = 0; i < n; i++) memcpy(c + wevt + 16 + 8 * i, b + wevt + 16 + 8 * (n - 1 - i), 8);
    parse_same_as(b, len, c, "reversed descriptors");
    /* lists whose size field is 0 although they have entries: libfwevt and omerbenamram/evtx read them by
     * their count, bounded by the blob */
    memcpy(c, b, len);
    static const char *const lists[] = {"CHAN", "LEVL", "OPCO", "TASK", "KEYW", "EVNT", "EVTA", "PRVA"};
    for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
        uint32_t at = element(c, lists[i]);
        assert_true(at != 0);
        put32(c + at + 4, 0);
    }
    parse_same_as(b, len, c, "size-0 lists");
    /* a map of an undocumented kind: its properties lose their value names, no event is lost */
    memcpy(c, b, len);
    uint32_t maps = element(c, "MAPS");
    uint32_t first_map = etl_le32(c + maps + 12);
    assert_memory_equal(c + first_map, "VMAP", 4);
    memcpy(c + first_map, "XMAP", 4);
    etl_schema_set orig, variant;
    etl_schema_set_init(&orig);
    etl_schema_set_init(&variant);
    etl_error err;
    assert_int_equal(etl_wevt_parse(&orig, b, len, NULL, "orig", &err), ETL_OK);
    if (etl_wevt_parse(&variant, c, len, NULL, "unknown map", &err) != ETL_OK) fail_msg("%s", err.message);
    assert_int_equal(orig.event_count, variant.event_count);
    size_t mapped = 0, unmapped = 0;
    for (size_t i = 0; i < orig.event_count; i++)
        for (size_t k = 0; k < orig.events[i].property_count; k++)
            if (orig.events[i].properties[k].map) {
                mapped++;
                for (size_t j = 0; j < variant.event_count; j++)
                    if (variant.events[j].descriptor.id == orig.events[i].descriptor.id &&
                        variant.events[j].descriptor.version == orig.events[i].descriptor.version &&
                        !variant.events[j].properties[k].map)
                        unmapped++;
            }
    assert_true(mapped > 0);
    assert_true(unmapped > 0 && unmapped < mapped);   /* the other maps keep their names */
    etl_schema_set_free(&orig);
    etl_schema_set_free(&variant);
    free(c);
    free(b);
    /* unknown element kinds (QTAB = 8, FLTR = 9, or newer) are skipped, not fatal: a CRIM 3.1 blob reserves
     * 11 descriptor slots and zero-fills the unused ones, so two more descriptors fit without moving
     * anything — one of kind 8 pointing at bytes with no known signature (the WEVT block), one of an unknown
     * kind pointing past the blob */
    b = read_whole_file(MC_DIR "wpf-etw.wevt.v3.bin", &len);
    assert_non_null(b);
    c = malloc(len);
    memcpy(c, b, len);
    wevt = etl_le32(b + 16 + 16);
    n = etl_le32(b + wevt + 12);
    assert_true(n + 2 <= 11);
    assert_int_equal(etl_le32(b + wevt + 16 + 8 * n + 4), 0);   /* a free slot */
    put32(c + wevt + 12, n + 2);
    put32(c + wevt + 16 + 8 * n, 8);
    put32(c + wevt + 16 + 8 * n + 4, wevt);
    put32(c + wevt + 16 + 8 * (n + 1), 0x77);
    put32(c + wevt + 16 + 8 * (n + 1) + 4, 0xFFFFFFF0u);
    parse_same_as(b, len, c, "unknown kinds");
    free(c);
    free(b);
}

static void test_message_table(void **state)
{
    (void)state;
    size_t len;
    unsigned char *m = read_whole_file(MC_DIR "TaskOpcodes.msg.bin", &len);
    assert_non_null(m);
    etl_message_table t;
    assert_int_equal(etl_message_table_open(&t, m, len), ETL_OK);
    etl_arena a;
    etl_arena_init(&a, 1 << 20);
    /* winmeta level win:Error is copied into the provider's table as 0x50000002 "Error" (schemas.md §1.7) */
    const char *s = etl_message_table_lookup(&t, 0x50000002u, &a);
    assert_non_null(s);
    assert_string_equal(s, "Error");
    assert_null(etl_message_table_lookup(&t, 0x12345678u, &a));
    /* a hand-built table (layout of schemas.md §2.9): ids 5..6, one ANSI entry (Windows-1252: 0xE9 = é,
     * 0x80 = €) and one UTF-16 entry, each with mc's trailing CR LF */
    static const uint8_t handmade[] = {
        1, 0, 0, 0,                    /* one block */
        5, 0, 0, 0, 6, 0, 0, 0, 16, 0, 0, 0,   /* ids 5..6, entries at 16 */
        12, 0, 0, 0, 'C', 'a', 'f', 0xE9, ' ', 0x80, '\r', '\n',            /* ANSI, 12 bytes */
        12, 0, 1, 0, 'O', 0, 'K', 0, '\r', 0, '\n', 0,                      /* UTF-16 */
    };
    etl_message_table h;
    assert_int_equal(etl_message_table_open(&h, handmade, sizeof(handmade)), ETL_OK);
    assert_string_equal(etl_message_table_lookup(&h, 5, &a), "Caf\xc3\xa9 \xe2\x82\xac");
    assert_string_equal(etl_message_table_lookup(&h, 6, &a), "OK");
    assert_null(etl_message_table_lookup(&h, 7, &a));
    /* flags 2 = MESSAGE_RESOURCE_UTF8 (winnt.h; mc -cp utf-8): UTF-8 text, not Windows-1252 (which would
     * turn "é" into "Ã©"); a malformed byte becomes U+FFFD */
    static const uint8_t utf8_table[] = {
        1, 0, 0, 0,
        9, 0, 0, 0, 9, 0, 0, 0, 16, 0, 0, 0,
        12, 0, 2, 0, 'C', 'a', 'f', 0xC3, 0xA9, 0xFF, '\r', '\n',
    };
    etl_message_table u;
    assert_int_equal(etl_message_table_open(&u, utf8_table, sizeof(utf8_table)), ETL_OK);
    assert_string_equal(etl_message_table_lookup(&u, 9, &a), "Caf\xc3\xa9\xef\xbf\xbd");
    /* a .mui's table with the binary's own behind it: ids missing from the first come from the second */
    u.fallback = &h;
    assert_string_equal(etl_message_table_lookup(&u, 6, &a), "OK");
    assert_string_equal(etl_message_table_lookup(&u, 9, &a), "Caf\xc3\xa9\xef\xbf\xbd");
    assert_null(etl_message_table_lookup(&u, 8, &a));
    /* truncated tables never read past the end */
    for (size_t cut = 0; cut < len; cut++)
        if (etl_message_table_open(&t, m, cut) == ETL_OK) (void)etl_message_table_lookup(&t, 0x50000002u, &a);
    etl_arena_free(&a);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mc_vectors),
        cmocka_unit_test(test_large_details),
        cmocka_unit_test(test_hostile_crim),
        cmocka_unit_test(test_shared_pieces_do_not_multiply),
        cmocka_unit_test(test_message_table),
        cmocka_unit_test(test_real_binary_variants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
