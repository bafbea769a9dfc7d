/* Schema listings (include/etl/etl_schema_list.h): ETW-Explorer-like views of event descriptions. Types are
 * named as in manifests (win:UInt32 / xs:unsignedInt); "json" is the JSON type typed JSON Lines gives the
 * field (src/decode/value_kind.h), so a consumer can build its own schema from the listing. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "etl/etl_schema_list.h"
#include "decode/value_kind.h"
#include "json_value.h"
#include "schema/manifest_model.h"

static int compare_text(const char *a, const char *b)
{
    return strcasecmp(a ? a : "", b ? b : "");
}

static int compare_guid(const etl_guid *a, const etl_guid *b)
{
    return memcmp(a, b, sizeof *a);  /* any fixed order will do: it only groups */
}

static int compare_info(const void *pa, const void *pb)
{
    const etl_event_info *a = *(const etl_event_info *const *)pa, *b = *(const etl_event_info *const *)pb;
    int c = compare_text(a->provider_name, b->provider_name);
    if (!c) c = compare_guid(&a->provider_guid, &b->provider_guid);
    if (!c) c = compare_guid(&a->event_guid, &b->event_guid);
    if (!c) c = (int)a->descriptor.id - (int)b->descriptor.id;
    if (!c) c = (int)a->descriptor.version - (int)b->descriptor.version;
    if (!c) c = (int)a->descriptor.opcode - (int)b->descriptor.opcode;
    if (!c) c = compare_text(a->event_name, b->event_name);
    return c;
}

static int same_provider(const etl_event_info *a, const etl_event_info *b)
{
    return etl_guid_equal(&a->provider_guid, &b->provider_guid) && compare_text(a->provider_name, b->provider_name) == 0;
}

static const char *in_name(uint16_t t)
{
    const char *n = etl_manifest_in_type_name(t);
    return n ? n : "?";
}

static const char *out_name(uint16_t t)
{
    const char *n = etl_manifest_out_type_name(t);
    return n ? n : "";
}

static const char *json_type(const etl_property_info *p)
{
    if (p->flags & ETL_PROP_STRUCT) return "object";
    switch (etl_property_value_kind(p)) {
    case ETL_VALUE_INTEGER:
    case ETL_VALUE_FLOAT: return "number";
    case ETL_VALUE_BOOLEAN: return "boolean";
    default: return "string";
    }
}

/* "LENGTH" / "COUNT" as the listing shows them: a number, the name of the field holding it, or "" */
static void size_text(const etl_event_info *e, const etl_property_info *p, int count, char *buf, size_t cap)
{
    uint16_t v = count ? p->count : p->length;
    int by_field = count ? (p->flags & ETL_PROP_PARAM_COUNT) : (p->flags & ETL_PROP_PARAM_LENGTH);
    int fixed = count ? ((p->flags & ETL_PROP_PARAM_FIXED_COUNT) || v > 1)
                      : ((p->flags & ETL_PROP_PARAM_FIXED_LENGTH) || v);
    buf[0] = '\0';
    if (by_field && v < e->property_count && e->properties[v].name) snprintf(buf, cap, "%s", e->properties[v].name);
    else if (count && (p->flags & ETL_PROP_INLINE_COUNT)) snprintf(buf, cap, "inline");
    else if (!count && (p->flags & ETL_PROP_INLINE_LENGTH)) snprintf(buf, cap, "inline");
    else if (fixed && !by_field) snprintf(buf, cap, "%u", v);
}

/* ---- text --------------------------------------------------------------------------------------------- */

static void text_fields(FILE *out, const etl_event_info *e, uint32_t first, uint32_t count, int indent, int depth)
{
    for (uint32_t i = first; i < first + count && i < e->property_count; i++) {
        const etl_property_info *p = &e->properties[i];
        char length[160], cnt[160];
        size_text(e, p, 0, length, sizeof length);
        size_text(e, p, 1, cnt, sizeof cnt);
        fprintf(out, "%*sfield %s", indent, "", p->name ? p->name : "");
        if (p->flags & ETL_PROP_STRUCT) fputs(" struct", out);
        else fprintf(out, " %s%s%s", in_name(p->in_type), *out_name(p->out_type) ? " " : "", out_name(p->out_type));
        fprintf(out, " json=%s", json_type(p));
        if (length[0]) fprintf(out, " length=%s", length);
        if (cnt[0]) fprintf(out, " count=%s", cnt);
        if (p->map && p->map->name) fprintf(out, " map=%s", p->map->name);
        fputc('\n', out);
        if ((p->flags & ETL_PROP_STRUCT) && depth < 8)
            text_fields(out, e, p->struct_start, p->struct_count, indent + 2, depth + 1);
    }
}

static void text_event(FILE *out, const etl_event_info *e)
{
    const etl_event_descriptor *d = &e->descriptor;
    fprintf(out, "  event %u v%u %s", d->id, d->version, e->event_name && *e->event_name ? e->event_name : "-");
    fprintf(out, " level=%u%s%s%s", d->level, e->level_name ? "(" : "", e->level_name ? e->level_name : "",
            e->level_name ? ")" : "");
    fprintf(out, " task=%u%s%s%s", d->task, e->task_name ? "(" : "", e->task_name ? e->task_name : "",
            e->task_name ? ")" : "");
    fprintf(out, " opcode=%u%s%s%s", d->opcode, e->opcode_name ? "(" : "", e->opcode_name ? e->opcode_name : "",
            e->opcode_name ? ")" : "");
    fprintf(out, " keywords=0x%llX", (unsigned long long)d->keyword);
    for (uint32_t k = 0; k < e->keyword_name_count; k++)
        fprintf(out, "%s%s", k ? "," : "(", e->keyword_names[k]);
    if (e->keyword_name_count) fputc(')', out);
    if (e->channel_name) fprintf(out, " channel=%s", e->channel_name);
    if (!etl_guid_is_zero(&e->event_guid)) {
        char g[40];
        fprintf(out, " class=%s", etl_guid_format(&e->event_guid, g, 0));
    }
    fputc('\n', out);
    if (e->message) {
        fputs("    message ", out);
        for (const char *m = e->message; *m; m++) fputc(*m == '\n' || *m == '\r' ? ' ' : *m, out);
        fputc('\n', out);
    }
    uint32_t tops = e->top_level_count <= e->property_count ? e->top_level_count : e->property_count;
    text_fields(out, e, 0, tops, 4, 0);
}

/* ---- JSON --------------------------------------------------------------------------------------------- */

static void json_member(fmt_buf *b, const char *key, const char *value, int comma)
{
    if (comma) etl_textbuf_putc(b, ',');
    fmt_json_string(b, key);
    etl_textbuf_putc(b, ':');
    if (value) fmt_json_string(b, value);
    else etl_textbuf_puts(b, "null");
}

static void json_number(fmt_buf *b, const char *key, uint64_t value)
{
    etl_textbuf_putc(b, ',');
    fmt_json_string(b, key);
    etl_textbuf_putc(b, ':');
    fmt_json_u64(b, value, 0);
}

static void json_fields(fmt_buf *b, const etl_event_info *e, uint32_t first, uint32_t count, int depth)
{
    etl_textbuf_putc(b, '[');
    for (uint32_t i = first; i < first + count && i < e->property_count; i++) {
        const etl_property_info *p = &e->properties[i];
        char length[160], cnt[160];
        size_text(e, p, 0, length, sizeof length);
        size_text(e, p, 1, cnt, sizeof cnt);
        if (i > first) etl_textbuf_putc(b, ',');
        etl_textbuf_putc(b, '{');
        json_member(b, "name", p->name ? p->name : "", 0);
        int is_struct = (p->flags & ETL_PROP_STRUCT) != 0;
        json_member(b, "in_type", is_struct ? NULL : in_name(p->in_type), 1);
        json_member(b, "out_type", is_struct || !*out_name(p->out_type) ? NULL : out_name(p->out_type), 1);
        json_number(b, "in_type_code", is_struct ? 0 : p->in_type);
        json_number(b, "out_type_code", is_struct ? 0 : p->out_type);
        json_member(b, "json", json_type(p), 1);
        json_member(b, "length", length[0] ? length : NULL, 1);
        json_member(b, "count", cnt[0] ? cnt : NULL, 1);
        json_member(b, "map", p->map ? p->map->name : NULL, 1);
        if (is_struct && depth < 8) {
            etl_textbuf_puts(b, ",\"fields\":");
            json_fields(b, e, p->struct_start, p->struct_count, depth + 1);
        }
        etl_textbuf_putc(b, '}');
    }
    etl_textbuf_putc(b, ']');
}

static void json_event(fmt_buf *b, const etl_event_info *e)
{
    const etl_event_descriptor *d = &e->descriptor;
    char g[40];
    etl_textbuf_puts(b, "{\"id\":");
    fmt_json_u64(b, d->id, 0);
    json_number(b, "version", d->version);
    json_member(b, "name", e->event_name, 1);
    json_number(b, "level", d->level);
    json_member(b, "level_name", e->level_name, 1);
    json_number(b, "task", d->task);
    json_member(b, "task_name", e->task_name, 1);
    json_number(b, "opcode", d->opcode);
    json_member(b, "opcode_name", e->opcode_name, 1);
    json_number(b, "keywords", d->keyword);
    etl_textbuf_puts(b, ",\"keyword_names\":[");
    for (uint32_t k = 0; k < e->keyword_name_count; k++) {
        if (k) etl_textbuf_putc(b, ',');
        fmt_json_string(b, e->keyword_names[k]);
    }
    etl_textbuf_putc(b, ']');
    json_number(b, "channel", d->channel);
    json_member(b, "channel_name", e->channel_name, 1);
    json_member(b, "class_guid", etl_guid_is_zero(&e->event_guid) ? NULL : etl_guid_format(&e->event_guid, g, 0), 1);
    json_member(b, "message", e->message, 1);
    uint32_t tops = e->top_level_count <= e->property_count ? e->top_level_count : e->property_count;
    etl_textbuf_puts(b, ",\"fields\":");
    json_fields(b, e, 0, tops, 0);
    etl_textbuf_putc(b, '}');
}

/* ---- entry points -------------------------------------------------------------------------------------- */

int etl_schema_list_write(FILE *out, const etl_event_info *const *infos, size_t count, etl_schema_list_format format)
{
    const etl_event_info **sorted = malloc((count ? count : 1) * sizeof *sorted);
    if (!sorted) return -1;
    memcpy(sorted, infos, count * sizeof *sorted);
    qsort(sorted, count, sizeof *sorted, compare_info);
    fmt_buf b = {0};
    if (format == ETL_SCHEMA_LIST_JSON) etl_textbuf_puts(&b, "{\"providers\":[");
    for (size_t i = 0; i < count;) {
        size_t end = i + 1;
        while (end < count && same_provider(sorted[i], sorted[end])) end++;
        const etl_event_info *p = sorted[i];
        char g[40];
        etl_guid_format(&p->provider_guid, g, 0);
        if (format == ETL_SCHEMA_LIST_JSON) {
            if (i) etl_textbuf_putc(&b, ',');
            etl_textbuf_putc(&b, '{');
            json_member(&b, "name", p->provider_name, 0);
            json_member(&b, "guid", g, 1);
            json_member(&b, "source", etl_schema_source_name(p->source), 1);
            etl_textbuf_puts(&b, ",\"events\":[");
            for (size_t k = i; k < end; k++) {
                if (k > i) etl_textbuf_putc(&b, ',');
                json_event(&b, sorted[k]);
            }
            etl_textbuf_puts(&b, "]}");
            if (fwrite(b.data, 1, b.length, out) != b.length) break;
            etl_textbuf_reset(&b);
        } else {
            fprintf(out, "provider %s %s source=%s events=%zu\n", p->provider_name ? p->provider_name : "?", g,
                    etl_schema_source_name(p->source), end - i);
            for (size_t k = i; k < end; k++) text_event(out, sorted[k]);
        }
        i = end;
    }
    if (format == ETL_SCHEMA_LIST_JSON) {
        etl_textbuf_puts(&b, "]}\n");
        fwrite(b.data, 1, b.length, out);
    }
    int failed = b.failed || ferror(out);
    etl_textbuf_free(&b);
    free(sorted);
    return failed ? -1 : 0;
}

static int compare_count(const void *pa, const void *pb)
{
    const etl_provider_count *a = pa, *b = pb;
    if (a->events != b->events) return a->events < b->events ? 1 : -1;
    return compare_text(a->name, b->name);
}

int etl_provider_counts_write(FILE *out, const etl_provider_count *counts, size_t count, etl_schema_list_format format)
{
    etl_provider_count *sorted = malloc((count ? count : 1) * sizeof *sorted);
    if (!sorted) return -1;
    memcpy(sorted, counts, count * sizeof *sorted);
    qsort(sorted, count, sizeof *sorted, compare_count);
    fmt_buf b = {0};
    if (format == ETL_SCHEMA_LIST_JSON) etl_textbuf_puts(&b, "{\"providers\":[");
    else etl_textbuf_puts(&b, "provider\tguid\tsource\tevents\tdecoded\terrors\tundecoded\n");
    for (size_t i = 0; i < count; i++) {
        const etl_provider_count *c = &sorted[i];
        char g[40];
        etl_guid_format(&c->guid, g, 0);
        if (format == ETL_SCHEMA_LIST_JSON) {
            etl_textbuf_puts(&b, i ? ",{" : "{");
            json_member(&b, "name", c->name, 0);
            json_member(&b, "guid", g, 1);
            json_member(&b, "source", etl_schema_source_name(c->source), 1);
            json_number(&b, "events", c->events);
            json_number(&b, "decoded", c->decoded);
            json_number(&b, "errors", c->errors);
            json_number(&b, "undecoded", c->undecoded);
            etl_textbuf_putc(&b, '}');
        } else {
            etl_textbuf_printf(&b, "%s\t%s\t%s\t%llu\t%llu\t%llu\t%llu\n", c->name ? c->name : "-", g,
                               etl_schema_source_name(c->source), (unsigned long long)c->events,
                               (unsigned long long)c->decoded, (unsigned long long)c->errors,
                               (unsigned long long)c->undecoded);
        }
    }
    if (format == ETL_SCHEMA_LIST_JSON) etl_textbuf_puts(&b, "]}\n");
    int failed = b.failed || fwrite(b.data, 1, b.length, out) != b.length || ferror(out);
    etl_textbuf_free(&b);
    free(sorted);
    return failed ? -1 : 0;
}
