/* XML instrumentation manifests (schemas.md §1) → schema set, with libxml2.
 *
 * Hostile input: no network, no DTD (a DOCTYPE stops the parse, so no entity can be declared, let alone
 * expanded), no XML_PARSE_HUGE (libxml2's default depth and text limits stay on), an input size cap. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "schema/manifest_xml.h"

/* ---- small helpers ----------------------------------------------------------------------------------- */

const char *mx_attr(const xmlNode *n, const char *name)
{
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        if (a->ns || strcmp((const char *)a->name, name) != 0) continue;
        if (!a->children) return "";
        if (a->children->type == XML_TEXT_NODE && !a->children->next) return (const char *)a->children->content;
        return NULL;
    }
    return NULL;
}

const char *mx_attr_ns(const xmlNode *n, const char *ns_uri, const char *name)
{
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        if (!a->ns || !a->ns->href || strcmp((const char *)a->ns->href, ns_uri) != 0 ||
            strcmp((const char *)a->name, name) != 0)
            continue;
        if (a->children && a->children->type == XML_TEXT_NODE && !a->children->next)
            return (const char *)a->children->content;
        return NULL;
    }
    return NULL;
}

int mx_number(const char *text, uint64_t *out)
{
    if (!text) return -1;
    while (isspace((unsigned char)*text)) text++;
    if (!*text || *text == '-' || *text == '+') return -1;
    char *end;
    int base = (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) ? 16 : 10;
    unsigned long long v = strtoull(text, &end, base);
    while (isspace((unsigned char)*end)) end++;
    if (*end || end == text) return -1;
    *out = v;
    return 0;
}

static int string_cmp(const void *pa, const void *pb)
{
    return strcmp(((const mx_string *)pa)->id, ((const mx_string *)pb)->id);
}

const char *mx_resolve(mx_context *ctx, const char *text)
{
    if (!text) return NULL;
    size_t len = strlen(text);
    if (len < 11 || strncmp(text, "$(string.", 9) != 0 || text[len - 1] != ')')
        return etl_arena_strdup(&ctx->set->arena, text);
    char id[256];
    if (len - 10 >= sizeof(id)) { ctx->set->unresolved_strings++; return NULL; }
    memcpy(id, text + 9, len - 10);
    id[len - 10] = '\0';
    mx_string key = {id, NULL, NULL};
    mx_string *s = ctx->string_count ? bsearch(&key, ctx->strings, ctx->string_count, sizeof(*s), string_cmp) : NULL;
    if (!s) { ctx->set->unresolved_strings++; return NULL; }
    if (!s->resolved) s->resolved = etl_arena_strdup(&ctx->set->arena, s->value);
    return s->resolved;
}

/* ---- string tables ----------------------------------------------------------------------------------- */

/* All localization/resources elements (any namespace, any depth up to `depth`). */
static void find_resources(const xmlNode *n, int depth, const xmlNode **best, int *best_rank)
{
    if (depth > 16) return;
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (mx_is(c, "resources") && mx_is(c->parent, "localization")) {
            const char *culture = mx_attr(c, "culture");
            int rank = culture && strcasecmp(culture, "en-US") == 0 ? 2 : 1;
            if (rank > *best_rank) { *best = c; *best_rank = rank; }
            continue;
        }
        find_resources(c, depth + 1, best, best_rank);
    }
}

static int load_strings(mx_context *ctx, const xmlNode *root, etl_error *err)
{
    const xmlNode *res = NULL;
    int rank = 0;
    find_resources(root->parent ? root->parent : root, 0, &res, &rank);
    if (!res) return ETL_OK;
    size_t n = 0;
    for (const xmlNode *t = res->children; t; t = t->next)
        if (mx_is(t, "stringTable"))
            for (const xmlNode *s = t->children; s; s = s->next) n += mx_is(s, "string");
    if (n == 0) return ETL_OK;
    ctx->strings = calloc(n, sizeof(*ctx->strings));
    if (!ctx->strings) return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory");
    for (const xmlNode *t = res->children; t; t = t->next) {
        if (!mx_is(t, "stringTable")) continue;
        for (const xmlNode *s = t->children; s; s = s->next) {
            if (!mx_is(s, "string")) continue;
            const char *id = mx_attr(s, "id"), *value = mx_attr(s, "value");
            if (!id || !value) continue;
            ctx->strings[ctx->string_count].id = id;
            ctx->strings[ctx->string_count].value = value;
            ctx->string_count++;
        }
    }
    qsort(ctx->strings, ctx->string_count, sizeof(*ctx->strings), string_cmp);
    return ETL_OK;
}

/* ---- provider tables --------------------------------------------------------------------------------- */

typedef struct mx_item {
    const char *name;     /* as written (QName) */
    uint64_t value;       /* level/task/opcode value, keyword mask, channel value */
    uint16_t task;        /* opcodes: owning task value (0 = provider-level) */
    const char *chid;     /* channels */
    const char *display;  /* message text, else the name */
} mx_item;

typedef struct mx_table {
    mx_item *items;
    size_t count, cap;
    const mx_item **index;   /* sorted by (local name, task) for O(log n) lookups */
} mx_table;

/* Bounds on hostile input: real providers have a handful of levels/channels and at most a few thousand
 * tasks and opcodes; beyond these counts entries are left out (counted). */
#define MAX_LEVELS 256u
#define MAX_CHANNELS 256u
#define MAX_KEYWORDS 1024u
#define MAX_TASKS 65536u
#define MAX_OPCODES 262144u
#define MAX_EQUAL_NAMES 64u

typedef struct mx_provider {
    mx_table levels, tasks, opcodes, keywords, channels;
    int perfview_dump;   /* source="Xml": regenerated from TDH by PerfView (see dump_opcode_value) */
} mx_provider;

static mx_item *table_add(mx_context *ctx, mx_table *t)
{
    if (t->count == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 16;
        mx_item *p = etl_arena_alloc(&ctx->set->arena, ncap * sizeof(*p));
        if (!p) return NULL;
        if (t->count) memcpy(p, t->items, t->count * sizeof(*p));
        t->items = p;
        t->cap = ncap;
    }
    mx_item *it = &t->items[t->count++];
    memset(it, 0, sizeof(*it));
    return it;
}

static int item_key_cmp(const char *local, uint16_t task, const mx_item *it)
{
    int c = strcmp(local, etl_qname_local(it->name));
    if (c) return c;
    return (task > it->task) - (task < it->task);
}

static int item_ptr_cmp(const void *pa, const void *pb)
{
    const mx_item *a = *(const mx_item *const *)pa, *b = *(const mx_item *const *)pb;
    int c = item_key_cmp(etl_qname_local(a->name), a->task, b);
    if (c) return c;
    return (a > b) - (a < b);   /* declaration order among equal keys */
}

static int table_index(mx_context *ctx, mx_table *t)
{
    if (!t->count) return 0;
    t->index = etl_arena_alloc(&ctx->set->arena, t->count * sizeof(*t->index));
    if (!t->index) return -1;
    for (size_t i = 0; i < t->count; i++) t->index[i] = &t->items[i];
    qsort(t->index, t->count, sizeof(*t->index), item_ptr_cmp);
    return 0;
}

/* Entry named `name` (QName) with this task: the exact spelling first, else the same local name. */
static const mx_item *table_lookup(const mx_table *t, const char *name, uint16_t task)
{
    if (!t->index) return NULL;
    const char *local = etl_qname_local(name);
    size_t lo = 0, hi = t->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (item_key_cmp(local, task, t->index[mid]) > 0) lo = mid + 1;
        else hi = mid;
    }
    const mx_item *first = NULL;
    for (size_t i = lo; i < t->count && i < lo + MAX_EQUAL_NAMES; i++) {
        if (item_key_cmp(local, task, t->index[i]) != 0) break;
        if (strcmp(t->index[i]->name, name) == 0) return t->index[i];
        if (!first) first = t->index[i];
    }
    return first;
}

static const mx_item *table_find(const mx_table *t, const char *name) { return table_lookup(t, name, 0); }

/* <level>/<task>/<opcode>/<keyword> entries with a `value` (or `mask`) attribute. */
static int parse_item(mx_context *ctx, const xmlNode *n, mx_table *t, const char *value_attr, uint16_t task,
                      size_t max)
{
    const char *name = mx_attr(n, "name");
    uint64_t v;
    if (!name || mx_number(mx_attr(n, value_attr), &v)) { ctx->set->unresolved_strings++; return 0; }
    if (t->count >= max) { ctx->skipped++; return 0; }
    mx_item *it = table_add(ctx, t);
    if (!it) return -1;
    it->name = name;
    it->value = v;
    it->task = task;
    const char *msg = mx_resolve(ctx, mx_attr(n, "message"));
    it->display = msg ? msg : etl_arena_strdup(&ctx->set->arena, name);
    return it->display ? 0 : -1;
}

/* Channels: mc gives a channel without `value` the next free number from 16 (schemas.md §1.3). */
static int parse_channels(mx_context *ctx, const xmlNode *chans, mx_provider *p)
{
    for (const xmlNode *c = chans->children; c; c = c->next) {
        int imported = mx_is(c, "importChannel");
        if (!imported && !mx_is(c, "channel")) continue;
        const char *name = mx_attr(c, "name");
        if (!name) name = mx_attr(c, "chid");   /* a channel known only by its chid still gets its events */
        if (!name) { ctx->set->unresolved_strings++; continue; }
        if (p->channels.count >= MAX_CHANNELS) { ctx->skipped++; continue; }
        mx_item *it = table_add(ctx, &p->channels);
        if (!it) return -1;
        it->name = name;
        it->chid = mx_attr(c, "chid");
        it->task = (uint16_t)imported;
        uint64_t v;
        const etl_winmeta_entry *w = etl_winmeta_find(ETL_WINMETA_CHANNEL, name);
        if (mx_number(mx_attr(c, "value"), &v) == 0) it->value = v;
        else if (imported && w) it->value = w->value;
        else it->value = UINT64_MAX;  /* assigned below */
        const char *msg = mx_resolve(ctx, mx_attr(c, "message"));
        it->display = msg ? msg : etl_arena_strdup(&ctx->set->arena, name);
    }
    uint64_t next = 16;
    for (size_t i = 0; i < p->channels.count; i++) {
        if (p->channels.items[i].value != UINT64_MAX) continue;
        for (;;) {
            int used = 0;
            for (size_t j = 0; j < p->channels.count; j++) used |= p->channels.items[j].value == next;
            if (!used) break;
            next++;
        }
        p->channels.items[i].value = next++;
    }
    return 0;
}

static int parse_tables(mx_context *ctx, const xmlNode *prov, mx_provider *p)
{
    for (const xmlNode *sec = prov->children; sec; sec = sec->next) {
        if (mx_is(sec, "channels")) {
            if (parse_channels(ctx, sec, p)) return -1;
            continue;
        }
        for (const xmlNode *c = sec->children; c; c = c->next) {
            int rc = 0;
            if (mx_is(sec, "levels") && mx_is(c, "level"))
                rc = parse_item(ctx, c, &p->levels, "value", 0, MAX_LEVELS);
            else if (mx_is(sec, "opcodes") && mx_is(c, "opcode"))
                rc = parse_item(ctx, c, &p->opcodes, "value", 0, MAX_OPCODES);
            else if (mx_is(sec, "keywords") && mx_is(c, "keyword"))
                rc = parse_item(ctx, c, &p->keywords, "mask", 0, MAX_KEYWORDS);
            else if (mx_is(sec, "tasks") && mx_is(c, "task")) {
                rc = parse_item(ctx, c, &p->tasks, "value", 0, MAX_TASKS);
                uint64_t tv;
                if (rc == 0 && mx_number(mx_attr(c, "value"), &tv) == 0)
                    for (const xmlNode *os = c->children; os && rc == 0; os = os->next)
                        if (mx_is(os, "opcodes"))
                            for (const xmlNode *o = os->children; o && rc == 0; o = o->next)
                                if (mx_is(o, "opcode"))
                                    rc = parse_item(ctx, o, &p->opcodes, "value", (uint16_t)tv, MAX_OPCODES);
            }
            if (rc) return -1;
        }
    }
    return table_index(ctx, &p->levels) || table_index(ctx, &p->tasks) || table_index(ctx, &p->opcodes) ||
                   table_index(ctx, &p->keywords)
               ? -1
               : 0;
}

/* Provider table entry, else winmeta; *display NULL when neither knows the name. */
static int lookup_named(mx_context *ctx, const mx_table *t, enum etl_winmeta_kind kind, const char *name,
                        uint64_t *value, const char **display)
{
    const mx_item *it = table_find(t, name);
    /* a winmeta spelling ("win:Start") means winmeta's entry, not a provider entry of the same local name */
    if (it && strcmp(it->name, name) != 0 && etl_winmeta_find(kind, name)) it = NULL;
    if (it) { *value = it->value; *display = it->display; return 0; }
    const etl_winmeta_entry *w = etl_winmeta_find(kind, name);
    if (!w) {
        const char *colon = strchr(name, ':');
        if (colon) {
            char buf[128];
            snprintf(buf, sizeof(buf), "win%s", colon);
            w = etl_winmeta_find(kind, buf);
        }
    }
    /* PerfView's TDH-regenerated manifests write level 0 as "win:Always" (TraceEventLevel.Always) */
    if (!w && kind == ETL_WINMETA_LEVEL && strcmp(etl_qname_local(name), "Always") == 0)
        w = etl_winmeta_find_value(ETL_WINMETA_LEVEL, 0);
    if (!w) { ctx->set->unresolved_strings++; return -1; }
    *value = w->value;
    *display = w->display ? w->display : w->name;
    return 0;
}

static const mx_item *find_opcode(const mx_table *opcodes, uint16_t task, const char *name)
{
    const mx_item *op = task ? table_lookup(opcodes, name, task) : NULL;
    if (!op) op = table_lookup(opcodes, name, 0);
    if (op && strcmp(op->name, name) != 0 && etl_winmeta_find(ETL_WINMETA_OPCODE, name)) op = NULL;
    return op;
}

/* PerfView's dump writes opcodes below 10 as "win:" + the TDH name, renamed "<name>_<task>_<opcode>" when
 * the name was already used for another value (Kernel-EventTracing: opcode="win:Start_8_1"), or
 * "opcode_<opcode>" when TDH has no name: none is a winmeta name, but the value is the last number. */
static int dump_opcode_value(const char *name, uint64_t *value)
{
    if (strncmp(name, "win:", 4) != 0) return 0;
    const char *us = strrchr(name, '_');
    if (!us || !us[1] || strlen(us + 1) > 3) return 0;
    uint64_t v = 0;
    for (const char *d = us + 1; *d; d++) {
        if (*d < '0' || *d > '9') return 0;
        v = v * 10 + (uint64_t)(*d - '0');
    }
    if (v > 255) return 0;
    *value = v;
    return 1;
}

/* Channel reference: the first channel in declaration order whose chid or name matches (what mc does
 * when a name of one channel is the chid of another; see ReferenceChannels.man). */
static const mx_item *find_channel(const mx_table *chans, const char *ref, size_t *index)
{
    for (size_t i = 0; i < chans->count; i++)
        if ((chans->items[i].chid && strcmp(chans->items[i].chid, ref) == 0) || strcmp(chans->items[i].name, ref) == 0) {
            *index = i;
            return &chans->items[i];
        }
    return NULL;
}

static int parse_event(mx_context *ctx, const xmlNode *e, const mx_provider *p, const etl_set_provider *sp,
                       const etl_keyword_def *kw_defs, size_t kw_count, etl_error *err)
{
    etl_schema_set *set = ctx->set;
    uint64_t id, version = 0, v;
    const char *value_text = mx_attr(e, "value"), *version_text = mx_attr(e, "version");
    if (mx_number(value_text, &id) || id > UINT16_MAX ||
        (version_text && (mx_number(version_text, &version) || version > 255))) {
        /* refused, not dropped quietly: its records would otherwise decode as "no schema" with no reason */
        etl_schema_fail(mx_err(ctx), ETL_ERR_SCHEMA, ctx->origin, UINT64_MAX,
                        "line %ld: event value '%s' version '%s': not an id up to 65535 and a version up to 255; "
                        "event left out", xmlGetLineNo(e), value_text ? value_text : "(none)",
                        version_text ? version_text : "0");
        mx_failed(ctx, ETL_ERR_SCHEMA);
        return ETL_OK;
    }
    etl_event_info *ev = etl_schema_set_add_event(set);
    if (!ev) return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory");
    ev->provider_guid = sp->guid;
    ev->provider_name = sp->name;
    ev->provider_message = sp->message;
    ev->descriptor.id = (uint16_t)id;
    ev->descriptor.version = (uint8_t)version;
    const char *a;
    if ((a = mx_attr(e, "level")) && lookup_named(ctx, &p->levels, ETL_WINMETA_LEVEL, a, &v, &ev->level_name) == 0)
        ev->descriptor.level = (uint8_t)v;
    if ((a = mx_attr(e, "task")) && lookup_named(ctx, &p->tasks, ETL_WINMETA_TASK, a, &v, &ev->task_name) == 0)
        ev->descriptor.task = (uint16_t)v;
    if ((a = mx_attr(e, "opcode"))) {
        const mx_item *op = find_opcode(&p->opcodes, ev->descriptor.task, a);
        if (op) {
            ev->descriptor.opcode = (uint8_t)op->value;
            ev->opcode_name = op->display;
        } else if (p->perfview_dump && !etl_winmeta_find(ETL_WINMETA_OPCODE, a) && dump_opcode_value(a, &v)) {
            const etl_winmeta_entry *w = etl_winmeta_find_value(ETL_WINMETA_OPCODE, v);
            ev->descriptor.opcode = (uint8_t)v;
            ev->opcode_name = w && w->display ? w->display : etl_arena_strdup(&set->arena, a + 4);
        } else if (lookup_named(ctx, &(mx_table){0}, ETL_WINMETA_OPCODE, a, &v, &ev->opcode_name) == 0) {
            ev->descriptor.opcode = (uint8_t)v;
        }
    }
    uint64_t mask = 0;
    if ((a = mx_attr(e, "keywords"))) {
        char buf[256];
        const char *s = a;
        while (*s) {
            while (isspace((unsigned char)*s)) s++;
            size_t len = 0;
            while (s[len] && !isspace((unsigned char)s[len])) len++;
            if (len == 0) break;
            if (len < sizeof(buf)) {
                memcpy(buf, s, len);
                buf[len] = '\0';
                const char *disp;
                if (lookup_named(ctx, &p->keywords, ETL_WINMETA_KEYWORD, buf, &v, &disp) == 0) mask |= v;
            }
            s += len;
        }
    }
    if ((a = mx_attr(e, "channel"))) {
        size_t idx;
        const mx_item *ch = find_channel(&p->channels, a, &idx);
        if (ch) {
            ev->descriptor.channel = (uint8_t)ch->value;
            ev->channel_name = ch->display;
            /* mc: events of the n-th channel of the provider's list (defined or imported) get keyword
             * bit 63-n (schemas.md §1.6; verified with ImportChannels.man / ReferenceChannels.man) */
            if (idx < 8) mask |= 1ull << (63 - idx);
        } else {
            const etl_winmeta_entry *w = etl_winmeta_find(ETL_WINMETA_CHANNEL, a);
            if (w) { ev->descriptor.channel = (uint8_t)w->value; ev->channel_name = etl_arena_strdup(&set->arena, w->name); }
            else set->unresolved_strings++;
        }
    }
    /* etlconv's -export writes descriptor values that have no name (EventSource's ManifestData task 0xFFFE,
     * keyword bits without a keyword) as raw numbers in its own namespace; mc ignores foreign attributes */
    if (mx_number(mx_attr_ns(e, ETL_MANIFEST_EXT_NS, "task"), &v) == 0 && v <= UINT16_MAX) ev->descriptor.task = (uint16_t)v;
    if (mx_number(mx_attr_ns(e, ETL_MANIFEST_EXT_NS, "opcode"), &v) == 0 && v <= 255) ev->descriptor.opcode = (uint8_t)v;
    if (mx_number(mx_attr_ns(e, ETL_MANIFEST_EXT_NS, "level"), &v) == 0 && v <= 255) ev->descriptor.level = (uint8_t)v;
    if (mx_number(mx_attr_ns(e, ETL_MANIFEST_EXT_NS, "channel"), &v) == 0 && v <= 255) ev->descriptor.channel = (uint8_t)v;
    ev->descriptor.keyword = mask;
    if (etl_schema_keyword_names(&set->arena, kw_defs, kw_count, mask, ev))
        return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory");
    /* raw bits carry no name (that is why -export wrote them raw) */
    if (mx_number(mx_attr_ns(e, ETL_MANIFEST_EXT_NS, "keywords"), &v) == 0) ev->descriptor.keyword |= v;
    ev->message = mx_resolve(ctx, mx_attr(e, "message"));
    ev->event_name = etl_arena_strdup(&set->arena, mx_attr(e, "name"));
    if ((a = mx_attr(e, "template"))) {
        const mx_template *t = mx_find_template(ctx, a);
        if (t && t->bad) {
            set->event_count--;   /* leave the event out rather than decode it with a wrong layout */
            ctx->skipped++;
            return ETL_OK;
        }
        if (!t) {
            /* a typo in template="" (mc refuses it): loading the event without its fields would decode every
             * payload as "extra bytes" under the right name; left out, it decodes as "no schema", and this
             * says why */
            set->event_count--;
            etl_schema_fail(mx_err(ctx), ETL_ERR_SCHEMA, ctx->origin, UINT64_MAX,
                            "line %ld: event %llu version %llu: template '%.120s' is not defined in provider '%.120s'; "
                            "event left out", xmlGetLineNo(e), (unsigned long long)id, (unsigned long long)version, a,
                            sp->name ? sp->name : "?");
            mx_failed(ctx, ETL_ERR_SCHEMA);
            return ETL_OK;
        }
        ev->properties = t->properties;
        ev->property_count = t->property_count;
        ev->top_level_count = t->top_level_count;
        ev->user_data = t->user_data;
    }
    return ETL_OK;
}

static int parse_provider(mx_context *ctx, const xmlNode *prov, etl_error *err)
{
    etl_schema_set *set = ctx->set;
    const char *guid_text = mx_attr(prov, "guid");
    etl_guid guid;
    if (!guid_text || etl_guid_parse(guid_text, &guid) != 0)
        return etl_schema_fail(err, ETL_ERR_SCHEMA, ctx->origin, UINT64_MAX,
                               "line %ld: provider '%s': missing or invalid guid", xmlGetLineNo(prov),
                               mx_attr(prov, "name") ? mx_attr(prov, "name") : "?");
    etl_set_provider *sp = etl_schema_set_add_provider(set);
    if (!sp) return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory");
    sp->guid = guid;
    sp->name = etl_arena_strdup(&set->arena, mx_attr(prov, "name"));
    sp->message = mx_resolve(ctx, mx_attr(prov, "message"));

    mx_provider p;
    memset(&p, 0, sizeof(p));
    const char *source = mx_attr(prov, "source");
    p.perfview_dump = source && strcmp(source, "Xml") == 0;
    ctx->map_count = ctx->template_count = 0;
    if (parse_tables(ctx, prov, &p))
        return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory");
    int mrc = mx_parse_maps(ctx, prov, err);
    if (mrc == ETL_OK) mrc = mx_parse_templates(ctx, prov, err);
    if (mrc) return mrc;
    /* keyword display names: provider keywords, then the winmeta ones the provider did not redefine */
    size_t nkw = p.keywords.count + 8;
    etl_keyword_def *defs = etl_arena_alloc(&set->arena, nkw * sizeof(*defs));
    if (!defs) return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory");
    nkw = 0;
    for (size_t i = 0; i < p.keywords.count; i++) {
        defs[nkw].mask = p.keywords.items[i].value;
        defs[nkw++].display = p.keywords.items[i].display;
    }
    for (uint64_t bit = 48; bit < 56; bit++) {
        const etl_winmeta_entry *w = etl_winmeta_find_value(ETL_WINMETA_KEYWORD, 1ull << bit);
        int defined = 0;
        for (size_t i = 0; i < p.keywords.count; i++) defined |= p.keywords.items[i].value == 1ull << bit;
        if (w && !defined) {
            defs[nkw].mask = w->value;
            defs[nkw++].display = w->display;
        }
    }
    for (const xmlNode *sec = prov->children; sec; sec = sec->next) {
        if (!mx_is(sec, "events")) continue;
        for (const xmlNode *e = sec->children; e; e = e->next) {
            if (!mx_is(e, "event")) continue;
            int rc = parse_event(ctx, e, &p, sp, defs, nkw, err);
            if (rc) return rc;
        }
    }
    return ETL_OK;
}

static int walk_providers(mx_context *ctx, const xmlNode *n, int depth, etl_error *err)
{
    if (depth > 16) return ETL_OK;
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (mx_is(c, "provider") && mx_is(c->parent, "events")) {
            /* a broken provider does not stop the others */
            int rc = parse_provider(ctx, c, mx_err(ctx));
            if (rc == ETL_ERR_NOMEM) return rc;
            if (rc) mx_failed(ctx, rc);
            continue;
        }
        if (mx_is(c, "localization") || mx_is(c, "counters")) continue;
        if (mx_is(c, "instrumentation")) ctx->saw_events = 1;  /* a manifest, maybe without events */
        int rc = walk_providers(ctx, c, depth + 1, err);
        if (rc) return rc;
    }
    return ETL_OK;
}

/* ---- document ---------------------------------------------------------------------------------------- */

/* What went wrong first: libxml2 goes on after a fatal error and its "last error" is then a consequence
 * far away ("Premature end of data" at the end of the file for an unescaped quote in an attribute). */
typedef struct parse_diag {
    const char *refused;
    int line;
    char message[200];
    size_t elements;                   /* counted as the DOM is built, bounded by ETL_MANIFEST_MAX_ELEMENTS */
    startElementNsSAX2Func build;      /* libxml2's own handler that adds the element to the DOM */
} parse_diag;

/* SAX hook: counts elements; past the bound the parse stops before the DOM grows further (16.7 M empty
 * elements fit in the 64 MiB size bound and would take 1-2 GB of DOM). */
static void count_element(void *user, const xmlChar *name, const xmlChar *prefix, const xmlChar *uri, int nb_ns,
                          const xmlChar **ns, int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
    xmlParserCtxtPtr ctxt = user;
    parse_diag *d = ctxt->_private;
    if (++d->elements > ETL_MANIFEST_MAX_ELEMENTS) {
        d->refused = "more than " ETL_MANIFEST_MAX_ELEMENTS_TEXT " XML elements (real manifests have thousands)";
        xmlStopParser(ctxt);
        return;
    }
    d->build(user, name, prefix, uri, nb_ns, ns, nb_attributes, nb_defaulted, attributes);
}

/* SAX hook: any DOCTYPE (internal subset) stops the parse before an entity can be declared. */
static void refuse_doctype(void *user, const xmlChar *name, const xmlChar *external_id, const xmlChar *system_id)
{
    (void)name; (void)external_id; (void)system_id;
    xmlParserCtxtPtr ctxt = user;
    ((parse_diag *)ctxt->_private)->refused = "document type declarations (DTD/entities) are not allowed";
    xmlStopParser(ctxt);
}

/* libxml2 2.12 made the structured error handler take a const error */
#if LIBXML_VERSION >= 21200
typedef const xmlError *mx_xml_error;
#else
typedef xmlErrorPtr mx_xml_error;
#endif

static void keep_first_error(void *user, mx_xml_error e)
{
    xmlParserCtxtPtr ctxt = user;
    parse_diag *d = ctxt ? ctxt->_private : NULL;
    /* namespace errors are reported too, but they are not why a document is refused */
    if (!d || d->message[0] || !e || e->level < XML_ERR_FATAL) return;
    d->line = e->line;
    snprintf(d->message, sizeof(d->message), "%s", e->message ? e->message : "error");
    size_t l = strlen(d->message);
    while (l && (d->message[l - 1] == '\n' || d->message[l - 1] == '\r')) d->message[--l] = '\0';
}

/* A document in 8-bit form (no UTF-16 byte order mark, no NUL byte in its first two) whose XML declaration
 * still says UTF-16: a UTF-16 manifest converted to UTF-8 (iconv, an editor, a git filter) keeps the
 * declaration it was written with, and such files are common in public repositories. libxml2 refuses it
 * ("Document labelled UTF-16 but has UTF-8 content"); the bytes themselves leave no doubt, so the parse
 * reads them as UTF-8 and ignores the label. */
static int labelled_utf16_but_8bit(const char *xml, size_t length)
{
    const unsigned char *p = (const unsigned char *)xml;
    if (length >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) { p += 3; length -= 3; }
    if (length < 6 || memcmp(p, "<?xml", 5) != 0) return 0;   /* also excludes FF FE / FE FF and "<\0" */
    size_t end = 5;
    while (end < length && end < 256 && p[end] != '>') end++;
    char decl[260];
    memcpy(decl, p, end);
    decl[end] = '\0';
    const char *enc = strstr(decl, "encoding");
    if (!enc) return 0;
    enc += 8;
    while (*enc == ' ' || *enc == '\t' || *enc == '\r' || *enc == '\n' || *enc == '=') enc++;
    if (*enc == '"' || *enc == '\'') enc++;
    return strncasecmp(enc, "UTF-16", 6) == 0 || strncasecmp(enc, "unicode", 7) == 0;
}

xmlDocPtr mx_parse_document(const char *xml, size_t length, const char *origin, etl_error *err, int *rc)
{
    *rc = ETL_OK;
    if (length > ETL_MANIFEST_MAX_BYTES) {
        *rc = etl_schema_fail(err, ETL_ERR_SCHEMA, origin, UINT64_MAX, "manifest larger than %zu MiB refused",
                              ETL_MANIFEST_MAX_BYTES >> 20);
        return NULL;
    }
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt) { *rc = etl_schema_fail(err, ETL_ERR_NOMEM, origin, UINT64_MAX, "out of memory"); return NULL; }
    parse_diag diag = {NULL, 0, "", 0, ctxt->sax->startElementNs};
    if (diag.build) ctxt->sax->startElementNs = count_element;
    ctxt->sax->internalSubset = refuse_doctype;
    ctxt->sax->serror = keep_first_error;
    ctxt->_private = &diag;
    /* BIG_LINES: xmlGetLineNo gives real line numbers past 65535 where a text node is near (big dumps) */
    int options =
        XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOBLANKS | XML_PARSE_BIG_LINES;
    const char *encoding = NULL;
    if (labelled_utf16_but_8bit(xml, length)) {
        encoding = "UTF-8";
        options |= XML_PARSE_IGNORE_ENC;
    }
    xmlDocPtr doc = xmlCtxtReadMemory(ctxt, xml, (int)length, origin, encoding, options);
    if (diag.refused || !doc || !ctxt->wellFormed || doc->intSubset || !xmlDocGetRootElement(doc)) {
        const xmlError *e = xmlCtxtGetLastError(ctxt);
        char what[300];
        if (diag.refused) snprintf(what, sizeof(what), "%s", diag.refused);
        else if (diag.message[0])
            snprintf(what, sizeof(what), "not well-formed XML (line %d): %s", diag.line, diag.message);
        else if (e && e->message) {
            snprintf(what, sizeof(what), "not well-formed XML (line %d): %s", e->line, e->message);
            size_t l = strlen(what);
            while (l && (what[l - 1] == '\n' || what[l - 1] == '\r')) what[--l] = '\0';
        } else snprintf(what, sizeof(what), "not a usable XML document");
        *rc = etl_schema_fail(err, ETL_ERR_SCHEMA, origin, UINT64_MAX, "%s", what);
        if (doc) xmlFreeDoc(doc);
        doc = NULL;
    }
    xmlFreeParserCtxt(ctxt);
    return doc;
}

int etl_manifest_parse(etl_schema_set *set, const char *xml, size_t length, const char *origin, etl_error *err)
{
    if (!origin) origin = "(manifest)";
    /* Windows 10+ keeps WinSxS\Manifests\*.manifest delta-compressed ("DCM\1" + a PA30 patch of a base
     * manifest): say so instead of reporting a broken XML file */
    if (length >= 4 && memcmp(xml, "DCM\001", 4) == 0)
        return etl_schema_fail(err, ETL_ERR_SCHEMA, origin, 0,
                               "WinSxS manifest in Windows' delta-compressed form (DCM/PA30), not XML: "
                               "not supported; give the expanded XML or the binary with the WEVT_TEMPLATE");
    int rc;
    xmlDocPtr doc = mx_parse_document(xml, length, origin, err, &rc);
    if (!doc) return rc;
    mx_context ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.set = set;
    ctx.origin = origin;
    ctx.err = err;
    xmlNode *root = xmlDocGetRootElement(doc);
    size_t before = set->provider_count;
    /* WEPExplorer's provider dumps: <Providers><Provider><Metadata>... (manifest_wep.c) */
    int wep = mx_is(root, "Providers");
    rc = wep ? mx_wep_parse(&ctx, root, err) : load_strings(&ctx, root, err);
    if (rc == ETL_OK && !wep) rc = walk_providers(&ctx, (xmlNode *)doc, 0, err);
    if (rc == ETL_OK) rc = ctx.first_rc;
    if (rc != ETL_OK && ctx.skipped > 1 && err && rc != ETL_ERR_NOMEM) {
        size_t l = strlen(err->message);
        snprintf(err->message + l, sizeof(err->message) - l, " (%llu items left out in all)",
                 (unsigned long long)ctx.skipped);
    }
    if (rc == ETL_OK && set->provider_count == before && !ctx.saw_events)
        rc = etl_schema_fail(err, ETL_ERR_SCHEMA, origin, UINT64_MAX, "%s",
                             wep ? "no <Provider> with a valid <Guid> in this provider listing"
                                 : "no instrumentation/events/provider element: not an instrumentation manifest");
    free(ctx.strings);
    xmlFreeDoc(doc);
    return rc;
}
