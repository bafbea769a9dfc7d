/* Schema registry: every schema source adds event descriptions here; the decoder looks them up per record.
 *
 * - Keys: (kind, GUID, id-or-opcode, version) in an open-addressing hash → O(1) exact lookups. A second hash
 *   keyed by (kind, GUID, id-or-opcode) lists the versions present, for the version fallback of
 *   etl_schema_registry_find (exact, else highest lower, else lowest higher).
 * - Precedence: sources are ranked by the lookup order of etl_schema_source (lower value = earlier). An entry is
 *   replaced by an earlier source, or by the same source again (an EventSource re-sends its manifest); a later
 *   source never overrides. A re-add identical to the stored description keeps it; replaced copies stay in
 *   the arena until the registry is freed (pointers handed out never dangle).
 * - Descriptions are deep-copied into a chunked arena, so callers may free theirs right after adding.
 * - Deferred files (deferred_files.h) are loaded before the first lookup of a GUID they name.
 * - Overlays (etl_schema_registry_new_overlay): a registry over a shared base. Adds go to the overlay; a lookup
 *   resolves each key over both as one registry holding the base's adds then the overlay's would (the earlier
 *   source wins, the overlay on a tie: its adds came later). The base is parsed once per run and read by
 *   every worker and every --each file; after etl_schema_registry_share, its only change is a deferred load,
 *   made under its lock (lookups are rare: the decoder caches them until the generation changes). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl_schema.h"
#include "schema/deferred_files.h"
#include "schema/manifest_model.h"
#include "schema/wpp/wpp.h"

/* ---- arena ------------------------------------------------------------------------------------------- */

#define ARENA_BLOCK 65536u

typedef struct arena_block {
    struct arena_block *next;
    size_t used, size;
    max_align_t data[];
} arena_block;

static void *arena_alloc(arena_block **head, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    arena_block *b = *head;
    if (!b || b->size - b->used < n) {
        size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        b = malloc(sizeof *b + size);
        if (!b) return NULL;
        b->size = size;
        b->used = 0;
        b->next = *head;
        *head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    return p;
}

static const char *arena_strdup(arena_block **head, const char *s, int *failed)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = arena_alloc(head, n);
    if (!d) {
        *failed = 1;
        return NULL;
    }
    memcpy(d, s, n);
    return d;
}

/* ---- keys and hashing -------------------------------------------------------------------------------- */

typedef struct schema_key {
    etl_guid guid;
    uint16_t id;       /* event id or classic opcode */
    uint8_t version;
    uint8_t kind;
} schema_key;

typedef struct schema_entry {
    schema_key key;
    etl_event_info *info;
} schema_entry;

/* versions of one (kind, guid, id) */
typedef struct schema_family {
    schema_key key; /* version unused */
    uint32_t first_entry; /* head of a list through version_next */
} schema_family;

typedef struct provider_entry {
    etl_guid guid;
    const char *name;
    etl_schema_source source;
} provider_entry;

struct etl_schema_registry {
    arena_block *arena;
    schema_entry *entries;     /* insertion order (visit) */
    uint32_t *version_next;    /* per entry: next entry of the same family, UINT32_MAX ends */
    size_t version_next_capacity;
    size_t entry_count, entry_capacity;
    uint32_t *slots;           /* entry index + 1, 0 = empty */
    size_t slot_capacity;
    schema_family *families;
    size_t family_count, family_capacity;
    uint32_t *family_slots;
    size_t family_slot_capacity;
    provider_entry *providers;
    size_t provider_count, provider_capacity;
    uint32_t *provider_slots;
    size_t provider_slot_capacity;
    etl_deferred_files *deferred;  /* files loaded on the first lookup of one of their GUIDs */
    wpp_store *wpp;                /* WPP TMF statements (-tmf/-tp/-pdb), created by the first load */
    _Atomic uint64_t generation;   /* bumped by every change a lookup could see (decoder caches) */
    const etl_schema_registry *base; /* overlays: the shared registry below */
    int shared;                    /* etl_schema_registry_share: lookups take `lock` */
    pthread_mutex_t lock;          /* recursive: a deferred load's own lookups come back here */
};

static void bump(etl_schema_registry *r) { atomic_fetch_add_explicit(&r->generation, 1, memory_order_relaxed); }

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

static uint64_t hash_guid(const etl_guid *g)
{
    uint64_t d4 = 0;
    for (int i = 0; i < 8; i++) d4 = d4 << 8 | g->data4[i];
    return mix(((uint64_t)g->data1 << 32 | (uint64_t)g->data2 << 16 | g->data3) ^ mix(d4));
}

static uint64_t hash_key(const schema_key *k, int with_version)
{
    uint64_t extra = (uint64_t)k->id << 16 | (uint64_t)k->kind << 8 | (with_version ? k->version : 0);
    return mix(hash_guid(&k->guid) ^ extra);
}

static int same_family(const schema_key *a, const schema_key *b)
{
    return a->kind == b->kind && a->id == b->id && etl_guid_equal(&a->guid, &b->guid);
}

/* Finds the slot holding a matching index or the empty slot where it would go. `match` compares index-1. */
typedef int (*slot_match_fn)(const etl_schema_registry *r, uint32_t index, const void *key);

static size_t probe(const etl_schema_registry *r, const uint32_t *slots, size_t capacity, uint64_t hash,
                    slot_match_fn match, const void *key)
{
    size_t mask = capacity - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask)
        if (!slots[i] || match(r, slots[i] - 1, key)) return i;
}

static int entry_match(const etl_schema_registry *r, uint32_t index, const void *key)
{
    const schema_key *k = key;
    return same_family(&r->entries[index].key, k) && r->entries[index].key.version == k->version;
}

static int family_match(const etl_schema_registry *r, uint32_t index, const void *key)
{
    return same_family(&r->families[index].key, key);
}

static int provider_match(const etl_schema_registry *r, uint32_t index, const void *key)
{
    return etl_guid_equal(&r->providers[index].guid, key);
}

/* Grows a slot table to keep the load at most 1/2 and re-inserts every index. */
static int grow_slots(etl_schema_registry *r, uint32_t **slots, size_t *capacity, size_t count,
                      uint64_t (*hash_of)(const etl_schema_registry *, uint32_t))
{
    if ((count + 1) * 2 <= *capacity) return 0;
    size_t cap = *capacity ? *capacity * 2 : 64;
    uint32_t *s = calloc(cap, sizeof *s);
    if (!s) return -1;
    for (uint32_t i = 0; i < count; i++) {
        size_t j = hash_of(r, i) & (cap - 1);
        while (s[j]) j = (j + 1) & (cap - 1);
        s[j] = i + 1;
    }
    free(*slots);
    *slots = s;
    *capacity = cap;
    return 0;
}

static uint64_t entry_hash(const etl_schema_registry *r, uint32_t i) { return hash_key(&r->entries[i].key, 1); }
static uint64_t family_hash(const etl_schema_registry *r, uint32_t i) { return hash_key(&r->families[i].key, 0); }
static uint64_t provider_hash(const etl_schema_registry *r, uint32_t i) { return hash_guid(&r->providers[i].guid); }

static int grow_array(void **array, size_t *capacity, size_t count, size_t element)
{
    if (count < *capacity) return 0;
    size_t cap = *capacity ? *capacity * 2 : 64;
    void *p = realloc(*array, cap * element);
    if (!p) return -1;
    *array = p;
    *capacity = cap;
    return 0;
}

/* ---- lifetime ---------------------------------------------------------------------------------------- */

etl_schema_registry *etl_schema_registry_new(void) { return calloc(1, sizeof(etl_schema_registry)); }

etl_schema_registry *etl_schema_registry_new_overlay(const etl_schema_registry *base)
{
    if (!base || base->base) return NULL;  /* one level: a base is a plain registry */
    etl_schema_registry *r = etl_schema_registry_new();
    if (r) r->base = base;
    return r;
}

const etl_schema_registry *etl_schema_registry_base(const etl_schema_registry *r) { return r ? r->base : NULL; }

int etl_schema_registry_share(etl_schema_registry *r)
{
    if (!r || r->base) return ETL_ERR_ARG;
    if (r->shared) return ETL_OK;
    pthread_mutexattr_t attr;
    if (pthread_mutexattr_init(&attr) != 0) return ETL_ERR_NOMEM;
    int rc = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE) == 0 && pthread_mutex_init(&r->lock, &attr) == 0
                 ? ETL_OK
                 : ETL_ERR_NOMEM;
    pthread_mutexattr_destroy(&attr);
    if (rc == ETL_OK) r->shared = 1;
    return rc;
}

/* A shared registry's lookups run under its lock (a deferred load may add to it meanwhile). */
static void lock_shared(const etl_schema_registry *r)
{
    if (r->shared) pthread_mutex_lock(&((etl_schema_registry *)r)->lock);
}

static void unlock_shared(const etl_schema_registry *r)
{
    if (r->shared) pthread_mutex_unlock(&((etl_schema_registry *)r)->lock);
}

void etl_schema_registry_free(etl_schema_registry *r)
{
    if (!r) return;
    for (arena_block *b = r->arena, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(r->entries);
    free(r->version_next);
    free(r->slots);
    free(r->families);
    free(r->family_slots);
    free(r->providers);
    free(r->provider_slots);
    etl_deferred_free(r->deferred);
    wpp_store_free(r->wpp);
    if (r->shared) pthread_mutex_destroy(&r->lock);
    free(r);
}

wpp_store *etl_schema_registry_wpp(etl_schema_registry *r, int create)
{
    if (r && !r->wpp && create) r->wpp = wpp_store_new();
    return r ? r->wpp : NULL;
}

const wpp_store *etl_schema_registry_wpp_const(const etl_schema_registry *r)
{
    return !r ? NULL : r->wpp ? r->wpp : etl_schema_registry_wpp_const(r->base);
}

int etl_schema_registry_defer_file(etl_schema_registry *r, const char *path, const etl_guid *guids,
                                   size_t guid_count, etl_deferred_loader loader)
{
    if (!r) return ETL_ERR_ARG;
    return etl_deferred_add(&r->deferred, path, guids, guid_count, loader);
}

/* Loads the deferred files naming `guid` (NULL: all) before a lookup. Lookups take a const registry; filling
 * it here is a cache fill that does not change what any lookup returns, and every registry comes non-const
 * from etl_schema_registry_new. */
static void resolve_deferred(const etl_schema_registry *r, const etl_guid *guid)
{
    if (r->deferred) etl_deferred_load(r->deferred, (etl_schema_registry *)r, guid);
}

const char *etl_schema_source_name(etl_schema_source source)
{
    static const char *const names[ETL_SOURCE_COUNT] = {"none", "tracelogging", "manifest", "wevt", "eventsource",
                                                        "embedded", "bundled", "kernel", "tmf"};
    return (unsigned)source < ETL_SOURCE_COUNT ? names[source] : "none";
}

/* ---- deep copy --------------------------------------------------------------------------------------- */

static const etl_map_info *copy_map(etl_schema_registry *r, const etl_map_info *map, int *failed)
{
    etl_map_info *m = arena_alloc(&r->arena, sizeof *m);
    etl_map_entry *entries = map->entry_count ? arena_alloc(&r->arena, map->entry_count * sizeof *entries) : NULL;
    if (!m || (map->entry_count && !entries)) {
        *failed = 1;
        return NULL;
    }
    m->name = arena_strdup(&r->arena, map->name, failed);
    m->flags = map->flags;
    m->entry_count = map->entries ? map->entry_count : 0;
    for (uint32_t i = 0; i < m->entry_count; i++) {
        entries[i].value = map->entries[i].value;
        entries[i].name = arena_strdup(&r->arena, map->entries[i].name, failed);
    }
    m->entries = entries;
    return m;
}

uint64_t etl_event_info_next_serial(void)
{
    static _Atomic uint64_t last;
    return atomic_fetch_add_explicit(&last, 1, memory_order_relaxed) + 1;
}

static etl_event_info *copy_info(etl_schema_registry *r, const etl_event_info *src)
{
    int failed = 0;
    etl_event_info *d = arena_alloc(&r->arena, sizeof *d);
    if (!d) return NULL;
    *d = *src;
    d->serial = etl_event_info_next_serial();
    d->provider_name = arena_strdup(&r->arena, src->provider_name, &failed);
    d->event_name = arena_strdup(&r->arena, src->event_name, &failed);
    d->task_name = arena_strdup(&r->arena, src->task_name, &failed);
    d->opcode_name = arena_strdup(&r->arena, src->opcode_name, &failed);
    d->level_name = arena_strdup(&r->arena, src->level_name, &failed);
    d->channel_name = arena_strdup(&r->arena, src->channel_name, &failed);
    d->message = arena_strdup(&r->arena, src->message, &failed);
    d->provider_message = arena_strdup(&r->arena, src->provider_message, &failed);
    d->user_data = arena_strdup(&r->arena, src->user_data, &failed);
    d->keyword_names = NULL;
    d->keyword_name_count = src->keyword_names ? src->keyword_name_count : 0;
    if (d->keyword_name_count) {
        const char **k = arena_alloc(&r->arena, d->keyword_name_count * sizeof *k);
        if (!k) return NULL;
        for (uint32_t i = 0; i < d->keyword_name_count; i++) k[i] = arena_strdup(&r->arena, src->keyword_names[i], &failed);
        d->keyword_names = k;
    }
    d->properties = NULL;
    d->property_count = src->properties ? src->property_count : 0;
    if (d->top_level_count > d->property_count) d->top_level_count = d->property_count;
    if (d->property_count) {
        etl_property_info *p = arena_alloc(&r->arena, d->property_count * sizeof *p);
        if (!p) return NULL;
        /* maps are usually shared by several properties: copy each distinct one once */
        const etl_map_info *seen_src[8] = {0}, *seen_dst[8] = {0};
        unsigned seen = 0;
        for (uint32_t i = 0; i < d->property_count; i++) {
            p[i] = src->properties[i];
            p[i].name = arena_strdup(&r->arena, src->properties[i].name, &failed);
            const etl_map_info *map = src->properties[i].map;
            if (!map) continue;
            unsigned j = 0;
            while (j < seen && seen_src[j] != map) j++;
            if (j < seen) {
                p[i].map = seen_dst[j];
                continue;
            }
            p[i].map = copy_map(r, map, &failed);
            seen_src[seen % 8] = map;
            seen_dst[seen % 8] = p[i].map;
            if (seen < 8) seen++;
        }
        d->properties = p;
    }
    return failed ? NULL : d;
}

/* ---- equality (a re-sent EventSource manifest should not grow the arena) ---------------------------------- */

static int same_text(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

static int same_map(const etl_map_info *a, const etl_map_info *b)
{
    if (a == b) return 1;
    if (!a || !b) return 0;
    uint32_t ea = a->entries ? a->entry_count : 0, eb = b->entries ? b->entry_count : 0;
    if (!same_text(a->name, b->name) || a->flags != b->flags || ea != eb) return 0;
    for (uint32_t i = 0; i < ea; i++)
        if (a->entries[i].value != b->entries[i].value || !same_text(a->entries[i].name, b->entries[i].name))
            return 0;
    return 1;
}

/* Every field a lookup's caller sees (not the serial), with the counts etl_schema_registry_add copies (an
 * array that is NULL counts 0 entries). Also the compiled-set check (compiled_set.c). */
int etl_event_info_same(const etl_event_info *x, const etl_event_info *y)
{
    uint32_t kx = x->keyword_names ? x->keyword_name_count : 0, ky = y->keyword_names ? y->keyword_name_count : 0;
    uint32_t px = x->properties ? x->property_count : 0, py = y->properties ? y->property_count : 0;
    if (x->source != y->source || !etl_guid_equal(&x->provider_guid, &y->provider_guid) ||
        !etl_guid_equal(&x->event_guid, &y->event_guid) ||
        memcmp(&x->descriptor, &y->descriptor, sizeof x->descriptor) != 0 || kx != ky || px != py ||
        (x->top_level_count > px ? px : x->top_level_count) != (y->top_level_count > py ? py : y->top_level_count))
        return 0;
    if (!same_text(x->provider_name, y->provider_name) || !same_text(x->event_name, y->event_name) ||
        !same_text(x->task_name, y->task_name) || !same_text(x->opcode_name, y->opcode_name) ||
        !same_text(x->level_name, y->level_name) || !same_text(x->channel_name, y->channel_name) ||
        !same_text(x->message, y->message) || !same_text(x->provider_message, y->provider_message) ||
        !same_text(x->user_data, y->user_data))
        return 0;
    for (uint32_t i = 0; i < kx; i++)
        if (!same_text(x->keyword_names[i], y->keyword_names[i])) return 0;
    for (uint32_t i = 0; i < px; i++) {
        const etl_property_info *a = &x->properties[i], *b = &y->properties[i];
        if (!same_text(a->name, b->name) || a->flags != b->flags || a->in_type != b->in_type ||
            a->out_type != b->out_type || a->struct_start != b->struct_start || a->struct_count != b->struct_count ||
            a->count != b->count || a->length != b->length || !same_map(a->map, b->map))
            return 0;
    }
    return 1;
}

/* Two parsed sets (compiled_set.h: the compiled form is checked against the parse with it). */
int etl_schema_set_same(const etl_schema_set *a, const etl_schema_set *b)
{
    if (a->event_count != b->event_count || a->provider_count != b->provider_count ||
        a->unresolved_strings != b->unresolved_strings)
        return 0;
    for (size_t i = 0; i < a->provider_count; i++)
        if (!etl_guid_equal(&a->providers[i].guid, &b->providers[i].guid) ||
            !same_text(a->providers[i].name, b->providers[i].name) ||
            !same_text(a->providers[i].message, b->providers[i].message))
            return 0;
    for (size_t i = 0; i < a->event_count; i++)
        if (!etl_event_info_same(&a->events[i], &b->events[i])) return 0;
    return 1;
}

/* ---- providers --------------------------------------------------------------------------------------- */

/* This registry's own provider entry for `guid`, if any (the caller holds the lock of a shared one). */
static const provider_entry *find_provider(const etl_schema_registry *r, const etl_guid *guid)
{
    if (!r->provider_count) return NULL;
    size_t slot = probe(r, r->provider_slots, r->provider_slot_capacity, hash_guid(guid), provider_match, guid);
    return r->provider_slots[slot] ? &r->providers[r->provider_slots[slot] - 1] : NULL;
}

/* ... with the deferred files naming `guid` loaded first, as before any lookup. */
static const provider_entry *own_provider(const etl_schema_registry *r, const etl_guid *guid)
{
    resolve_deferred(r, guid);
    return find_provider(r, guid);
}

int etl_schema_registry_add_provider(etl_schema_registry *r, const etl_guid *guid, const char *name,
                                     etl_schema_source source)
{
    if (!r || !guid || !name || !*name) return ETL_ERR_ARG;
    if (grow_slots(r, &r->provider_slots, &r->provider_slot_capacity, r->provider_count, provider_hash) != 0)
        return ETL_ERR_NOMEM;
    size_t slot = probe(r, r->provider_slots, r->provider_slot_capacity, hash_guid(guid), provider_match, guid);
    provider_entry *p = r->provider_slots[slot] ? &r->providers[r->provider_slots[slot] - 1] : NULL;
    /* the entry a lookup returns now, the base's included: a later source, or the same name, changes nothing
     * (as in one registry, where the same name keeps the stored source) */
    etl_schema_source current = p ? p->source : ETL_SOURCE_COUNT;
    int same_name = p && strcmp(p->name, name) == 0;
    if (r->base) {
        lock_shared(r->base);
        const provider_entry *below = find_provider(r->base, guid);
        if (below && below->source < current) {
            current = below->source;
            same_name = strcmp(below->name, name) == 0;
        }
        unlock_shared(r->base);
    }
    if (source > current || same_name) return ETL_OK;
    int failed = 0;
    const char *copy = arena_strdup(&r->arena, name, &failed);
    if (!copy) return ETL_ERR_NOMEM;
    if (p) {
        p->name = copy;
        p->source = source;
    } else {
        if (grow_array((void **)&r->providers, &r->provider_capacity, r->provider_count, sizeof *r->providers) != 0)
            return ETL_ERR_NOMEM;
        r->providers[r->provider_count] = (provider_entry){*guid, copy, source};
        r->provider_slots[slot] = (uint32_t)++r->provider_count;
    }
    bump(r);
    return ETL_OK;
}

const char *etl_schema_registry_provider_name(const etl_schema_registry *r, const etl_guid *guid)
{
    if (!r || !guid) return NULL;
    /* provider entries' names are arena strings, never moved: they stay valid after unlocking */
    lock_shared(r);
    const provider_entry *own = own_provider(r, guid);
    const char *name = own ? own->name : NULL;
    unlock_shared(r);
    if (r->base) {
        lock_shared(r->base);
        const provider_entry *below = own_provider(r->base, guid);
        if (below && (!own || below->source < own->source)) name = below->name;
        unlock_shared(r->base);
    }
    return name;
}

/* ---- event descriptions ------------------------------------------------------------------------------ */

static schema_key make_key(etl_schema_key_kind kind, const etl_guid *guid, uint16_t id, uint8_t version)
{
    schema_key k;
    memset(&k, 0, sizeof k);
    k.guid = *guid;
    k.id = id;
    k.version = version;
    k.kind = (uint8_t)kind;
    return k;
}

static int link_family(etl_schema_registry *r, uint32_t entry)
{
    const schema_key *k = &r->entries[entry].key;
    if (grow_slots(r, &r->family_slots, &r->family_slot_capacity, r->family_count, family_hash) != 0) return -1;
    size_t slot = probe(r, r->family_slots, r->family_slot_capacity, hash_key(k, 0), family_match, k);
    if (r->family_slots[slot]) {
        schema_family *f = &r->families[r->family_slots[slot] - 1];
        r->version_next[entry] = f->first_entry;
        f->first_entry = entry;
        return 0;
    }
    if (grow_array((void **)&r->families, &r->family_capacity, r->family_count, sizeof *r->families) != 0) return -1;
    r->families[r->family_count] = (schema_family){*k, entry};
    r->version_next[entry] = UINT32_MAX;
    r->family_slots[slot] = (uint32_t)++r->family_count;
    return 0;
}

int etl_schema_registry_add(etl_schema_registry *r, const etl_event_info *info, etl_schema_key_kind kind)
{
    if (!r || !info || (kind != ETL_KEY_MANIFEST && kind != ETL_KEY_CLASSIC)) return ETL_ERR_ARG;
    schema_key k = kind == ETL_KEY_MANIFEST
                       ? make_key(kind, &info->provider_guid, info->descriptor.id, info->descriptor.version)
                       : make_key(kind, &info->event_guid, info->descriptor.opcode, info->descriptor.version);
    if (info->provider_name && *info->provider_name) {
        /* classic records carry the class GUID, manifest records the provider GUID: name both */
        int rc = etl_schema_registry_add_provider(r, &k.guid, info->provider_name, info->source);
        if (rc == ETL_OK && kind == ETL_KEY_CLASSIC && !etl_guid_is_zero(&info->provider_guid))
            rc = etl_schema_registry_add_provider(r, &info->provider_guid, info->provider_name, info->source);
        if (rc != ETL_OK) return rc;
    }
    if (grow_slots(r, &r->slots, &r->slot_capacity, r->entry_count, entry_hash) != 0) return ETL_ERR_NOMEM;
    size_t slot = probe(r, r->slots, r->slot_capacity, hash_key(&k, 1), entry_match, &k);
    if (r->slots[slot]) {
        schema_entry *e = &r->entries[r->slots[slot] - 1];
        if (info->source > e->info->source) return ETL_OK; /* a later source never overrides */
        if (etl_event_info_same(e->info, info)) return ETL_OK;       /* re-sent unchanged: keep the copy we have */
        etl_event_info *copy = copy_info(r, info);
        if (!copy) return ETL_ERR_NOMEM;
        e->info = copy;
        bump(r);
        return ETL_OK;
    }
    if (grow_array((void **)&r->entries, &r->entry_capacity, r->entry_count, sizeof *r->entries) != 0)
        return ETL_ERR_NOMEM;
    if (r->version_next_capacity < r->entry_capacity) { /* grows with the entries, not at every add */
        uint32_t *next = realloc(r->version_next, r->entry_capacity * sizeof *next);
        if (!next) return ETL_ERR_NOMEM;
        r->version_next = next;
        r->version_next_capacity = r->entry_capacity;
    }
    etl_event_info *copy = copy_info(r, info);
    if (!copy) return ETL_ERR_NOMEM;
    uint32_t index = (uint32_t)r->entry_count;
    r->entries[index] = (schema_entry){k, copy};
    if (link_family(r, index) != 0) return ETL_ERR_NOMEM;
    r->entry_count++;
    r->slots[slot] = index + 1;
    bump(r);
    return ETL_OK;
}

uint64_t etl_schema_registry_generation(const etl_schema_registry *r)
{
    if (!r) return 0;
    /* both only grow: the sum changes whenever either does (a base has no base) */
    uint64_t g = atomic_load_explicit(&r->generation, memory_order_relaxed);
    return r->base ? g + atomic_load_explicit(&r->base->generation, memory_order_relaxed) : g;
}

/* What one registry holds for a key: the exact version, else the nearest version below and above it. */
typedef struct version_pick {
    const etl_event_info *exact, *below, *above;
    int below_version, above_version;  /* -1 / 256: none */
} version_pick;

static void pick_own(const etl_schema_registry *r, const schema_key *k, version_pick *p)
{
    *p = (version_pick){NULL, NULL, NULL, -1, 256};
    resolve_deferred(r, &k->guid);
    if (!r->entry_count) return;
    size_t slot = probe(r, r->slots, r->slot_capacity, hash_key(k, 1), entry_match, k);
    if (r->slots[slot]) {
        p->exact = r->entries[r->slots[slot] - 1].info;
        return;
    }
    slot = probe(r, r->family_slots, r->family_slot_capacity, hash_key(k, 0), family_match, k);
    if (!r->family_slots[slot]) return;
    for (uint32_t e = r->families[r->family_slots[slot] - 1].first_entry; e != UINT32_MAX; e = r->version_next[e]) {
        int v = r->entries[e].key.version;
        if (v < k->version && v > p->below_version) p->below_version = v, p->below = r->entries[e].info;
        if (v > k->version && v < p->above_version) p->above_version = v, p->above = r->entries[e].info;
    }
}

/* One key stored by overlay and base: the earlier source; the overlay's on a tie (its adds came later). */
static const etl_event_info *earlier(const etl_event_info *overlay, const etl_event_info *base)
{
    return !overlay ? base : !base ? overlay : base->source < overlay->source ? base : overlay;
}

/* The version an overlay and its base together resolve to, as one registry holding both would: exact first,
 * then the highest version below, then the lowest above; a version both hold goes to the earlier source. */
static const etl_event_info *pick_both(const version_pick *o, const version_pick *b)
{
    if (o->exact || b->exact) return earlier(o->exact, b->exact);
    if (o->below_version >= 0 || b->below_version >= 0) {
        if (o->below_version != b->below_version) return o->below_version > b->below_version ? o->below : b->below;
        return earlier(o->below, b->below);
    }
    if (o->above_version != b->above_version) return o->above_version < b->above_version ? o->above : b->above;
    return earlier(o->above, b->above);
}

const etl_event_info *etl_schema_registry_find(const etl_schema_registry *r, etl_schema_key_kind kind,
                                               const etl_guid *guid, uint16_t id_or_opcode, uint8_t version)
{
    if (!r || !guid) return NULL;
    schema_key k = make_key(kind, guid, id_or_opcode, version);
    version_pick own, below;
    lock_shared(r);
    pick_own(r, &k, &own);
    unlock_shared(r);
    if (!r->base) return own.exact ? own.exact : own.below ? own.below : own.above;
    lock_shared(r->base);
    pick_own(r->base, &k, &below);
    unlock_shared(r->base);
    return pick_both(&own, &below);
}

/* Visiting an overlay: the base's entries the overlay does not replace, then the overlay's own that the base
 * does not override (the descriptions a lookup of their key returns). */
typedef struct overlay_visit {
    const etl_schema_registry *other;
    int other_is_overlay;
    etl_schema_visit_fn fn;
    void *ctx;
} overlay_visit;

static int visit_unshadowed(const etl_event_info *info, etl_schema_key_kind kind, void *arg)
{
    overlay_visit *v = arg;
    schema_key k = kind == ETL_KEY_MANIFEST
                       ? make_key(kind, &info->provider_guid, info->descriptor.id, info->descriptor.version)
                       : make_key(kind, &info->event_guid, info->descriptor.opcode, info->descriptor.version);
    version_pick p;
    lock_shared(v->other);
    pick_own(v->other, &k, &p);
    unlock_shared(v->other);
    int shadowed = p.exact && (v->other_is_overlay ? p.exact->source <= info->source : p.exact->source < info->source);
    return shadowed ? 0 : v->fn(info, kind, v->ctx);
}

static int visit_own(const etl_schema_registry *r, etl_schema_visit_fn fn, void *ctx)
{
    int stopped = 0;
    lock_shared(r);
    resolve_deferred(r, NULL);
    for (size_t i = 0; i < r->entry_count && !stopped; i++)
        stopped = fn(r->entries[i].info, (etl_schema_key_kind)r->entries[i].key.kind, ctx);
    unlock_shared(r);
    return stopped;
}

void etl_schema_registry_visit(const etl_schema_registry *r, etl_schema_visit_fn fn, void *ctx)
{
    if (!r || !fn) return;
    if (!r->base) {
        visit_own(r, fn, ctx);
        return;
    }
    overlay_visit from_base = {r, 1, fn, ctx}, from_overlay = {r->base, 0, fn, ctx};
    if (!visit_own(r->base, visit_unshadowed, &from_base)) visit_own(r, visit_unshadowed, &from_overlay);
}
