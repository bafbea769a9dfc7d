/* The in/out type → value kind rule (value_kind.h). It follows what render.c writes for each type, so the
 * typed writers can trust the rendered text of a kind (decimal or 0x hex for integers, "true"/"false"). */
#include "decode/value_kind.h"

#include <string.h>

#include "util/le.h"

static int is_integer_in_type(uint16_t in_type)
{
    switch (in_type) {
    case ETL_IN_INT8: case ETL_IN_UINT8: case ETL_IN_INT16: case ETL_IN_UINT16: case ETL_IN_INT32:
    case ETL_IN_UINT32: case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_HEXINT32: case ETL_IN_HEXINT64:
    case ETL_IN_SIZET: return 1;
    default: return 0;
    }
}

etl_value_kind etl_value_kind_of(uint16_t in_type, uint16_t out_type, const etl_map_info *map)
{
    if (in_type == ETL_IN_FLOAT || in_type == ETL_IN_DOUBLE) return ETL_VALUE_FLOAT;
    if (in_type == ETL_IN_BOOLEAN) return map && map->entry_count ? ETL_VALUE_MAPPED : ETL_VALUE_BOOLEAN;
    if (!is_integer_in_type(in_type)) return ETL_VALUE_STRING;  /* POINTER included: an address */
    if (map && map->entry_count) return ETL_VALUE_MAPPED;
    switch (out_type) {
    case ETL_OUT_STRING:          /* a character (INT8/UINT16 + xs:string) */
    case ETL_OUT_IPV4:
    case ETL_OUT_ETWTIME:
    case ETL_OUT_DATETIME:
    case ETL_OUT_DATETIME_UTC:
    case ETL_OUT_CULTURE_INSENSITIVE_DATETIME:
    case ETL_OUT_CODE_POINTER:
    /* hex display: identifiers, flags and status codes, often above 2^53; their "0x" text is exact */
    case ETL_OUT_HEXINT8:
    case ETL_OUT_HEXINT16:
    case ETL_OUT_HEXINT32:
    case ETL_OUT_HEXINT64:
    case ETL_OUT_ERRORCODE:
    case ETL_OUT_WIN32ERROR:
    case ETL_OUT_NTSTATUS:
    case ETL_OUT_HRESULT: return ETL_VALUE_STRING;
    case ETL_OUT_BOOLEAN: return ETL_VALUE_BOOLEAN;
    case ETL_OUT_BYTE: case ETL_OUT_SHORT: case ETL_OUT_INT: case ETL_OUT_LONG: case ETL_OUT_UNSIGNEDBYTE:
    case ETL_OUT_UNSIGNEDSHORT: case ETL_OUT_UNSIGNEDINT: case ETL_OUT_UNSIGNEDLONG: case ETL_OUT_PID:
    case ETL_OUT_TID: case ETL_OUT_PORT: return ETL_VALUE_INTEGER;
    default:  /* render.c then goes by the in-type: HexInt and SizeT in hex, the rest in decimal */
        return in_type == ETL_IN_HEXINT32 || in_type == ETL_IN_HEXINT64 || in_type == ETL_IN_SIZET
                   ? ETL_VALUE_STRING : ETL_VALUE_INTEGER;
    }
}

etl_value_kind etl_property_value_kind(const etl_property_info *prop)
{
    if (prop->flags & ETL_PROP_STRUCT) return ETL_VALUE_STRING;
    return etl_value_kind_of(prop->in_type, prop->out_type, prop->map);
}

int etl_value_is_wide(uint16_t in_type)
{
    return in_type == ETL_IN_INT64 || in_type == ETL_IN_UINT64 || in_type == ETL_IN_HEXINT64 ||
           in_type == ETL_IN_SIZET;
}

const char *etl_value_integer_text(const char *s)
{
    if (!s) return NULL;
    const char *p = s + (s[0] == '-');
    if (*p < '0' || *p > '9' || (*p == '0' && p[1])) return NULL;  /* JSON: no leading zeros */
    for (; *p; p++)
        if (*p < '0' || *p > '9') return NULL;
    return s;
}

int etl_value_mapped_number(const etl_field_bytes *b, uint64_t *out)
{
    if (!b || !b->data) return 0;
    switch (b->size) {
    case 1: *out = b->data[0]; return 1;
    case 2: *out = etl_le16(b->data); return 1;
    case 4: *out = etl_le32(b->data); return 1;
    case 8: *out = etl_le64(b->data); return 1;
    default: return 0;
    }
}

int etl_value_is_json_number(const char *s)
{
    if (!s) return 0;
    if (*s == '-') s++;
    if (*s == '0') s++;
    else if (*s >= '1' && *s <= '9') while (*s >= '0' && *s <= '9') s++;
    else return 0;
    if (*s == '.') {
        s++;
        if (*s < '0' || *s > '9') return 0;
        while (*s >= '0' && *s <= '9') s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (*s < '0' || *s > '9') return 0;
        while (*s >= '0' && *s <= '9') s++;
    }
    return *s == '\0';
}

const char *etl_value_kind_name(etl_value_kind kind)
{
    static const char *const names[] = {"string", "integer", "float", "boolean", "mapped"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "string";
}
