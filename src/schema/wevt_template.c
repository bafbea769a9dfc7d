/* Compiled instrumentation manifests: the CRIM blob of a WEVT_TEMPLATE resource (schemas.md §2), versions
 * 3.1 and 5.1 (any other version is read the same way), → schema set. Offsets in the blob are from its first
 * byte; every offset, size and count is checked against the blob before use, and elements are identified by
 * the signature found at their offset (the descriptor kind is only a hint; unknown kinds such as QTAB and
 * FLTR are skipped). */
#include <stdlib.h>
#include <string.h>

#include "schema/manifest_model.h"
#include "util/le.h"

enum {
    CRIM_HEADER = 16, CRIM_SIZE = 4, CRIM_MAJOR = 8, CRIM_PROVIDER_COUNT = 12, CRIM_PROVIDER_ENTRY = 20,
    WEVT_HEADER = 16, WEVT_MESSAGE = 8, WEVT_DESCRIPTOR_COUNT = 12, WEVT_DESCRIPTOR = 8,
    LIST_HEADER = 12, LIST_SIZE = 4, LIST_COUNT = 8, EVNT_HEADER = 16,
    CHAN_ENTRY = 16, LEVL_ENTRY = 12, OPCO_ENTRY = 12, TASK_ENTRY = 28, KEYW_ENTRY = 16, EVNT_ENTRY = 48,
    TEMP_HEADER = 40, TEMP_SIZE = 4, TEMP_PARAMS = 8, TEMP_TOTAL = 12, TEMP_PROPS = 16, PROP_ENTRY = 20,
    MAP_HEADER = 20, MAP_NAME = 8, MAP_FLAGS = 12, MAP_COUNT = 16, MAP_ITEM = 8,
    ATTR_ENTRY = 8
};

#define MAX_DESCRIPTORS 64u
#define MAX_KEYWORDS 1024u
#define MAX_TEMPLATE_PROPERTIES 4096u
#define MAX_PLAIN_STRING_UNITS 32768u
#define PRVA_PROVIDER_NAME 0x10000001u
#define EVTA_EVENT_NAME 0x11u

/* compiled property flags (schemas.md §2.6) */
enum { CF_STRUCT = 0x01, CF_FIXED_LENGTH = 0x02, CF_VAR_LENGTH = 0x04, CF_FIXED_COUNT = 0x08, CF_VAR_COUNT = 0x10 };

/* Templates and maps parsed once per offset (events share them): open-addressing hash by offset, so a
 * binary with many events and templates stays linear. Offset 0 is never cached (it means "none"). */
typedef struct cached { uint32_t offset; const void *value; uint32_t count, top; } cached;
typedef struct offset_cache { cached *slots; size_t cap, count; } offset_cache;

typedef struct wv {
    const uint8_t *d;
    size_t size;
    const char *origin;
    etl_error *err;
    etl_schema_set *set;
    const etl_message_table *msgs;
    etl_error scratch;   /* errors after the first one of a provider */
    /* elements of the current provider (0 = absent) */
    uint32_t chan, levl, opco, task, keyw, evnt, maps, ttbl, prva, evta;
    offset_cache templates, maps_by_offset;
    offset_cache event_lists;   /* EVNT lists read so far: one shared by several providers is read once */
    size_t template_properties; /* property entries of all templates read: bounded by what the blob holds */
} wv;

static int fail(wv *w, int code, uint64_t off, const char *what)
{
    return etl_schema_fail(w->err, code, w->origin, off, "%s", what);
}

static int in_bounds(const wv *w, size_t off, size_t len) { return off <= w->size && w->size - off >= len; }

/* "sized UTF-16": u32 byte size including the size field, then the text */
static const char *sized_string(wv *w, uint32_t off)
{
    if (off == 0 || !in_bounds(w, off, 4)) return NULL;
    uint32_t n = etl_le32(w->d + off);
    if (n < 4 || !in_bounds(w, off, n)) return NULL;
    return etl_arena_utf16(&w->set->arena, w->d + off + 4, (n - 4) / 2);
}

static const char *plain_string(wv *w, uint32_t off)
{
    if (off == 0 || !in_bounds(w, off, 2)) return NULL;
    size_t units = (w->size - off) / 2;
    if (units > MAX_PLAIN_STRING_UNITS) units = MAX_PLAIN_STRING_UNITS;
    return etl_arena_utf16(&w->set->arena, w->d + off, units);
}

static const char *message(wv *w, uint32_t id)
{
    if (id == UINT32_MAX || !w->msgs) return NULL;
    const char *s = etl_message_table_lookup(w->msgs, id, &w->set->arena);
    if (!s) w->set->unresolved_strings++;
    return s;
}

/* message text, else the stored name */
static const char *display(wv *w, uint32_t msg_id, uint32_t name_off)
{
    const char *s = message(w, msg_id);
    return s ? s : sized_string(w, name_off);
}

/* A list element with `entry`-byte entries: checks the signature and that count entries fit its size. */
static int list_at(wv *w, uint32_t off, const char *sig, size_t header, size_t entry, uint32_t *count)
{
    *count = 0;
    if (off == 0) return 0;
    if (!in_bounds(w, off, header) || memcmp(w->d + off, sig, 4) != 0)
        return etl_schema_fail(w->err, ETL_ERR_FORMAT, w->origin, off, "%s element out of bounds", sig);
    uint32_t size = etl_le32(w->d + off + LIST_SIZE), n = etl_le32(w->d + off + LIST_COUNT);
    /* mc writes empty lists with size 0; libfwevt (and omerbenamram/evtx after it) also read a list whose
     * size is 0 by its count, so such a list is bounded by the blob instead */
    if (size == 0) size = (uint32_t)(w->size - off < UINT32_MAX ? w->size - off : UINT32_MAX);
    if (size < header || !in_bounds(w, off, size) || (size - header) / entry < n)
        return etl_schema_fail(w->err, ETL_ERR_FORMAT, w->origin, off,
                               "%s element: %u entries do not fit in %u bytes", sig, n, size);
    *count = n;
    return 0;
}

static size_t slot_of(const offset_cache *c, uint32_t off)
{
    size_t i = (size_t)(off * 2654435761u) & (c->cap - 1);
    while (c->slots[i].offset && c->slots[i].offset != off) i = (i + 1) & (c->cap - 1);
    return i;
}

static const cached *cache_get(const offset_cache *c, uint32_t off)
{
    if (!c->cap) return NULL;
    const cached *e = &c->slots[slot_of(c, off)];
    return e->offset == off ? e : NULL;
}

static const cached *cache_put(offset_cache *c, cached v)
{
    if (2 * (c->count + 1) > c->cap) {
        size_t ncap = c->cap ? 2 * c->cap : 64;
        cached *old = c->slots;
        size_t oldcap = c->cap;
        c->slots = calloc(ncap, sizeof(*c->slots));
        if (!c->slots) { c->slots = old; return NULL; }
        c->cap = ncap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].offset) c->slots[slot_of(c, old[i].offset)] = old[i];
        free(old);
    }
    size_t i = slot_of(c, v.offset);
    c->slots[i] = v;
    c->count++;
    return &c->slots[i];
}

static void cache_clear(offset_cache *c)
{
    if (c->cap) memset(c->slots, 0, c->cap * sizeof(*c->slots));
    c->count = 0;
}

static const etl_map_info *read_map(wv *w, uint32_t off)
{
    const cached *c = cache_get(&w->maps_by_offset, off);
    if (c) return c->value;
    if (!in_bounds(w, off, MAP_HEADER) || (memcmp(w->d + off, "VMAP", 4) && memcmp(w->d + off, "BMAP", 4)))
        return NULL;
    uint32_t size = etl_le32(w->d + off + 4), n = etl_le32(w->d + off + MAP_COUNT);
    if (size < MAP_HEADER || !in_bounds(w, off, size) || (size - MAP_HEADER) / MAP_ITEM < n) return NULL;
    etl_arena *a = &w->set->arena;
    etl_map_info *info = etl_arena_alloc(a, sizeof(*info));
    etl_map_entry *entries = etl_arena_alloc(a, (n ? n : 1) * sizeof(*entries));
    if (!info || !entries) return NULL;
    info->name = sized_string(w, etl_le32(w->d + off + MAP_NAME));
    info->flags = (etl_le32(w->d + off + MAP_FLAGS) & 1) ? ETL_MAP_BITMAP : ETL_MAP_VALUEMAP;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *it = w->d + off + MAP_HEADER + (size_t)i * MAP_ITEM;
        entries[i].value = etl_le32(it);
        const char *s = message(w, etl_le32(it + 4));
        entries[i].name = s ? s : "";
    }
    info->entry_count = n;
    info->entries = entries;
    if (!cache_put(&w->maps_by_offset, (cached){off, info, 0, 0})) return NULL;
    return info;
}

/* TEMP block → property array (cached: events share templates). NULL + error on malformed input. */
static const cached *read_template(wv *w, uint32_t off)
{
    const cached *c = cache_get(&w->templates, off);
    if (c) return c;
    if (!in_bounds(w, off, TEMP_HEADER) || memcmp(w->d + off, "TEMP", 4)) {
        fail(w, ETL_ERR_FORMAT, off, "TEMP block out of bounds or bad signature");
        return NULL;
    }
    uint32_t params = etl_le32(w->d + off + TEMP_PARAMS), total = etl_le32(w->d + off + TEMP_TOTAL);
    uint32_t props_off = etl_le32(w->d + off + TEMP_PROPS);
    if (total > MAX_TEMPLATE_PROPERTIES || params > total ||
        (total && !in_bounds(w, props_off, (size_t)total * PROP_ENTRY))) {
        etl_schema_fail(w->err, ETL_ERR_FORMAT, w->origin, off,
                        "TEMP: %u properties (%u top-level) at 0x%x do not fit the blob", total, params, props_off);
        return NULL;
    }
    /* mc gives every template its own entries, so all templates together have at most size/20 of them; many
     * TEMP headers pointing at one big array would multiply the memory instead */
    if (total > w->size / PROP_ENTRY - w->template_properties) {
        fail(w, ETL_ERR_FORMAT, off, "TEMP: more property entries than the blob holds (templates share them)");
        return NULL;
    }
    w->template_properties += total;
    etl_property_info *props = etl_arena_alloc(&w->set->arena, (total ? total : 1) * sizeof(*props));
    if (!props) { fail(w, ETL_ERR_NOMEM, off, "out of memory"); return NULL; }
    for (uint32_t i = 0; i < total; i++) {
        const uint8_t *e = w->d + props_off + (size_t)i * PROP_ENTRY;
        etl_property_info *p = &props[i];
        uint32_t f = etl_le32(e);
        uint16_t count = etl_le16(e + 12), length = etl_le16(e + 14);
        p->name = sized_string(w, etl_le32(e + 16));
        if (f & CF_STRUCT) {
            p->flags |= ETL_PROP_STRUCT;
            p->struct_start = etl_le16(e + 4);
            p->struct_count = etl_le16(e + 6);
            if (p->struct_start < params || p->struct_start > total || total - p->struct_start < p->struct_count ||
                p->struct_start <= i) {
                fail(w, ETL_ERR_FORMAT, props_off + (size_t)i * PROP_ENTRY, "TEMP: struct members out of range");
                return NULL;
            }
        } else {
            p->in_type = e[4];
            p->out_type = e[5];
            uint32_t map = etl_le32(e + 8);
            /* only VMAP and BMAP are documented; a map of another kind (a newer compiler's) leaves the value
             * without names instead of losing every event of the template (omerbenamram/evtx keeps such maps
             * as "unknown" too) */
            int known_map = in_bounds(w, map, 4) && (!memcmp(w->d + map, "VMAP", 4) || !memcmp(w->d + map, "BMAP", 4));
            if (map && (known_map || !in_bounds(w, map, 4))) {
                p->map = read_map(w, map);
                if (!p->map) {
                    fail(w, ETL_ERR_FORMAT, map, "VMAP/BMAP out of bounds or bad signature");
                    return NULL;
                }
            }
        }
        if (f & CF_FIXED_COUNT) { p->flags |= ETL_PROP_PARAM_FIXED_COUNT; p->count = count; }
        else if (f & CF_VAR_COUNT) { p->flags |= ETL_PROP_PARAM_COUNT; p->count = count; }
        else p->count = 1;
        if (f & CF_FIXED_LENGTH) { p->flags |= ETL_PROP_PARAM_FIXED_LENGTH; p->length = length; }
        else if (f & CF_VAR_LENGTH) { p->flags |= ETL_PROP_PARAM_LENGTH; p->length = length; }
        if (((f & CF_VAR_COUNT) && count >= i) || ((f & CF_VAR_LENGTH) && length >= i)) {
            fail(w, ETL_ERR_FORMAT, props_off + (size_t)i * PROP_ENTRY,
                 "TEMP: count/length refers to a property that does not precede it");
            return NULL;
        }
    }
    /* The struct each property belongs to (-1: top level or unclaimed). mc gives every member one struct, so
     * member ranges that overlap are refused; that also keeps this linear in the property count. */
    int32_t scope[MAX_TEMPLATE_PROPERTIES];
    for (uint32_t i = 0; i < total; i++) scope[i] = -1;
    for (uint32_t s = 0; s < total; s++) {
        if (!(props[s].flags & ETL_PROP_STRUCT)) continue;
        for (uint32_t m = props[s].struct_start; m < (uint32_t)props[s].struct_start + props[s].struct_count; m++) {
            if (scope[m] != -1) {
                fail(w, ETL_ERR_FORMAT, props_off + (size_t)s * PROP_ENTRY, "TEMP: struct members overlap");
                return NULL;
            }
            scope[m] = (int32_t)s;
        }
    }
    /* A count/length names an earlier property of the same scope (top level or the same struct), as in a
     * manifest: anything else has no manifest form and would decode differently after -export/-import. */
    for (uint32_t i = 0; i < total; i++) {
        const etl_property_info *p = &props[i];
        int refers = (p->flags & (ETL_PROP_PARAM_COUNT | ETL_PROP_PARAM_LENGTH)) != 0;
        if (refers && ((p->flags & ETL_PROP_PARAM_COUNT && scope[p->count] != scope[i]) ||
                       (p->flags & ETL_PROP_PARAM_LENGTH && scope[p->length] != scope[i]))) {
            fail(w, ETL_ERR_FORMAT, props_off + (size_t)i * PROP_ENTRY,
                 "TEMP: count/length refers to a property outside its struct");
            return NULL;
        }
    }
    c = cache_put(&w->templates, (cached){off, props, total, params});
    if (!c) fail(w, ETL_ERR_NOMEM, off, "out of memory");
    return c;
}

/* keyword table of the provider → (mask, display) pairs */
static int keyword_defs(wv *w, etl_keyword_def **defs, size_t *n)
{
    uint32_t count;
    *defs = NULL;
    *n = 0;
    if (list_at(w, w->keyw, "KEYW", LIST_HEADER, KEYW_ENTRY, &count)) return -1;
    if (!count) return 0;
    if (count > MAX_KEYWORDS) count = MAX_KEYWORDS;   /* names are looked up per event: keep it bounded */
    *defs = etl_arena_alloc(&w->set->arena, count * sizeof(**defs));
    if (!*defs) return fail(w, ETL_ERR_NOMEM, w->keyw, "out of memory");
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = w->d + w->keyw + LIST_HEADER + (size_t)i * KEYW_ENTRY;
        (*defs)[i].mask = etl_le64(e);
        (*defs)[i].display = display(w, etl_le32(e + 8), etl_le32(e + 12));
    }
    *n = count;
    return 0;
}

/* Name of an entry referenced by an event: `off` points at an entry of the given size whose message id
 * sits at `msg_at` and name offset at `name_at`. */
static const char *entry_display(wv *w, uint32_t off, size_t size, size_t msg_at, size_t name_at)
{
    if (off == 0 || !in_bounds(w, off, size)) return NULL;
    return display(w, etl_le32(w->d + off + msg_at), etl_le32(w->d + off + name_at));
}

/* EVTA event-name entries of the provider, sorted by key for bsearch (big binaries have thousands). */
typedef struct name_entry { uint32_t key, offset; } name_entry;

static int name_entry_cmp(const void *a, const void *b)
{
    uint32_t x = ((const name_entry *)a)->key, y = ((const name_entry *)b)->key;
    return (x > y) - (x < y);
}

static name_entry *event_names(wv *w, size_t *count)
{
    uint32_t n;
    *count = 0;
    if (!w->evta || list_at(w, w->evta, "EVTA", LIST_HEADER, ATTR_ENTRY, &n) || n == 0) return NULL;
    name_entry *v = malloc((size_t)n * sizeof(*v));
    if (!v) return NULL;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = w->d + w->evta + LIST_HEADER + (size_t)i * ATTR_ENTRY;
        if ((etl_le32(e) & 0xFF) != EVTA_EVENT_NAME) continue;
        v[*count].key = etl_le32(e);
        v[*count].offset = etl_le32(e + 4);
        (*count)++;
    }
    qsort(v, *count, sizeof(*v), name_entry_cmp);
    return v;
}

static const char *event_name(wv *w, const name_entry *names, size_t count, uint16_t id, uint8_t version)
{
    name_entry key = {EVTA_EVENT_NAME | (uint32_t)version << 8 | (uint32_t)id << 16, 0};
    const name_entry *e = count ? bsearch(&key, names, count, sizeof(key), name_entry_cmp) : NULL;
    return e ? plain_string(w, e->offset) : NULL;
}

static int read_events(wv *w, const etl_set_provider *sp)
{
    uint32_t n;
    if (list_at(w, w->evnt, "EVNT", EVNT_HEADER, EVNT_ENTRY, &n)) return -1;
    /* mc gives every provider its own list; a hostile blob pointing many providers at one list would multiply
     * its events (providers x events) */
    if (n && cache_get(&w->event_lists, w->evnt))
        return fail(w, ETL_ERR_FORMAT, w->evnt, "EVNT list already read for another provider");
    if (n && !cache_put(&w->event_lists, (cached){w->evnt, NULL, 0, 0}))
        return fail(w, ETL_ERR_NOMEM, w->evnt, "out of memory");
    etl_keyword_def *defs;
    size_t ndefs, nnames;
    if (keyword_defs(w, &defs, &ndefs)) return -1;
    name_entry *names = event_names(w, &nnames);
    int rc = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t eo = (size_t)w->evnt + EVNT_HEADER + (size_t)i * EVNT_ENTRY;
        const uint8_t *e = w->d + eo;
        uint32_t temp = etl_le32(e + 20);
        const cached *t = NULL;
        if (temp && !(t = read_template(w, temp))) {
            /* the event is left out (decodes as "no schema"); the first such error is reported */
            if (rc == 0) rc = -1;
            if (w->err && w->err->code == ETL_ERR_NOMEM) break;
            w->err = &w->scratch;
            continue;
        }
        etl_event_info *ev = etl_schema_set_add_event(w->set);
        if (!ev) { rc = fail(w, ETL_ERR_NOMEM, eo, "out of memory"); break; }
        ev->provider_guid = sp->guid;
        ev->provider_name = sp->name;
        ev->provider_message = sp->message;
        ev->descriptor.id = etl_le16(e);
        ev->descriptor.version = e[2];
        ev->descriptor.channel = e[3];
        ev->descriptor.level = e[4];
        ev->descriptor.opcode = e[5];
        ev->descriptor.task = etl_le16(e + 6);
        ev->descriptor.keyword = etl_le64(e + 8);
        ev->message = message(w, etl_le32(e + 16));
        ev->opcode_name = entry_display(w, etl_le32(e + 24), OPCO_ENTRY, 4, 8);
        ev->level_name = entry_display(w, etl_le32(e + 28), LEVL_ENTRY, 4, 8);
        ev->task_name = entry_display(w, etl_le32(e + 32), TASK_ENTRY, 4, 24);
        ev->channel_name = entry_display(w, etl_le32(e + 44), CHAN_ENTRY, 12, 4);
        ev->event_name = event_name(w, names, nnames, ev->descriptor.id, ev->descriptor.version);
        if (etl_schema_keyword_names(&w->set->arena, defs, ndefs, ev->descriptor.keyword, ev)) {
            rc = fail(w, ETL_ERR_NOMEM, eo, "out of memory");
            break;
        }
        if (t) {
            ev->properties = t->value;
            ev->property_count = t->count;
            ev->top_level_count = t->top;
        }
    }
    free(names);
    return rc;
}

static int read_provider(wv *w, const etl_guid *guid, uint32_t off)
{
    if (!in_bounds(w, off, WEVT_HEADER) || memcmp(w->d + off, "WEVT", 4))
        return fail(w, ETL_ERR_FORMAT, off, "WEVT provider block out of bounds or bad signature");
    uint32_t ndesc = etl_le32(w->d + off + WEVT_DESCRIPTOR_COUNT);
    if (ndesc > MAX_DESCRIPTORS || !in_bounds(w, off + WEVT_HEADER, (size_t)ndesc * WEVT_DESCRIPTOR))
        return etl_schema_fail(w->err, ETL_ERR_FORMAT, w->origin, off, "WEVT: %u element descriptors do not fit",
                               ndesc);
    w->chan = w->levl = w->opco = w->task = w->keyw = w->evnt = w->maps = w->ttbl = w->prva = w->evta = 0;
    cache_clear(&w->templates);
    cache_clear(&w->maps_by_offset);
    static const char *const sigs[] = {"CHAN", "LEVL", "OPCO", "TASK", "KEYW", "EVNT", "MAPS", "TTBL", "PRVA",
                                       "EVTA"};
    uint32_t *slots[] = {&w->chan, &w->levl, &w->opco, &w->task, &w->keyw, &w->evnt, &w->maps, &w->ttbl,
                         &w->prva, &w->evta};
    for (uint32_t i = 0; i < ndesc; i++) {
        uint32_t eoff = etl_le32(w->d + off + WEVT_HEADER + (size_t)i * WEVT_DESCRIPTOR + 4);
        if (eoff == 0 || !in_bounds(w, eoff, 4)) continue;   /* v3 zero-filled slots */
        for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
            if (memcmp(w->d + eoff, sigs[k], 4) == 0) *slots[k] = eoff;
    }
    etl_set_provider *sp = etl_schema_set_add_provider(w->set);
    if (!sp) return fail(w, ETL_ERR_NOMEM, off, "out of memory");
    sp->guid = *guid;
    sp->message = message(w, etl_le32(w->d + off + WEVT_MESSAGE));
    uint32_t n;
    if (w->prva && list_at(w, w->prva, "PRVA", LIST_HEADER, ATTR_ENTRY, &n) == 0)
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *e = w->d + w->prva + LIST_HEADER + (size_t)i * ATTR_ENTRY;
            if (etl_le32(e) == PRVA_PROVIDER_NAME) sp->name = plain_string(w, etl_le32(e + 4));
        }
    /* CRIM v3 has no provider name; Windows' own manifests use the provider's name as its display string
     * (e.g. "Microsoft-Windows-Kernel-Process"), which is the best name available offline */
    if (!sp->name) sp->name = sp->message;
    return read_events(w, sp);
}

int etl_wevt_parse(etl_schema_set *set, const uint8_t *crim, size_t size, const etl_message_table *messages,
                   const char *origin, etl_error *err)
{
    wv w;
    memset(&w, 0, sizeof(w));
    w.d = crim;
    w.size = size;
    w.origin = origin ? origin : "(WEVT_TEMPLATE)";
    w.err = err;
    w.set = set;
    w.msgs = messages;
    if (size < CRIM_HEADER || memcmp(crim, "CRIM", 4))
        return fail(&w, ETL_ERR_FORMAT, 0, "not a CRIM blob (WEVT_TEMPLATE signature missing)");
    uint32_t total = etl_le32(crim + CRIM_SIZE);
    if (total < CRIM_HEADER || total > size)
        return etl_schema_fail(err, ETL_ERR_TRUNCATED, w.origin, CRIM_SIZE, "CRIM size %u exceeds the %zu-byte "
                               "resource", total, size);
    w.size = total;
    /* The version is not checked: mc 10.0.15063 and older write 3.1, 10.0.18362+ 5.1, and what the compilers
     * in between wrote is unknown; libfwevt, omerbenamram/evtx, event-trace-kit and artemis read real
     * binaries without looking at it either. Every element is identified by its signature and bounds-checked,
     * which is what actually guards the layout. */
    uint32_t providers = etl_le32(crim + CRIM_PROVIDER_COUNT);
    if ((total - CRIM_HEADER) / CRIM_PROVIDER_ENTRY < providers)
        return etl_schema_fail(err, ETL_ERR_FORMAT, w.origin, CRIM_PROVIDER_COUNT,
                               "CRIM: %u providers do not fit in %u bytes", providers, total);
    int rc = ETL_OK;
    for (uint32_t i = 0; i < providers; i++) {
        const uint8_t *p = crim + CRIM_HEADER + (size_t)i * CRIM_PROVIDER_ENTRY;
        etl_guid guid = etl_guid_read(p);
        etl_error perr;
        w.err = err && rc == ETL_OK ? err : &perr;   /* first error is reported; later providers still load */
        if (read_provider(&w, &guid, etl_le32(p + 16)) != 0 && rc == ETL_OK) rc = err ? err->code : ETL_ERR_FORMAT;
    }
    free(w.templates.slots);
    free(w.maps_by_offset.slots);
    free(w.event_lists.slots);
    return rc;
}
