/* XML manifests: <maps> (valueMap/bitMap) and <templates> (data/struct) → TDH-style property arrays. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schema/manifest_xml.h"
#include "util/textbuf.h"

#define MAX_TEMPLATE_PROPERTIES 4096u   /* indices are u16; real templates have < 100 */
#define MAX_STRUCT_DEPTH 8

static size_t count_children(const xmlNode *parent, const char *a, const char *b)
{
    size_t n = 0;
    for (const xmlNode *c = parent->children; c; c = c->next)
        if (mx_is(c, a) || (b && mx_is(c, b))) n++;
    return n;
}

static int entry_cmp(const void *pa, const void *pb)
{
    const etl_map_entry *a = pa, *b = pb;
    return a->value < b->value ? -1 : a->value > b->value;
}

static int map_cmp(const void *pa, const void *pb)
{
    const mx_map *a = pa, *b = pb;
    int c = strcmp(etl_qname_local(a->name), etl_qname_local(b->name));
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

static int parse_map(mx_context *ctx, const xmlNode *m, etl_error *err)
{
    etl_arena *arena = &ctx->set->arena;
    const char *name = mx_attr(m, "name");
    if (!name) { ctx->set->unresolved_strings++; return ETL_OK; }
    size_t items = count_children(m, "map", NULL);
    etl_map_info *info = etl_arena_alloc(arena, sizeof(*info));
    etl_map_entry *entries = etl_arena_alloc(arena, (items ? items : 1) * sizeof(*entries));
    if (!info || !entries) return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory");
    info->name = etl_arena_strdup(arena, name);
    info->flags = mx_is(m, "bitMap") ? ETL_MAP_BITMAP : ETL_MAP_VALUEMAP;
    uint32_t k = 0;
    for (const xmlNode *it = m->children; it; it = it->next) {
        if (!mx_is(it, "map")) continue;
        uint64_t v;
        if (mx_number(mx_attr(it, "value"), &v) || v > UINT32_MAX) { ctx->set->unresolved_strings++; continue; }
        const char *text = mx_resolve(ctx, mx_attr(it, "message"));
        entries[k].value = (uint32_t)v;
        entries[k].name = text ? text : "";
        k++;
    }
    /* mc stores items sorted by value; TDH (and our bitmap rendering) sees them in that order */
    qsort(entries, k, sizeof(*entries), entry_cmp);
    info->entry_count = k;
    info->entries = entries;
    ctx->maps[ctx->map_count].name = info->name;
    ctx->maps[ctx->map_count].info = info;
    ctx->maps[ctx->map_count].order = (uint32_t)ctx->map_count;
    ctx->map_count++;
    return ETL_OK;
}

int mx_parse_maps(mx_context *ctx, const xmlNode *provider, etl_error *err)
{
    /* <maps> holds the maps; some hand-written manifests put them directly in <provider> (PerfView's
     * EnumTest), which PerfView accepts, so we do too */
    size_t n = count_children(provider, "valueMap", "bitMap");
    for (const xmlNode *sec = provider->children; sec; sec = sec->next)
        if (mx_is(sec, "maps")) n += count_children(sec, "valueMap", "bitMap");
    ctx->maps = etl_arena_alloc(&ctx->set->arena, (n ? n : 1) * sizeof(*ctx->maps));
    if (!ctx->maps) return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory (maps)");
    ctx->map_count = 0;
    for (const xmlNode *sec = provider->children; sec; sec = sec->next) {
        int rc = ETL_OK;
        if (mx_is(sec, "valueMap") || mx_is(sec, "bitMap")) rc = parse_map(ctx, sec, err);
        else if (mx_is(sec, "maps"))
            for (const xmlNode *m = sec->children; m && rc == ETL_OK; m = m->next)
                if (mx_is(m, "valueMap") || mx_is(m, "bitMap")) rc = parse_map(ctx, m, err);
        if (rc != ETL_OK) return rc;
    }
    qsort(ctx->maps, ctx->map_count, sizeof(*ctx->maps), map_cmp);
    return ETL_OK;
}

/* Maps are sorted by local name: the exact QName first, else the first map with that local name. */
static const etl_map_info *find_map(const mx_context *ctx, const char *name)
{
    const char *local = etl_qname_local(name);
    size_t lo = 0, hi = ctx->map_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(local, etl_qname_local(ctx->maps[mid].name)) > 0) lo = mid + 1;
        else hi = mid;
    }
    const etl_map_info *first = NULL;
    for (size_t i = lo; i < ctx->map_count && i < lo + 64; i++) {
        if (strcmp(local, etl_qname_local(ctx->maps[i].name)) != 0) break;
        if (strcmp(ctx->maps[i].name, name) == 0) return ctx->maps[i].info;
        if (!first) first = ctx->maps[i].info;
    }
    return first;
}

static int is_field(const xmlNode *n) { return mx_is(n, "data") || mx_is(n, "struct"); }

/* Number of data/struct entries below `parent` (all levels); -1 when nested too deep or too many. */
static long count_fields(const xmlNode *parent, int depth)
{
    if (depth > MAX_STRUCT_DEPTH) return -1;
    long n = 0;
    for (const xmlNode *c = parent->children; c; c = c->next) {
        if (!is_field(c)) continue;
        n++;
        if (mx_is(c, "struct")) {
            long sub = count_fields(c, depth + 1);
            if (sub < 0) return -1;
            n += sub;
        }
        if (n > (long)MAX_TEMPLATE_PROPERTIES) return -1;
    }
    return n;
}

static int identifier_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* Equal once the characters outside [A-Za-z0-9_] are dropped from both (and something is left). */
static int same_identifier(const char *a, const char *b)
{
    int any = 0;
    for (;;) {
        while (*a && !identifier_char(*a)) a++;
        while (*b && !identifier_char(*b)) b++;
        if (!*a || !*b) return any && !*a && !*b;
        if (*a++ != *b++) return 0;
        any = 1;
    }
}

/* `count`/`length`: a decimal constant, or the name of an earlier field of the same scope (same parent
 * element); a reference is stored as the absolute index into the property array, as TDH does. */
static int set_size_attr(const char *text, const xmlNode *const *nodes, const etl_property_info *props,
                         size_t self, int is_count, etl_property_info *p)
{
    if (!text) return 0;
    uint64_t v;
    if (mx_number(text, &v) == 0) {
        if (v > UINT16_MAX) return -1;
        /* mc compiles a constant 0 as "no count/length", and a constant length only for strings and
         * binary (Large.man Template6/Template8: SID length="1" is dropped) */
        if (v == 0) return 0;
        if (!is_count && p->in_type != ETL_IN_UNICODESTRING && p->in_type != ETL_IN_ANSISTRING &&
            p->in_type != ETL_IN_BINARY)
            return 0;
        if (is_count) { p->flags |= ETL_PROP_PARAM_FIXED_COUNT; p->count = (uint16_t)v; }
        else { p->flags |= ETL_PROP_PARAM_FIXED_LENGTH; p->length = (uint16_t)v; }
        return 0;
    }
    size_t found = SIZE_MAX;
    for (size_t j = 0; j < self && found == SIZE_MAX; j++)
        if (nodes[j]->parent == nodes[self]->parent && props[j].name && strcmp(props[j].name, text) == 0) found = j;
    /* PerfView's TDH-regenerated manifests strip the characters outside [A-Za-z0-9_] from data names but
     * not from the count/length references to them (length="Buffer Size" for data name="BufferSize") */
    for (size_t j = 0; j < self && found == SIZE_MAX; j++)
        if (nodes[j]->parent == nodes[self]->parent && props[j].name && same_identifier(props[j].name, text)) found = j;
    if (found == SIZE_MAX) return -1;
    if (is_count) { p->flags |= ETL_PROP_PARAM_COUNT; p->count = (uint16_t)found; }
    else { p->flags |= ETL_PROP_PARAM_LENGTH; p->length = (uint16_t)found; }
    return 0;
}

/* PerfView's manifest dump (provider source="Xml") writes only the top-level properties, each as
 * inType="win:" + the TDH in-type, and for a struct that member is its StructStartIndex (the same union in
 * EVENT_PROPERTY_INFO): the struct arrays of DotNETRuntime's bulk events (BulkType, GCBulkRootEdge, ...)
 * read `<data name="Values" inType="win:Int8" count="Count"/>`. The first struct's members start right
 * after the T top-level properties, so such a field has in-type code T. When it is the last top-level
 * field, the rest of the payload is that array: shown as one binary value instead of Count misread
 * numbers followed by unexplained extra bytes. Other fields are left as written (nothing to go on). */
static void unflatten_perfview_struct(const xmlNode *t, const xmlNode *const *nodes, etl_property_info *props,
                                      size_t top)
{
    const xmlNode *provider = t->parent ? t->parent->parent : NULL;
    const char *source = provider ? mx_attr(provider, "source") : NULL;
    if (!source || strcmp(source, "Xml") != 0 || top == 0 || !mx_is(nodes[top - 1], "data")) return;
    etl_property_info *last = &props[top - 1];
    if (!(last->flags & ETL_PROP_PARAM_COUNT) || last->in_type != top) return;
    last->flags &= ~(uint32_t)ETL_PROP_PARAM_COUNT;
    last->count = 1;
    last->in_type = ETL_IN_BINARY;
    last->out_type = ETL_OUT_HEXBINARY;
    last->map = NULL;
}

/* ---- <UserData>: the element layout, as etl_event_info.user_data describes it ------------------------- */

#define MAX_USER_DATA 16384   /* bytes of layout; real ones are a few hundred */

static void ud_qname(etl_textbuf *b, char code, const xmlNs *ns, const xmlChar *name)
{
    etl_textbuf_putc(b, code);
    if (ns && ns->prefix) {
        etl_textbuf_puts(b, (const char *)ns->prefix);
        etl_textbuf_putc(b, ':');
    }
    etl_textbuf_puts(b, (const char *)name);
    etl_textbuf_putc(b, '\x02');
}

/* Text without the whitespace around it (mc keeps "<X> %1 </X>" as the value alone). */
static void ud_text(etl_textbuf *b, const char *text)
{
    const char *end = text + strlen(text);
    while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r') text++;
    while (end > text && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r')) end--;
    if (end == text) return;
    etl_textbuf_putc(b, '\x04');
    etl_textbuf_append(b, text, (size_t)(end - text));
    etl_textbuf_putc(b, '\x02');
}

static int ud_element(etl_textbuf *b, const xmlNode *n, int depth)
{
    if (depth > MAX_STRUCT_DEPTH * 4) return -1;
    ud_qname(b, '\x01', n->ns, n->name);
    for (const xmlNs *ns = n->nsDef; ns; ns = ns->next) {
        etl_textbuf_putc(b, '\x03');
        etl_textbuf_puts(b, ns->prefix ? "xmlns:" : "xmlns");
        if (ns->prefix) etl_textbuf_puts(b, (const char *)ns->prefix);
        etl_textbuf_putc(b, '\x02');
        etl_textbuf_puts(b, ns->href ? (const char *)ns->href : "");
        etl_textbuf_putc(b, '\x02');
    }
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        xmlChar *value = xmlNodeGetContent((const xmlNode *)a);
        ud_qname(b, '\x03', a->ns, a->name);
        etl_textbuf_puts(b, value ? (const char *)value : "");
        etl_textbuf_putc(b, '\x02');
        xmlFree(value);
    }
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (c->type == XML_ELEMENT_NODE) {
            if (ud_element(b, c, depth + 1) != 0) return -1;
        } else if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content) {
            ud_text(b, (const char *)c->content);
        }
    }
    etl_textbuf_putc(b, '\x05');
    return b->failed || b->length > MAX_USER_DATA ? -1 : 0;
}

/* The template's <UserData> child as a layout string in the arena; NULL when there is none or it cannot be
 * kept (too large, too deep: those events are written as EventData). */
static const char *parse_user_data(mx_context *ctx, const xmlNode *t)
{
    const xmlNode *ud = NULL;
    for (const xmlNode *c = t->children; c && !ud; c = c->next)
        if (mx_is(c, "UserData")) ud = c;
    if (!ud) return NULL;
    etl_textbuf b = {0};
    int rc = 0, elements = 0;
    for (const xmlNode *c = ud->children; c && rc == 0; c = c->next)
        if (c->type == XML_ELEMENT_NODE) rc = ud_element(&b, c, 0), elements++;
    const char *out = rc == 0 && elements > 0 && b.data ? etl_arena_strdup(&ctx->set->arena, b.data) : NULL;
    etl_textbuf_free(&b);
    return out;
}

int mx_parse_template(mx_context *ctx, const xmlNode *t, mx_template *out, etl_error *err)
{
    etl_arena *arena = &ctx->set->arena;
    long total = count_fields(t, 0);
    if (total < 0)
        return etl_schema_fail(err, ETL_ERR_SCHEMA, ctx->origin, UINT64_MAX,
                               "line %ld: template '%s': too many fields or structs nested too deep", xmlGetLineNo(t), out->tid);
    const xmlNode **nodes = calloc((size_t)(total ? total : 1), sizeof(*nodes));
    etl_property_info *props = etl_arena_alloc(arena, (size_t)(total ? total : 1) * sizeof(*props));
    if (!nodes || !props) {
        free(nodes);
        return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory (template)");
    }
    /* Breadth-first: top-level fields first, then the members of each struct (TDH/mc order). */
    size_t n = 0, top = 0;
    for (const xmlNode *c = t->children; c; c = c->next)
        if (is_field(c)) nodes[n++] = c;
    top = n;
    int rc = ETL_OK;
    for (size_t i = 0; i < n; i++) {
        const xmlNode *c = nodes[i];
        etl_property_info *p = &props[i];
        p->name = etl_arena_strdup(arena, mx_attr(c, "name"));
        p->count = 1;
        if (mx_is(c, "struct")) {
            p->flags = ETL_PROP_STRUCT;
            p->struct_start = (uint16_t)n;
            for (const xmlNode *m = c->children; m; m = m->next)
                if (is_field(m)) nodes[n++] = m;
            p->struct_count = (uint16_t)(n - p->struct_start);
        } else {
            const char *in = mx_attr(c, "inType");
            const char *outname = mx_attr(c, "outType");
            if (etl_manifest_in_type(in, &p->in_type)) {
                rc = etl_schema_fail(err, ETL_ERR_SCHEMA, ctx->origin, UINT64_MAX,
                                     "line %ld: template '%s' field '%s': unknown inType '%s'", xmlGetLineNo(c), out->tid,
                                     p->name ? p->name : "?", in ? in : "(none)");
                break;
            }
            if (!outname || etl_manifest_out_type(outname, &p->out_type))
                p->out_type = etl_manifest_default_out_type(p->in_type);
            const char *map = mx_attr(c, "map");
            if (map) {
                p->map = find_map(ctx, map);
                if (!p->map) ctx->set->unresolved_strings++;
            }
        }
        if (set_size_attr(mx_attr(c, "count"), nodes, props, i, 1, p) ||
            set_size_attr(mx_attr(c, "length"), nodes, props, i, 0, p)) {
            rc = etl_schema_fail(err, ETL_ERR_SCHEMA, ctx->origin, UINT64_MAX,
                                 "line %ld: template '%s' field '%s': count/length is neither a number up to 65535 nor "
                                 "an earlier field", xmlGetLineNo(c), out->tid, p->name ? p->name : "?");
            break;
        }
        if ((p->flags & ETL_PROP_PARAM_FIXED_COUNT) == 0 && (p->flags & ETL_PROP_PARAM_COUNT) == 0) p->count = 1;
        /* -export writes TraceLogging's inline u16 count/length forms (no mc.exe equivalent) as etl:flags */
        uint64_t extra;
        if (mx_number(mx_attr_ns(c, ETL_MANIFEST_EXT_NS, "flags"), &extra) == 0)
            p->flags |= (uint32_t)extra & (ETL_PROP_INLINE_COUNT | ETL_PROP_INLINE_LENGTH | ETL_PROP_HAS_CUSTOM_SCHEMA);
    }
    if (rc == ETL_OK) unflatten_perfview_struct(t, nodes, props, top);
    free(nodes);
    if (rc != ETL_OK) return rc;
    out->properties = props;
    out->property_count = (uint32_t)n;
    out->top_level_count = (uint32_t)top;
    out->user_data = parse_user_data(ctx, t);
    return ETL_OK;
}

static int template_cmp(const void *a, const void *b)
{
    return strcmp(((const mx_template *)a)->tid, ((const mx_template *)b)->tid);
}

int mx_parse_templates(mx_context *ctx, const xmlNode *provider, etl_error *err)
{
    (void)err;
    size_t n = 0;
    for (const xmlNode *sec = provider->children; sec; sec = sec->next)
        if (mx_is(sec, "templates")) n += count_children(sec, "template", NULL);
    ctx->templates = etl_arena_alloc(&ctx->set->arena, (n ? n : 1) * sizeof(*ctx->templates));
    if (!ctx->templates) return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory");
    ctx->template_count = 0;
    for (const xmlNode *sec = provider->children; sec; sec = sec->next) {
        if (!mx_is(sec, "templates")) continue;
        for (const xmlNode *t = sec->children; t; t = t->next) {
            if (!mx_is(t, "template")) continue;
            mx_template *out = &ctx->templates[ctx->template_count];
            out->tid = mx_attr(t, "tid");
            if (!out->tid) { ctx->set->unresolved_strings++; continue; }
            int rc = mx_parse_template(ctx, t, out, mx_err(ctx));
            if (rc == ETL_ERR_NOMEM) return rc;
            if (rc != ETL_OK) {
                /* events using this template are left out (their records decode as "no schema"); the rest
                 * of the manifest still loads and the first such error is reported */
                mx_failed(ctx, rc);
                out->bad = 1;
            }
            ctx->template_count++;
        }
    }
    /* sorted by tid: generated manifests have thousands of templates */
    qsort(ctx->templates, ctx->template_count, sizeof(*ctx->templates), template_cmp);
    return ETL_OK;
}

const mx_template *mx_find_template(const mx_context *ctx, const char *tid)
{
    mx_template key = {tid, NULL, 0, 0, 0, NULL};
    return ctx->template_count ? bsearch(&key, ctx->templates, ctx->template_count, sizeof(key), template_cmp) : NULL;
}
