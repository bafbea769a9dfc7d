/* Property walker (see walk.h). Layout rules: docs/schemas.md §1.4, docs/etl-format.md §5.1, §5.5, §5.6.
 *
 * Length/count conventions of etl_property_info, as TDH's EVENT_PROPERTY_INFO:
 *  - a property is an array when it has PARAM_COUNT, FIXED_COUNT or INLINE_COUNT, or when `count` > 1 without
 *    flags (TDH's older fixed-array form); otherwise it is a scalar (TDH stores count = 1 there);
 *  - `length` applies only to strings and binaries (TDH also stores the natural size of fixed-size types in it,
 *    which we ignore): UTF-16 lengths count characters, ANSI and binary lengths count bytes. A length of 0
 *    means "natural size" unless FIXED_LENGTH says it is a real 0;
 *  - PARAM_LENGTH / PARAM_COUNT name an already decoded integer property by index. */
#include "decode/walk_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/render_int.h"
#include "util/le.h"

/* An upper bound of the text one value renders to, NUL included (see etl_walk_map_text_bound). */
static size_t value_text_bound(const walk_state *s, uint32_t index, size_t len)
{
    const etl_property_info *prop = &s->info->properties[index];
    size_t bound = 4 * len + 65;
    if (prop->map && prop->map->entry_count)
        bound += s->plan && s->plan->map_bound ? s->plan->map_bound[index] : etl_walk_map_text_bound(prop->map);
    return bound;
}

void etl_walk_init(etl_walk *w) { memset(w, 0, sizeof *w); }

void etl_walk_free(etl_walk *w)
{
    free(w->fields);
    free(w->bytes);
    free(w->values);
    free(w->value_epoch);
    free(w->top_first);
    free(w->top_text);
    etl_textbuf_free(&w->text);
    memset(w, 0, sizeof *w);
}

static const char *prop_name(const etl_property_info *p) { return p->name ? p->name : "?"; }

static int fail(walk_state *s, const etl_property_info *prop, const char *fmt, ...)
{
    char why[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(s->w->error, sizeof s->w->error, "property '%s' at payload offset %zu: %s", prop_name(prop), s->pos,
             why);
    etl_utf8_trim_partial(s->w->error);
    return WALK_STOP;
}


int etl_walk_grow_fields(etl_walk *w)
{
    size_t cap = w->field_capacity ? w->field_capacity * 2 : 64;
    etl_field *f = realloc(w->fields, cap * sizeof *f);
    if (!f) return -1;
    w->fields = f;
    etl_field_bytes *b = realloc(w->bytes, cap * sizeof *b);
    if (!b) return -1;
    w->bytes = b;
    w->field_capacity = cap;
    return 0;
}

static inline int push_field(walk_state *s, etl_field_kind kind, const etl_property_info *prop, unsigned depth,
                      int32_t array_index)
{
    etl_walk *w = s->w;
    if (w->field_count >= ETL_WALK_MAX_FIELDS)
        return fail(s, prop, "more than %u fields in one event", ETL_WALK_MAX_FIELDS);
    if (w->field_count == w->field_capacity && etl_walk_grow_fields(w) != 0) return WALK_NOMEM;
    w->bytes[w->field_count] = (etl_field_bytes){NULL, 0};
    etl_field *f = &w->fields[w->field_count];
    f->kind = kind;
    f->name = prop->name ? prop->name : "";
    /* a value's text starts here (walk_event redoes a walk during which the text buffer moved) */
    f->value = kind == ETL_FIELD_VALUE ? w->text.data + w->text.length : NULL;
    f->in_type = prop->in_type;
    f->out_type = prop->out_type;
    f->depth = (uint16_t)depth;
    f->array_index = array_index;
    f->property = prop;
    w->field_count++;
    return WALK_OK;
}

/* The value of an earlier integer property, for PARAM_LENGTH / PARAM_COUNT. */
static int referenced_value(walk_state *s, const etl_property_info *prop, uint16_t index, const char *what,
                            uint64_t *out)
{
    if (index >= s->info->property_count || s->w->value_epoch[index] != s->w->epoch)
        return fail(s, prop, "%s comes from property #%u, which holds no decoded integer", what, index);
    *out = s->w->values[index];
    return WALK_OK;
}

/* has_length = 0 when the property has no explicit length (natural size). */
static int resolve_length(walk_state *s, const etl_property_info *prop, int *has_length, uint64_t *length)
{
    *has_length = 1;
    if (prop->flags & ETL_PROP_PARAM_LENGTH) return referenced_value(s, prop, prop->length, "length", length);
    *length = prop->length;
    *has_length = (prop->flags & ETL_PROP_PARAM_FIXED_LENGTH) || prop->length != 0;
    return WALK_OK;
}

static int need(walk_state *s, const etl_property_info *prop, uint64_t bytes, const char *what)
{
    if (bytes > remaining(s))
        return fail(s, prop, "%s needs %llu bytes, %zu left", what, (unsigned long long)bytes, remaining(s));
    return WALK_OK;
}

/* Where a NUL-terminated string ends: *value_len excludes the terminator, *advance includes it. A missing
 * terminator takes the rest of the payload (TDH tolerates an unterminated last string). */
static void scan_terminated(const uint8_t *p, size_t avail, size_t unit, size_t *value_len, size_t *advance)
{
    size_t i = 0;
    if (unit == 1) {
        const uint8_t *nul = avail ? memchr(p, 0, avail) : NULL;
        i = nul ? (size_t)(nul - p) : avail;
    } else {
#if defined(__SSE2__)
        for (; i + 16 <= avail; i += 16) { /* eight units at a time up to the block holding the NUL */
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
            if (_mm_movemask_epi8(_mm_cmpeq_epi16(x, _mm_setzero_si128()))) break;
        }
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        for (uint64_t x; i + 8 <= avail; i += 8) { /* four units at a time up to the block holding the NUL */
            memcpy(&x, p + i, 8);
            if (etl_utf16_has_zero(x)) break;
        }
#endif
    }
    for (; i + unit <= avail; i += unit) {
        if (p[i] == 0 && (unit == 1 || p[i + 1] == 0)) {
            *value_len = i;
            *advance = i + unit;
            return;
        }
    }
    *value_len = avail - avail % unit;
    *advance = avail;
}

/* Sizes the value at s->pos: its own bytes [*start, *start + *len) and the bytes it occupies (*advance). */
static int size_value(walk_state *s, const etl_property_info *prop, size_t *start, size_t *len, size_t *advance)
{
    const uint8_t *p = s->payload + s->pos;
    size_t avail = remaining(s);
    size_t pointer_size = s->ctx && s->ctx->pointer_size == 4 ? 4 : 8;
    int variable, rc;
    *start = 0;

    if (prop->flags & ETL_PROP_INLINE_LENGTH) { /* TraceLogging: u16 byte count, then the bytes */
        if ((rc = need(s, prop, 2, "length prefix"))) return rc;
        size_t n = etl_le16(p);
        if ((rc = need(s, prop, 2 + (uint64_t)n, "value"))) return rc;
        *start = 2, *len = n, *advance = 2 + n;
        return WALK_OK;
    }
    size_t fixed = etl_walk_fixed_size(prop, pointer_size, &variable);
    if (!variable) {
        if ((rc = need(s, prop, fixed, "value"))) return rc;
        *len = *advance = fixed;
        return WALK_OK;
    }

    int has_length;
    uint64_t length = 0; /* resolve_length sets it when has_length; -O3 cannot see that */
    if ((rc = resolve_length(s, prop, &has_length, &length))) return rc;
    switch (prop->in_type) {
    case ETL_IN_UNICODESTRING:
    case ETL_IN_ANSISTRING:
    case ETL_IN_NONNULLTERMINATEDSTRING:
    case ETL_IN_NONNULLTERMINATEDANSISTRING: {
        size_t unit = prop->in_type == ETL_IN_UNICODESTRING || prop->in_type == ETL_IN_NONNULLTERMINATEDSTRING ? 2 : 1;
        if (has_length) {
            if (length > avail / unit) return fail(s, prop, "string of %llu characters, %zu bytes left",
                                                  (unsigned long long)length, avail);
            *len = *advance = (size_t)length * unit;
        } else if (prop->in_type == ETL_IN_UNICODESTRING || prop->in_type == ETL_IN_ANSISTRING) {
            scan_terminated(p, avail, unit, len, advance);
        } else {
            *len = avail - avail % unit; /* to the end of the payload */
            *advance = avail;
        }
        return WALK_OK;
    }
    case ETL_IN_MANIFEST_COUNTEDSTRING:
    case ETL_IN_MANIFEST_COUNTEDANSISTRING:
    case ETL_IN_MANIFEST_COUNTEDBINARY:
    case ETL_IN_COUNTEDSTRING:
    case ETL_IN_COUNTEDANSISTRING:
    case ETL_IN_REVERSEDCOUNTEDSTRING:
    case ETL_IN_REVERSEDCOUNTEDANSISTRING: {
        if ((rc = need(s, prop, 2, "byte-count prefix"))) return rc;
        int big_endian = prop->in_type == ETL_IN_REVERSEDCOUNTEDSTRING ||
                         prop->in_type == ETL_IN_REVERSEDCOUNTEDANSISTRING;
        size_t n = big_endian ? (size_t)(p[0] << 8 | p[1]) : etl_le16(p);
        if ((rc = need(s, prop, 2 + (uint64_t)n, "counted value"))) return rc;
        *start = 2, *len = n, *advance = 2 + n;
        return WALK_OK;
    }
    case ETL_IN_HEXDUMP: {
        if ((rc = need(s, prop, 4, "byte-count prefix"))) return rc;
        uint64_t n = etl_le32(p);
        if ((rc = need(s, prop, 4 + n, "hex dump"))) return rc;
        *start = 4, *len = (size_t)n, *advance = 4 + (size_t)n;
        return WALK_OK;
    }
    case ETL_IN_BINARY:
        if (!has_length) {
            if (prop->out_type == ETL_OUT_IPV6) length = 16;
            else length = avail; /* no length at all: the rest of the payload */
        }
        if ((rc = need(s, prop, length, "binary"))) return rc;
        *len = *advance = (size_t)length;
        return WALK_OK;
    case ETL_IN_SID: {
        if ((rc = need(s, prop, 8, "SID header"))) return rc;
        size_t n = 8 + 4 * (size_t)p[1];
        if ((rc = need(s, prop, n, "SID"))) return rc;
        *len = *advance = n;
        return WALK_OK;
    }
    case ETL_IN_WBEMSID: {
        /* TOKEN_USER {PSID Sid; DWORD Attributes} padded to two pointers, then the SID; a zero first u32
         * means "no SID" and the field is 4 bytes long */
        if ((rc = need(s, prop, 4, "WBEMSID"))) return rc;
        if (etl_le32(p) == 0) {
            *start = 4, *len = 0, *advance = 4;
            return WALK_OK;
        }
        size_t header = 2 * pointer_size;
        if ((rc = need(s, prop, header + 8, "WBEMSID header"))) return rc;
        size_t n = 8 + 4 * (size_t)p[header + 1];
        if ((rc = need(s, prop, header + n, "WBEMSID"))) return rc;
        *start = header, *len = n, *advance = header + n;
        return WALK_OK;
    }
    default: return fail(s, prop, "unsupported in-type %u", prop->in_type);
    }
}

static int walk_scalar(walk_state *s, uint32_t index, unsigned depth, int32_t array_index)
{
    const etl_property_info *prop = &s->info->properties[index];
    size_t start = 0, len = 0, advance = 0;
    int rc = size_value(s, prop, &start, &len, &advance);
    if (rc) return rc;
    const uint8_t *value = s->payload + s->pos + start;
    if (etl_walk_is_integer_type(prop->in_type) && (len == 1 || len == 2 || len == 4 || len == 8)) {
        uint64_t v = len == 1 ? value[0] : len == 2 ? etl_le16(value) : len == 4 ? etl_le32(value) : etl_le64(value);
        s->w->values[index] = v;
        s->w->value_epoch[index] = s->w->epoch;
    }
    if (prop->out_type != ETL_OUT_NOPRINT) {
        if ((rc = push_field(s, ETL_FIELD_VALUE, prop, depth, array_index))) return rc;
        s->w->bytes[s->w->field_count - 1] = (etl_field_bytes){value, (uint32_t)len};
        if (s->sizing) {
            s->text_bound += value_text_bound(s, index, len);
            s->pos += advance;
            return WALK_OK;
        }
        etl_render_value(&s->w->text, prop->in_type, prop->out_type, prop->map, value, len, s->ctx);
        etl_textbuf_putc(&s->w->text, '\0'); /* each value is its own C string inside `text` */
        if (s->w->text.failed) return WALK_NOMEM;
    }
    s->pos += advance;
    return WALK_OK;
}

/* A fixed-size integer printed as a number (the plan says so): what walk_scalar does for it, without sizing
 * and rendering through the general switches. */
static inline int walk_plain_integer(walk_state *s, uint32_t index, unsigned depth, int32_t array_index, size_t size)
{
    const etl_property_info *prop = &s->info->properties[index];
    const uint8_t *value = s->payload + s->pos;
    uint64_t v = plain_value(value, size);
    etl_walk *w = s->w;
    w->values[index] = v;
    w->value_epoch[index] = w->epoch;
    int rc = push_field(s, ETL_FIELD_VALUE, prop, depth, array_index);
    if (rc) return rc;
    w->bytes[w->field_count - 1] = (etl_field_bytes){value, (uint32_t)size};
    s->pos += size;
    if (s->sizing) {
        s->text_bound += ETL_INT_TEXT_MAX + 1;
        return WALK_OK;
    }
    if (reserve_text(&w->text, ETL_INT_TEXT_MAX + 1) != 0) return WALK_NOMEM;
    char *out = w->text.data + w->text.length;
    size_t n = etl_int_format(out, (etl_int_style)s->plan->style[index], v, size);
    out[n] = '\0'; /* each value is its own C string inside `text` */
    w->text.length += n + 1;
    w->text.data[w->text.length] = '\0';
    return WALK_OK;
}

static int walk_range(walk_state *s, uint32_t first, uint32_t count, unsigned depth);

static int walk_element(walk_state *s, uint32_t index, unsigned depth, int32_t array_index)
{
    const etl_property_info *prop = &s->info->properties[index];
    if (++s->steps > 4 * (size_t)ETL_WALK_MAX_FIELDS)
        return fail(s, prop, "more than %u values in one event", 4 * ETL_WALK_MAX_FIELDS);
    if (!(prop->flags & ETL_PROP_STRUCT)) return walk_scalar(s, index, depth, array_index);

    /* members follow their struct in the property array; anything else would allow cycles */
    if (prop->struct_start <= index || (uint32_t)prop->struct_start + prop->struct_count > s->info->property_count)
        return fail(s, prop, "struct members %u..%u out of range", prop->struct_start,
                    prop->struct_start + prop->struct_count);
    if (depth >= ETL_WALK_MAX_DEPTH) return fail(s, prop, "structs nested deeper than %u", ETL_WALK_MAX_DEPTH);
    int rc = push_field(s, ETL_FIELD_STRUCT_BEGIN, prop, depth, array_index);
    if (!rc) rc = walk_range(s, prop->struct_start, prop->struct_count, depth + 1);
    if (rc != WALK_OK && rc != WALK_END) return rc;
    int end = push_field(s, ETL_FIELD_STRUCT_END, prop, depth, array_index); /* an absent tail still closes it */
    return end ? end : rc;
}

/* A NUL-terminated UTF-16 string without a length (the plan says so): what walk_scalar does for it, without its
 * switches. Such a string always fits: without a terminator it takes the rest of the payload. */
static int walk_utf16z(walk_state *s, uint32_t index, unsigned depth, int32_t array_index)
{
    const etl_property_info *prop = &s->info->properties[index];
    const uint8_t *value = s->payload + s->pos;
    size_t len, advance;
    scan_terminated(value, remaining(s), 2, &len, &advance);
    int rc = push_field(s, ETL_FIELD_VALUE, prop, depth, array_index);
    if (rc) return rc;
    s->w->bytes[s->w->field_count - 1] = (etl_field_bytes){value, (uint32_t)len};
    s->pos += advance;
    if (s->sizing) {
        s->text_bound += value_text_bound(s, index, len);
        return WALK_OK;
    }
    etl_render_utf16(&s->w->text, value, len);
    etl_textbuf_putc(&s->w->text, '\0'); /* each value is its own C string inside `text` */
    return s->w->text.failed ? WALK_NOMEM : WALK_OK;
}

/* walk_element, with the plan's fast paths for plain integers and plain strings taken before any call. */
static inline int walk_value(walk_state *s, uint32_t index, unsigned depth, int32_t array_index)
{
    if (s->plan && s->steps < 4 * (size_t)ETL_WALK_MAX_FIELDS) {
        if (s->plan->style[index]) {
            size_t size = s->plan->size[index] ? s->plan->size[index] : s->pointer_size;
            if (size <= remaining(s)) {
                s->steps++; /* what walk_element counts */
                return walk_plain_integer(s, index, depth, array_index, size);
            }
        } else if (s->plan->utf16z[index]) {
            s->steps++;
            return walk_utf16z(s, index, depth, array_index);
        }
    }
    return walk_element(s, index, depth, array_index);
}

/* An array of 8- or 16-bit characters (TraceLogging CharArray / WCharArray: element out-type STRING) is one
 * counted string, as TDH renders it (etl-format.md §5.1, AMSITrace's "Raw Script"), not one field per char. */
static int is_char_array(const etl_property_info *prop)
{
    return !(prop->flags & ETL_PROP_STRUCT) && prop->out_type == ETL_OUT_STRING &&
           (prop->in_type == ETL_IN_INT8 || prop->in_type == ETL_IN_UINT8 || prop->in_type == ETL_IN_UINT16);
}

static int walk_char_array(walk_state *s, const etl_property_info *prop, uint64_t count, unsigned depth)
{
    size_t unit = prop->in_type == ETL_IN_UINT16 ? 2 : 1;
    int rc = need(s, prop, count * unit, "character array");
    if (rc) return rc;
    if ((rc = push_field(s, ETL_FIELD_VALUE, prop, depth, -1))) return rc;
    const uint8_t *p = s->payload + s->pos;
    size_t bytes = (size_t)count * unit;
    s->w->bytes[s->w->field_count - 1] = (etl_field_bytes){p, (uint32_t)bytes};
    if (s->sizing) {
        s->text_bound += 3 * bytes + 1;
        s->pos += bytes;
        return WALK_OK;
    }
    if (unit == 2) etl_render_utf16(&s->w->text, p, bytes);
    else etl_render_ansi(&s->w->text, p, bytes);
    etl_textbuf_putc(&s->w->text, '\0');
    if (s->w->text.failed) return WALK_NOMEM;
    s->pos += bytes;
    return WALK_OK;
}

int etl_walk_property(walk_state *s, uint32_t index, unsigned depth)
{
    const etl_property_info *prop = &s->info->properties[index];
    uint64_t count = 1;
    int is_array = 1, rc = WALK_OK;
    /* kernel MOF: the payload may end before this property or after any whole element (StackWalk frames) */
    int optional = (prop->flags & ETL_PROP_OPTIONAL_TAIL) != 0;
    if (optional && remaining(s) == 0) return WALK_END;
    if (prop->flags & ETL_PROP_INLINE_COUNT) {
        if ((rc = need(s, prop, 2, "element count"))) return rc;
        count = etl_le16(s->payload + s->pos);
        s->pos += 2;
    } else if (prop->flags & ETL_PROP_PARAM_COUNT) {
        if ((rc = referenced_value(s, prop, prop->count, "element count", &count))) return rc;
    } else if ((prop->flags & ETL_PROP_PARAM_FIXED_COUNT) || prop->count > 1) {
        count = prop->count;
    } else {
        is_array = 0;
    }
    if (!is_array) return walk_value(s, index, depth, -1);
    if (is_char_array(prop)) return walk_char_array(s, prop, count, depth);

    if (count > ETL_WALK_MAX_ARRAY_ELEMENTS)
        return fail(s, prop, "truncated: %llu elements, more than an array can hold (%u)", (unsigned long long)count,
                    ETL_WALK_MAX_ARRAY_ELEMENTS);
    if ((rc = push_field(s, ETL_FIELD_ARRAY_BEGIN, prop, depth, -1))) return rc;
    for (uint64_t i = 0; i < count && rc == WALK_OK; i++) {
        size_t before = s->pos;
        if (optional && remaining(s) == 0) rc = WALK_END; /* the payload may end on an element boundary */
        else rc = walk_value(s, index, depth + 1, (int32_t)(i > INT32_MAX ? INT32_MAX : i));
        if (rc == WALK_OK && s->pos == before && ++s->zero_width > ETL_WALK_MAX_ZERO_WIDTH)
            rc = fail(s, prop, "truncated: more than %u array elements that occupy no payload bytes",
                      ETL_WALK_MAX_ZERO_WIDTH);
        if (rc == WALK_OK && text_used(s) > ETL_WALK_MAX_TEXT)
            rc = fail(s, prop, "truncated: more than %u bytes of text in one event", ETL_WALK_MAX_TEXT);
    }
    if (rc != WALK_OK && rc != WALK_END) return rc;
    int end = push_field(s, ETL_FIELD_ARRAY_END, prop, depth, -1);
    return end ? end : rc;
}

static int walk_range(walk_state *s, uint32_t first, uint32_t count, unsigned depth)
{
    for (uint32_t i = first; i < first + count; i++) {
        int rc = etl_walk_property(s, i, depth);
        if (rc) return rc;
    }
    return WALK_OK;
}

/* After a stop: close the structs and arrays left open, so every field list is balanced for the writers. */
static int close_open_fields(walk_state *s)
{
    etl_walk *w = s->w;
    size_t open[2 * ETL_WALK_MAX_DEPTH + 4], n = 0;
    for (size_t i = 0; i < w->field_count; i++) {
        etl_field_kind k = w->fields[i].kind;
        if (k == ETL_FIELD_STRUCT_BEGIN || k == ETL_FIELD_ARRAY_BEGIN) {
            if (n < sizeof open / sizeof open[0]) open[n++] = i;
        } else if (k != ETL_FIELD_VALUE && n) {
            n--;
        }
    }
    while (n) {
        const etl_field begin = w->fields[open[--n]];
        etl_field_kind end = begin.kind == ETL_FIELD_STRUCT_BEGIN ? ETL_FIELD_STRUCT_END : ETL_FIELD_ARRAY_END;
        /* closers may exceed the field cap, never the array */
        if (w->field_count >= w->field_capacity && etl_walk_grow_fields(w) != 0) return WALK_NOMEM;
        w->bytes[w->field_count] = (etl_field_bytes){NULL, 0};
        w->fields[w->field_count] = begin;
        w->fields[w->field_count].kind = end;
        w->field_count++;
    }
    return WALK_STOP;
}

static int ensure_capacity(etl_walk *w, const etl_event_info *info)
{
    if (info->property_count > w->values_capacity) {
        uint64_t *v = realloc(w->values, info->property_count * sizeof *v);
        if (!v) return -1;
        w->values = v;
        uint32_t *e = realloc(w->value_epoch, info->property_count * sizeof *e);
        if (!e) return -1;
        memset(e, 0, info->property_count * sizeof *e);
        w->value_epoch = e;
        w->values_capacity = info->property_count;
        w->epoch = 0;
    }
    size_t tops = (size_t)info->top_level_count + 1;
    if (tops > w->top_capacity) {
        size_t *t = realloc(w->top_first, tops * sizeof *t);
        if (!t) return -1;
        w->top_first = t;
        t = realloc(w->top_text, tops * sizeof *t);
        if (!t) return -1;
        w->top_text = t;
        w->top_capacity = tops;
    }
    return 0;
}

int etl_walk_event(etl_walk *w, const etl_event_info *info, const uint8_t *payload, size_t size,
                   const etl_render_context *ctx)
{
    return etl_walk_event_planned(w, info, NULL, payload, size, ctx);
}

static int walk_once(etl_walk *w, const etl_event_info *info, const etl_walk_plan *plan, const uint8_t *payload,
                     size_t size, const etl_render_context *ctx, int sizing)
{
    w->field_count = 0;
    w->consumed = 0;
    w->error[0] = '\0';
    etl_textbuf_reset(&w->text);
    uint32_t tops = info->top_level_count <= info->property_count ? info->top_level_count : info->property_count;
    if (ensure_capacity(w, info) != 0) return ETL_ERR_NOMEM;
    if (++w->epoch == 0) { /* wrapped: old marks could look current */
        memset(w->value_epoch, 0, w->values_capacity * sizeof *w->value_epoch);
        w->epoch = 1;
    }

    if (plan && plan->property_count != info->property_count) plan = NULL;
    walk_state s = {w, info, payload, size, 0, 0, 0, ctx, plan, ctx && ctx->pointer_size == 4 ? 4 : 8, sizing, 0};
    int rc = WALK_OK;
    uint32_t i = 0;
    for (; i < tops && rc == WALK_OK; i++) {
        if (plan && plan->run && plan->run[i]) {
            uint32_t done = etl_walk_plain_run(&s, i);
            if (done) {
                i += done - 1;
                continue;
            }
        }
        w->top_first[i] = w->field_count;
        w->top_text[i] = w->text.length;
        rc = plan && plan->style[i] ? etl_walk_plain_top(&s, i) : etl_walk_property(&s, i, 0);
    }
    if (sizing) {
        w->consumed = s.pos;
        return rc == WALK_NOMEM ? ETL_ERR_NOMEM : rc == WALK_STOP ? ETL_WALK_NEEDS_RENDERING : ETL_DECODE_OK;
    }
    if (rc == WALK_STOP) rc = close_open_fields(&s);
    for (; i <= tops; i++) w->top_first[i] = w->field_count, w->top_text[i] = w->text.length;
    if (rc == WALK_NOMEM || w->text.failed) return ETL_ERR_NOMEM;
    if (rc == WALK_END) rc = WALK_OK;
    w->consumed = s.pos;
    return rc == WALK_STOP ? ETL_DECODE_ERROR : ETL_DECODE_OK;
}

/* Values point into the text buffer as they are written; when it grew (moved) during a walk, the walk runs
 * again: it asks for the same room in the same order, which the buffer now has, so the second run stays put
 * (the buffer only grows, to at most twice the 1 MiB text cap: a few times per decoder). */
static int walk_event(etl_walk *w, const etl_event_info *info, const etl_walk_plan *plan, const uint8_t *payload,
                      size_t size, const etl_render_context *ctx, int sizing)
{
    etl_textbuf_reset(&w->text);
    if (reserve_text(&w->text, 256) != 0) return ETL_ERR_NOMEM; /* a buffer to point into from the start */
    for (;;) {
        size_t capacity = w->text.capacity;
        int rc = walk_once(w, info, plan, payload, size, ctx, sizing);
        if (rc < 0 || sizing || w->text.capacity == capacity) return rc;
    }
}

int etl_walk_event_planned(etl_walk *w, const etl_event_info *info, const etl_walk_plan *plan,
                           const uint8_t *payload, size_t size, const etl_render_context *ctx)
{
    return walk_event(w, info, plan, payload, size, ctx, 0);
}

int etl_walk_event_sized(etl_walk *w, const etl_event_info *info, const etl_walk_plan *plan, const uint8_t *payload,
                         size_t size, const etl_render_context *ctx)
{
    return walk_event(w, info, plan, payload, size, ctx, 1);
}
