/* The walker's fast path (see walk_int.h): top-level properties the plan marks plain (fixed-size integers printed
 * as numbers), one at a time or in runs, with field and text capacity reserved once. What is not the common case
 * goes back to etl_walk_property (walk.c), which decides and reports it as it always does. */
#include "decode/walk_int.h"

#include "util/le.h"

/* One plain integer field (style from the plan) at the end of the list; capacity is the caller's. */
static WALK_INLINE void emit_plain(walk_state *s, const etl_property_info *prop, etl_int_style style, const uint8_t *value,
                              size_t size, unsigned depth, int32_t array_index, uint32_t index)
{
    etl_walk *w = s->w;
    uint64_t v = plain_value(value, size);
    w->values[index] = v;
    size_t f = w->field_count++;
    w->fields[f] = (etl_field){ETL_FIELD_VALUE, prop->name ? prop->name : "", w->text.data + w->text.length,
                               prop->in_type, prop->out_type, (uint16_t)depth, array_index, prop};
    w->bytes[f] = (etl_field_bytes){value, (uint32_t)size};
    if (s->sizing) {
        s->text_bound += ETL_INT_TEXT_MAX + 1;
        return;
    }
    char *out = w->text.data + w->text.length;
    size_t n = etl_int_format(out, style, v, size);
    out[n] = '\0'; /* each value is its own C string inside `text` */
    w->text.length += n + 1;
}

/* The elements of a plain array at the end of the list (capacity is the caller's): the pointers in locals, as
 * every text byte written could otherwise alias them; `size` a constant where it is inlined. */
static WALK_INLINE void put_plain_elements(etl_walk *w, const etl_property_info *prop, etl_int_style style,
                                           const uint8_t *p, size_t size, uint64_t n, uint32_t index)
{
    etl_field *field = w->fields + w->field_count;
    etl_field_bytes *bytes = w->bytes + w->field_count;
    char *text = w->text.data, *out = text + w->text.length;
    const etl_field proto = {ETL_FIELD_VALUE, prop->name ? prop->name : "", NULL, prop->in_type, prop->out_type,
                             1, 0, prop};
    uint64_t v = 0;
    for (uint64_t i = 0; i < n; i++, p += size) {
        v = plain_value(p, size);
        field[i] = proto;
        field[i].value = out;
        field[i].array_index = (int32_t)i;
        bytes[i] = (etl_field_bytes){p, (uint32_t)size};
        size_t len = etl_int_format(out, style, v, size);
        out[len] = '\0'; /* each value is its own C string inside `text` */
        out += len + 1;
    }
    if (n) w->values[index] = v; /* the last element's, as walk_value leaves it */
    w->field_count += (size_t)n;
    w->text.length = (size_t)(out - text);
}

/* A top-level property the plan marks plain (a fixed-size integer printed as a number) and that is a scalar or
 * an array of such: all its fields in one pass, with field and text capacity reserved once. Whatever is not the
 * common case (payload too short, a tail that ends early but not on an element, counts near the caps) goes to
 * walk_property, which decides and reports it as it always does. */
int etl_walk_plain_top(walk_state *s, uint32_t index)
{
    const etl_property_info *prop = &s->info->properties[index];
    etl_walk *w = s->w;
    size_t size = s->plan->size[index] ? s->plan->size[index] : s->pointer_size;
    etl_int_style style = (etl_int_style)s->plan->style[index];
    size_t avail = remaining(s), prefix = 0;
    uint64_t count;
    if (prop->flags & ETL_PROP_INLINE_COUNT) {
        if (avail < 2) return etl_walk_property(s, index, 0);
        count = etl_le16(s->payload + s->pos);
        prefix = 2;
    } else if (prop->flags & ETL_PROP_PARAM_COUNT) {
        if (prop->count >= s->info->property_count || w->value_epoch[prop->count] != w->epoch)
            return etl_walk_property(s, index, 0);
        count = w->values[prop->count];
    } else if ((prop->flags & ETL_PROP_PARAM_FIXED_COUNT) || prop->count > 1) {
        count = prop->count;
    } else { /* a scalar */
        if (size > avail || s->steps >= 4 * (size_t)ETL_WALK_MAX_FIELDS || w->field_count >= ETL_WALK_MAX_FIELDS ||
            reserve_fields(w, 1) != 0 || (!s->sizing && reserve_text(&w->text, ETL_INT_TEXT_MAX + 1) != 0))
            return etl_walk_property(s, index, 0);
        s->steps++;
        w->value_epoch[index] = w->epoch;
        emit_plain(s, prop, style, s->payload + s->pos, size, 0, -1, index);
        if (!s->sizing) w->text.data[w->text.length] = '\0';
        s->pos += size;
        return WALK_OK;
    }
    int optional = (prop->flags & ETL_PROP_OPTIONAL_TAIL) != 0, tail_end = 0;
    if (optional && avail == 0) return etl_walk_property(s, index, 0);
    avail -= prefix;
    uint64_t n = count;
    if (count > avail / size) { /* only an optional tail may stop early, and then on an element boundary */
        if (!optional || avail % size) return etl_walk_property(s, index, 0);
        n = avail / size;
        tail_end = 1;
    }
    if (count > ETL_WALK_MAX_ARRAY_ELEMENTS || w->field_count + n + 2 > ETL_WALK_MAX_FIELDS ||
        s->steps + n >= 4 * (size_t)ETL_WALK_MAX_FIELDS ||
        text_used(s) + n * (ETL_INT_TEXT_MAX + 1) > ETL_WALK_MAX_TEXT || reserve_fields(w, n + 2) != 0 ||
        (!s->sizing && reserve_text(&w->text, n * (ETL_INT_TEXT_MAX + 1)) != 0))
        return etl_walk_property(s, index, 0);
    s->pos += prefix;
    s->steps += n;
    size_t f = w->field_count++;
    w->fields[f] = (etl_field){ETL_FIELD_ARRAY_BEGIN, prop->name ? prop->name : "", NULL, prop->in_type, prop->out_type,
                               0, -1, prop};
    w->bytes[f] = (etl_field_bytes){NULL, 0};
    const uint8_t *p = s->payload + s->pos;
    if (s->sizing) {
        for (uint64_t i = 0; i < n; i++, p += size) emit_plain(s, prop, style, p, size, 1, (int32_t)i, index);
    } else {
        switch (size) {
        case 1: put_plain_elements(w, prop, style, p, 1, n, index); break;
        case 2: put_plain_elements(w, prop, style, p, 2, n, index); break;
        case 4: put_plain_elements(w, prop, style, p, 4, n, index); break;
        default: put_plain_elements(w, prop, style, p, 8, n, index); break;
        }
    }
    if (n) w->value_epoch[index] = w->epoch;
    if (!s->sizing) w->text.data[w->text.length] = '\0';
    s->pos += (size_t)n * size;
    f = w->field_count++;
    w->fields[f] = w->fields[f - n - 1];
    w->fields[f].kind = ETL_FIELD_ARRAY_END;
    w->bytes[f] = (etl_field_bytes){NULL, 0};
    return tail_end ? WALK_END : WALK_OK;
}

/* A run of `n` top-level plain scalars from property `first` (the plan's run), all present in the payload: one
 * loop, capacity reserved once, each field copied from the plan's template. 0 when the run does not fit the
 * payload or a cap (then each property takes walk_plain_top, which decides and reports as always). */
uint32_t etl_walk_plain_run(walk_state *s, uint32_t first)
{
    const etl_walk_plan *plan = s->plan;
    etl_walk *w = s->w;
    uint32_t n = plan->run[first];
    if (plan->run_bytes[s->pointer_size == 8][first] > remaining(s) || w->field_count + n > ETL_WALK_MAX_FIELDS ||
        s->steps + n >= 4 * (size_t)ETL_WALK_MAX_FIELDS || reserve_fields(w, n) != 0 ||
        (!s->sizing && reserve_text(&w->text, (size_t)n * (ETL_INT_TEXT_MAX + 1)) != 0))
        return 0;
    if (s->sizing) { /* what emit_plain counts for each: the field, the value for later counts, a text bound */
        const uint8_t *p = s->payload + s->pos;
        for (uint32_t i = first; i < first + n; i++) {
            size_t size = plan->size[i] ? plan->size[i] : s->pointer_size;
            w->values[i] = plain_value(p, size);
            w->value_epoch[i] = w->epoch;
            w->top_first[i] = w->field_count;
            w->fields[w->field_count] = plan->fields[i];
            w->bytes[w->field_count++] = (etl_field_bytes){p, (uint32_t)size};
            p += size;
        }
        s->text_bound += (size_t)n * (ETL_INT_TEXT_MAX + 1);
        s->steps += n;
        s->pos = (size_t)(p - s->payload);
        return n;
    }
    /* pointers in locals: every text byte written could otherwise alias them */
    const uint8_t *p = s->payload + s->pos, *sizes = plan->size, *styles = plan->style;
    const etl_field *templates = plan->fields;
    char *text = w->text.data, *out = text + w->text.length;
    etl_field *fields = w->fields;
    etl_field_bytes *bytes = w->bytes;
    uint64_t *values = w->values;
    uint32_t *epochs = w->value_epoch, epoch = w->epoch;
    size_t *top_first = w->top_first, *top_text = w->top_text, f = w->field_count, pointer_size = s->pointer_size;
    for (uint32_t i = first; i < first + n; i++, f++) {
        size_t size = sizes[i] ? sizes[i] : pointer_size;
        uint64_t v = plain_value(p, size);
        values[i] = v;
        epochs[i] = epoch;
        top_first[i] = f;
        top_text[i] = (size_t)(out - text);
        fields[f] = templates[i];
        fields[f].value = out;
        bytes[f] = (etl_field_bytes){p, (uint32_t)size};
        size_t len = etl_int_format(out, (etl_int_style)styles[i], v, size);
        out[len] = '\0'; /* each value is its own C string inside `text` */
        out += len + 1;
        p += size;
    }
    w->field_count = f;
    w->text.length = (size_t)(out - text);
    *out = '\0';
    s->steps += n;
    s->pos = (size_t)(p - s->payload);
    return n;
}
