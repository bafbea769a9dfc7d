/* Property walker: turns a payload and its event description into a flat list of typed, rendered fields.
 * Sizes every TDH in-type (pointer-size types from the record, SIDs, counted/terminated strings, lengths and
 * counts fixed or taken from earlier properties, TraceLogging inline counts/lengths, nested structs, arrays of
 * structs) and never reads past the payload. All storage is owned by the etl_walk and reused between events. */
#ifndef ETL_DECODE_WALK_H
#define ETL_DECODE_WALK_H

#include "decode/render.h"

/* Upper bound on fields per event: a 64 KiB payload has far fewer real values; hostile counts of zero-size
 * elements stop here instead of exhausting memory. */
#define ETL_WALK_MAX_FIELDS 131072u
#define ETL_WALK_MAX_DEPTH 32u
/* Amplification caps (docs/robustness.md). A real array has at most 65535 elements (a u16 count; an event
 * payload is < 64 KiB, so elements of ≥ 1 byte cannot be more). Elements that occupy no payload bytes (a
 * zero-length string or binary, a struct of such) cost output but no input: at most 256 per event. And at
 * most 1 MiB of rendered text per event (a 64 KiB payload renders to far less). Past a cap the event stops
 * there and is marked as a decode error ("truncated: ..."). */
#define ETL_WALK_MAX_ARRAY_ELEMENTS 65535u
#define ETL_WALK_MAX_ZERO_WIDTH 256u
#define ETL_WALK_MAX_TEXT (1u << 20)

typedef struct etl_walk {
    /* output of the last etl_walk_event */
    etl_field *fields;
    size_t field_count;
    size_t consumed;        /* payload bytes decoded */
    char error[256];        /* ETL_DECODE_ERROR: why (property name, payload offset) */
    /* top_first[i] = index of the first field of top-level property i; top_first[top_level_count] = end;
     * top_text[i] = where its text starts in `text` (values' texts follow one another, each with its NUL) */
    size_t *top_first;
    size_t *top_text;

    /* reusable storage */
    etl_textbuf text;
    etl_field_bytes *bytes; /* per field: the value's own bytes in the payload (typed writers) */
    size_t field_capacity;
    uint64_t *values;       /* per property index: last integer value (for PARAM_LENGTH/PARAM_COUNT) */
    uint32_t *value_epoch;  /* values[i] is valid when value_epoch[i] == epoch */
    size_t values_capacity;
    size_t top_capacity;
    uint32_t epoch;
} etl_walk;

/* What the walker can decide once per description instead of once per value: for each property, whether it
 * is a fixed-size integer printed as a plain number (style: etl_int_style, 0 = the general path) and its size
 * (0 = the record's pointer size). Built by etl_walk_plan_build; a plan belongs to one description. */
typedef struct etl_walk_plan {
    uint32_t property_count;
    uint8_t *style;
    uint8_t *size;
    uint32_t *map_bound;  /* per property with a value map: most text its names can add (NULL: no maps) */
    uint8_t *utf16z;      /* per property: a NUL-terminated UTF-16 string without a length (its own fast path) */
    /* per top-level property: how many plain scalars (styled, no array) follow from it on, itself included
     * (0: it is none), and their payload bytes for 4- and 8-byte pointers (run_bytes[0] / [1]); its field as
     * the walk fills it, `value` aside. NULL when the description has no top-level property. */
    uint32_t *run;
    uint32_t *run_bytes[2];
    etl_field *fields;
} etl_walk_plan;

/* The sizing rules the walk and its plans share (walk_plan.c). Natural size of fixed-size in-types, 0 with
 * *variable = 1 for the others; an upper bound of the text a value map can add. */
size_t etl_walk_fixed_size(const etl_property_info *prop, size_t pointer_size, int *variable);
int etl_walk_is_integer_type(uint16_t in_type);
size_t etl_walk_map_text_bound(const etl_map_info *map);

/* 0, or -1 when out of memory (the plan is then empty and the walk takes the general path). */
int etl_walk_plan_build(etl_walk_plan *plan, const etl_event_info *info);
void etl_walk_plan_free(etl_walk_plan *plan);

void etl_walk_init(etl_walk *w);
void etl_walk_free(etl_walk *w);

/* Returns ETL_DECODE_OK (all properties decoded; bytes may remain after the last one — newer event versions
 * append fields, and tracerpt ignores them), ETL_DECODE_ERROR (stopped at the first value that does not fit;
 * fields decoded so far are kept, structs/arrays left open are closed, and `error` says why), or
 * ETL_ERR_NOMEM. */
int etl_walk_event(etl_walk *w, const etl_event_info *info, const uint8_t *payload, size_t size,
                   const etl_render_context *ctx);
/* The same with the plan built for `info` (NULL: none); the fields and text are identical. */
int etl_walk_event_planned(etl_walk *w, const etl_event_info *info, const etl_walk_plan *plan,
                           const uint8_t *payload, size_t size, const etl_render_context *ctx);
/* How etl_walk_event would end, without rendering (for events nobody will see, so that the statistics stay
 * those of a full decode): ETL_DECODE_OK with `consumed` set when it would decode completely, or
 * ETL_WALK_NEEDS_RENDERING when it would stop (the error message needs the full walk) or its text could reach
 * the cap, or ETL_ERR_NOMEM. `fields` and `text` are left unusable. */
#define ETL_WALK_NEEDS_RENDERING 100
int etl_walk_event_sized(etl_walk *w, const etl_event_info *info, const etl_walk_plan *plan, const uint8_t *payload,
                         size_t size, const etl_render_context *ctx);

#endif
