/* WPP trace messages decoded with their TMF statement: find the statement by (message GUID, number), walk the
 * packed arguments in the order the statement lists them (no alignment, docs/schemas.md §5.1), render each
 * one, and expand the format string (%N!spec!, %!FUNC!, ...) into the message tracefmt prints. All text is
 * in per-decoder buffers reused between events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/wpp/wpp.h"
#include "schema/wpp/wpp_items.h"

typedef struct arg_value {
    const uint8_t *p;
    size_t size;
    int present;
} arg_value;

struct wpp_decoder {
    etl_textbuf text;       /* field values, NUL-separated */
    etl_textbuf message;
    etl_textbuf scratch;
    etl_field *fields;
    size_t *offsets;
    arg_value *values;
    size_t capacity;
    etl_wpp_event wpp;
    char error[256];
};

wpp_decoder *wpp_decoder_new(void) { return calloc(1, sizeof(wpp_decoder)); }

void wpp_decoder_free(wpp_decoder *d)
{
    if (!d) return;
    etl_textbuf_free(&d->text);
    etl_textbuf_free(&d->message);
    etl_textbuf_free(&d->scratch);
    free(d->fields);
    free(d->offsets);
    free(d->values);
    free(d);
}

int wpp_is_trace_message(const etl_event_record *r)
{
    if (r->kind == ETL_KIND_MESSAGE) return 1;
    return (r->kind == ETL_KIND_EVENT32 || r->kind == ETL_KIND_EVENT64) &&
           (r->header.flags & ETL_EVENT_FLAG_TRACE_MESSAGE);
}

static const arg_value *find_arg(const wpp_decoder *d, const wpp_statement *st, unsigned number, const wpp_arg **arg)
{
    for (uint16_t i = 0; i < st->arg_count; i++)
        if (st->args[i].number == number) {
            *arg = &st->args[i];
            return d->values[i].present ? &d->values[i] : NULL;
        }
    return NULL;
}

/* %!NAME! of the statement's trailer or header; NULL when NAME is none of them. */
static const char *named_item(const etl_wpp_event *w, const char *name, size_t n, char *line_buf, size_t cap)
{
#define IS(s) (n == sizeof s - 1 && memcmp(name, s, n) == 0)
    if (IS("FUNC")) return w->function;
    if (IS("LEVEL")) return w->level;
    if (IS("FLAGS")) return w->flags;
    if (IS("COMPNAME")) return w->component;
    if (IS("FILE")) return w->file;
    if (IS("LINE")) {
        snprintf(line_buf, cap, "%u", (unsigned)w->line);
        return line_buf;
    }
    return NULL;
#undef IS
}

/* Reads "%" at fmt[i]: the number (or -1 for %!NAME!), the spec text and the name. Returns the index after
 * it, or 0 when it is no WPP insert. */
static size_t read_insert(const char *fmt, size_t i, long *number, const char **spec, size_t *spec_len)
{
    size_t j = i + 1;
    *spec = NULL;
    *spec_len = 0;
    if (fmt[j] == '!') {
        const char *end = strchr(fmt + j + 1, '!');
        if (!end || end == fmt + j + 1) return 0;
        *number = -1;
        *spec = fmt + j + 1;
        *spec_len = (size_t)(end - (fmt + j + 1));
        return (size_t)(end - fmt) + 1;
    }
    if (fmt[j] < '0' || fmt[j] > '9') return 0;
    long n = 0;
    while (fmt[j] >= '0' && fmt[j] <= '9' && n < 100000) n = n * 10 + (fmt[j++] - '0');
    *number = n;
    if (fmt[j] == '!' && n != 0) { /* %0 (the prefix's place) takes no !spec!: "%0!%!FUNC!..." starts with '!' */
        const char *end = strchr(fmt + j + 1, '!');
        if (end) {
            *spec = fmt + j + 1;
            *spec_len = (size_t)(end - (fmt + j + 1));
            return (size_t)(end - fmt) + 1;
        }
    }
    return j;
}

/* The standard items %1..%9 (tracefmt's prefix variables) of an event. */
static void put_standard(etl_textbuf *out, long n, const wpp_spec *spec, const etl_decoded_event *ev,
                         const char *time_text)
{
    const etl_event_record *r = ev->record;
    switch (n) {
    case 1: wpp_put_text(out, ev->wpp ? ev->wpp->component : ev->provider_name ? ev->provider_name : "", spec); break;
    case 2: wpp_put_text(out, ev->wpp ? ev->wpp->tag : ev->event_name ? ev->event_name : "", spec); break;
    case 3: wpp_put_integer(out, r->header.thread_id, 32, 0, spec); break;
    case 4: wpp_put_text(out, time_text ? time_text : "", spec); break;
    case 5: wpp_put_integer(out, r->header.kernel_time, 32, 0, spec); break;
    case 6: wpp_put_integer(out, r->header.user_time, 32, 0, spec); break;
    case 7: wpp_put_integer(out, r->wpp_sequence, 32, 0, spec); break;
    case 8: wpp_put_integer(out, r->header.process_id, 32, 0, spec); break;
    case 9: wpp_put_integer(out, r->buffer_context.processor_index, 32, 0, spec); break;
    default: break;
    }
}

/* Expands a format string; arguments come from the decoder (st != NULL) and the standard items from ev. */
static void expand(etl_textbuf *out, const char *fmt, const wpp_decoder *d, const wpp_statement *st,
                   const wpp_store *store, const etl_decoded_event *ev, const char *time_text, etl_textbuf *scratch)
{
    size_t i = 0;
    while (fmt[i]) {
        const char *pct = strchr(fmt + i, '%');
        if (!pct) {
            etl_textbuf_puts(out, fmt + i);
            return;
        }
        etl_textbuf_append(out, fmt + i, (size_t)(pct - (fmt + i)));
        i = (size_t)(pct - fmt);
        if (fmt[i + 1] == '%') {
            etl_textbuf_putc(out, '%');
            i += 2;
            continue;
        }
        long number;
        const char *spec_text;
        size_t spec_len;
        size_t next = read_insert(fmt, i, &number, &spec_text, &spec_len);
        if (!next) {
            etl_textbuf_putc(out, '%');
            i++;
            continue;
        }
        wpp_spec spec;
        wpp_spec_parse(spec_text ? spec_text : "s", spec_text ? spec_len : 1, &spec);
        if (number < 0) {
            char line[16];
            const char *v = ev->wpp ? named_item(ev->wpp, spec_text, spec_len, line, sizeof line) : NULL;
            if (v) etl_textbuf_puts(out, v);
            else etl_textbuf_append(out, fmt + i, next - i); /* unknown %!NAME!: kept as written */
        } else if (number == 0) {
            /* %0: "the prefix goes here" — the message itself starts after it */
        } else if (number < 10) {
            put_standard(out, number, &spec, ev, time_text);
        } else {
            const wpp_arg *arg = NULL;
            const arg_value *v = st ? find_arg(d, st, (unsigned)number, &arg) : NULL;
            if (v) {
                const wpp_enum *en = arg->list_count ? wpp_store_enum(store, arg->list[0]) : NULL;
                wpp_item_render(out, scratch, arg, en, v->p, v->size, &spec);
            } else {
                etl_textbuf_append(out, fmt + i, next - i); /* no such argument (or it did not fit) */
            }
        }
        i = next;
    }
}

void wpp_expand_prefix(etl_textbuf *out, const char *prefix, const etl_decoded_event *ev, const char *time_text,
                       etl_textbuf *scratch)
{
    expand(out, prefix, NULL, NULL, NULL, ev, time_text, scratch);
}

/* The conversion the format string applies to argument `number` (a field shows its value the way the
 * message does: %u, %08x...); %s when the format does not use it. */
static void spec_of(const char *fmt, unsigned number, wpp_spec *spec)
{
    wpp_spec_parse("s", 1, spec);
    for (const char *pct = strchr(fmt, '%'); pct; pct = strchr(pct + 1, '%')) {
        if (pct[1] == '%') {
            pct++;
            continue;
        }
        long n;
        const char *text;
        size_t len;
        if (read_insert(fmt, (size_t)(pct - fmt), &n, &text, &len) && n == (long)number) {
            if (text) wpp_spec_parse(text, len, spec);
            return;
        }
    }
}

static int reserve(wpp_decoder *d, size_t n)
{
    if (n <= d->capacity) return ETL_OK;
    etl_field *f = realloc(d->fields, n * sizeof *f);
    if (!f) return ETL_ERR_NOMEM;
    d->fields = f;
    size_t *o = realloc(d->offsets, n * sizeof *o);
    if (!o) return ETL_ERR_NOMEM;
    d->offsets = o;
    arg_value *v = realloc(d->values, n * sizeof *v);
    if (!v) return ETL_ERR_NOMEM;
    d->values = v;
    d->capacity = n;
    return ETL_OK;
}

int wpp_decode(wpp_decoder *d, const wpp_store *store, const etl_event_record *rec, const etl_render_context *ctx,
               etl_decoded_event *ev)
{
    if (!store || !wpp_is_trace_message(rec)) return 0;
    /* TRACE_MESSAGE_COMPONENTID without TRACE_MESSAGE_GUID: the reader put the u32 in the GUID's Data1 */
    int component_id = rec->kind == ETL_KIND_MESSAGE && (rec->wpp_option_flags & WPP_TRACE_MESSAGE_COMPONENTID) &&
                       !(rec->wpp_option_flags & WPP_TRACE_MESSAGE_GUID);
    wpp_match how;
    const wpp_statement *st = wpp_store_lookup(store, &rec->header.provider_id, rec->header.descriptor.id,
                                               component_id, &how);
    if (!st) return 0;
    if (reserve(d, st->arg_count ? st->arg_count : 1) != ETL_OK) return ETL_ERR_NOMEM;
    const wpp_component *comp = wpp_store_component(store, st->component);

    d->wpp = (etl_wpp_event){comp->name, st->tag, comp->source_file, st->line_number, st->function, st->level,
                             st->flags, st->number, st->guid};
    ev->wpp = &d->wpp;
    ev->source = ETL_SOURCE_TMF;
    ev->status = ETL_DECODE_OK;
    ev->provider_name = comp->name;
    ev->event_name = st->tag;
    ev->task_name = *st->function ? st->function : NULL;
    ev->level_name = *st->level ? st->level : NULL;

    static const uint8_t empty[1];
    const uint8_t *payload = rec->user_data ? rec->user_data : empty; /* memchr & co. never get NULL */
    size_t size = rec->user_data ? rec->user_data_length : 0, pos = 0;
    unsigned pointer_size = ctx && ctx->pointer_size == 4 ? 4 : 8;
    etl_textbuf_reset(&d->text);
    size_t field_count = 0;
    wpp_spec spec;
    for (uint16_t i = 0; i < st->arg_count; i++) {
        const wpp_arg *arg = &st->args[i];
        size_t value_offset, value_size, consumed;
        const char *why = wpp_item_measure(arg->item, payload + pos, size - pos, pointer_size, &value_offset,
                                           &value_size, &consumed);
        d->values[i].present = 0;
        if (why) {
            for (uint16_t k = i; k < st->arg_count; k++) d->values[k].present = 0;
            snprintf(d->error, sizeof d->error, "WPP argument %%%u (%s, %s) at payload offset %zu: %s",
                     (unsigned)arg->number, arg->type_name, arg->expression, pos, why);
            ev->status = ETL_DECODE_ERROR;
            ev->error = d->error;
            break;
        }
        d->values[i] = (arg_value){payload + pos + value_offset, value_size, 1};
        pos += consumed;
        d->offsets[field_count] = d->text.length;
        const wpp_enum *en = arg->list_count ? wpp_store_enum(store, arg->list[0]) : NULL;
        spec_of(st->format, arg->number, &spec);
        wpp_item_render(&d->text, &d->scratch, arg, en, d->values[i].p, value_size, &spec);
        etl_textbuf_putc(&d->text, '\0');
        d->fields[field_count++] = (etl_field){ETL_FIELD_VALUE, arg->expression, NULL, ETL_IN_NULL, ETL_OUT_STRING,
                                               0, -1, NULL};
    }
    if (d->text.failed) return ETL_ERR_NOMEM;
    for (size_t f = 0; f < field_count; f++) d->fields[f].value = etl_textbuf_at(&d->text, d->offsets[f]);
    ev->fields = d->fields;
    ev->field_count = field_count;
    if (pos < size) {
        ev->undecoded = payload + pos;
        ev->undecoded_length = size - pos;
    }
    etl_textbuf_reset(&d->message);
    expand(&d->message, st->format, d, st, store, ev, NULL, &d->scratch);
    if (d->message.failed || d->scratch.failed) return ETL_ERR_NOMEM;
    ev->message = etl_textbuf_at(&d->message, 0);
    return 1;
}
