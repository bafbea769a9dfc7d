/* JSON spelling of the value kinds (src/decode/value_kind.h): integers as numbers, floats as numbers (null
 * for NaN/infinity), booleans as true/false, everything else as strings; mapped integers as their names plus
 * a "NAME.value" member with the number. */
#include "json_value.h"

#include <string.h>

#include "decode/value_kind.h"
#include "fast_text.h"

#define MAX_NESTING 64

/* Per byte: 1 when a JSON string writes it otherwise than as is (NUL ends it; controls, quote, backslash;
 * non-ASCII for the U+FFFD checks). */
static const unsigned char special[256] = {
    [0] = 1, [1] = 1, [2] = 1, [3] = 1, [4] = 1, [5] = 1, [6] = 1, [7] = 1, [8] = 1, [9] = 1, [10] = 1, [11] = 1,
    [12] = 1, [13] = 1, [14] = 1, [15] = 1, [16] = 1, [17] = 1, [18] = 1, [19] = 1, [20] = 1, [21] = 1, [22] = 1,
    [23] = 1, [24] = 1, [25] = 1, [26] = 1, [27] = 1, [28] = 1, [29] = 1, [30] = 1, [31] = 1, ['"'] = 1, ['\\'] = 1,
#define R16(x) [x] = 1, [x + 1] = 1, [x + 2] = 1, [x + 3] = 1, [x + 4] = 1, [x + 5] = 1, [x + 6] = 1, [x + 7] = 1, \
    [x + 8] = 1, [x + 9] = 1, [x + 10] = 1, [x + 11] = 1, [x + 12] = 1, [x + 13] = 1, [x + 14] = 1, [x + 15] = 1
    R16(0x80), R16(0x90), R16(0xA0), R16(0xB0), R16(0xC0), R16(0xD0), R16(0xE0), R16(0xF0),
#undef R16
};

void fmt_json_string(fmt_buf *tb, const char *value)
{
    if (!value) value = "";
    size_t n = 0;  /* one pass: length and "as is" (most names and values are short) */
    while (!special[(unsigned char)value[n]]) n++;
    if (!value[n]) { /* the loop below would copy it in one run */
        char *p = fmt_put_begin(tb, n + 2);
        if (!p) return;
        *p++ = '"';
        p = fmt_w_mem(p, value, n);
        *p++ = '"';
        fmt_put_end(tb, p);
        return;
    }
    etl_textbuf_putc(tb, '"');
    const unsigned char *s = (const unsigned char *)value;
    for (;;) {
        size_t run = 0;  /* printable ASCII that needs no escape goes in as one block */
        while (!special[s[run]]) run++;
        etl_textbuf_append(tb, (const char *)s, run);
        s += run;
        if (*s == '\0') break;
        uint32_t cp;
        size_t avail = 1;  /* a UTF-8 sequence is at most 4 bytes: no need to measure the rest */
        while (avail < 4 && s[avail]) avail++;
        size_t used = etl_utf8_decode(s, avail, &cp);
        switch (cp) {
        case '"': FMT_PUT_LIT(tb, "\\\""); break;
        case '\\': FMT_PUT_LIT(tb, "\\\\"); break;
        case '\n': FMT_PUT_LIT(tb, "\\n"); break;
        case '\r': FMT_PUT_LIT(tb, "\\r"); break;
        case '\t': FMT_PUT_LIT(tb, "\\t"); break;
        case '\b': FMT_PUT_LIT(tb, "\\b"); break;
        case '\f': FMT_PUT_LIT(tb, "\\f"); break;
        default:
            if (cp < 0x20)
                etl_textbuf_printf(tb, "\\u%04X", (unsigned)cp);
            else if (cp == 0xFFFD)
                fmt_buf_put_codepoint(tb, cp);
            else
                etl_textbuf_append(tb, (const char *)s, used);
        }
        s += used;
    }
    etl_textbuf_putc(tb, '"');
}

void fmt_json_u64(fmt_buf *tb, uint64_t value, int as_string)
{
    char num[FMT_INT_CAP];
    if (as_string) etl_textbuf_putc(tb, '"');
    etl_textbuf_puts(tb, fmt_u64(value, num));
    if (as_string) etl_textbuf_putc(tb, '"');
}

static void put_scalar(fmt_buf *tb, const etl_field *f, etl_value_kind kind, int wide_as_string)
{
    const char *text;
    switch (kind) {
    case ETL_VALUE_INTEGER:
        text = etl_value_integer_text(f->value);
        if (!text) {
            etl_textbuf_puts(tb, "null");  /* a value that did not fit its type */
        } else if (wide_as_string && etl_value_is_wide(f->in_type)) {
            etl_textbuf_putc(tb, '"');
            etl_textbuf_puts(tb, text);
            etl_textbuf_putc(tb, '"');
        } else {
            etl_textbuf_puts(tb, text);
        }
        return;
    case ETL_VALUE_FLOAT:
        etl_textbuf_puts(tb, etl_value_is_json_number(f->value) ? f->value : "null");
        return;
    case ETL_VALUE_BOOLEAN:
        if (f->value && (strcmp(f->value, "true") == 0 || strcmp(f->value, "false") == 0))
            etl_textbuf_puts(tb, f->value);
        else
            etl_textbuf_puts(tb, "null");
        return;
    default: fmt_json_string(tb, f->value); return;
    }
}

static void put_mapped_number(fmt_buf *tb, const etl_decoded_event *ev, size_t i, int wide_as_string)
{
    uint64_t n;
    if (ev->field_bytes && etl_value_mapped_number(&ev->field_bytes[i], &n))
        fmt_json_u64(tb, n, wide_as_string && etl_value_is_wide(ev->fields[i].in_type));
    else
        etl_textbuf_puts(tb, "null");
}

static void put_key(fmt_buf *tb, const char *name, const char *suffix)
{
    fmt_json_string(tb, name);
    if (suffix) {  /* "NAME.value": the closing quote moves after the suffix */
        tb->length--;
        etl_textbuf_puts(tb, suffix);
        etl_textbuf_putc(tb, '"');
    }
    etl_textbuf_putc(tb, ':');
}

/* The walk behind fmt_json_members (root '{': members) and fmt_json_value (root 0: one bare value). */
static size_t put_range(fmt_buf *tb, const etl_decoded_event *ev, size_t first, size_t end, int root, int flags)
{
    int wide_as_string = (flags & FMT_JSON_WIDE_STRINGS) != 0, map_numbers = !(flags & FMT_JSON_NO_MAP_NUMBERS);
    char open[MAX_NESTING];  /* '{' or '[' per open container */
    int fresh[MAX_NESTING];  /* nothing written in it yet */
    size_t begin_at[MAX_NESTING];
    int top = 0, skipped = 0;
    size_t members = 0;
    open[0] = (char)root;
    fresh[0] = 1;
    begin_at[0] = first;
    for (size_t i = first; i < end && i < ev->field_count; i++) {
        const etl_field *f = &ev->fields[i];
        int begins = f->kind == ETL_FIELD_STRUCT_BEGIN || f->kind == ETL_FIELD_ARRAY_BEGIN;
        if (f->kind == ETL_FIELD_STRUCT_END || f->kind == ETL_FIELD_ARRAY_END) {
            char want = f->kind == ETL_FIELD_STRUCT_END ? '{' : '[';
            if (skipped > 0) {
                skipped--;
                continue;
            }
            if (top == 0 || open[top] != want) continue;
            etl_textbuf_putc(tb, want == '{' ? '}' : ']');
            top--;
            if (want == '[' && open[top] == '{' && map_numbers && f->property &&
                etl_property_value_kind(f->property) == ETL_VALUE_MAPPED) {
                /* the numbers of an array of mapped values, as a sibling array */
                etl_textbuf_putc(tb, ',');
                put_key(tb, f->name, ".value");
                etl_textbuf_putc(tb, '[');
                int n = 0;
                for (size_t k = begin_at[top + 1] + 1; k < i; k++) {
                    if (ev->fields[k].kind != ETL_FIELD_VALUE) continue;
                    if (n++) etl_textbuf_putc(tb, ',');
                    put_mapped_number(tb, ev, k, wide_as_string);
                }
                etl_textbuf_putc(tb, ']');
            }
            if (top == 0 && root == 0) break;
            continue;
        }
        if (begins && (skipped > 0 || top + 1 >= MAX_NESTING)) {
            skipped++;  /* too deep: its members are written flat into the current container */
            continue;
        }
        if (top == 0 && root == 0 && !fresh[0]) break;  /* one bare value only */
        if (!fresh[top]) etl_textbuf_putc(tb, ',');
        fresh[top] = 0;
        if (top == 0) members++;
        if (open[top] == '{') put_key(tb, f->name, NULL);
        if (begins) {
            top++;
            open[top] = f->kind == ETL_FIELD_STRUCT_BEGIN ? '{' : '[';
            fresh[top] = 1;
            begin_at[top] = i;
            etl_textbuf_putc(tb, open[top]);
            continue;
        }
        etl_value_kind kind = etl_value_kind_of(f->in_type, f->out_type, f->property ? f->property->map : NULL);
        put_scalar(tb, f, kind, wide_as_string);
        if (kind == ETL_VALUE_MAPPED && open[top] == '{' && map_numbers) {
            etl_textbuf_putc(tb, ',');
            put_key(tb, f->name, ".value");
            put_mapped_number(tb, ev, i, wide_as_string);
        }
        if (top == 0 && root == 0) break;
    }
    while (top > 0) etl_textbuf_putc(tb, open[top--] == '{' ? '}' : ']');
    return members;
}

size_t fmt_json_members(fmt_buf *tb, const etl_decoded_event *ev, size_t first, size_t end, int flags)
{
    return put_range(tb, ev, first, end, '{', flags);
}

void fmt_json_value(fmt_buf *tb, const etl_decoded_event *ev, size_t first, size_t end, int flags)
{
    size_t before = tb->length;
    put_range(tb, ev, first, end, 0, flags);
    if (tb->length == before) etl_textbuf_puts(tb, "null");
}
