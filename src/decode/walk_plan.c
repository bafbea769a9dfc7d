/* Walk plans (see walk.h): what the walker decides once per description instead of once per value. Also the
 * sizing rules both the plan and the walk use. */
#include <stdlib.h>
#include <string.h>

#include "decode/render_int.h"
#include "decode/walk.h"

/* An upper bound of the text one value renders to, NUL included: no form takes more than 4 bytes per payload
 * byte plus 64 (UTF-16 and ANSI text 3 per unit, hex 2 per byte, GUID, time and number forms under 64), and a
 * map adds at most all its names with separators. */
size_t etl_walk_map_text_bound(const etl_map_info *map)
{
    size_t n = 24;
    if (map)
        for (uint32_t i = 0; i < map->entry_count; i++) n += 3 + (map->entries[i].name ? strlen(map->entries[i].name) : 0);
    return n;
}

size_t etl_walk_fixed_size(const etl_property_info *prop, size_t pointer_size, int *variable)
{
    *variable = 0;
    switch (prop->in_type) {
    case ETL_IN_NULL: return 0;
    case ETL_IN_INT8:
    case ETL_IN_UINT8:
    case ETL_IN_ANSICHAR: return 1;
    case ETL_IN_INT16:
    case ETL_IN_UINT16:
    case ETL_IN_UNICODECHAR: return 2;
    case ETL_IN_INT32:
    case ETL_IN_UINT32:
    case ETL_IN_HEXINT32:
    case ETL_IN_FLOAT: return 4;
    case ETL_IN_INT64:
    case ETL_IN_UINT64:
    case ETL_IN_HEXINT64:
    case ETL_IN_DOUBLE:
    case ETL_IN_FILETIME: return 8;
    case ETL_IN_GUID:
    case ETL_IN_SYSTEMTIME: return 16;
    case ETL_IN_POINTER:
    case ETL_IN_SIZET: return pointer_size;
    /* Win32 BOOL is 4 bytes; the kernel MOF `boolean` is 1, which a source says with length 1 */
    case ETL_IN_BOOLEAN: return prop->length == 1 ? 1 : 4;
    default: *variable = 1; return 0;
    }
}

int etl_walk_is_integer_type(uint16_t in_type)
{
    switch (in_type) {
    case ETL_IN_INT8: case ETL_IN_UINT8: case ETL_IN_INT16: case ETL_IN_UINT16: case ETL_IN_INT32:
    case ETL_IN_UINT32: case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_BOOLEAN: case ETL_IN_POINTER:
    case ETL_IN_SIZET: case ETL_IN_HEXINT32: case ETL_IN_HEXINT64: return 1;
    default: return 0;
    }
}

/* A top-level plain integer that is no array (walk_property would hand it straight to walk_value). */
static int is_plain_scalar(const etl_walk_plan *plan, const etl_property_info *prop, uint32_t i)
{
    return plan->style[i] &&
           !(prop->flags & (ETL_PROP_INLINE_COUNT | ETL_PROP_PARAM_COUNT | ETL_PROP_PARAM_FIXED_COUNT)) &&
           prop->count <= 1;
}

/* Runs of top-level plain scalars, for the walker's one-loop path: the count starting at each property, their
 * bytes at both pointer sizes, and each one's field as the general path fills it (value left to the walk). */
static int build_runs(etl_walk_plan *plan, const etl_event_info *info)
{
    uint32_t tops = info->top_level_count <= info->property_count ? info->top_level_count : info->property_count;
    if (!tops) return 0;
    plan->run = calloc(tops, 3 * sizeof *plan->run);
    plan->fields = malloc(tops * sizeof *plan->fields);
    if (!plan->run || !plan->fields) return -1;
    plan->run_bytes[0] = plan->run + tops;
    plan->run_bytes[1] = plan->run + 2 * (size_t)tops;
    for (uint32_t i = tops; i-- > 0;) {
        const etl_property_info *prop = &info->properties[i];
        plan->fields[i] = (etl_field){ETL_FIELD_VALUE, prop->name ? prop->name : "", NULL, prop->in_type,
                                      prop->out_type, 0, -1, prop};
        if (!is_plain_scalar(plan, prop, i)) continue;
        int next = i + 1 < tops;
        plan->run[i] = 1 + (next ? plan->run[i + 1] : 0);
        plan->run_bytes[0][i] = (plan->size[i] ? plan->size[i] : 4) + (next ? plan->run_bytes[0][i + 1] : 0);
        plan->run_bytes[1][i] = (plan->size[i] ? plan->size[i] : 8) + (next ? plan->run_bytes[1][i + 1] : 0);
    }
    return 0;
}

int etl_walk_plan_build(etl_walk_plan *plan, const etl_event_info *info)
{
    memset(plan, 0, sizeof *plan);
    if (!info->property_count) return 0;
    uint8_t *style = calloc(3, info->property_count);
    if (!style) return -1;
    plan->property_count = info->property_count;
    plan->style = style;
    plan->size = style + info->property_count;
    plan->utf16z = style + 2 * (size_t)info->property_count;
    for (uint32_t i = 0; i < info->property_count && !plan->map_bound; i++)
        if (info->properties[i].map && info->properties[i].map->entry_count) {
            plan->map_bound = calloc(info->property_count, sizeof *plan->map_bound);
            if (!plan->map_bound) {
                etl_walk_plan_free(plan);
                return -1;
            }
        }
    for (uint32_t i = 0; plan->map_bound && i < info->property_count; i++)
        plan->map_bound[i] = etl_walk_map_text_bound(info->properties[i].map);
    for (uint32_t i = 0; i < info->property_count; i++) {
        const etl_property_info *prop = &info->properties[i];
        plan->utf16z[i] = prop->in_type == ETL_IN_UNICODESTRING && prop->out_type != ETL_OUT_NOPRINT &&
                          !prop->length &&
                          !(prop->flags & (ETL_PROP_STRUCT | ETL_PROP_PARAM_LENGTH | ETL_PROP_PARAM_FIXED_LENGTH |
                                           ETL_PROP_INLINE_LENGTH));
        if ((prop->flags & (ETL_PROP_STRUCT | ETL_PROP_INLINE_LENGTH)) || !etl_walk_is_integer_type(prop->in_type) ||
            prop->out_type == ETL_OUT_NOPRINT || (prop->map && prop->map->entry_count))
            continue;
        int variable;
        size_t size4 = etl_walk_fixed_size(prop, 4, &variable), size8 = etl_walk_fixed_size(prop, 8, &variable);
        etl_int_style style = etl_int_style_of(prop->in_type, prop->out_type, size8, 1);
        /* pointer-sized values: the same form at both sizes, or the general path */
        if (style == ETL_INT_OTHER || etl_int_style_of(prop->in_type, prop->out_type, size4, 1) != style) continue;
        plan->style[i] = (uint8_t)style;
        plan->size[i] = size4 == size8 ? (uint8_t)size8 : 0;
    }
    if (build_runs(plan, info) != 0) {
        etl_walk_plan_free(plan);
        return -1;
    }
    return 0;
}

void etl_walk_plan_free(etl_walk_plan *plan)
{
    free(plan->style);
    free(plan->map_bound);
    free(plan->run);
    free(plan->fields);
    memset(plan, 0, sizeof *plan);
}
