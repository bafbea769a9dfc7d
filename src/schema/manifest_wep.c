/* WEPExplorer provider dumps → schema set (docs/schemas.md, "Regenerated manifests").
 *
 * Layout: <Providers><Provider><Name/><Metadata><Guid/><PublisherMessage/><Channels/><Levels/><Tasks/>
 * <Opcodes/><Keywords/></Metadata><EventMetadata><Event>...</Event></EventMetadata></Provider>...</Providers>.
 * The metadata lists give each entry a Name, a Value (channels: Path, Id, Index) and a Message; an <Event>
 * names its level, task, opcode and channel by display string (the Message, or the Name/Path when the
 * Message is empty) and its keywords by name, so they are mapped back to values through those lists. Its
 * <Template> is a real manifest <template> element inside CDATA: parsed again with the same hardened
 * libxml2 settings and handed to the manifest template parser. The dumps carry no <maps>: a field with a
 * map attribute shows its number. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "schema/manifest_xml.h"

/* Bounds on hostile input (real providers: a few levels/channels, at most a few thousand tasks/opcodes). */
#define WEP_MAX_ITEMS 65536u
#define WEP_MAX_NODE_DEPTH 16

typedef struct wep_item {
    const char *name;      /* <Name>; channels: <Path> */
    const char *message;   /* <Message>, NULL when empty */
    uint64_t value;        /* <Value>; channels: <Id> */
    uint64_t task;         /* opcodes: <Task> (0 = any task) */
    uint64_t index;        /* channels: <Index>, position in the provider's channel list */
} wep_item;

typedef struct wep_key {
    const char *text;
    const wep_item *item;
    uint32_t rank;         /* a Message match beats a Name match; then declaration order */
} wep_key;

typedef struct wep_list {
    wep_item *items;
    size_t count;
    wep_key *keys;
    size_t key_count;
} wep_list;

typedef struct wep_provider {
    etl_set_provider *sp;
    wep_list levels, tasks, opcodes, keywords, channels;
    etl_keyword_def *kw_defs;
    size_t kw_count;
} wep_provider;

/* ---- small helpers ----------------------------------------------------------------------------------- */

static const xmlNode *child(const xmlNode *n, const char *name)
{
    for (const xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (mx_is(c, name)) return c;
    return NULL;
}

/* Text of an element (its text and CDATA children); "" when empty, NULL when the element is absent. A single
 * text node is returned in place, several are joined in the arena. */
static const char *text_of(mx_context *ctx, const xmlNode *n)
{
    if (!n) return NULL;
    size_t parts = 0, total = 0;
    const xmlNode *only = NULL;
    for (const xmlNode *c = n->children; c; c = c->next)
        if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content) {
            parts++;
            total += strlen((const char *)c->content);
            only = c;
        }
    if (parts == 0) return "";
    if (parts == 1) return (const char *)only->content;
    char *joined = etl_arena_alloc(&ctx->set->arena, total + 1);
    if (!joined) return NULL;
    size_t at = 0;
    for (const xmlNode *c = n->children; c; c = c->next)
        if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content) {
            size_t l = strlen((const char *)c->content);
            memcpy(joined + at, c->content, l);
            at += l;
        }
    joined[at] = '\0';
    return joined;
}

static const char *child_text(mx_context *ctx, const xmlNode *n, const char *name)
{
    return text_of(ctx, child(n, name));
}

/* libxml2 keeps lines past 65535 (XML_PARSE_BIG_LINES) only for text nodes: an element holding just CDATA
 * (<Template>) past that line takes the line of the nearest ancestor libxml2 knows. */
static long line_of(const xmlNode *n)
{
    for (int depth = 0; n && depth < WEP_MAX_NODE_DEPTH; n = n->parent, depth++) {
        long line = xmlGetLineNo(n);
        if (n->line < 65535 || line > 65535) return line;
    }
    return 65535;
}

/* WEPExplorer starts every CDATA block on a new line: that first line break is layout, not text. */
static const char *skip_layout_break(const char *text)
{
    if (text[0] == '\r' && text[1] == '\n') return text + 2;
    return text[0] == '\n' ? text + 1 : text;
}

/* ---- metadata lists ---------------------------------------------------------------------------------- */

/* Keys sort by text, then task (opcodes of different tasks share display strings), then rank. */
static int key_order(const char *text, uint64_t task, const wep_key *k)
{
    int c = strcmp(text, k->text);
    return c ? c : (task > k->item->task) - (task < k->item->task);
}

static int key_cmp(const void *pa, const void *pb)
{
    const wep_key *a = pa, *b = pb;
    int c = key_order(a->text, a->item->task, b);
    return c ? c : (a->rank > b->rank) - (a->rank < b->rank);
}

typedef struct wep_list_spec {
    const char *section, *entry;      /* <Levels><Level> */
    const char *name_tag, *value_tag; /* <Name>/<Value>; channels <Path>/<Id> */
    uint64_t max_value;
} wep_list_spec;

static const wep_list_spec LEVELS = {"Levels", "Level", "Name", "Value", 255};
static const wep_list_spec TASKS = {"Tasks", "Task", "Name", "Value", UINT16_MAX};
static const wep_list_spec OPCODES = {"Opcodes", "Opcode", "Name", "Value", 255};
static const wep_list_spec KEYWORDS = {"Keywords", "Keyword", "Name", "Value", UINT64_MAX};
static const wep_list_spec CHANNELS = {"Channels", "Channel", "Path", "Id", 255};

static int parse_list(mx_context *ctx, const xmlNode *metadata, const wep_list_spec *spec, wep_list *l,
                      etl_error *err)
{
    const xmlNode *sec = child(metadata, spec->section);
    size_t n = 0;
    for (const xmlNode *c = sec ? sec->children : NULL; c; c = c->next) n += mx_is(c, spec->entry);
    if (n == 0) return ETL_OK;
    if (n > WEP_MAX_ITEMS) {
        etl_schema_fail(mx_err(ctx), ETL_ERR_SCHEMA, ctx->origin, UINT64_MAX,
                        "line %ld: %zu <%s> entries, more than %u: the rest left out", line_of(sec), n,
                        spec->entry, WEP_MAX_ITEMS);
        mx_failed(ctx, ETL_ERR_SCHEMA);
        n = WEP_MAX_ITEMS;
    }
    l->items = etl_arena_alloc(&ctx->set->arena, n * sizeof(*l->items));
    l->keys = etl_arena_alloc(&ctx->set->arena, 2 * n * sizeof(*l->keys));
    if (!l->items || !l->keys) return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory");
    uint64_t position = 0;   /* a channel without <Index> is at its place in the list */
    for (const xmlNode *c = sec->children; c && l->count < n; c = c->next) {
        if (!mx_is(c, spec->entry)) continue;
        const char *name = child_text(ctx, c, spec->name_tag), *value = child_text(ctx, c, spec->value_tag);
        uint64_t v, task = 0, index = position++;
        const char *task_text = child_text(ctx, c, "Task"), *index_text = child_text(ctx, c, "Index");
        int bad_value = !name || !*name || mx_number(value, &v) || v > spec->max_value;
        int bad_task = !bad_value && spec == &OPCODES && task_text && (mx_number(task_text, &task) || task > UINT16_MAX);
        int bad_index = !bad_value && spec == &CHANNELS && index_text && mx_number(index_text, &index);
        if (bad_value || bad_task || bad_index) {
            if (bad_value)
                etl_schema_fail(mx_err(ctx), ETL_ERR_SCHEMA, ctx->origin, UINT64_MAX,
                                "line %ld: <%s> '%.120s': no <%s>, or <%s> '%.40s' is not a number up to %llu; entry "
                                "left out", line_of(c), spec->entry, name ? name : "", spec->name_tag, spec->value_tag,
                                value ? value : "(none)", (unsigned long long)spec->max_value);
            else
                etl_schema_fail(mx_err(ctx), ETL_ERR_SCHEMA, ctx->origin, UINT64_MAX,
                                "line %ld: <%s> '%.120s': <%s> '%.40s' is not a number%s; entry left out", line_of(c),
                                spec->entry, name, bad_task ? "Task" : "Index", bad_task ? task_text : index_text,
                                bad_task ? " up to 65535" : "");
            mx_failed(ctx, ETL_ERR_SCHEMA);
            continue;
        }
        const char *message = child_text(ctx, c, "Message");
        wep_item *it = &l->items[l->count];
        it->name = etl_arena_strdup(&ctx->set->arena, name);
        it->message = message && *message ? etl_arena_strdup(&ctx->set->arena, message) : NULL;
        if (!it->name || (message && *message && !it->message))
            return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory");
        it->value = v;
        it->task = task;
        it->index = index;
        uint32_t order = (uint32_t)l->count;
        if (it->message) l->keys[l->key_count++] = (wep_key){it->message, it, order};
        l->keys[l->key_count++] = (wep_key){it->name, it, (uint32_t)WEP_MAX_ITEMS + order};
        l->count++;
    }
    qsort(l->keys, l->key_count, sizeof(*l->keys), key_cmp);
    return ETL_OK;
}

#define ANY_TASK UINT64_MAX

/* Best-ranked entry whose Message (else Name) is `text` and whose task is `task` (ANY_TASK: the lowest task);
 * NULL when none. */
static const wep_item *find_key(const wep_list *l, const char *text, uint64_t task)
{
    size_t lo = 0, hi = l->key_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = task == ANY_TASK ? strcmp(text, l->keys[mid].text) : key_order(text, task, &l->keys[mid]);
        if (c > 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo == l->key_count || strcmp(text, l->keys[lo].text) != 0) return NULL;
    return task == ANY_TASK || l->keys[lo].item->task == task ? l->keys[lo].item : NULL;
}

/* The entry of the event's task, else a provider-wide one (task 0), as mc resolves opcodes. */
static const wep_item *list_find(const wep_list *l, const char *text, uint64_t task)
{
    const wep_item *it = find_key(l, text, task);
    return it || task == 0 ? it : find_key(l, text, 0);
}

/* A display string the provider's list does not have: winmeta's names and display strings ("Information",
 * "win:Informational"), then a plain number. */
static int winmeta_value(enum etl_winmeta_kind kind, const char *text, uint64_t max, uint64_t *value,
                         const char **display)
{
    const etl_winmeta_entry *w = etl_winmeta_find(kind, text);
    for (uint64_t v = 0; !w && max <= 255 && v <= max; v++) {
        const etl_winmeta_entry *c = etl_winmeta_find_value(kind, v);
        if (c && c->display && strcmp(c->display, text) == 0) w = c;
    }
    if (w) {
        *value = w->value;
        *display = w->display ? w->display : w->name;
        return 0;
    }
    if (mx_number(text, value) == 0 && *value <= max) {
        *display = NULL;
        return 0;
    }
    return -1;
}

/* ---- events ------------------------------------------------------------------------------------------ */

typedef struct wep_event_ctx {
    mx_context *ctx;
    const xmlNode *e;
    uint64_t id, version;
} wep_event_ctx;

static void event_refused(const wep_event_ctx *ec, const char *reason)
{
    etl_schema_fail(mx_err(ec->ctx), ETL_ERR_SCHEMA, ec->ctx->origin, UINT64_MAX,
                    "line %ld: event %llu version %llu: %s; event left out", line_of(ec->e),
                    (unsigned long long)ec->id, (unsigned long long)ec->version, reason);
    mx_failed(ec->ctx, ETL_ERR_SCHEMA);
}

/* Level/task/opcode/channel by display string; an absent or empty element means 0 without a name. */
static int resolve_named(const wep_event_ctx *ec, const char *tag, const wep_list *l, enum etl_winmeta_kind kind,
                         uint64_t max, uint64_t task, uint64_t *value, const char **display, const wep_item **item)
{
    const char *text = child_text(ec->ctx, ec->e, tag);
    *value = 0;
    *display = NULL;
    if (item) *item = NULL;
    if (!text || !*text) return 0;
    const wep_item *it = list_find(l, text, task);
    if (!it && winmeta_value(kind, text, max, value, display) == 0) {
        if (*display) *display = etl_arena_strdup(&ec->ctx->set->arena, *display);
        return 0;
    }
    /* last resort, for a dump that names an opcode of another task: that text under any task */
    if (!it) it = find_key(l, text, ANY_TASK);
    if (it) {
        *value = it->value;
        *display = it->message ? it->message : it->name;
        if (item) *item = it;
        return 0;
    }
    char what[200];
    snprintf(what, sizeof(what), "<%s> '%.120s' is not in the provider's <%ss>", tag, text, tag);
    event_refused(ec, what);
    return -1;
}

/* <Keyword>/<Keywords>: keyword names separated by spaces (or one display string that contains spaces). */
static int resolve_keywords(const wep_event_ctx *ec, const wep_list *l, uint64_t *mask)
{
    const char *text = child_text(ec->ctx, ec->e, "Keyword");
    if (!text) text = child_text(ec->ctx, ec->e, "Keywords");
    *mask = 0;
    if (!text) return 0;
    const wep_item *whole = *text ? list_find(l, text, 0) : NULL;
    if (whole) { *mask = whole->value; return 0; }
    const char *s = text;
    for (;;) {
        while (isspace((unsigned char)*s)) s++;
        size_t len = 0;
        while (s[len] && !isspace((unsigned char)s[len])) len++;
        if (len == 0) return 0;
        char word[256];
        const wep_item *it = NULL;
        uint64_t v;
        const char *display;
        if (len < sizeof(word)) {
            memcpy(word, s, len);
            word[len] = '\0';
            it = list_find(l, word, 0);
            if (!it && winmeta_value(ETL_WINMETA_KEYWORD, word, 0, &v, &display) == 0 && display) {
                *mask |= v;
                s += len;
                continue;
            }
        }
        if (!it) {
            char what[200];
            snprintf(what, sizeof(what), "keyword '%.*s' is not in the provider's <Keywords>", (int)(len < 120 ? len : 120), s);
            event_refused(ec, what);
            return -1;
        }
        *mask |= it->value;
        s += len;
    }
}

/* Largest line number of the elements below n (libxml2 keeps up to 65535 in xmlNode.line). */
static long last_line(const xmlNode *n, int depth)
{
    long last = 0;
    for (; n && depth <= WEP_MAX_NODE_DEPTH; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        long below = last_line(n->children, depth + 1);
        if ((long)n->line > last) last = n->line;
        if (below > last) last = below;
    }
    return last;
}

/* The template's lines counted from `base`, the file line where the CDATA text starts. */
static void shift_lines(xmlNode *n, long base, int depth)
{
    for (; n && depth <= WEP_MAX_NODE_DEPTH; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        n->line = (unsigned short)(base + (long)n->line - 1);
        shift_lines(n->children, base, depth + 1);
    }
}

/* <Template><![CDATA[<template ...>...</template>]]></Template> → the event's properties. */
static int parse_event_template(const wep_event_ctx *ec, etl_event_info *ev, etl_error *err)
{
    mx_context *ctx = ec->ctx;
    const xmlNode *te = child(ec->e, "Template");
    const char *text = text_of(ctx, te);
    if (!text) return te ? etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory") : ETL_OK;
    const char *p = text;
    while (isspace((unsigned char)*p)) p++;
    if (!*p) return ETL_OK;   /* an event without payload */
    char where[600];
    snprintf(where, sizeof(where), "%s: line %ld: <Template> of event %llu version %llu", ctx->origin, line_of(te),
             (unsigned long long)ec->id, (unsigned long long)ec->version);
    int rc;
    xmlDocPtr doc = mx_parse_document(p, strlen(p), where, mx_err(ctx), &rc);
    if (!doc) {
        if (rc == ETL_ERR_NOMEM) return rc;
        mx_failed(ctx, rc);
        return 1;
    }
    xmlNode *root = xmlDocGetRootElement(doc);
    rc = ETL_OK;
    if (!mx_is(root, "template")) {
        etl_schema_fail(mx_err(ctx), ETL_ERR_SCHEMA, where, UINT64_MAX, "holds <%s>, not a <template>; event left out",
                        root ? (const char *)root->name : "?");
        mx_failed(ctx, ETL_ERR_SCHEMA);
        rc = 1;
    } else {
        /* messages name the file's line; past libxml2's 65535 they name the <Template> and the CDATA's line */
        long base = line_of(te);
        for (const char *q = text; q < p; q++) base += *q == '\n';
        const char *origin = ctx->origin;
        if (base + last_line(root, 0) <= 65535) shift_lines(root, base, 0);
        else ctx->origin = where;
        char tid[80];
        snprintf(tid, sizeof(tid), "event %llu version %llu", (unsigned long long)ec->id,
                 (unsigned long long)ec->version);
        mx_template t = {tid, NULL, 0, 0, 0, NULL};
        ctx->map_count = 0;   /* the dumps carry no maps: mapped fields show their numbers */
        rc = mx_parse_template(ctx, root, &t, mx_err(ctx));
        ctx->origin = origin;
        if (rc == ETL_OK) {
            ev->properties = t.properties;
            ev->property_count = t.property_count;
            ev->top_level_count = t.top_level_count;
        } else if (rc != ETL_ERR_NOMEM) {
            mx_failed(ctx, rc);
            rc = 1;
        }
    }
    xmlFreeDoc(doc);
    return rc;
}

static int parse_event(mx_context *ctx, const xmlNode *e, const wep_provider *p, etl_error *err)
{
    etl_schema_set *set = ctx->set;
    wep_event_ctx ec = {ctx, e, 0, 0};
    const char *id_text = child_text(ctx, e, "Id"), *version_text = child_text(ctx, e, "Version");
    int bad_id = mx_number(id_text, &ec.id) || ec.id > UINT16_MAX;
    int bad_version = version_text && *version_text && (mx_number(version_text, &ec.version) || ec.version > 255);
    if (bad_id || bad_version) {
        etl_schema_fail(mx_err(ctx), ETL_ERR_SCHEMA, ctx->origin, UINT64_MAX,
                        "line %ld: <Id> '%.40s' <Version> '%.40s': not an id up to 65535 and a version up to 255; "
                        "event left out", line_of(e), id_text ? id_text : "(none)", version_text ? version_text : "0");
        mx_failed(ctx, ETL_ERR_SCHEMA);
        return ETL_OK;
    }
    etl_event_info ev;
    memset(&ev, 0, sizeof(ev));
    uint64_t level, task, opcode, channel, mask;
    const wep_item *ch;
    if (resolve_named(&ec, "Level", &p->levels, ETL_WINMETA_LEVEL, 255, 0, &level, &ev.level_name, NULL) ||
        resolve_named(&ec, "Task", &p->tasks, ETL_WINMETA_TASK, UINT16_MAX, 0, &task, &ev.task_name, NULL) ||
        resolve_named(&ec, "Opcode", &p->opcodes, ETL_WINMETA_OPCODE, 255, task, &opcode, &ev.opcode_name, NULL) ||
        resolve_named(&ec, "Channel", &p->channels, ETL_WINMETA_CHANNEL, 255, 0, &channel, &ev.channel_name, &ch) ||
        resolve_keywords(&ec, &p->keywords, &mask))
        return ETL_OK;
    /* mc gives the events of the n-th channel of the provider's list keyword bit 63-n (schemas.md §1.6) */
    if (ch && ch->index < 8) mask |= 1ull << (63 - ch->index);
    ev.provider_guid = p->sp->guid;
    ev.provider_name = p->sp->name;
    ev.provider_message = p->sp->message;
    ev.descriptor.id = (uint16_t)ec.id;
    ev.descriptor.version = (uint8_t)ec.version;
    ev.descriptor.level = (uint8_t)level;
    ev.descriptor.task = (uint16_t)task;
    ev.descriptor.opcode = (uint8_t)opcode;
    ev.descriptor.channel = (uint8_t)channel;
    ev.descriptor.keyword = mask;
    const char *message = child_text(ctx, e, "Message");
    if (message && *skip_layout_break(message)) {
        ev.message = etl_arena_strdup(&set->arena, skip_layout_break(message));
        if (!ev.message) return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory");
    }
    int rc = parse_event_template(&ec, &ev, err);
    if (rc == 1) return ETL_OK;   /* refused and reported: the rest loads */
    if (rc) return rc;
    etl_event_info *out = etl_schema_set_add_event(set);
    if (!out || etl_schema_keyword_names(&set->arena, p->kw_defs, p->kw_count, mask, &ev))
        return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory");
    *out = ev;
    return ETL_OK;
}

/* ---- providers --------------------------------------------------------------------------------------- */

static int parse_provider(mx_context *ctx, const xmlNode *prov, etl_error *err)
{
    etl_schema_set *set = ctx->set;
    const xmlNode *metadata = child(prov, "Metadata");
    const char *name = child_text(ctx, prov, "Name");
    const char *guid_text = child_text(ctx, metadata, "Guid");
    if (!guid_text) guid_text = child_text(ctx, prov, "Guid");
    etl_guid guid;
    if (!guid_text || etl_guid_parse(guid_text, &guid) != 0)
        return etl_schema_fail(err, ETL_ERR_SCHEMA, ctx->origin, UINT64_MAX,
                               "line %ld: <Provider> '%.120s': missing or invalid <Guid> '%.60s'; provider left out",
                               line_of(prov), name ? name : "?", guid_text ? guid_text : "");
    wep_provider p;
    memset(&p, 0, sizeof(p));
    p.sp = etl_schema_set_add_provider(set);
    if (!p.sp) return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory");
    p.sp->guid = guid;
    p.sp->name = name && *name ? etl_arena_strdup(&set->arena, name) : NULL;
    const char *publisher = child_text(ctx, metadata, "PublisherMessage");
    p.sp->message = publisher && *publisher ? etl_arena_strdup(&set->arena, publisher) : NULL;
    int rc = parse_list(ctx, metadata, &LEVELS, &p.levels, err);
    if (rc == ETL_OK) rc = parse_list(ctx, metadata, &TASKS, &p.tasks, err);
    if (rc == ETL_OK) rc = parse_list(ctx, metadata, &OPCODES, &p.opcodes, err);
    if (rc == ETL_OK) rc = parse_list(ctx, metadata, &KEYWORDS, &p.keywords, err);
    if (rc == ETL_OK) rc = parse_list(ctx, metadata, &CHANNELS, &p.channels, err);
    if (rc) return rc;
    /* keyword display names as the manifest parser gives them: the provider's, then winmeta's */
    p.kw_defs = etl_arena_alloc(&set->arena, (p.keywords.count + 8) * sizeof(*p.kw_defs));
    if (!p.kw_defs) return etl_schema_fail(err, ETL_ERR_NOMEM, ctx->origin, UINT64_MAX, "out of memory");
    for (size_t i = 0; i < p.keywords.count; i++) {
        const wep_item *it = &p.keywords.items[i];
        p.kw_defs[p.kw_count++] = (etl_keyword_def){it->value, it->message ? it->message : it->name};
    }
    for (uint64_t bit = 48; bit < 56; bit++) {
        const etl_winmeta_entry *w = etl_winmeta_find_value(ETL_WINMETA_KEYWORD, 1ull << bit);
        int defined = 0;
        for (size_t i = 0; i < p.keywords.count; i++) defined |= p.keywords.items[i].value == 1ull << bit;
        if (w && !defined) p.kw_defs[p.kw_count++] = (etl_keyword_def){w->value, w->display};
    }
    const xmlNode *events = child(prov, "EventMetadata");
    for (const xmlNode *ev = events ? events->children : NULL; ev; ev = ev->next) {
        if (!mx_is(ev, "Event")) continue;
        rc = parse_event(ctx, ev, &p, err);
        if (rc) return rc;
    }
    return ETL_OK;
}

int mx_wep_parse(mx_context *ctx, const xmlNode *root, etl_error *err)
{
    (void)err;
    for (const xmlNode *c = root->children; c; c = c->next) {
        if (!mx_is(c, "Provider")) continue;
        /* a broken provider does not stop the others */
        int rc = parse_provider(ctx, c, mx_err(ctx));
        if (rc == ETL_ERR_NOMEM) return rc;
        if (rc) mx_failed(ctx, rc);
    }
    return ETL_OK;
}
