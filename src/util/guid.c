/* GUID reading, comparison, formatting and parsing. */
#include <string.h>

#include "etl/etl.h"
#include "util/guid_text.h"
#include "util/le.h"

etl_guid etl_guid_read(const uint8_t *p)
{
    etl_guid g;
    g.data1 = etl_le32(p);
    g.data2 = etl_le16(p + 4);
    g.data3 = etl_le16(p + 6);
    memcpy(g.data4, p + 8, 8);
    return g;
}

int etl_guid_equal(const etl_guid *a, const etl_guid *b)
{
    return a->data1 == b->data1 && a->data2 == b->data2 && a->data3 == b->data3 &&
           memcmp(a->data4, b->data4, 8) == 0;
}

int etl_guid_is_zero(const etl_guid *g)
{
    static const etl_guid zero;
    return etl_guid_equal(g, &zero);
}

char *etl_guid_text(const etl_guid *g, char *p, int upper)
{
    static const char zero[] = "{00000000-0000-0000-0000-000000000000}";
    memcpy(p, zero, 38);
    uint64_t low;
    memcpy(&low, g->data4, 8);
    if (g->data1 == 0 && g->data2 == 0 && g->data3 == 0 && low == 0) return p + 38;
    const char *hex = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    static const uint8_t at[16] = {1, 3, 5, 7, 10, 12, 15, 17, 20, 22, 25, 27, 29, 31, 33, 35};
    uint8_t v[16];
    for (int i = 0; i < 4; i++) v[i] = (uint8_t)(g->data1 >> (24 - 8 * i));
    v[4] = (uint8_t)(g->data2 >> 8), v[5] = (uint8_t)g->data2;
    v[6] = (uint8_t)(g->data3 >> 8), v[7] = (uint8_t)g->data3;
    memcpy(v + 8, g->data4, 8);
    for (int i = 0; i < 16; i++) {
        p[at[i]] = hex[v[i] >> 4];
        p[at[i] + 1] = hex[v[i] & 0xF];
    }
    return p + 38;
}

char *etl_guid_format(const etl_guid *g, char *buf, int upper)
{
    *etl_guid_text(g, buf, upper) = '\0';
    return buf;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int etl_guid_parse(const char *text, etl_guid *out)
{
    uint8_t b[16];
    size_t n = 0;
    const char *p = text;
    size_t len = strlen(text);
    if (len == 38 && (text[0] != '{' || text[37] != '}')) return -1;
    if (len != 36 && len != 38) return -1;
    if (len == 38) p++;
    for (size_t i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (p[i] != '-') return -1;
            continue;
        }
        int hi = hexval(p[i]), lo = hexval(p[i + 1]);
        if (hi < 0 || lo < 0) return -1;
        b[n++] = (uint8_t)(hi << 4 | lo);
        i++;
    }
    out->data1 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    out->data2 = (uint16_t)(b[4] << 8 | b[5]);
    out->data3 = (uint16_t)(b[6] << 8 | b[7]);
    memcpy(out->data4, b + 8, 8);
    return 0;
}
