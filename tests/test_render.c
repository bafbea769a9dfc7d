/* Value rendering (src/decode/render.c). Expected texts come from the specs and tracerpt samples cited at each
 * case (docs/tracerpt.md R3/R4, docs/etl-format.md §5.6, RFC 5952, MS-DTYP, Unicode's CP1252 table). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "decode/render.h"
#include "util/utf.h"

static etl_textbuf buf;

static const char *render(uint16_t in, uint16_t out, const void *bytes, size_t size, uint8_t ptr)
{
    etl_render_context ctx = {ptr, NULL, 0, NULL};
    etl_textbuf_reset(&buf);
    etl_render_value(&buf, in, out, NULL, bytes, size, &ctx);
    assert_false(buf.failed);
    return etl_textbuf_at(&buf, 0);
}

static const char *render_map(uint16_t in, const etl_map_info *map, const void *bytes, size_t size)
{
    etl_textbuf_reset(&buf);
    etl_render_value(&buf, in, ETL_OUT_NULL, map, bytes, size, NULL);
    return etl_textbuf_at(&buf, 0);
}

static void test_integers(void **state)
{
    (void)state;
    const uint8_t m1[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    assert_string_equal(render(ETL_IN_INT8, 0, m1, 1, 8), "-1");
    assert_string_equal(render(ETL_IN_UINT8, 0, m1, 1, 8), "255");
    assert_string_equal(render(ETL_IN_INT16, 0, m1, 2, 8), "-1");
    assert_string_equal(render(ETL_IN_UINT16, 0, m1, 2, 8), "65535");
    assert_string_equal(render(ETL_IN_INT32, 0, m1, 4, 8), "-1");
    assert_string_equal(render(ETL_IN_UINT32, 0, m1, 4, 8), "4294967295");
    assert_string_equal(render(ETL_IN_INT64, 0, m1, 8, 8), "-1");
    assert_string_equal(render(ETL_IN_UINT64, 0, m1, 8, 8), "18446744073709551615");
    /* primitive-types.baseline.txt: int16_type=-51 (0xFFCD), uint32_type=102 */
    const uint8_t i16[2] = {0xCD, 0xFF}, u32[4] = {102, 0, 0, 0};
    assert_string_equal(render(ETL_IN_INT16, 0, i16, 2, 8), "-51");
    assert_string_equal(render(ETL_IN_UINT32, ETL_OUT_UNSIGNEDINT, u32, 4, 8), "102");
    assert_string_equal(render(ETL_IN_UINT32, ETL_OUT_PID, u32, 4, 8), "102");
}

static void test_hex_forms(void **state)
{
    (void)state;
    /* tracerpt R4: <Data Name="UniqueProcessKey">0xFFFFFA800143FA80</Data>, ProcessId 0x10EC */
    const uint8_t ptr[8] = {0x80, 0xFA, 0x43, 0x01, 0x80, 0xFA, 0xFF, 0xFF};
    assert_string_equal(render(ETL_IN_POINTER, 0, ptr, 8, 8), "0xFFFFFA800143FA80");
    const uint8_t pid[4] = {0xEC, 0x10, 0, 0};
    assert_string_equal(render(ETL_IN_UINT32, ETL_OUT_HEXINT32, pid, 4, 8), "0x10EC");
    assert_string_equal(render(ETL_IN_HEXINT32, 0, pid, 4, 8), "0x10EC");
    /* pointers are not padded to the pointer width: a null pointer is 0x0 on 32- and 64-bit records */
    const uint8_t zero[8] = {0};
    assert_string_equal(render(ETL_IN_POINTER, 0, zero, 4, 4), "0x0");
    assert_string_equal(render(ETL_IN_SIZET, 0, zero, 8, 8), "0x0");
    /* tracerpt Keywords 0x800 form: upper case, no padding */
    const uint8_t kw[8] = {0x00, 0x08, 0, 0, 0, 0, 0, 0};
    assert_string_equal(render(ETL_IN_HEXINT64, 0, kw, 8, 8), "0x800");
    /* error codes: 0x%08X (§5.6) */
    const uint8_t st[4] = {0x22, 0x00, 0x00, 0xC0};
    assert_string_equal(render(ETL_IN_UINT32, ETL_OUT_NTSTATUS, st, 4, 8), "0xC0000022");
    const uint8_t w32[4] = {5, 0, 0, 0};
    assert_string_equal(render(ETL_IN_UINT32, ETL_OUT_WIN32ERROR, w32, 4, 8), "0x00000005");
    const uint8_t efail[4] = {0x05, 0x40, 0x00, 0x80}; /* E_FAIL */
    assert_string_equal(render(ETL_IN_INT32, ETL_OUT_HRESULT, efail, 4, 8), "0x80004005");
    const uint8_t b = 0xAB;
    assert_string_equal(render(ETL_IN_UINT8, ETL_OUT_HEXINT8, &b, 1, 8), "0xAB");
}

static void test_guid_bool_char(void **state)
{
    (void)state;
    /* tracerpt R3: <Data Name="id">{aeb41e37-cf40-4317-a989-7d5aa6a2dc87}</Data> (GUID fields little-endian) */
    const uint8_t g[16] = {0x37, 0x1e, 0xb4, 0xae, 0x40, 0xcf, 0x17, 0x43,
                           0xa9, 0x89, 0x7d, 0x5a, 0xa6, 0xa2, 0xdc, 0x87};
    assert_string_equal(render(ETL_IN_GUID, ETL_OUT_GUID, g, 16, 8), "{aeb41e37-cf40-4317-a989-7d5aa6a2dc87}");
    /* BOOLEAN is a 4-byte BOOL: any non-zero value is true (primitive-types: boolean_type=True/False) */
    const uint8_t t[4] = {0, 1, 0, 0}, f[4] = {0};
    assert_string_equal(render(ETL_IN_BOOLEAN, 0, t, 4, 8), "true");
    assert_string_equal(render(ETL_IN_BOOLEAN, 0, f, 4, 8), "false");
    const uint8_t one = 1;
    assert_string_equal(render(ETL_IN_UINT8, ETL_OUT_BOOLEAN, &one, 1, 8), "true");
    /* STRING out-type on 8/16-bit integers is a character */
    const uint8_t m = 'M';
    assert_string_equal(render(ETL_IN_INT8, ETL_OUT_STRING, &m, 1, 8), "M");
    const uint8_t euro = 0x80; /* CP1252 0x80 = U+20AC */
    assert_string_equal(render(ETL_IN_UINT8, ETL_OUT_STRING, &euro, 1, 8), "\xE2\x82\xAC");
    const uint8_t wc[2] = {0xE9, 0x00};
    assert_string_equal(render(ETL_IN_UINT16, ETL_OUT_STRING, wc, 2, 8), "\xC3\xA9");
    const uint8_t lone[2] = {0x00, 0xD8};
    assert_string_equal(render(ETL_IN_UNICODECHAR, 0, lone, 2, 8), "\xEF\xBF\xBD");
}

static void test_network(void **state)
{
    (void)state;
    const uint8_t v4[4] = {192, 168, 1, 20};
    assert_string_equal(render(ETL_IN_UINT32, ETL_OUT_IPV4, v4, 4, 8), "192.168.1.20");
    /* PORT: network byte order; 0x0050 → 80 */
    const uint8_t port[2] = {0x00, 0x50};
    assert_string_equal(render(ETL_IN_UINT16, ETL_OUT_PORT, port, 2, 8), "80");
    /* RFC 5952 §4: lower case, longest zero run compressed, first one on ties, single zero group kept */
    const uint8_t a[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    assert_string_equal(render(ETL_IN_BINARY, ETL_OUT_IPV6, a, 16, 8), "2001:db8::1");
    const uint8_t b[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
    assert_string_equal(render(ETL_IN_BINARY, ETL_OUT_IPV6, b, 16, 8), "2001:db8:0:1:1:1:1:1");
    const uint8_t c[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1};
    assert_string_equal(render(ETL_IN_BINARY, ETL_OUT_IPV6, c, 16, 8), "2001:db8::1:0:0:1");
    const uint8_t any[16] = {0};
    assert_string_equal(render(ETL_IN_BINARY, ETL_OUT_IPV6, any, 16, 8), "::");
    const uint8_t loop[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    assert_string_equal(render(ETL_IN_BINARY, ETL_OUT_IPV6, loop, 16, 8), "::1");
    const uint8_t mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1};
    assert_string_equal(render(ETL_IN_BINARY, ETL_OUT_IPV6, mapped, 16, 8), "::ffff:192.0.2.1");
    /* SOCKADDR_IN: family 2, port 443 big-endian, address */
    const uint8_t sin[16] = {2, 0, 0x01, 0xBB, 10, 0, 0, 1};
    assert_string_equal(render(ETL_IN_BINARY, ETL_OUT_SOCKETADDRESS, sin, 16, 8), "10.0.0.1:443");
    uint8_t sin6[28] = {23, 0, 0x00, 0x35};
    memcpy(sin6 + 8, a, 16);
    assert_string_equal(render(ETL_IN_BINARY, ETL_OUT_SOCKETADDRESS, sin6, 28, 8), "[2001:db8::1]:53");
}

/* IPv6 text against glibc's inet_ntop (RFC 5952 as well) on 20,000 addresses with many zero groups and short
 * groups. inet_ntop writes IPv4-compatible addresses (::a.b.c.d, six zero groups then a non-zero one) in the
 * deprecated dotted form, which RFC 5952 §5 reserves for mapped ones: those are left out. */
static void test_ipv6_matches_inet_ntop(void **state)
{
    (void)state;
    uint64_t x = 0x5DEECE66Dull;
    for (int round = 0; round < 20000; round++) {
        uint8_t a[16];
        uint16_t g[8];
        for (int i = 0; i < 8; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            g[i] = x % 2 ? 0 : x % 3 ? (uint16_t)(x >> 16) >> ((x >> 8) % 16) : (uint16_t)(x >> 20);
            a[2 * i] = (uint8_t)(g[i] >> 8);
            a[2 * i + 1] = (uint8_t)g[i];
        }
        if (!g[0] && !g[1] && !g[2] && !g[3] && !g[4] && !g[5] && g[6]) continue;
        char want[INET6_ADDRSTRLEN];
        assert_non_null(inet_ntop(AF_INET6, a, want, sizeof want));
        assert_string_equal(render(ETL_IN_BINARY, ETL_OUT_IPV6, a, 16, 8), want);
    }
}

static void test_sid(void **state)
{
    (void)state;
    /* MS-DTYP 2.4.2.2 packet representation of S-1-5-32-544 (BUILTIN\Administrators) */
    const uint8_t sid[16] = {1, 2, 0, 0, 0, 0, 0, 5, 0x20, 0, 0, 0, 0x20, 0x02, 0, 0};
    assert_string_equal(render(ETL_IN_SID, 0, sid, 16, 8), "S-1-5-32-544");
    /* LocalSystem S-1-5-18 */
    const uint8_t sys[12] = {1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0};
    assert_string_equal(render(ETL_IN_WBEMSID, 0, sys, 12, 8), "S-1-5-18");
    /* identifier authority >= 2^32 prints as 12 hex digits (ConvertSidToStringSid) */
    const uint8_t big[8] = {1, 0, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06};
    assert_string_equal(render(ETL_IN_SID, 0, big, 8, 8), "S-1-0x010203040506");
    /* a WBEMSID field without SID renders empty */
    assert_string_equal(render(ETL_IN_WBEMSID, 0, sys, 0, 8), "");
}

static void test_times(void **state)
{
    (void)state;
    /* FILETIME 0 is 1601-01-01; 116444736000000000 is the Unix epoch (documented FILETIME↔time_t offset) */
    const uint8_t zero[8] = {0};
    assert_string_equal(render(ETL_IN_FILETIME, 0, zero, 8, 8), "1601-01-01T00:00:00.000000000Z");
    uint8_t epoch[8];
    uint64_t v = 116444736000000000ULL + 1234567;
    for (int i = 0; i < 8; i++) epoch[i] = (uint8_t)(v >> (8 * i));
    assert_string_equal(render(ETL_IN_FILETIME, 0, epoch, 8, 8), "1970-01-01T00:00:00.123456700Z");
    /* TraceLogging FILETIME out-type on UINT64 */
    assert_string_equal(render(ETL_IN_UINT64, ETL_OUT_DATETIME, epoch, 8, 8), "1970-01-01T00:00:00.123456700Z");
    /* SYSTEMTIME {2021, 9, Thu=4, 9, 14, 59, 35, 31} (primitive-types system_time_type=21/09/09 14:59:35.03...) */
    const uint8_t st[16] = {0xE5, 0x07, 9, 0, 4, 0, 9, 0, 14, 0, 59, 0, 35, 0, 31, 0};
    assert_string_equal(render(ETL_IN_SYSTEMTIME, 0, st, 16, 8), "2021-09-09T14:59:35.031000000Z");
}

/* ETWTIME (kernel WmiTime): a raw session timestamp, converted with the trace's clock for that file */
static int64_t fake_clock(const etl_trace *trace, size_t file_index, int64_t raw)
{
    (void)trace;
    return 116444736000000000LL + (int64_t)file_index * 10000000LL + raw * 10; /* epoch + file s + raw µs */
}

static void test_etwtime(void **state)
{
    (void)state;
    const uint8_t raw[8] = {0x40, 0x42, 0x0F, 0, 0, 0, 0, 0}; /* 1000000 */
    etl_render_context ctx = {8, (const etl_trace *)&ctx, 2, fake_clock};
    etl_textbuf_reset(&buf);
    etl_render_value(&buf, ETL_IN_UINT64, ETL_OUT_ETWTIME, NULL, raw, 8, &ctx);
    assert_string_equal(etl_textbuf_at(&buf, 0), "1970-01-01T00:00:03.000000000Z");
    /* without a clock the raw count is printed */
    assert_string_equal(render(ETL_IN_UINT64, ETL_OUT_ETWTIME, raw, 8, 8), "1000000");
}

static void test_floats(void **state)
{
    (void)state;
    uint8_t b[8];
    double d = 0.1;
    memcpy(b, &d, 8);
    assert_string_equal(render(ETL_IN_DOUBLE, 0, b, 8, 8), "0.1");
    d = -2.5;
    memcpy(b, &d, 8);
    assert_string_equal(render(ETL_IN_DOUBLE, 0, b, 8, 8), "-2.5");
    d = 1.0 / 3.0;
    memcpy(b, &d, 8);
    assert_string_equal(render(ETL_IN_DOUBLE, 0, b, 8, 8), "0.3333333333333333");
    float f = 0.1f;
    memcpy(b, &f, 4);
    assert_string_equal(render(ETL_IN_FLOAT, 0, b, 4, 8), "0.1");
    f = 3.14159274f;
    memcpy(b, &f, 4);
    assert_string_equal(render(ETL_IN_FLOAT, 0, b, 4, 8), "3.1415927");
    const uint8_t nan[8] = {0, 0, 0, 0, 0, 0, 0xF8, 0x7F};
    assert_string_equal(render(ETL_IN_DOUBLE, 0, nan, 8, 8), "NaN");
}

static void test_strings(void **state)
{
    (void)state;
    /* UTF-16: surrogate pair U+1F600 → F0 9F 98 80; text stops at the first NUL */
    const uint8_t pair[10] = {'A', 0, 0x3D, 0xD8, 0x00, 0xDE, 0, 0, 'B', 0};
    assert_string_equal(render(ETL_IN_UNICODESTRING, 0, pair, 10, 8), "A\xF0\x9F\x98\x80");
    /* lone high surrogate, lone low surrogate, reversed pair: each becomes U+FFFD, never passed through */
    const uint8_t bad[8] = {0x00, 0xD8, 'x', 0, 0x00, 0xDC, 0x00, 0xD8};
    assert_string_equal(render(ETL_IN_UNICODESTRING, 0, bad, 8, 8), "\xEF\xBF\xBDx\xEF\xBF\xBD\xEF\xBF\xBD");
    /* odd byte count: the last half unit is ignored */
    const uint8_t odd[3] = {'h', 0, 'i'};
    assert_string_equal(render(ETL_IN_NONNULLTERMINATEDSTRING, 0, odd, 3, 8), "h");
    /* ANSI: valid UTF-8 is kept, anything else is read as Windows-1252 */
    const char *utf8 = "caf\xC3\xA9";
    assert_string_equal(render(ETL_IN_ANSISTRING, 0, utf8, 5, 8), "caf\xC3\xA9");
    const uint8_t latin[5] = {'c', 'a', 'f', 0xE9, 0x80};
    assert_string_equal(render(ETL_IN_ANSISTRING, 0, latin, 5, 8), "caf\xC3\xA9\xE2\x82\xAC");
    /* overlong and surrogate encodings are not valid UTF-8 */
    const uint8_t overlong[2] = {0xC0, 0xAF};
    assert_string_equal(render(ETL_IN_ANSISTRING, 0, overlong, 2, 8), "\xC3\x80\xC2\xAF");
    /* UTF8 out-type: bad bytes become U+FFFD one by one */
    const uint8_t u8bad[4] = {'a', 0xFF, 0xE2, 'b'};
    assert_string_equal(render(ETL_IN_ANSISTRING, ETL_OUT_UTF8, u8bad, 4, 8), "a\xEF\xBF\xBD\xEF\xBF\xBD" "b");
    assert_string_equal(render(ETL_IN_COUNTEDSTRING, 0, "", 0, 8), "");
}

/* The four-units-at-a-time ASCII path of etl_render_utf16 against util/utf.c's unit-by-unit converter (a
 * separate implementation): random strings mixing ASCII, NUL, 2- and 3-byte characters and surrogates (paired,
 * lone, split across the 4-unit blocks), every length 0..40 and every start offset 0..7; half of them almost all ASCII. */
static void test_utf16_ascii_runs_match_unit_by_unit(void **state)
{
    (void)state;
    static const uint16_t pool[] = {'a', 'Z', ' ', '~', 0x7F, 0, 0x80, 0xE9, 0x7FF, 0x800, 0x20AC, 0xFFFF,
                                    0xD83D, 0xDE00, 0xDBFF, 0xDC00, 0x0100, 0xFF00, 0x007F, 0x8000};
    uint8_t bytes[8 + 2 * 40];
    char want[4 * 40 + 1];
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (int round = 0; round < 6000; round++) {
        size_t start = (size_t)(round / 2) % 8, units = (size_t)(round / 16) % 41;
        for (size_t i = 0; i < units; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            /* mostly ASCII, as real text is, so that whole blocks (4 and 8 units) take the fast paths */
            uint16_t u = x % (round % 2 ? 4 : 48) ? (uint16_t)(0x20 + (x >> 8) % 0x5F) : pool[(x >> 8) % (sizeof pool / sizeof pool[0])];
            bytes[start + 2 * i] = (uint8_t)u;
            bytes[start + 2 * i + 1] = (uint8_t)(u >> 8);
        }
        etl_utf16le_to_utf8(bytes + start, units, want, sizeof want);
        etl_textbuf_reset(&buf);
        etl_render_utf16(&buf, bytes + start, 2 * units);
        assert_false(buf.failed);
        assert_string_equal(etl_textbuf_at(&buf, 0), want);
        assert_int_equal(buf.length, strlen(want)); /* a NUL unit ends the text, it is not copied */
    }
}

static void test_trim_partial(void **state)
{
    (void)state;
    char cut2[] = "ab\xC3", cut3[] = "ab\xE2\x82", whole[] = "ab\xE2\x82\xAC", ascii[] = "abc", empty[] = "";
    etl_utf8_trim_partial(cut2);
    etl_utf8_trim_partial(cut3);
    etl_utf8_trim_partial(whole);
    etl_utf8_trim_partial(ascii);
    etl_utf8_trim_partial(empty);
    assert_string_equal(cut2, "ab");
    assert_string_equal(cut3, "ab");
    assert_string_equal(whole, "ab\xE2\x82\xAC");
    assert_string_equal(ascii, "abc");
    assert_string_equal(empty, "");
}

static void test_binary(void **state)
{
    (void)state;
    const uint8_t bin[4] = {0x00, 0xAB, 0x10, 0xFF};
    assert_string_equal(render(ETL_IN_BINARY, 0, bin, 4, 8), "0x00AB10FF");
    assert_string_equal(render(ETL_IN_BINARY, ETL_OUT_HEXBINARY, bin, 0, 8), "");
    assert_string_equal(render(ETL_IN_HEXDUMP, 0, bin, 2, 8), "0x00AB");
    /* a fixed-size type with a size it cannot have shows the bytes */
    assert_string_equal(render(ETL_IN_GUID, 0, bin, 4, 8), "0x00AB10FF");
}

static void test_maps(void **state)
{
    (void)state;
    const etl_map_entry values[] = {{0, "None"}, {1, "Wow64"}, {2, "Protected"}};
    const etl_map_info vmap = {"Flags", ETL_MAP_VALUEMAP, 3, values};
    const uint8_t two[4] = {2, 0, 0, 0}, seven[4] = {7, 0, 0, 0}, zero[4] = {0}, three[4] = {3, 0, 0, 0};
    assert_string_equal(render_map(ETL_IN_UINT32, &vmap, two, 4), "Protected");
    assert_string_equal(render_map(ETL_IN_UINT32, &vmap, seven, 4), "7");
    const etl_map_info bmap = {"Flags", ETL_MAP_BITMAP, 3, values};
    assert_string_equal(render_map(ETL_IN_UINT32, &bmap, three, 4), "Wow64 | Protected");
    assert_string_equal(render_map(ETL_IN_UINT32, &bmap, seven, 4), "Wow64 | Protected | 0x4");
    assert_string_equal(render_map(ETL_IN_UINT32, &bmap, zero, 4), "None");
    const etl_map_info bnozero = {"Flags", ETL_MAP_BITMAP, 2, values + 1};
    assert_string_equal(render_map(ETL_IN_UINT32, &bnozero, zero, 4), "0x0");
    /* a value map without a matching entry prints the number as its type says */
    const uint8_t eight[4] = {8, 0, 0, 0};
    assert_string_equal(render_map(ETL_IN_HEXINT32, &vmap, eight, 4), "0x8");
    assert_string_equal(render_map(ETL_IN_UINT32, &vmap, eight, 4), "8");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integers), cmocka_unit_test(test_hex_forms), cmocka_unit_test(test_guid_bool_char),
        cmocka_unit_test(test_network),  cmocka_unit_test(test_sid),       cmocka_unit_test(test_times),
        cmocka_unit_test(test_floats),   cmocka_unit_test(test_strings),   cmocka_unit_test(test_binary),
        cmocka_unit_test(test_maps),     cmocka_unit_test(test_etwtime),   cmocka_unit_test(test_trim_partial),
        cmocka_unit_test(test_utf16_ascii_runs_match_unit_by_unit),
        cmocka_unit_test(test_ipv6_matches_inet_ntop),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    etl_textbuf_free(&buf);
    return rc;
}
