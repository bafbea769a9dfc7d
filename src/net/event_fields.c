/* Top-level fields of a decoded event by name, back to numbers and bytes (see event_fields.h). */
#include "net/event_fields.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const etl_field *net_field(const etl_decoded_event *ev, const char *name)
{
    for (size_t i = 0; i < ev->field_count; i++) {
        const etl_field *f = &ev->fields[i];
        if (f->depth == 0 && f->kind == ETL_FIELD_VALUE && f->name && strcmp(f->name, name) == 0) return f;
    }
    return NULL;
}

int net_field_u64(const etl_decoded_event *ev, const char *name, uint64_t *out)
{
    const etl_field *f = net_field(ev, name);
    if (!f || !f->value || !f->value[0]) return -1;
    const char *v = f->value;
    if (v[0] >= '0' && v[0] <= '9') {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(v, &end, 0);
        if (errno == 0 && *end == '\0') {
            *out = n;
            return 0;
        }
    }
    /* a value map rendered the name: find the number it stands for */
    const etl_map_info *map = f->property ? f->property->map : NULL;
    if (map && (map->flags & (ETL_MAP_BITMAP | ETL_MAP_WBEM_BITMAP)) == 0)
        for (uint32_t k = 0; k < map->entry_count; k++)
            if (map->entries[k].name && strcmp(map->entries[k].name, v) == 0) {
                *out = map->entries[k].value;
                return 0;
            }
    return -1;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

long net_field_bytes(const etl_decoded_event *ev, const char *name, uint8_t *dst, size_t cap)
{
    const etl_field *f = net_field(ev, name);
    if (!f || !f->value) return -1;
    const char *v = f->value;
    if (v[0] == '\0') return 0;
    if (v[0] != '0' || (v[1] != 'x' && v[1] != 'X')) return -1;
    v += 2;
    size_t digits = strlen(v);
    if (digits % 2 || digits / 2 > cap) return -1;
    for (size_t i = 0; i < digits / 2; i++) {
        int hi = hex_digit(v[2 * i]), lo = hex_digit(v[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        dst[i] = (uint8_t)(hi << 4 | lo);
    }
    return (long)(digits / 2);
}

const char *net_field_text(const etl_decoded_event *ev, const char *name)
{
    const etl_field *f = net_field(ev, name);
    return f && f->value ? f->value : "";
}
