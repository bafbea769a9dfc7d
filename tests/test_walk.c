/* Property walker (src/decode/walk.c) on hand-made payloads: every in-type at its boundaries (empty, exact, one
 * byte short), lengths and counts (fixed, from another property, TraceLogging inline), structs and arrays of
 * structs, and hostile counts. Layout rules: docs/schemas.md §1.4, docs/etl-format.md §5.1/§5.5/§5.6. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "decode/walk.h"

static etl_walk walk;
static char shown[4096];

#define P(name_, in_, out_) {name_, 0, in_, out_, 0, 0, 0, 0, NULL}

static etl_event_info make_info(const etl_property_info *props, uint32_t count, uint32_t top)
{
    etl_event_info info;
    memset(&info, 0, sizeof info);
    info.properties = props;
    info.property_count = count;
    info.top_level_count = top;
    return info;
}

/* Walks and returns a compact view: "a=1 b=[x,y] s={m=1}". */
static const char *run(const etl_property_info *props, uint32_t count, uint32_t top, const void *payload,
                       size_t size, uint8_t pointer_size, int *status)
{
    etl_event_info info = make_info(props, count, top);
    etl_render_context ctx = {pointer_size, NULL, 0, NULL};
    *status = etl_walk_event(&walk, &info, payload, size, &ctx);
    size_t n = 0;
    shown[0] = '\0';
    int need_space = 0;
    for (size_t i = 0; i < walk.field_count && n < sizeof shown - 64; i++) {
        const etl_field *f = &walk.fields[i];
        const char *sep = need_space ? " " : "";
        switch (f->kind) {
        case ETL_FIELD_VALUE:
            if (f->array_index >= 0) n += (size_t)snprintf(shown + n, sizeof shown - n, "%s%s", f->array_index ? "," : "", f->value);
            else n += (size_t)snprintf(shown + n, sizeof shown - n, "%s%s=%s", sep, f->name, f->value);
            break;
        case ETL_FIELD_ARRAY_BEGIN: n += (size_t)snprintf(shown + n, sizeof shown - n, "%s%s=[", sep, f->name); break;
        case ETL_FIELD_ARRAY_END: n += (size_t)snprintf(shown + n, sizeof shown - n, "]"); break;
        case ETL_FIELD_STRUCT_BEGIN:
            if (f->array_index >= 0) n += (size_t)snprintf(shown + n, sizeof shown - n, "%s{", f->array_index ? "," : "");
            else n += (size_t)snprintf(shown + n, sizeof shown - n, "%s%s={", sep, f->name);
            need_space = 0;
            continue;
        case ETL_FIELD_STRUCT_END: n += (size_t)snprintf(shown + n, sizeof shown - n, "}"); break;
        }
        need_space = f->kind != ETL_FIELD_ARRAY_BEGIN;
    }
    return shown;
}

/* Each fixed-size in-type: exact payload decodes, one byte short and empty fail without reading further. */
static void test_fixed_sizes(void **state)
{
    (void)state;
    static const struct { uint16_t in; size_t size; const char *text; } cases[] = {
        {ETL_IN_INT8, 1, "-1"}, {ETL_IN_UINT8, 1, "255"}, {ETL_IN_INT16, 2, "-1"}, {ETL_IN_UINT16, 2, "65535"},
        {ETL_IN_INT32, 4, "-1"}, {ETL_IN_UINT32, 4, "4294967295"}, {ETL_IN_INT64, 8, "-1"},
        {ETL_IN_UINT64, 8, "18446744073709551615"}, {ETL_IN_FLOAT, 4, "NaN"}, {ETL_IN_DOUBLE, 8, "NaN"},
        {ETL_IN_BOOLEAN, 4, "true"}, {ETL_IN_GUID, 16, "{ffffffff-ffff-ffff-ffff-ffffffffffff}"},
        {ETL_IN_FILETIME, 8, "1601-01-01T00:00:00.000000000Z"}, {ETL_IN_HEXINT32, 4, "0xFFFFFFFF"},
        {ETL_IN_HEXINT64, 8, "0xFFFFFFFFFFFFFFFF"}, {ETL_IN_UNICODECHAR, 2, "\xEF\xBF\xBF"},
        {ETL_IN_ANSICHAR, 1, "\xC3\xBF"}, {ETL_IN_SYSTEMTIME, 16, NULL},
    };
    uint8_t ff[17];
    memset(ff, 0xFF, sizeof ff);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        etl_property_info props[2] = {P("v", cases[i].in, 0), P("after", ETL_IN_UINT8, 0)};
        int st;
        const char *text = run(props, 2, 2, ff, cases[i].size + 1, 8, &st);
        assert_int_equal(st, ETL_DECODE_OK);
        assert_int_equal(walk.consumed, cases[i].size + 1);
        if (cases[i].text) {
            char expect[128];
            snprintf(expect, sizeof expect, "v=%s after=255", cases[i].text);
            assert_string_equal(text, expect);
        }
        run(props, 1, 1, ff, cases[i].size - 1, 8, &st);
        assert_int_equal(st, ETL_DECODE_ERROR);
        assert_int_equal(walk.consumed, 0);
        assert_int_equal(walk.field_count, 0);
        assert_non_null(strstr(walk.error, "property 'v' at payload offset 0"));
        run(props, 1, 1, ff, 0, 8, &st);
        assert_int_equal(st, ETL_DECODE_ERROR);
        /* the second property does not fit after an exact first one */
        run(props, 2, 2, ff, cases[i].size, 8, &st);
        assert_int_equal(st, ETL_DECODE_ERROR);
        assert_int_equal(walk.consumed, cases[i].size);
        assert_int_equal(walk.field_count, 1);
        assert_non_null(strstr(walk.error, "'after'"));
    }
}

static void test_pointer_size(void **state)
{
    (void)state;
    etl_property_info props[3] = {P("p", ETL_IN_POINTER, 0), P("s", ETL_IN_SIZET, 0), P("x", ETL_IN_UINT8, 0)};
    const uint8_t data[17] = {0x10, 0, 0, 0, 0x20, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 9};
    int st;
    assert_string_equal(run(props, 3, 3, data, 9, 4, &st), "p=0x10 s=0x20 x=7");
    assert_int_equal(st, ETL_DECODE_OK);
    assert_string_equal(run(props, 3, 3, data, 17, 8, &st), "p=0x2000000010 s=0x7 x=9");
    assert_int_equal(st, ETL_DECODE_OK);
    run(props, 3, 3, data, 16, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
}

static void test_strings(void **state)
{
    (void)state;
    int st;
    etl_property_info term[3] = {P("w", ETL_IN_UNICODESTRING, 0), P("a", ETL_IN_ANSISTRING, 0), P("n", ETL_IN_UINT8, 0)};
    const uint8_t data[] = {'h', 0, 'i', 0, 0, 0, 'o', 'k', 0, 5};
    assert_string_equal(run(term, 3, 3, data, sizeof data, 8, &st), "w=hi a=ok n=5");
    assert_int_equal(st, ETL_DECODE_OK);
    /* empty strings are just the terminator */
    const uint8_t empty[] = {0, 0, 0, 5};
    assert_string_equal(run(term, 3, 3, empty, sizeof empty, 8, &st), "w= a= n=5");
    /* an unterminated last string takes the rest of the payload (TDH tolerates it) */
    assert_string_equal(run(term, 1, 1, data, 4, 8, &st), "w=hi");
    assert_int_equal(st, ETL_DECODE_OK);
    assert_int_equal(walk.consumed, 4);
    assert_string_equal(run(term, 1, 1, data, 5, 8, &st), "w=hi");
    assert_int_equal(walk.consumed, 5);
    /* NUL-terminated string at the very end of an empty payload: empty value, nothing read */
    assert_string_equal(run(term, 1, 1, data, 0, 8, &st), "w=");
    assert_int_equal(st, ETL_DECODE_OK);

    /* fixed lengths: UTF-16 counts characters, ANSI bytes; NUL padding is not shown (MOF char16[n]) */
    etl_property_info fixed[2] = {P("w", ETL_IN_UNICODESTRING, 0), P("a", ETL_IN_ANSISTRING, 0)};
    fixed[0].flags = ETL_PROP_PARAM_FIXED_LENGTH, fixed[0].length = 3;
    fixed[1].length = 2;
    const uint8_t fx[] = {'a', 0, 0, 0, 0, 0, 'x', 'y'};
    assert_string_equal(run(fixed, 2, 2, fx, 8, 8, &st), "w=a a=xy");
    assert_int_equal(st, ETL_DECODE_OK);
    run(fixed, 2, 2, fx, 7, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
    assert_int_equal(walk.consumed, 6);
    /* FIXED_LENGTH 0 is a real empty string, not "terminated" */
    fixed[0].length = 0;
    assert_string_equal(run(fixed, 1, 1, fx, 8, 8, &st), "w=");
    assert_int_equal(walk.consumed, 0);

    /* length from another property (PARAM_LENGTH); a hostile length fails without reading */
    etl_property_info param[3] = {P("len", ETL_IN_UINT16, 0), P("s", ETL_IN_UNICODESTRING, 0), P("t", ETL_IN_UINT8, 0)};
    param[1].flags = ETL_PROP_PARAM_LENGTH, param[1].length = 0;
    const uint8_t pl[] = {2, 0, 'o', 0, 'k', 0, 9};
    assert_string_equal(run(param, 3, 3, pl, sizeof pl, 8, &st), "len=2 s=ok t=9");
    const uint8_t hostile[] = {0xFF, 0xFF, 'o', 0};
    run(param, 3, 3, hostile, sizeof hostile, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
    assert_int_equal(walk.consumed, 2);
    /* a length reference to a property that was not decoded (or out of range) is an error, not a guess */
    param[1].length = 2;
    run(param, 3, 3, pl, sizeof pl, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
    param[1].length = 40;
    run(param, 3, 3, pl, sizeof pl, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);

    /* non-terminated strings run to the end */
    etl_property_info rest[1] = {P("r", ETL_IN_NONNULLTERMINATEDANSISTRING, 0)};
    assert_string_equal(run(rest, 1, 1, "abc", 3, 8, &st), "r=abc");
    assert_int_equal(walk.consumed, 3);
}

static void test_counted(void **state)
{
    (void)state;
    int st;
    etl_property_info props[4] = {P("m", ETL_IN_MANIFEST_COUNTEDSTRING, 0), P("c", ETL_IN_COUNTEDANSISTRING, 0),
                                  P("r", ETL_IN_REVERSEDCOUNTEDSTRING, 0), P("b", ETL_IN_MANIFEST_COUNTEDBINARY, 0)};
    /* byte counts: LE for 22/301/25, big-endian for 302 */
    const uint8_t data[] = {4, 0, 'h', 0, 'i', 0, 2, 0, 'o', 'k', 0, 2, 'z', 0, 1, 0, 0xAB};
    assert_string_equal(run(props, 4, 4, data, sizeof data, 8, &st), "m=hi c=ok r=z b=0xAB");
    assert_int_equal(st, ETL_DECODE_OK);
    run(props, 4, 4, data, sizeof data - 1, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
    assert_int_equal(walk.consumed, 14);
    /* prefix itself cut */
    run(props, 1, 1, data, 1, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
    assert_non_null(strstr(walk.error, "prefix"));
    /* HEXDUMP: u32 byte count */
    etl_property_info hd[1] = {P("h", ETL_IN_HEXDUMP, 0)};
    const uint8_t hdd[] = {2, 0, 0, 0, 0x12, 0x34};
    assert_string_equal(run(hd, 1, 1, hdd, 6, 8, &st), "h=0x1234");
    run(hd, 1, 1, hdd, 5, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
    /* TraceLogging BINARY: u16 inline length */
    etl_property_info tl[2] = {P("bin", ETL_IN_BINARY, 0), P("x", ETL_IN_UINT8, 0)};
    tl[0].flags = ETL_PROP_INLINE_LENGTH;
    const uint8_t tld[] = {2, 0, 0xCA, 0xFE, 7};
    assert_string_equal(run(tl, 2, 2, tld, 5, 8, &st), "bin=0xCAFE x=7");
    /* BINARY: fixed length, IPv6 default 16 */
    etl_property_info ip[1] = {P("a", ETL_IN_BINARY, ETL_OUT_IPV6)};
    uint8_t v6[16] = {0};
    v6[15] = 1;
    assert_string_equal(run(ip, 1, 1, v6, 16, 8, &st), "a=::1");
    run(ip, 1, 1, v6, 15, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
}

static void test_sids(void **state)
{
    (void)state;
    int st;
    etl_property_info props[2] = {P("sid", ETL_IN_SID, 0), P("x", ETL_IN_UINT8, 0)};
    const uint8_t sid[] = {1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0, 7};
    assert_string_equal(run(props, 2, 2, sid, sizeof sid, 8, &st), "sid=S-1-5-18 x=7");
    run(props, 1, 1, sid, 11, 8, &st); /* sub-authority cut */
    assert_int_equal(st, ETL_DECODE_ERROR);
    run(props, 1, 1, sid, 7, 8, &st); /* header cut */
    assert_int_equal(st, ETL_DECODE_ERROR);

    /* WBEMSID: TOKEN_USER (two pointers) then the SID; 64-bit and 32-bit records */
    etl_property_info w[2] = {P("user", ETL_IN_WBEMSID, 0), P("x", ETL_IN_UINT8, 0)};
    uint8_t w64[16 + 12 + 1] = {0x11, 0x22, 0x33, 0x44, 0, 0, 0, 0};
    memcpy(w64 + 16, sid, 13);
    assert_string_equal(run(w, 2, 2, w64, sizeof w64, 8, &st), "user=S-1-5-18 x=7");
    assert_int_equal(walk.consumed, 29);
    uint8_t w32[8 + 12 + 1] = {0x11, 0x22, 0x33, 0x44};
    memcpy(w32 + 8, sid, 13);
    assert_string_equal(run(w, 2, 2, w32, sizeof w32, 4, &st), "user=S-1-5-18 x=7");
    run(w, 2, 2, w32, sizeof w32 - 2, 4, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
    /* a zero first u32 means no SID: the field is 4 bytes */
    const uint8_t none[] = {0, 0, 0, 0, 7};
    assert_string_equal(run(w, 2, 2, none, 5, 8, &st), "user= x=7");
    assert_int_equal(st, ETL_DECODE_OK);
}

static void test_arrays(void **state)
{
    (void)state;
    int st;
    /* fixed count */
    etl_property_info fixed[2] = {P("a", ETL_IN_UINT16, 0), P("x", ETL_IN_UINT8, 0)};
    fixed[0].flags = ETL_PROP_PARAM_FIXED_COUNT, fixed[0].count = 3;
    const uint8_t d[] = {1, 0, 2, 0, 3, 0, 9};
    assert_string_equal(run(fixed, 2, 2, d, 7, 8, &st), "a=[1,2,3] x=9");
    assert_int_equal(st, ETL_DECODE_OK);
    run(fixed, 2, 2, d, 5, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
    /* FIXED_COUNT of 1 is still an array; count > 1 without flags too (TDH's older form) */
    fixed[0].count = 1;
    assert_string_equal(run(fixed, 1, 1, d, 2, 8, &st), "a=[1]");
    fixed[0].flags = 0, fixed[0].count = 2;
    assert_string_equal(run(fixed, 1, 1, d, 4, 8, &st), "a=[1,2]");
    fixed[0].count = 1;
    assert_string_equal(run(fixed, 1, 1, d, 2, 8, &st), "a=1");

    /* count from another property; zero elements */
    etl_property_info param[3] = {P("n", ETL_IN_UINT8, 0), P("v", ETL_IN_UINT8, 0), P("x", ETL_IN_UINT8, 0)};
    param[1].flags = ETL_PROP_PARAM_COUNT, param[1].count = 0;
    const uint8_t pc[] = {2, 10, 20, 30};
    assert_string_equal(run(param, 3, 3, pc, 4, 8, &st), "n=2 v=[10,20] x=30");
    const uint8_t zero[] = {0, 30};
    assert_string_equal(run(param, 3, 3, zero, 2, 8, &st), "n=0 v=[] x=30");
    /* arrays of strings are consecutive strings */
    etl_property_info strs[2] = {P("n", ETL_IN_UINT8, 0), P("s", ETL_IN_ANSISTRING, 0)};
    strs[1].flags = ETL_PROP_PARAM_COUNT;
    const uint8_t sd[] = {2, 'a', 0, 'b', 'c', 0};
    assert_string_equal(run(strs, 2, 2, sd, 6, 8, &st), "n=2 s=[a,bc]");

    /* TraceLogging variable array: u16 count in the payload */
    etl_property_info tl[1] = {P("v", ETL_IN_INT8, 0)};
    tl[0].flags = ETL_PROP_INLINE_COUNT;
    const uint8_t tld[] = {2, 0, 0xFF, 1};
    assert_string_equal(run(tl, 1, 1, tld, 4, 8, &st), "v=[-1,1]");
    run(tl, 1, 1, tld, 1, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
}

/* Arrays of characters (out-type STRING on INT8/UINT8/UINT16) are one counted string, as TDH shows
 * TraceLogging CharArray/WCharArray fields (etl-format.md §5.1: AMSITrace's "Raw Script"). */
static void test_char_arrays(void **state)
{
    (void)state;
    int st;
    etl_property_info w[2] = {P("w", ETL_IN_UINT16, ETL_OUT_STRING), P("x", ETL_IN_UINT8, 0)};
    w[0].flags = ETL_PROP_INLINE_COUNT;
    const uint8_t wd[] = {3, 0, 'a', 0, 0xE9, 0, '\n', 0, 7}; /* "aé\n" then x=7 */
    assert_string_equal(run(w, 2, 2, wd, sizeof wd, 8, &st), "w=a\xc3\xa9\n x=7");
    assert_int_equal(st, ETL_DECODE_OK);
    run(w, 2, 2, wd, 7, 8, &st); /* one byte short of the third character */
    assert_int_equal(st, ETL_DECODE_ERROR);
    etl_property_info a[1] = {P("a", ETL_IN_UINT8, ETL_OUT_STRING)};
    a[0].flags = ETL_PROP_PARAM_FIXED_COUNT, a[0].count = 4;
    const uint8_t ad[] = {'a', 'b', 0, 0}; /* NUL padding ends the text */
    assert_string_equal(run(a, 1, 1, ad, 4, 8, &st), "a=ab");
    /* without the STRING out-type a UINT8 array stays an array of numbers */
    a[0].out_type = 0;
    assert_string_equal(run(a, 1, 1, ad, 4, 8, &st), "a=[97,98,0,0]");
}

static void test_structs(void **state)
{
    (void)state;
    int st;
    /* top level: id, s (struct of a, inner), tail; inner = struct of b, c */
    etl_property_info p[7] = {
        P("id", ETL_IN_UINT8, 0), {"s", ETL_PROP_STRUCT, 0, 0, 3, 2, 0, 0, NULL}, P("tail", ETL_IN_UINT8, 0),
        P("a", ETL_IN_UINT8, 0), {"inner", ETL_PROP_STRUCT, 0, 0, 5, 2, 0, 0, NULL},
        P("b", ETL_IN_UINT8, 0), P("c", ETL_IN_ANSISTRING, 0)};
    const uint8_t d[] = {1, 2, 3, 'x', 0, 4};
    assert_string_equal(run(p, 7, 3, d, sizeof d, 8, &st), "id=1 s={a=2 inner={b=3 c=x}} tail=4");
    assert_int_equal(st, ETL_DECODE_OK);
    /* depth: struct members one level deeper */
    assert_int_equal(walk.fields[1].kind, ETL_FIELD_STRUCT_BEGIN);
    assert_int_equal(walk.fields[2].depth, 1);
    assert_int_equal(walk.fields[4].depth, 2);
    /* top-level ranges for message inserts */
    assert_int_equal(walk.top_first[0], 0);
    assert_int_equal(walk.top_first[1], 1);
    assert_int_equal(walk.top_first[2], walk.field_count - 1);
    assert_int_equal(walk.top_first[3], walk.field_count);

    /* array of structs (count applies to the group) */
    etl_property_info arr[4] = {P("n", ETL_IN_UINT8, 0), {"pt", ETL_PROP_STRUCT | ETL_PROP_PARAM_COUNT, 0, 0, 2, 2, 0, 0, NULL},
                                P("x", ETL_IN_UINT8, 0), P("y", ETL_IN_UINT8, 0)};
    const uint8_t ad[] = {2, 1, 2, 3, 4};
    assert_string_equal(run(arr, 4, 2, ad, 5, 8, &st), "n=2 pt=[{x=1 y=2},{x=3 y=4}]");
    /* cut inside the second element: what fits is kept, the open struct and array are closed */
    assert_string_equal(run(arr, 4, 2, ad, 4, 8, &st), "n=2 pt=[{x=1 y=2},{x=3}]");
    assert_int_equal(st, ETL_DECODE_ERROR);
    assert_int_equal(walk.consumed, 4);
    assert_non_null(strstr(walk.error, "'y' at payload offset 4"));

    /* malformed descriptions: members before the struct (a cycle) or past the property array */
    etl_property_info loop[2] = {{"s", ETL_PROP_STRUCT, 0, 0, 0, 1, 0, 0, NULL}, P("x", ETL_IN_UINT8, 0)};
    run(loop, 2, 1, ad, 5, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
    loop[0].struct_start = 1, loop[0].struct_count = 5;
    run(loop, 2, 1, ad, 5, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
}

static void test_hostile_counts(void **state)
{
    (void)state;
    int st;
    /* count 65535 with a 3-byte payload: stops at the first element that does not fit */
    etl_property_info p[2] = {P("n", ETL_IN_UINT16, 0), P("v", ETL_IN_UINT32, 0)};
    p[1].flags = ETL_PROP_PARAM_COUNT;
    const uint8_t d[] = {0xFF, 0xFF, 1};
    run(p, 2, 2, d, 3, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
    assert_int_equal(walk.consumed, 2);
    /* 4 billion zero-size elements (NULL in-type, or zero-length strings): bounded work and memory */
    etl_property_info z[2] = {P("n", ETL_IN_UINT32, 0), P("v", ETL_IN_NULL, 0)};
    z[1].flags = ETL_PROP_PARAM_COUNT;
    const uint8_t big[] = {0xFF, 0xFF, 0xFF, 0xFF};
    clock_t t0 = clock();
    run(z, 2, 2, big, 4, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
    assert_true(walk.field_count <= ETL_WALK_MAX_FIELDS + 2 * ETL_WALK_MAX_DEPTH + 4); /* + closers */
    z[1].in_type = ETL_IN_UNICODESTRING, z[1].flags |= ETL_PROP_PARAM_FIXED_LENGTH, z[1].length = 0;
    run(z, 2, 2, big, 4, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
    z[1].out_type = ETL_OUT_NOPRINT; /* no fields at all: the element budget still stops it */
    run(z, 2, 2, big, 4, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
    assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0);
}

static void test_trailing_and_noprint(void **state)
{
    (void)state;
    int st;
    /* bytes after the last property (a newer event version): status OK, consumed tells how far we went */
    etl_property_info p[2] = {P("a", ETL_IN_UINT8, 0), P("hidden", ETL_IN_UINT8, ETL_OUT_NOPRINT)};
    const uint8_t d[] = {1, 2, 3, 4};
    assert_string_equal(run(p, 2, 2, d, 4, 8, &st), "a=1");
    assert_int_equal(st, ETL_DECODE_OK);
    assert_int_equal(walk.consumed, 2);
    /* unsupported in-types stop decoding with a reason */
    etl_property_info bad[1] = {P("r", ETL_IN_RESERVED24, 0)};
    run(bad, 1, 1, d, 4, 8, &st);
    assert_int_equal(st, ETL_DECODE_ERROR);
    assert_non_null(strstr(walk.error, "in-type 24"));
    /* no properties at all */
    run(p, 0, 0, d, 4, 8, &st);
    assert_int_equal(st, ETL_DECODE_OK);
    assert_int_equal(walk.field_count, 0);
}

/* Kernel MOF optional tails (ETL_PROP_OPTIONAL_TAIL): StackWalk frames end with the payload; the
 * payload may stop before the property or after any whole element, never inside one. */
static void test_optional_tail(void **state)
{
    (void)state;
    int st;
    etl_property_info p[2] = {P("stamp", ETL_IN_UINT32, 0), P("frame", ETL_IN_POINTER, 0)};
    p[1].flags = ETL_PROP_OPTIONAL_TAIL | ETL_PROP_PARAM_FIXED_COUNT, p[1].count = 192;
    const uint8_t d[12] = {1, 0, 0, 0, 0x10, 0, 0, 0, 0x20, 0, 0, 0};
    assert_string_equal(run(p, 2, 2, d, 12, 4, &st), "stamp=1 frame=[0x10,0x20]");
    assert_int_equal(st, ETL_DECODE_OK);
    assert_string_equal(run(p, 2, 2, d, 4, 4, &st), "stamp=1"); /* ends before it: no field */
    assert_int_equal(st, ETL_DECODE_OK);
    run(p, 2, 2, d, 10, 4, &st); /* inside an element: still an error */
    assert_int_equal(st, ETL_DECODE_ERROR);
    /* scalar optional property absent, and the properties after it are not required either */
    etl_property_info q[3] = {P("a", ETL_IN_UINT8, 0), P("pad", ETL_IN_UINT8, 0), P("more", ETL_IN_UINT8, 0)};
    q[1].flags = ETL_PROP_OPTIONAL_TAIL;
    assert_string_equal(run(q, 3, 3, d, 1, 8, &st), "a=1");
    assert_int_equal(st, ETL_DECODE_OK);
    /* inside a struct: the struct is still closed */
    etl_property_info r[3] = {{"s", ETL_PROP_STRUCT, 0, 0, 1, 2, 0, 0, NULL}, P("x", ETL_IN_UINT8, 0), P("y", ETL_IN_UINT8, 0)};
    r[2].flags = ETL_PROP_OPTIONAL_TAIL;
    assert_string_equal(run(r, 3, 1, d, 1, 8, &st), "s={x=1}");
    assert_int_equal(st, ETL_DECODE_OK);
    assert_int_equal(walk.fields[walk.field_count - 1].kind, ETL_FIELD_STRUCT_END);
}

/* Random descriptions over random payloads (fixed seed): whatever the schema says, the walker stays inside the
 * payload, balances its struct/array fields, and explains every stop. Run under `make sanitize` as well. */
static uint32_t rng_state = 0x12345678u;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static void test_random_descriptions(void **state)
{
    (void)state;
    static const uint16_t in_types[] = {
        ETL_IN_NULL, ETL_IN_UNICODESTRING, ETL_IN_ANSISTRING, ETL_IN_INT8, ETL_IN_UINT8, ETL_IN_INT16, ETL_IN_UINT16,
        ETL_IN_INT32, ETL_IN_UINT32, ETL_IN_INT64, ETL_IN_UINT64, ETL_IN_FLOAT, ETL_IN_DOUBLE, ETL_IN_BOOLEAN,
        ETL_IN_BINARY, ETL_IN_GUID, ETL_IN_POINTER, ETL_IN_FILETIME, ETL_IN_SYSTEMTIME, ETL_IN_SID, ETL_IN_HEXINT32,
        ETL_IN_HEXINT64, ETL_IN_MANIFEST_COUNTEDSTRING, ETL_IN_MANIFEST_COUNTEDANSISTRING, ETL_IN_RESERVED24,
        ETL_IN_MANIFEST_COUNTEDBINARY, ETL_IN_COUNTEDSTRING, ETL_IN_COUNTEDANSISTRING, ETL_IN_REVERSEDCOUNTEDSTRING,
        ETL_IN_REVERSEDCOUNTEDANSISTRING, ETL_IN_NONNULLTERMINATEDSTRING, ETL_IN_NONNULLTERMINATEDANSISTRING,
        ETL_IN_UNICODECHAR, ETL_IN_ANSICHAR, ETL_IN_SIZET, ETL_IN_HEXDUMP, ETL_IN_WBEMSID, 999};
    static const uint32_t flag_bits[] = {ETL_PROP_STRUCT, ETL_PROP_PARAM_LENGTH, ETL_PROP_PARAM_COUNT,
                                         ETL_PROP_PARAM_FIXED_LENGTH, ETL_PROP_PARAM_FIXED_COUNT,
                                         ETL_PROP_INLINE_COUNT, ETL_PROP_INLINE_LENGTH, ETL_PROP_OPTIONAL_TAIL};
    etl_property_info props[12];
    uint8_t payload[96];
    for (int iter = 0; iter < 20000; iter++) {
        uint32_t count = 1 + rng() % 12, top = 1 + rng() % count;
        for (uint32_t i = 0; i < count; i++) {
            etl_property_info *p = &props[i];
            memset(p, 0, sizeof *p);
            p->name = "f";
            p->in_type = in_types[rng() % (sizeof in_types / sizeof in_types[0])];
            p->out_type = (uint16_t)(rng() % 40);
            for (size_t b = 0; b < sizeof flag_bits / sizeof flag_bits[0]; b++)
                if (rng() % 6 == 0) p->flags |= flag_bits[b];
            p->count = (uint16_t)(rng() % 4 == 0 ? rng() : rng() % 4);
            p->length = (uint16_t)(rng() % 4 == 0 ? rng() : rng() % 12);
            p->struct_start = (uint16_t)(rng() % 14);
            p->struct_count = (uint16_t)(rng() % 5);
        }
        size_t size = rng() % sizeof payload;
        for (size_t i = 0; i < size; i++) payload[i] = (uint8_t)(rng() % 3 ? rng() : 0);
        /* the walker gets exactly `size` bytes; ASan catches any read past them */
        uint8_t *exact = malloc(size ? size : 1);
        memcpy(exact, payload, size);
        etl_event_info info = make_info(props, count, top);
        etl_render_context ctx = {(uint8_t)(rng() % 2 ? 4 : 8), NULL, 0, NULL};
        int st = etl_walk_event(&walk, &info, exact, size, &ctx);
        free(exact);
        assert_true(st == ETL_DECODE_OK || st == ETL_DECODE_ERROR);
        assert_true(walk.consumed <= size);
        if (st == ETL_DECODE_ERROR) assert_true(walk.error[0] != '\0');
        int depth = 0;
        for (size_t i = 0; i < walk.field_count; i++) {
            etl_field_kind k = walk.fields[i].kind;
            if (k == ETL_FIELD_STRUCT_BEGIN || k == ETL_FIELD_ARRAY_BEGIN) depth++;
            else if (k != ETL_FIELD_VALUE) depth--;
            else assert_non_null(walk.fields[i].value);
            assert_true(depth >= 0);
        }
        assert_int_equal(depth, 0); /* balanced even after a stop */
    }
}

/* Values point into the walk's text as they are written; a walk during which the buffer grew (moved) runs again.
 * A fresh walk over 200 strings of 100 characters grows its 256-byte buffer several times: every value must
 * still be its own text, inside the final buffer, in order. */
static void test_values_survive_text_growth(void **state)
{
    (void)state;
    enum { COUNT = 200, CHARS = 100 };
    static etl_property_info props[COUNT];
    static uint8_t payload[COUNT * 2 * (CHARS + 1)];
    for (int i = 0; i < COUNT; i++) {
        props[i] = (etl_property_info)P("s", ETL_IN_UNICODESTRING, ETL_OUT_STRING);
        for (int c = 0; c < CHARS; c++) payload[(i * (CHARS + 1) + c) * 2] = (uint8_t)('A' + (i + c) % 26);
    }
    etl_event_info info = make_info(props, COUNT, COUNT);
    etl_walk fresh;
    etl_walk_init(&fresh);
    etl_render_context ctx = {8, NULL, 0, NULL};
    assert_int_equal(etl_walk_event(&fresh, &info, payload, sizeof payload, &ctx), ETL_DECODE_OK);
    assert_int_equal(fresh.field_count, COUNT);
    assert_true(fresh.text.capacity > 256);
    for (int i = 0; i < COUNT; i++) {
        const char *v = fresh.fields[i].value;
        assert_true(v >= fresh.text.data && v + CHARS < fresh.text.data + fresh.text.length + 1);
        assert_int_equal(strlen(v), CHARS);
        for (int c = 0; c < CHARS; c++) assert_int_equal(v[c], 'A' + (i + c) % 26);
    }
    etl_walk_free(&fresh);
}

int main(void)
{
    etl_walk_init(&walk);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_sizes), cmocka_unit_test(test_pointer_size), cmocka_unit_test(test_strings),
        cmocka_unit_test(test_counted),     cmocka_unit_test(test_sids),         cmocka_unit_test(test_arrays), cmocka_unit_test(test_char_arrays),
        cmocka_unit_test(test_structs),     cmocka_unit_test(test_hostile_counts),
        cmocka_unit_test(test_trailing_and_noprint), cmocka_unit_test(test_optional_tail),
        cmocka_unit_test(test_random_descriptions), cmocka_unit_test(test_values_survive_text_growth),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    etl_walk_free(&walk);
    return rc;
}
