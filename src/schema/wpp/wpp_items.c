/* WPP item types (defaultwpp.ini): names, sizes in the packed argument blob, and their text as tracefmt
 * prints it, with the printf conversion of the format string (%10!08x!, %11!I64X!, %12!-10s!) applied. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "schema/wpp/wpp.h"
#include "schema/wpp/wpp_items.h"
#include "schema/wpp/wpp_status.h"
#include "util/le.h"

static const struct {
    const char *name;
    wpp_item item;
} item_names[] = {
    {"ItemChar", WPP_ITEM_CHAR},           {"ItemUChar", WPP_ITEM_UCHAR},         {"ItemShort", WPP_ITEM_SHORT},
    {"ItemUShort", WPP_ITEM_USHORT},       {"ItemLong", WPP_ITEM_LONG},           {"ItemULong", WPP_ITEM_ULONG},
    {"ItemLongLong", WPP_ITEM_LONGLONG},   {"ItemULongLong", WPP_ITEM_ULONGLONG}, {"ItemLongLongX", WPP_ITEM_LONGLONGX},
    {"ItemLongLongXX", WPP_ITEM_LONGLONGXX}, {"ItemLongLongO", WPP_ITEM_LONGLONGO}, {"ItemULongLongX", WPP_ITEM_LONGLONGX},
    {"ItemULongLongXX", WPP_ITEM_LONGLONGXX}, {"ItemPtr", WPP_ITEM_PTR},        {"ItemDouble", WPP_ITEM_DOUBLE},
    {"ItemString", WPP_ITEM_STRING},       {"ItemWString", WPP_ITEM_WSTRING},     {"ItemRString", WPP_ITEM_RSTRING},
    {"ItemRWString", WPP_ITEM_RWSTRING},   {"ItemPString", WPP_ITEM_PSTRING},     {"ItemPWString", WPP_ITEM_PWSTRING},
    {"ItemSid", WPP_ITEM_SID},             {"ItemGuid", WPP_ITEM_GUID},           {"ItemCLSID", WPP_ITEM_GUID},
    {"ItemIID", WPP_ITEM_GUID},            {"ItemLIBID", WPP_ITEM_GUID},          {"ItemNTSTATUS", WPP_ITEM_NTSTATUS},
    {"ItemWINERROR", WPP_ITEM_WINERROR},   {"ItemHRESULT", WPP_ITEM_HRESULT},     {"ItemNDIS_STATUS", WPP_ITEM_NDIS_STATUS},
    {"ItemNDIS_OID", WPP_ITEM_NDIS_OID},   {"ItemIPAddr", WPP_ITEM_IPADDR},       {"ItemIPV6Addr", WPP_ITEM_IPV6ADDR},
    {"ItemPort", WPP_ITEM_PORT},           {"ItemChar4", WPP_ITEM_CHAR4},         {"ItemTimestamp", WPP_ITEM_TIMESTAMP},
    {"ItemWaitTime", WPP_ITEM_WAITTIME},   {"ItemTimeDelta", WPP_ITEM_TIMEDELTA}, {"ItemListByte", WPP_ITEM_LISTBYTE},
    {"ItemListShort", WPP_ITEM_LISTSHORT}, {"ItemListLong", WPP_ITEM_LISTLONG},   {"ItemSetByte", WPP_ITEM_SETBYTE},
    {"ItemSetShort", WPP_ITEM_SETSHORT},   {"ItemSetLong", WPP_ITEM_SETLONG},     {"ItemEnum", WPP_ITEM_ENUM},
    {"ItemFlagsEnum", WPP_ITEM_FLAGSENUM}, {"ItemHexDump", WPP_ITEM_HEXDUMP},
};

wpp_item wpp_item_from_name(const char *name, size_t length)
{
    for (size_t i = 0; i < sizeof item_names / sizeof item_names[0]; i++)
        if (strlen(item_names[i].name) == length && memcmp(item_names[i].name, name, length) == 0)
            return item_names[i].item;
    return WPP_ITEM_UNKNOWN;
}

const char *wpp_item_name(wpp_item item)
{
    for (size_t i = 0; i < sizeof item_names / sizeof item_names[0]; i++)
        if (item_names[i].item == item) return item_names[i].name;
    return "unknown item type";
}

/* ---- sizes ------------------------------------------------------------------------------------------- */

static size_t fixed_size(wpp_item item, unsigned pointer_size)
{
    switch (item) {
    case WPP_ITEM_CHAR: case WPP_ITEM_UCHAR: case WPP_ITEM_LISTBYTE: case WPP_ITEM_SETBYTE: return 1;
    case WPP_ITEM_SHORT: case WPP_ITEM_USHORT: case WPP_ITEM_PORT: case WPP_ITEM_LISTSHORT: case WPP_ITEM_SETSHORT:
        return 2;
    case WPP_ITEM_LONG: case WPP_ITEM_ULONG: case WPP_ITEM_NTSTATUS: case WPP_ITEM_WINERROR: case WPP_ITEM_HRESULT:
    case WPP_ITEM_NDIS_STATUS: case WPP_ITEM_NDIS_OID: case WPP_ITEM_IPADDR: case WPP_ITEM_CHAR4:
    case WPP_ITEM_LISTLONG: case WPP_ITEM_SETLONG: case WPP_ITEM_ENUM: case WPP_ITEM_FLAGSENUM:
        return 4;
    case WPP_ITEM_LONGLONG: case WPP_ITEM_ULONGLONG: case WPP_ITEM_LONGLONGX: case WPP_ITEM_LONGLONGXX:
    case WPP_ITEM_LONGLONGO: case WPP_ITEM_DOUBLE: case WPP_ITEM_TIMESTAMP: case WPP_ITEM_WAITTIME:
    case WPP_ITEM_TIMEDELTA:
        return 8;
    case WPP_ITEM_PTR: return pointer_size;
    case WPP_ITEM_GUID: case WPP_ITEM_IPV6ADDR: return 16;
    default: return 0;
    }
}

const char *wpp_item_measure(wpp_item item, const uint8_t *p, size_t left, unsigned pointer_size, size_t *value_offset,
                             size_t *value_size, size_t *consumed)
{
    *value_offset = 0;
    size_t n = fixed_size(item, pointer_size);
    if (n) {
        if (n > left) return "argument runs past the end of the payload";
        *value_size = *consumed = n;
        return NULL;
    }
    switch (item) {
    case WPP_ITEM_STRING: case WPP_ITEM_RSTRING: {
        const uint8_t *nul = memchr(p, 0, left);
        if (!nul) return "string argument without its terminating NUL";
        *value_size = (size_t)(nul - p);
        *consumed = *value_size + 1;
        return NULL;
    }
    case WPP_ITEM_WSTRING: case WPP_ITEM_RWSTRING:
        for (size_t i = 0; i + 1 < left; i += 2)
            if (!p[i] && !p[i + 1]) {
                *value_size = i;
                *consumed = i + 2;
                return NULL;
            }
        return "UTF-16 string argument without its terminating NUL";
    case WPP_ITEM_PSTRING: case WPP_ITEM_PWSTRING: case WPP_ITEM_HEXDUMP: {
        if (left < 2) return "counted argument runs past the end of the payload";
        size_t len = etl_le16(p);
        if (len > left - 2) return "counted argument longer than the rest of the payload";
        *value_offset = 2;
        *value_size = len;
        *consumed = 2 + len;
        return NULL;
    }
    case WPP_ITEM_SID: {
        if (left < 8) return "SID argument runs past the end of the payload";
        size_t len = 8 + 4 * (size_t)p[1];
        if (len > left) return "SID argument runs past the end of the payload";
        *value_size = *consumed = len;
        return NULL;
    }
    default:
        return "unknown item type: its size is not known";
    }
}

/* ---- printf conversions ------------------------------------------------------------------------------ */

#define WPP_MAX_WIDTH 1024  /* a hostile %10!999999999d! pads this far and no further */

void wpp_spec_parse(const char *s, size_t n, wpp_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->width = spec->precision = -1;
    spec->conversion = 's';
    size_t i = 0, f = 0;
    while (i < n && strchr("-+ #0", s[i]) && f < sizeof spec->flags - 1) spec->flags[f++] = s[i++];
    if (i < n && isdigit((unsigned char)s[i])) {
        spec->width = 0;
        while (i < n && isdigit((unsigned char)s[i])) {
            if (spec->width < WPP_MAX_WIDTH) spec->width = spec->width * 10 + (s[i] - '0');
            i++;
        }
        if (spec->width > WPP_MAX_WIDTH) spec->width = WPP_MAX_WIDTH;
    }
    if (i < n && s[i] == '.') {
        i++;
        spec->precision = 0;
        while (i < n && isdigit((unsigned char)s[i])) {
            if (spec->precision < WPP_MAX_WIDTH) spec->precision = spec->precision * 10 + (s[i] - '0');
            i++;
        }
        if (spec->precision > WPP_MAX_WIDTH) spec->precision = WPP_MAX_WIDTH;
    }
    for (;;) { /* length modifiers: the argument's item type decides the width, these only say "64-bit" */
        if (n - i >= 3 && memcmp(s + i, "I64", 3) == 0) { spec->wide64 = 1; i += 3; }
        else if (n - i >= 3 && memcmp(s + i, "I32", 3) == 0) i += 3;
        else if (n - i >= 2 && memcmp(s + i, "ll", 2) == 0) { spec->wide64 = 1; i += 2; }
        else if (i < n && strchr("hlLIwzjt", s[i])) i++;
        else break;
    }
    if (i < n && isalpha((unsigned char)s[i])) spec->conversion = s[i];
}

void wpp_put_text(etl_textbuf *out, const char *text, const wpp_spec *spec)
{
    size_t bytes = strlen(text), chars = 0, cut = bytes;
    for (size_t i = 0; i < bytes; i++) {
        if (((unsigned char)text[i] & 0xC0) == 0x80) continue;
        if (spec && spec->precision >= 0 && chars == (size_t)spec->precision) {
            cut = i;
            break;
        }
        chars++;
    }
    size_t pad = spec && spec->width > 0 && (size_t)spec->width > chars ? (size_t)spec->width - chars : 0;
    int left = spec && strchr(spec->flags, '-') != NULL;
    for (size_t i = 0; !left && i < pad; i++) etl_textbuf_putc(out, ' ');
    etl_textbuf_append(out, text, cut);
    for (size_t i = 0; left && i < pad; i++) etl_textbuf_putc(out, ' ');
}

void wpp_put_integer(etl_textbuf *out, uint64_t value, unsigned bits, int is_signed, const wpp_spec *spec)
{
    uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    value &= mask;
    int64_t signed_value = bits < 64 && (value >> (bits - 1) & 1) ? (int64_t)(value | ~mask) : (int64_t)value;
    char conv = spec ? spec->conversion : 'd';
    if (conv == 'p') {
        char digits[24];
        snprintf(digits, sizeof digits, "%0*" PRIX64, (int)(bits / 4), value);
        wpp_put_text(out, digits, spec);
        return;
    }
    if (conv == 'c' || conv == 'C') {
        char c[2] = {(char)(value & 0x7F ? value & 0xFF : '.'), 0};
        wpp_put_text(out, c, spec);
        return;
    }
    char fmt[24], text[WPP_MAX_WIDTH * 2 + 64];
    size_t f = 0;
    fmt[f++] = '%';
    for (const char *fl = spec ? spec->flags : ""; *fl && f < 8; fl++) fmt[f++] = *fl;
    if (spec && spec->width >= 0) f += (size_t)snprintf(fmt + f, sizeof fmt - f, "%d", spec->width);
    if (spec && spec->precision >= 0 && f < 16) f += (size_t)snprintf(fmt + f, sizeof fmt - f, ".%d", spec->precision);
    fmt[f++] = 'l';
    fmt[f++] = 'l';
    switch (conv) {
    case 'u': case 'x': case 'X': case 'o':
        fmt[f++] = conv;
        fmt[f] = '\0';
        snprintf(text, sizeof text, fmt, (unsigned long long)value);
        break;
    case 'd': case 'i':
        fmt[f++] = 'd';
        fmt[f] = '\0';
        snprintf(text, sizeof text, fmt, (long long)signed_value);
        break;
    default:  /* %s and the rest: the number in decimal, padded as text */
        fmt[f++] = is_signed ? 'd' : 'u';
        fmt[f] = '\0';
        if (is_signed) snprintf(text, sizeof text, fmt, (long long)signed_value);
        else snprintf(text, sizeof text, fmt, (unsigned long long)value);
        break;
    }
    etl_textbuf_puts(out, text);
}

/* ---- values ------------------------------------------------------------------------------------------ */

static int integer_conversion(const wpp_spec *spec)
{
    return spec && strchr("diuxXocCp", spec->conversion) != NULL;
}

static int is_numeric(wpp_item item)
{
    switch (item) {
    case WPP_ITEM_DOUBLE: case WPP_ITEM_STRING: case WPP_ITEM_WSTRING: case WPP_ITEM_RSTRING: case WPP_ITEM_RWSTRING:
    case WPP_ITEM_PSTRING: case WPP_ITEM_PWSTRING: case WPP_ITEM_SID: case WPP_ITEM_GUID: case WPP_ITEM_IPV6ADDR:
    case WPP_ITEM_HEXDUMP: case WPP_ITEM_UNKNOWN:
        return 0;
    default:
        return 1;
    }
}

static void put_status(etl_textbuf *out, uint32_t v, const char *name, int decimal)
{
    if (decimal) etl_textbuf_printf(out, "%" PRIu32, v);
    else etl_textbuf_printf(out, "0x%08" PRIx32, v);
    if (name) etl_textbuf_printf(out, "(%s)", name);
}

/* FILETIME → "2020-01-01 00:00:00.000Z" (UTC: the same text on every machine). */
static void put_time(etl_textbuf *out, int64_t filetime)
{
    char iso[48];
    etl_filetime_format(filetime, 3, iso, sizeof iso);
    char *t = strchr(iso, 'T');
    if (t) *t = ' ';
    etl_textbuf_puts(out, iso);
}

/* 100 ns intervals → seconds with 3 decimals, rounded to the millisecond: tracefmt's %!delta! ("5.000s" for
 * 50,000,000; guscatalano/findneedle's capture checked against tracefmt). The magnitude is unsigned: INT64_MIN
 * has no positive counterpart. */
static void put_interval(etl_textbuf *out, int negative, uint64_t magnitude)
{
    uint64_t ms = magnitude / 10000u + (magnitude % 10000u >= 5000u);
    etl_textbuf_printf(out, "%s%" PRIu64 ".%03" PRIu64 "s", negative ? "-" : "", ms / 1000u, ms % 1000u);
}

static uint64_t magnitude_of(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

/* ItemEnum: the value's name, else the number. ItemFlagsEnum: the names of the flags set, joined by " | ", then
 * the value in hex ("FlagRead | FlagExec(0x5)", as tracefmt prints it for findneedle's wppenum2 capture); no
 * flag name set: the value in hex alone. */
static void put_enum(etl_textbuf *out, uint64_t v, const wpp_enum *en, int flags)
{
    if (en && !flags)
        for (uint32_t i = 0; i < en->entry_count; i++)
            if (en->entries[i].value == v) {
                etl_textbuf_puts(out, en->entries[i].name);
                return;
            }
    if (flags) {
        int any = 0;
        for (uint32_t i = 0; en && i < en->entry_count; i++) {
            uint64_t bits = en->entries[i].value;
            if (!bits ? v == 0 : (v & bits) == bits) {
                etl_textbuf_puts(out, any ? " | " : "");
                etl_textbuf_puts(out, en->entries[i].name);
                any = 1;
            }
        }
        etl_textbuf_printf(out, any ? "(0x%" PRIx64 ")" : "0x%" PRIx64, v);
        return;
    }
    etl_textbuf_printf(out, "%" PRIu64, v);
}

void wpp_item_render(etl_textbuf *out, etl_textbuf *scratch, const wpp_arg *arg, const wpp_enum *en,
                     const uint8_t *p, size_t size, const wpp_spec *spec)
{
    wpp_item item = arg->item;
    uint64_t u = 0;
    for (size_t i = 0; i < size && i < 8; i++) u |= (uint64_t)p[i] << (8 * i);
    unsigned bits = (unsigned)(size < 8 ? size * 8 : 64);
    etl_textbuf_reset(scratch);
    switch (item) {
    case WPP_ITEM_CHAR: case WPP_ITEM_SHORT: case WPP_ITEM_LONG: case WPP_ITEM_LONGLONG:
        wpp_put_integer(out, u, bits, 1, spec);
        return;
    case WPP_ITEM_UCHAR: case WPP_ITEM_USHORT: case WPP_ITEM_ULONG: case WPP_ITEM_ULONGLONG:
        wpp_put_integer(out, u, bits, 0, spec);
        return;
    case WPP_ITEM_LONGLONGX: case WPP_ITEM_LONGLONGXX: case WPP_ITEM_LONGLONGO: {
        wpp_spec own = *spec;
        if (!integer_conversion(spec)) own.conversion = item == WPP_ITEM_LONGLONGX ? 'x' : item == WPP_ITEM_LONGLONGXX ? 'X' : 'o';
        wpp_put_integer(out, u, 64, 0, &own);
        return;
    }
    case WPP_ITEM_PTR: {
        wpp_spec own = *spec;
        if (!integer_conversion(spec)) own.conversion = 'p';
        wpp_put_integer(out, u, bits, 0, &own);
        return;
    }
    default: break;
    }
    if (integer_conversion(spec) && is_numeric(item)) { /* %!x! on a status code, a list, an enum... */
        wpp_put_integer(out, u, bits, 0, spec);
        return;
    }
    char buf[64];
    switch (item) {
    case WPP_ITEM_DOUBLE: {
        double d;
        memcpy(&d, &u, sizeof d);
        if (spec && strchr("eEfFgGaA", spec->conversion)) {
            char fmt[16];
            snprintf(fmt, sizeof fmt, "%%%s%s%c", spec->flags, spec->precision >= 0 ? ".*" : "", spec->conversion);
            if (spec->precision >= 0) etl_textbuf_printf(scratch, fmt, spec->precision, d);
            else etl_textbuf_printf(scratch, fmt, d);
            wpp_spec width_only = *spec; /* the precision was printf's; only the width pads the text */
            width_only.precision = -1;
            wpp_put_text(out, scratch->length ? scratch->data : "", &width_only);
            return;
        } else {
            etl_textbuf_printf(scratch, "%g", d); /* tracefmt prints %!s! of an ItemDouble as printf's %g */
        }
        break;
    }
    case WPP_ITEM_STRING: case WPP_ITEM_RSTRING: case WPP_ITEM_PSTRING: etl_render_ansi(scratch, p, size); break;
    case WPP_ITEM_WSTRING: case WPP_ITEM_RWSTRING: case WPP_ITEM_PWSTRING: etl_render_utf16(scratch, p, size); break;
    case WPP_ITEM_SID: etl_render_sid(scratch, p, size); break;
    case WPP_ITEM_GUID: {
        etl_guid g = etl_guid_read(p);
        etl_guid_format(&g, buf, 0);
        buf[37] = '\0';
        etl_textbuf_puts(scratch, buf + 1);
        break;
    }
    case WPP_ITEM_NTSTATUS: put_status(scratch, (uint32_t)u, wpp_ntstatus_name((uint32_t)u), 0); break;
    case WPP_ITEM_HRESULT: put_status(scratch, (uint32_t)u, wpp_hresult_name((uint32_t)u), 0); break;
    case WPP_ITEM_WINERROR: put_status(scratch, (uint32_t)u, wpp_win32_error_name((uint32_t)u), 1); break;
    case WPP_ITEM_NDIS_STATUS: put_status(scratch, (uint32_t)u, wpp_ndis_status_name((uint32_t)u), 0); break;
    case WPP_ITEM_NDIS_OID: put_status(scratch, (uint32_t)u, wpp_ndis_oid_name((uint32_t)u), 0); break;
    case WPP_ITEM_IPADDR: etl_textbuf_printf(scratch, "%u.%u.%u.%u", p[0], p[1], p[2], p[3]); break;
    case WPP_ITEM_IPV6ADDR: etl_render_ipv6(scratch, p); break;
    case WPP_ITEM_PORT: etl_textbuf_printf(scratch, "%u", (unsigned)(p[0] << 8 | p[1])); break;
    case WPP_ITEM_CHAR4:
        for (int i = 0; i < 4; i++) etl_textbuf_putc(scratch, p[i] >= 0x20 && p[i] < 0x7F ? (char)p[i] : '.');
        break;
    case WPP_ITEM_TIMESTAMP: put_time(scratch, (int64_t)u); break;
    case WPP_ITEM_WAITTIME:
        if ((int64_t)u > 0) put_time(scratch, (int64_t)u);
        else { /* negative: relative to the moment of the wait */
            put_interval(scratch, 0, magnitude_of((int64_t)u));
            etl_textbuf_puts(scratch, " (relative)");
        }
        break;
    case WPP_ITEM_TIMEDELTA: put_interval(scratch, (int64_t)u < 0, magnitude_of((int64_t)u)); break;
    case WPP_ITEM_LISTBYTE: case WPP_ITEM_LISTSHORT: case WPP_ITEM_LISTLONG:
        put_status(scratch, (uint32_t)u, u < arg->list_count ? arg->list[u] : NULL, 0);
        break;
    case WPP_ITEM_SETBYTE: case WPP_ITEM_SETSHORT: case WPP_ITEM_SETLONG: {
        etl_textbuf_putc(scratch, '[');
        int first = 1;
        for (unsigned bit = 0; bit < bits; bit++) {
            if (!(u >> bit & 1)) continue;
            if (!first) etl_textbuf_putc(scratch, ',');
            if (bit < arg->list_count) etl_textbuf_puts(scratch, arg->list[bit]);
            else etl_textbuf_printf(scratch, "%u", bit + 1);
            first = 0;
        }
        etl_textbuf_putc(scratch, ']');
        break;
    }
    case WPP_ITEM_ENUM: put_enum(scratch, u, en, 0); break;
    case WPP_ITEM_FLAGSENUM: put_enum(scratch, u, en, 1); break;
    case WPP_ITEM_HEXDUMP: etl_render_hex(scratch, p, size, 0); break;
    default: etl_render_hex(scratch, p, size, 1); break;
    }
    if (scratch->failed) {
        out->failed = 1;
        return;
    }
    wpp_put_text(out, scratch->length ? scratch->data : "", spec);
}
