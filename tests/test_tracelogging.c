/* TraceLogging metadata → etl_event_info. Oracles: docs/schemas.md §4.3/§4.4 and docs/etl-format.md §5.1
 * (format rules, hand-made blobs), corpus/EXPECTED.md §5.1 (TraceLoggingTester values), §6 (SIH, waasmedic),
 * §8 (lxcore field types, AMSI names and count). Real-trace checks also walk each payload with the produced
 * description (a small walker here, independent of src/decode) and require it to be consumed exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "schema/sources.h"
#include "selfdesc_perfview.h"
#include "selfdesc_records.h"
#include "util/le.h"

/* ---- a minimal payload walker over a description (sizes only, plus integer capture) ------------------ */

typedef struct walk {
    const uint8_t *p;
    size_t len, off;
    int pointer_size;
    uint64_t values[64];   /* last scalar value of each top-level property (for PARAM_LENGTH) */
} walk;

static long fixed_size(uint16_t in, int ptr)
{
    switch (in) {
    case ETL_IN_INT8: case ETL_IN_UINT8: return 1;
    case ETL_IN_INT16: case ETL_IN_UINT16: return 2;
    case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_FLOAT: case ETL_IN_BOOLEAN: case ETL_IN_HEXINT32: return 4;
    case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_DOUBLE: case ETL_IN_FILETIME: case ETL_IN_HEXINT64: return 8;
    case ETL_IN_GUID: case ETL_IN_SYSTEMTIME: return 16;
    case ETL_IN_POINTER: return ptr;
    default: return -1;
    }
}

static int walk_one(walk *w, const etl_event_info *info, const etl_property_info *prop, int index);

static int walk_value(walk *w, const etl_event_info *info, const etl_property_info *prop)
{
    if (prop->flags & ETL_PROP_STRUCT) {
        for (unsigned m = 0; m < prop->struct_count; m++)
            if (walk_one(w, info, &info->properties[prop->struct_start + m], -1) != 0) return -1;
        return 0;
    }
    size_t avail = w->len - w->off;
    const uint8_t *p = w->p + w->off;
    if (prop->flags & ETL_PROP_INLINE_LENGTH) {
        if (avail < 2 || avail - 2 < etl_le16(p)) return -1;
        w->off += 2 + (size_t)etl_le16(p);
        return 0;
    }
    long size = fixed_size(prop->in_type, w->pointer_size);
    if (size >= 0) {
        if (avail < (size_t)size) return -1;
        w->off += (size_t)size;
        return 0;
    }
    switch (prop->in_type) {
    case ETL_IN_UNICODESTRING:
        for (size_t i = 0; i + 1 < avail; i += 2)
            if (p[i] == 0 && p[i + 1] == 0) {
                w->off += i + 2;
                return 0;
            }
        return -1;
    case ETL_IN_ANSISTRING: {
        const uint8_t *nul = memchr(p, 0, avail);
        if (!nul) return -1;
        w->off += (size_t)(nul - p) + 1;
        return 0;
    }
    case ETL_IN_MANIFEST_COUNTEDSTRING: case ETL_IN_MANIFEST_COUNTEDANSISTRING: case ETL_IN_MANIFEST_COUNTEDBINARY:
        if (avail < 2 || avail - 2 < etl_le16(p)) return -1;
        w->off += 2 + (size_t)etl_le16(p);
        return 0;
    case ETL_IN_BINARY:
        if (prop->flags & ETL_PROP_PARAM_LENGTH) {
            uint64_t n = w->values[prop->length];
            if (avail < n) return -1;
            w->off += (size_t)n;
            return 0;
        }
        return -1;
    default:
        return -1;
    }
}

static int walk_one(walk *w, const etl_event_info *info, const etl_property_info *prop, int index)
{
    size_t count = 1;
    if (prop->flags & ETL_PROP_INLINE_COUNT) {
        if (w->len - w->off < 2) return -1;
        count = etl_le16(w->p + w->off);
        w->off += 2;
    } else if (prop->flags & ETL_PROP_PARAM_FIXED_COUNT) {
        count = prop->count;
    }
    size_t start = w->off;
    for (size_t i = 0; i < count; i++)
        if (walk_value(w, info, prop) != 0) return -1;
    if (index >= 0 && index < 64 && count == 1 && w->off - start <= 8) {
        uint64_t v = 0;
        for (size_t i = 0; i < w->off - start; i++) v |= (uint64_t)w->p[start + i] << (8 * i);
        w->values[index] = v;
    }
    return 0;
}

/* Walks the whole payload; returns the bytes consumed or -1 when the description overruns it. */
static long walk_payload(const etl_event_info *info, const etl_event_record *r, walk *w)
{
    memset(w, 0, sizeof *w);
    w->p = r->user_data;
    w->len = r->user_data_length;
    w->pointer_size = r->pointer_size;
    for (uint32_t i = 0; i < info->top_level_count; i++)
        if (walk_one(w, info, &info->properties[i], (int)i) != 0) return -1;
    return (long)w->off;
}

/* ---- hand-made metadata ------------------------------------------------------------------------------ */

static etl_extended_item g_items[2];

static etl_event_record make_record(const uint8_t *meta, size_t meta_len, const uint8_t *traits, size_t traits_len)
{
    etl_event_record r;
    memset(&r, 0, sizeof r);
    r.header.provider_id.data1 = 0x12345678;
    g_items[0].ext_type = ETL_EXT_EVENT_SCHEMA_TL;
    g_items[0].data = meta;
    g_items[0].data_size = (uint16_t)meta_len;
    g_items[1].ext_type = ETL_EXT_PROV_TRAITS;
    g_items[1].data = traits;
    g_items[1].data_size = (uint16_t)traits_len;
    r.extended_data = g_items;
    r.extended_data_count = traits ? 2 : 1;
    r.pointer_size = 8;
    r.kind = ETL_KIND_EVENT64;
    return r;
}

/* Builds a blob from `body` (everything after the u16 size) into `out`. */
static size_t blob(uint8_t *out, const void *body, size_t body_len)
{
    out[0] = (uint8_t)(body_len + 2);
    out[1] = (uint8_t)((body_len + 2) >> 8);
    memcpy(out + 2, body, body_len);
    return body_len + 2;
}

static const etl_property_info *prop_named(const etl_event_info *info, const char *name)
{
    for (uint32_t i = 0; i < info->property_count; i++)
        if (strcmp(info->properties[i].name, name) == 0) return &info->properties[i];
    return NULL;
}

static void test_layout_structs_arrays_binary(void **state)
{
    (void)state;
    /* Top level: a UINT32; s STRUCT{x UINT8, t STRUCT{y UINT16}}; z BINARY; q INT32[vcount]; r UINT8[3];
     * u STRUCT{v UNICODESTRING}. Event tags 0x81 0x02 (two tag bytes), field tags on a. */
    static const uint8_t body[] =
        "\x81\x02" "Ev\0"
        "a\0" "\x88\x80\x05"        /* UINT32, chained out 0 with tag byte 0x05 */
        "s\0" "\x98\x02"            /* STRUCT, 2 members */
        "x\0" "\x04"
        "t\0" "\x98\x01"
        "y\0" "\x06"
        "z\0" "\x0e"                /* BINARY */
        "q\0" "\x47"                /* INT32 vcount */
        "r\0" "\x24\x03\x00"        /* UINT8 ccount 3 */
        "u\0" "\x98\x01"
        "v\0" "\x01";
    uint8_t meta[128];
    size_t n = blob(meta, body, sizeof body - 1);
    etl_event_record r = make_record(meta, n, NULL, 0);
    etl_tracelogging_cache *cache = etl_tracelogging_cache_new();
    const char *err = NULL;
    const etl_event_info *info = etl_tracelogging_lookup(cache, &r, &err);
    assert_non_null(info);
    assert_null(err);
    assert_string_equal(info->event_name, "Ev");
    assert_null(info->provider_name);
    assert_int_equal(info->source, ETL_SOURCE_TRACELOGGING);
    /* a, s, z.Length, z, q, r, u | x, t, v | y */
    static const char *const order[] = {"a", "s", "z.Length", "z", "q", "r", "u", "x", "t", "v", "y"};
    assert_int_equal(info->top_level_count, 7);
    assert_int_equal(info->property_count, 11);
    for (int i = 0; i < 11; i++) assert_string_equal(info->properties[i].name, order[i]);
    const etl_property_info *p = info->properties;
    assert_int_equal(p[0].in_type, ETL_IN_UINT32);
    assert_true(p[0].flags & ETL_PROP_HAS_TAGS);
    assert_true(p[1].flags & ETL_PROP_STRUCT);
    assert_int_equal(p[1].struct_start, 7);
    assert_int_equal(p[1].struct_count, 2);
    assert_int_equal(p[2].in_type, ETL_IN_UINT16);
    assert_int_equal(p[3].in_type, ETL_IN_BINARY);
    assert_true(p[3].flags & ETL_PROP_PARAM_LENGTH);
    assert_int_equal(p[3].length, 2);
    assert_int_equal(p[4].flags, ETL_PROP_INLINE_COUNT);
    assert_int_equal(p[4].in_type, ETL_IN_INT32);
    assert_int_equal(p[5].flags, ETL_PROP_PARAM_FIXED_COUNT);
    assert_int_equal(p[5].count, 3);
    assert_int_equal(p[6].struct_start, 9);
    assert_int_equal(p[6].struct_count, 1);
    assert_int_equal(p[8].struct_start, 10);
    assert_int_equal(p[8].struct_count, 1);
    assert_int_equal(p[10].in_type, ETL_IN_UINT16);
    assert_int_equal(p[9].in_type, ETL_IN_UNICODESTRING);

    /* Same bytes → same cached description; another provider GUID → another entry. */
    assert_ptr_equal(etl_tracelogging_lookup(cache, &r, &err), info);
    r.header.provider_id.data1 = 1;
    const etl_event_info *other = etl_tracelogging_lookup(cache, &r, &err);
    assert_non_null(other);
    assert_ptr_not_equal(other, info);
    etl_tracelogging_cache_free(cache);
}

static void test_out_type_translation(void **state)
{
    (void)state;
    static const uint8_t body[] =
        "\0" "E\0"
        "h8\0" "\x84\x04"     /* UINT8 HEX → HEXINT8 */
        "h16\0" "\x86\x04"    /* UINT16 HEX → HEXINT16 */
        "h32\0" "\x88\x04"
        "h64\0" "\x8a\x04"
        "hb\0" "\x99\x04"     /* COUNTEDBINARY HEX → HEXBINARY */
        "np\0" "\x88\x01"     /* NOPRINT */
        "ch\0" "\x83\x02"     /* INT8 STRING */
        "bo\0" "\x84\x03"     /* BOOLEAN */
        "pid\0" "\x88\x05" "tid\0" "\x88\x06" "port\0" "\x86\x07" "ip4\0" "\x88\x08"
        "ip6\0" "\x8e\x09"    /* BINARY IPV6 (scalar → synthetic length) */
        "sa\0" "\x8e\x0a" "xml\0" "\x82\x0b" "json\0" "\x82\x0c"
        "w32\0" "\x88\x0d" "nt\0" "\x88\x0e" "hr\0" "\x87\x0f"
        "ft\0" "\x8a\x10"     /* UINT64 FILETIME → DATETIME */
        "sg\0" "\x86\x11"     /* UINT16 SIGNED → SHORT */
        "us\0" "\x83\x12"     /* INT8 UNSIGNED → UNSIGNEDBYTE */
        "u8\0" "\x82\x23"     /* ANSISTRING UTF8 (35) */
        "cp\0" "\x8a\x25"     /* CODE_POINTER 37 */
        "un\0" "\x88\x13";    /* 19: undefined → default */
    static const struct { const char *name; uint16_t out; } want[] = {
        {"h8", ETL_OUT_HEXINT8}, {"h16", ETL_OUT_HEXINT16}, {"h32", ETL_OUT_HEXINT32}, {"h64", ETL_OUT_HEXINT64},
        {"hb", ETL_OUT_HEXBINARY}, {"np", ETL_OUT_NOPRINT}, {"ch", ETL_OUT_STRING}, {"bo", ETL_OUT_BOOLEAN},
        {"pid", ETL_OUT_PID}, {"tid", ETL_OUT_TID}, {"port", ETL_OUT_PORT}, {"ip4", ETL_OUT_IPV4},
        {"ip6", ETL_OUT_IPV6}, {"sa", ETL_OUT_SOCKETADDRESS}, {"xml", ETL_OUT_XML}, {"json", ETL_OUT_JSON},
        {"w32", ETL_OUT_WIN32ERROR}, {"nt", ETL_OUT_NTSTATUS}, {"hr", ETL_OUT_HRESULT},
        {"ft", ETL_OUT_DATETIME}, {"sg", ETL_OUT_SHORT}, {"us", ETL_OUT_UNSIGNEDBYTE}, {"u8", ETL_OUT_UTF8},
        {"cp", ETL_OUT_CODE_POINTER}, {"un", ETL_OUT_NULL}};
    uint8_t meta[512];
    size_t n = blob(meta, body, sizeof body - 1);
    etl_event_record r = make_record(meta, n, NULL, 0);
    etl_tracelogging_cache *cache = etl_tracelogging_cache_new();
    const char *err = NULL;
    const etl_event_info *info = etl_tracelogging_lookup(cache, &r, &err);
    assert_non_null(info);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const etl_property_info *p = prop_named(info, want[i].name);
        assert_non_null(p);
        if (p->out_type != want[i].out) fail_msg("%s: out-type %u, expected %u", want[i].name, p->out_type, want[i].out);
    }
    assert_int_equal(prop_named(info, "hb")->in_type, ETL_IN_MANIFEST_COUNTEDBINARY);
    assert_non_null(prop_named(info, "ip6.Length"));
    etl_tracelogging_cache_free(cache);
}

static void test_custom_field_and_traits(void **state)
{
    (void)state;
    /* cs: arity 0x60 with a 3-byte schema; then k UINT8. Traits: name "Prov\xff" (invalid UTF-8 byte) +
     * one group trait. */
    static const uint8_t body[] = "\0" "E\0" "cs\0" "\x6e\x03\x00" "abc" "k\0" "\x04";
    static const uint8_t traits[] = "\x1a\x00" "Prov\xff\0" "\x13\x00\x01" "0123456789abcdef";
    uint8_t meta[64];
    size_t n = blob(meta, body, sizeof body - 1);
    etl_event_record r = make_record(meta, n, traits, sizeof traits - 1);
    etl_tracelogging_cache *cache = etl_tracelogging_cache_new();
    const char *err = NULL;
    const etl_event_info *info = etl_tracelogging_lookup(cache, &r, &err);
    assert_non_null(info);
    assert_string_equal(info->provider_name, "Prov\xEF\xBF\xBD");
    assert_int_equal(info->property_count, 2);
    assert_int_equal(info->properties[0].in_type, ETL_IN_BINARY);
    assert_true(info->properties[0].flags & ETL_PROP_INLINE_LENGTH);
    assert_string_equal(info->properties[1].name, "k");
    etl_tracelogging_cache_free(cache);
}

static void test_hostile_metadata(void **state)
{
    (void)state;
    static const struct { const char *what; const char *body; size_t len; } bad[] = {
        {"unterminated event name", "\0Ev", 3},
        {"unterminated tags", "\x80\x80", 2},
        {"unterminated field name", "\0E\0fld", 6},
        {"field without in-type", "\0E\0f\0", 5},
        {"unknown in-type 31", "\0E\0f\0\x1f", 6},
        {"missing out-type", "\0E\0f\0\x88", 6},
        {"struct with 0 members", "\0E\0s\0\x98\x00", 7},
        {"struct without out byte", "\0E\0s\0\x18", 6},
        {"struct larger than field list", "\0E\0s\0\x98\x03" "a\0\x04", 10},
        {"truncated fixed count", "\0E\0f\0\x24\x01", 7},
        {"custom schema past end", "\0E\0f\0\x64\x09\x00" "ab", 10},
        {"custom struct", "\0E\0s\0\xf8\x01\x00\x00" "a\0\x04", 12},
    };
    etl_tracelogging_cache *cache = etl_tracelogging_cache_new();
    uint8_t meta[64];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t n = blob(meta, bad[i].body, bad[i].len);
        etl_event_record r = make_record(meta, n, NULL, 0);
        const char *err = NULL;
        if (etl_tracelogging_lookup(cache, &r, &err) != NULL || err == NULL) fail_msg("accepted: %s", bad[i].what);
    }
    /* Size field larger than the item, and smaller than the minimum. */
    size_t n = blob(meta, "\0E\0", 3);
    etl_event_record r = make_record(meta, n - 1, NULL, 0);
    const char *err = NULL;
    assert_null(etl_tracelogging_lookup(cache, &r, &err));
    assert_non_null(err);

    /* Structs nested 40 deep: rejected (depth cap), no stack overflow. */
    uint8_t deep[256];
    size_t o = 0;
    deep[o++] = 0; deep[o++] = 'E'; deep[o++] = 0;
    for (int d = 0; d < 40; d++) { deep[o++] = 's'; deep[o++] = 0; deep[o++] = 0x98; deep[o++] = 1; }
    deep[o++] = 'v'; deep[o++] = 0; deep[o++] = 4;
    uint8_t meta2[300];
    n = blob(meta2, deep, o);
    r = make_record(meta2, n, NULL, 0);
    err = NULL;
    assert_null(etl_tracelogging_lookup(cache, &r, &err));
    assert_non_null(err);

    /* No metadata item at all: NULL without error. */
    r.extended_data_count = 0;
    err = "x";
    assert_null(etl_tracelogging_lookup(cache, &r, &err));
    assert_null(err);
    etl_tracelogging_cache_free(cache);
}

/* Mutated blobs: whatever is accepted must have every index inside the property array. */
static void test_fuzzed_metadata_stays_consistent(void **state)
{
    (void)state;
    static const uint8_t body[] = "\x81\x02" "Ev\0" "a\0" "\x88\x80\x05" "s\0" "\x98\x02" "x\0" "\x04"
                                  "t\0" "\x98\x01" "y\0" "\x06" "z\0" "\x0e" "q\0" "\x47" "r\0" "\x24\x03\x00";
    uint8_t meta[64];
    size_t n = blob(meta, body, sizeof body - 1);
    etl_tracelogging_cache *cache = etl_tracelogging_cache_new();
    uint32_t seed = 12345;
    long accepted = 0;
    for (int iter = 0; iter < 20000; iter++) {
        uint8_t m[64];
        memcpy(m, meta, n);
        for (int k = 0; k < 3; k++) {
            seed = seed * 1103515245u + 12345u;
            m[2 + (seed >> 8) % (n - 2)] = (uint8_t)(seed >> 20);
        }
        etl_event_record r = make_record(m, n, NULL, 0);
        const char *err = NULL;
        const etl_event_info *info = etl_tracelogging_lookup(cache, &r, &err);
        if (!info) {
            assert_non_null(err);
            continue;
        }
        accepted++;
        assert_true(info->top_level_count <= info->property_count);
        for (uint32_t i = 0; i < info->property_count; i++) {
            const etl_property_info *p = &info->properties[i];
            assert_non_null(p->name);
            if (p->flags & ETL_PROP_STRUCT) {
                assert_true(p->struct_start > i);
                assert_true((uint32_t)p->struct_start + p->struct_count <= info->property_count);
            }
            if (p->flags & ETL_PROP_PARAM_LENGTH) assert_true(p->length < i);
        }
    }
    assert_true(accepted > 0);
    etl_tracelogging_cache_free(cache);
}

/* More distinct shapes than the cache keeps: every lookup still answers correctly (the cache flushes). */
static void test_cache_bound(void **state)
{
    (void)state;
    etl_tracelogging_cache *cache = etl_tracelogging_cache_new();
    for (unsigned i = 0; i < 70000; i++) {
        char body[32];
        int n = snprintf(body, sizeof body, "%cE%u%cf%c%c", 0, i, 0, 0, 4);
        uint8_t meta[40];
        size_t len = blob(meta, body, (size_t)n);
        etl_event_record r = make_record(meta, len, NULL, 0);
        const char *err = NULL;
        const etl_event_info *info = etl_tracelogging_lookup(cache, &r, &err);
        assert_non_null(info);
        char want[16];
        snprintf(want, sizeof want, "E%u", i);
        assert_string_equal(info->event_name, want);
        assert_ptr_equal(etl_tracelogging_lookup(cache, &r, &err), info);
    }
    etl_tracelogging_cache_free(cache);
}

/* ---- real traces ------------------------------------------------------------------------------------- */

typedef struct trace_ctx {
    etl_tracelogging_cache *cache;
    long events, errors, not_consumed;
    char names[80][64];       /* event names in order (first 80) */
    char first_provider[96];
    uint16_t first_types[16]; /* in-types of the first event's top-level properties */
    char first_fields[16][32];
    uint32_t first_count;
    long level3;              /* events at level 3 */
    long tester_checked;      /* TraceLoggingTester: events of its EventSource */
    char first_members[4][32];  /* first event: members of its first property when it is a struct */
    uint16_t first_member_types[4];
    uint32_t first_struct_count;
    uint8_t first_payload[64];
    size_t first_payload_length;
    uint8_t payloads[5][96];    /* first five payloads (truncated to 96 bytes) */
    size_t payload_lengths[5];
} trace_ctx;

static uint64_t le_n(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static int on_tl_record(const etl_event_record *r, void *vctx)
{
    trace_ctx *c = vctx;
    const char *err = NULL;
    const etl_event_info *info = etl_tracelogging_lookup(c->cache, r, &err);
    if (err) c->errors++;
    if (!info) return 0;
    if (c->events < 80) snprintf(c->names[c->events], sizeof c->names[0], "%s", info->event_name);
    if (c->events == 0) {
        if (info->provider_name) snprintf(c->first_provider, sizeof c->first_provider, "%s", info->provider_name);
        for (uint32_t i = 0; i < info->top_level_count && i < 16; i++) {
            c->first_types[i] = info->properties[i].in_type;
            snprintf(c->first_fields[i], sizeof c->first_fields[0], "%s", info->properties[i].name);
        }
        c->first_count = info->top_level_count;
        const etl_property_info *p0 = info->top_level_count ? &info->properties[0] : NULL;
        if (p0 && (p0->flags & ETL_PROP_STRUCT)) {
            c->first_struct_count = p0->struct_count;
            for (uint32_t m = 0; m < p0->struct_count && m < 4; m++) {
                const etl_property_info *mp = &info->properties[p0->struct_start + m];
                snprintf(c->first_members[m], sizeof c->first_members[0], "%s", mp->name);
                c->first_member_types[m] = mp->in_type;
            }
        }
        c->first_payload_length = r->user_data_length;
        memcpy(c->first_payload, r->user_data, r->user_data_length < 64 ? r->user_data_length : 64);
    }
    if (r->header.descriptor.level == 3) c->level3++;
    if (c->events < 5) {
        c->payload_lengths[c->events] = r->user_data_length;
        memcpy(c->payloads[c->events], r->user_data, r->user_data_length < 96 ? r->user_data_length : 96);
    }
    walk w;
    if (walk_payload(info, r, &w) != (long)r->user_data_length) c->not_consumed++;
    if (info->provider_name && strcmp(info->provider_name, "CSharpTraceLoggingEventSource") == 0) c->tester_checked++;
    c->events++;
    return 0;
}

static trace_ctx *run_trace(const char *path)
{
    static trace_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.cache = etl_tracelogging_cache_new();
    long reader_errors = 0;
    long n = sd_for_each_record(path, on_tl_record, &ctx, &reader_errors);
    assert_true(n > 0);
    assert_int_equal(reader_errors, 0);
    etl_tracelogging_cache_free(ctx.cache);
    ctx.cache = NULL;
    return &ctx;
}

static void test_lxcore_breakpoint(void **state)
{
    (void)state;
    /* EXPECTED.md §8: 2 BreakPoint events of Microsoft.Windows.Subsystem.LxCore; field types in order UINT8,
     * GUID, INT32 x3, COUNTEDANSISTRING, ANSISTRING, UINT32, ANSISTRING. */
    static const uint16_t want[] = {ETL_IN_UINT8, ETL_IN_GUID, ETL_IN_INT32, ETL_IN_INT32, ETL_IN_INT32,
                                    ETL_IN_MANIFEST_COUNTEDANSISTRING, ETL_IN_ANSISTRING, ETL_IN_UINT32,
                                    ETL_IN_ANSISTRING};
    trace_ctx *c = run_trace("testdata/airbus-cert/lxcore_kernel.etl.gz");
    assert_int_equal(c->events, 2);
    assert_int_equal(c->errors, 0);
    assert_int_equal(c->not_consumed, 0);
    assert_string_equal(c->names[0], "BreakPoint");
    assert_string_equal(c->names[1], "BreakPoint");
    assert_string_equal(c->first_provider, "Microsoft.Windows.Subsystem.LxCore");
    assert_int_equal(c->first_count, 9);
    for (int i = 0; i < 9; i++) assert_int_equal(c->first_types[i], want[i]);
}

static void test_amsi_script(void **state)
{
    (void)state;
    /* EXPECTED.md §8: 19 AmsiScript events of provider AmsiTrace; etl-format.md §5.1: one field is a
     * variable-count UINT16 array with out-type STRING. */
    trace_ctx *c = run_trace("testdata/airbus-cert/AMSITrace.etl.gz");
    assert_int_equal(c->events, 19);
    assert_int_equal(c->errors, 0);
    assert_int_equal(c->not_consumed, 0);
    for (int i = 0; i < 19; i++) assert_string_equal(c->names[i], "AmsiScript");
    assert_string_equal(c->first_provider, "AmsiTrace");
    int found = 0;
    for (uint32_t i = 0; i < c->first_count; i++)
        if (c->first_types[i] == ETL_IN_UINT16) found = 1;
    assert_true(found);
}

static void test_sih(void **state)
{
    (void)state;
    /* EXPECTED.md §6.2: 10 events SIH of SIHTraceLogging, one string field Info, one at level 3. */
    trace_ctx *c = run_trace("testdata/s4/SIH.20230422.034724.362.1.etl.gz");
    assert_int_equal(c->events, 10);
    assert_int_equal(c->errors, 0);
    assert_int_equal(c->not_consumed, 0);
    assert_string_equal(c->first_provider, "SIHTraceLogging");
    for (int i = 0; i < 10; i++) assert_string_equal(c->names[i], "SIH");
    assert_int_equal(c->first_count, 1);
    assert_string_equal(c->first_fields[0], "Info");
    assert_int_equal(c->first_types[0], ETL_IN_UNICODESTRING);
    assert_int_equal(c->level3, 1);
}

static void test_waasmedic(void **state)
{
    (void)state;
    /* EXPECTED.md §6.1: 17 events of Microsoft.Windows.WaaSMedic.Local, 16 Info + 1 Warning, UTF-16 field m. */
    trace_ctx *c = run_trace("testdata/s4/waasmedic.20251005_113019_195.etl.gz");
    assert_int_equal(c->events, 17);
    assert_int_equal(c->errors, 0);
    assert_int_equal(c->not_consumed, 0);
    assert_string_equal(c->first_provider, "Microsoft.Windows.WaaSMedic.Local");
    int info = 0, warning = 0;
    for (int i = 0; i < 17; i++) {
        if (strcmp(c->names[i], "Info") == 0) info++;
        if (strcmp(c->names[i], "Warning") == 0) warning++;
    }
    assert_int_equal(info, 16);
    assert_int_equal(warning, 1);
    assert_string_equal(c->first_fields[0], "m");
    assert_int_equal(c->first_types[0], ETL_IN_UNICODESTRING);
}

static void test_tracelogging_tester(void **state)
{
    (void)state;
    /* EXPECTED.md §5.1: 70 events of CSharpTraceLoggingEventSource (values: test_rendered_tracelogging_tester). */
    trace_ctx *c = run_trace("testdata/etwanalyzer/TraceLoggingTester.etl.gz");
    assert_int_equal(c->errors, 0);
    assert_int_equal(c->not_consumed, 0);
    assert_int_equal(c->tester_checked, 70);
    static const char *const names[7] = {"MarkString", "MarkStringInteger",
                                         "MarkBoolByteCharDoubleInt16Int32Int64SByteUInt16UInt32UInt64",
                                         "WriteIntList", "WriteDateTime", "WriteTimeSpan", "WriteGuid"};
    for (int i = 0; i < 70; i++) assert_string_equal(c->names[i], names[i % 7]);
}

static void test_self_describing_single_event(void **state)
{
    (void)state;
    /* EXPECTED.md §4: one event TestEvent of MySource; its first field is a struct with the two string
     * members b = "Hello" and c = "World!". (2 of 3 buffers compressed.) */
    trace_ctx *c = run_trace("testdata/perfview/SelfDescribingSingleEvent.etl.gz");
    assert_int_equal(c->events, 1);
    assert_int_equal(c->errors, 0);
    assert_int_equal(c->not_consumed, 0);
    assert_string_equal(c->first_provider, "MySource");
    assert_string_equal(c->names[0], "TestEvent");
    assert_int_equal(c->first_count, 1);
    assert_int_equal(c->first_struct_count, 2);
    assert_string_equal(c->first_members[0], "b");
    assert_string_equal(c->first_members[1], "c");
    assert_int_equal(c->first_member_types[0], ETL_IN_UNICODESTRING);
    assert_int_equal(c->first_member_types[1], ETL_IN_UNICODESTRING);
    static const uint8_t hello_world[] = {'H', 0, 'e', 0, 'l', 0, 'l', 0, 'o', 0, 0, 0,
                                          'W', 0, 'o', 0, 'r', 0, 'l', 0, 'd', 0, '!', 0, 0, 0};
    assert_int_equal(c->first_payload_length, sizeof hello_world);
    assert_memory_equal(c->first_payload, hello_world, sizeof hello_world);
}

static void test_primitive_types(void **state)
{
    (void)state;
    /* perfview/primitive-types.baseline.txt: 5 PrimitiveTypesTest events of solar_system with these fields
     * in this order, these DataLen and these values. The writer declared int64_type as UINT64 in its
     * metadata; PerfView shows it signed, the bytes are the same. */
    static const char *const fields[] = {"string_type", "boolean_type", "char_type", "int16_type", "int32_type",
                                         "uint16_type", "uint32_type", "int64_type", "uint64_type", "guid_type",
                                         "file_time_type", "system_time_type"};
    static const struct { const char *s; int boolean, ch, i16; uint32_t u32; int64_t i64; uint32_t guid1; } want[] = {
        {"Mercury", 0, 77, -51, 102, -204, 0x0ad614c4}, {"Venus", 1, 86, -95, 190, -380, 0xe04ff801},
        {"Earth", 0, 69, -65, 130, -260, 0xc7a6c80e}, {"Mars", 0, 77, -29, 58, -116, 0x0a922cee},
        {"Jupiter", 1, 74, -69, 138, -276, 0xbb11b97b}};
    static const unsigned datalen[] = {78, 76, 76, 75, 78};
    trace_ctx *c = run_trace("testdata/perfview/primitive-types.etl.gz");
    assert_int_equal(c->events, 5);
    assert_int_equal(c->errors, 0);
    assert_int_equal(c->not_consumed, 0);
    assert_string_equal(c->first_provider, "solar_system");
    assert_int_equal(c->first_count, 12);
    for (int i = 0; i < 12; i++) assert_string_equal(c->first_fields[i], fields[i]);
    for (int e = 0; e < 5; e++) {
        const uint8_t *p = c->payloads[e];
        assert_string_equal(c->names[e], "PrimitiveTypesTest");
        assert_int_equal(c->payload_lengths[e], datalen[e]);
        size_t n = strlen(want[e].s);
        assert_memory_equal(p, want[e].s, n + 1);
        p += n + 1;
        assert_int_equal(p[0], want[e].boolean);
        assert_int_equal(p[1], want[e].ch);
        assert_int_equal((int16_t)le_n(p + 2, 2), want[e].i16);
        assert_int_equal(le_n(p + 10, 4), want[e].u32);
        assert_true((int64_t)le_n(p + 14, 8) == want[e].i64);
        assert_int_equal(le_n(p + 30, 4), want[e].guid1);
    }
}

/* Every TraceLogging event of the corpus: metadata accepted and the payload consumed exactly. */
static void test_corpus_payloads_consumed(void **state)
{
    (void)state;
    static const struct { const char *path; long events; } traces[] = {
        {"testdata/hw3d/trace.etl.gz", 1},
        {"testdata/sonde/test.etl.gz", 9},
        {"testdata/s4/WindowsUpdate.20251008.140245.443.8.etl.gz", 80},
        {"testdata/perfview/diaghub.user_paged.1.etl.gz", 256},
    };
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        trace_ctx *c = run_trace(traces[i].path);
        if (c->events != traces[i].events || c->errors || c->not_consumed)
            fail_msg("%s: %ld events (expected %ld), %ld metadata errors, %ld payloads not consumed exactly",
                     traces[i].path, c->events, traces[i].events, c->errors, c->not_consumed);
    }
}

/* ---- rendered values through the decoder --------------------------------------------------------------- */

#define MAX_LINES 80

typedef struct decoded_trace {
    char lines[MAX_LINES][512];   /* "Event: name=value; name{ ... }" of TraceLogging events, in order */
    long count;
    long errors;
} decoded_trace;

static void on_decode(const etl_decoded_event *ev, void *vctx)
{
    decoded_trace *d = vctx;
    if (ev->source != ETL_SOURCE_TRACELOGGING) return;
    if (ev->status != ETL_DECODE_OK) d->errors++;
    if (d->count >= MAX_LINES) return;
    char *line = d->lines[d->count++];
    size_t cap = sizeof d->lines[0], n = (size_t)snprintf(line, cap, "%s:", ev->event_name);
    for (size_t i = 0; i < ev->field_count && n < cap; i++) {
        const etl_field *f = &ev->fields[i];
        if (f->kind == ETL_FIELD_VALUE) n += (size_t)snprintf(line + n, cap - n, " %s=%s;", f->name, f->value);
        else if (f->kind == ETL_FIELD_STRUCT_BEGIN || f->kind == ETL_FIELD_ARRAY_BEGIN)
            n += (size_t)snprintf(line + n, cap - n, " %s{", f->name);
        else
            n += (size_t)snprintf(line + n, cap - n, " }");
    }
}

static decoded_trace *decode_trace(const char *path)
{
    static decoded_trace d;
    memset(&d, 0, sizeof d);
    assert_int_equal(sd_decode_trace(path, on_decode, &d), 0);
    return &d;
}

static void test_rendered_self_describing_single_event(void **state)
{
    (void)state;
    /* EXPECTED.md §4: struct value { "b":"Hello", "c":"World!" }. */
    decoded_trace *d = decode_trace("testdata/perfview/SelfDescribingSingleEvent.etl.gz");
    assert_int_equal(d->count, 1);
    assert_int_equal(d->errors, 0);
    assert_string_equal(d->lines[0], "TestEvent: a{ b=Hello; c=World!; }");
}

static void test_rendered_tracelogging_tester(void **state)
{
    (void)state;
    /* EXPECTED.md §5.1, iteration i = 0..9. Spelling differences to ETWAnalyzer: booleans print true/false
     * (ETWAnalyzer: True), GUIDs in braces, FILETIME with 9 fraction digits (the value is the same). */
    decoded_trace *d = decode_trace("testdata/etwanalyzer/TraceLoggingTester.etl.gz");
    assert_int_equal(d->count, 70);
    assert_int_equal(d->errors, 0);
    for (int i = 0; i < 10; i++) {
        char want[7][300];
        snprintf(want[0], sizeof want[0], "MarkString: input=Hello, ETW!;");
        snprintf(want[1], sizeof want[1], "MarkStringInteger: input=Hello, ETW with number; number1=42;");
        snprintf(want[2], sizeof want[2],
                 "MarkBoolByteCharDoubleInt16Int32Int64SByteUInt16UInt32UInt64: boolean=true; b=%d; c=A; d=3.14; "
                 "i16=-32768; i32=2147483647; i64=9223372036854775807; sb=-128; u16=65535; u32=4294967295; "
                 "u64=18446744073709551615;", i);
        snprintf(want[3], sizeof want[3], "WriteIntList: numbers{ numbers=%d; numbers=2; numbers=3; numbers=4; }", i);
        snprintf(want[4], sizeof want[4], "WriteDateTime: dateTime=2000-01-01T00:00:00.000000000Z;");
        snprintf(want[5], sizeof want[5], "WriteTimeSpan: timeSpan=420000000;");
        snprintf(want[6], sizeof want[6], "WriteGuid: guid={00000000-0000-0000-0000-000000000001};");
        for (int k = 0; k < 7; k++) assert_string_equal(d->lines[7 * i + k], want[k]);
    }
}

static void test_rendered_sih(void **state)
{
    (void)state;
    /* s4/SIH...expected-excerpt.txt: the Info strings of the 10 SIH events, in order. */
    static const char *const info[] = {
        "wmain",
        "cV = r4azpSFmbE6m+FuC09jWSA.0.1",
        "Retrieving SLS response from server using ETAG \"XAopazV00XDWnJCwkmEWRv6JkbjRA9QSSZ2+e/3MzEk=_1440\"...",
        "DNS Resiliency Feature is switched ON.",
        "report [0] on [fe3cr.delivery.mp.microsoft.com] with Alternate DNS needed[false], fPassDefault[true], "
        "fPassFallback[false]",
        "report [0] on [slscr.update.microsoft.com] with Alternate DNS needed[false], fPassDefault[true], "
        "fPassFallback[false]",
        "Normal start.",
        "Retrieving SLS response from server using ETAG \"MT1EoJH/qrWpWwGRkx7sbsS28A32Rz55YIcdvvtjCGK=_1440\"...",
        "*FAILED* [80245108] DoWithCatchHResult caught",
        "NoOp success.",
    };
    decoded_trace *d = decode_trace("testdata/s4/SIH.20230422.034724.362.1.etl.gz");
    assert_int_equal(d->count, 10);
    assert_int_equal(d->errors, 0);
    for (int i = 0; i < 10; i++) {
        char want[300];
        snprintf(want, sizeof want, "SIH: Info=%s;", info[i]);
        assert_string_equal(d->lines[i], want);
    }
}

/* Where PerfView is not the oracle for primitive-types:
 * - the writer declared char_type as UINT8 with TraceLogging out-type STRING and int64_type as UINT64
 *   (metadata bytes 0x84 0x02 and 0x0A). TDH, and so tracerpt and we, print the character ("M") and the
 *   unsigned value (18446744073709551412); PerfView prints 77 and -204;
 * - system_time_type: PerfView prints ".03" as the seconds fraction of all five values, but the SYSTEMTIME
 *   bytes hold 799, 239, 671, 48 and 484 ms, the same instants as file_time_type of each event (which PerfView
 *   prints as .79, .23, .67, .04, .48). Checked in test_system_time_values instead. */
static int primitive_types_skip(const char *key, const char *field)
{
    (void)key;
    return strcmp(field, "char_type") == 0 || strcmp(field, "int64_type") == 0 ||
           strcmp(field, "system_time_type") == 0;
}

static void test_primitive_types_match_perfview(void **state)
{
    (void)state;
    static const char *const providers[] = {"solar_system/"};
    pv_compare *c = pv_compare_trace("testdata/perfview/primitive-types.etl.gz",
                                     "testdata/perfview/primitive-types.baseline.txt", providers, 1,
                                     primitive_types_skip);
    assert_int_equal(c->line_count, 5);
    assert_int_equal(c->skipped, 15);
}

/* system_time_type equals file_time_type in every primitive-types event (both written from one clock read). */
static void test_system_time_values(void **state)
{
    (void)state;
    decoded_trace *d = decode_trace("testdata/perfview/primitive-types.etl.gz");
    assert_int_equal(d->count, 5);
    for (int i = 0; i < 5; i++) {
        const char *ft = strstr(d->lines[i], "file_time_type="), *st = strstr(d->lines[i], "system_time_type=");
        assert_non_null(ft);
        assert_non_null(st);
        ft += strlen("file_time_type=");
        st += strlen("system_time_type=");
        /* milliseconds resolution: SYSTEMTIME has no finer digits */
        assert_memory_equal(ft, st, strlen("2021-09-09T14:59:35.799"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_structs_arrays_binary),
        cmocka_unit_test(test_out_type_translation),
        cmocka_unit_test(test_custom_field_and_traits),
        cmocka_unit_test(test_hostile_metadata),
        cmocka_unit_test(test_fuzzed_metadata_stays_consistent),
        cmocka_unit_test(test_cache_bound),
        cmocka_unit_test(test_lxcore_breakpoint),
        cmocka_unit_test(test_amsi_script),
        cmocka_unit_test(test_sih),
        cmocka_unit_test(test_waasmedic),
        cmocka_unit_test(test_tracelogging_tester),
        cmocka_unit_test(test_self_describing_single_event),
        cmocka_unit_test(test_primitive_types),
        cmocka_unit_test(test_corpus_payloads_consumed),
        cmocka_unit_test(test_rendered_self_describing_single_event),
        cmocka_unit_test(test_rendered_tracelogging_tester),
        cmocka_unit_test(test_rendered_sih),
        cmocka_unit_test(test_primitive_types_match_perfview),
        cmocka_unit_test(test_system_time_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
