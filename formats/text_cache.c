/* Per-schema static text cache (see text_cache.h): open addressing on a 64-bit hash of the key, one block
 * per entry (entry, segment ends, text, provider-name copy). */
#include "text_cache.h"

#include <stdlib.h>
#include <string.h>

/* Property names are cached for schemas up to this size (larger ones escape names per event). */
#define MAX_CACHED_PROPERTIES 4096u
/* An entry bigger than this is rendered per event instead of stored. */
#define MAX_ENTRY_TEXT (256u * 1024u)
#define SLOTS (2 * FMT_TEXT_CACHE_ENTRIES)

_Static_assert(sizeof(etl_event_descriptor) == 16, "descriptor copied into the key as 16 bytes");

typedef struct text_key {
    uint64_t words[6]; /* serial, provider GUID (2), descriptor (2), record kind << 16 | header flags */
} text_key;

typedef struct entry {
    text_key key;
    const char *provider; /* the provider name when it is not the schema's (compared on every hit) */
    size_t size;          /* bytes of the block */
    fmt_static_text text;
} entry;

struct fmt_text_cache {
    uint32_t segments;
    fmt_static_builder build;
    fmt_name_escaper escape_name;
    void *writer;
    int disabled;            /* ETLCONV_TEXT_CACHE=off */
    entry **slots;
    entry *last;             /* the entry returned last: events of one kind often come in runs */
    size_t count, bytes;
    fmt_buf scratch;         /* text of the entry being built (and of uncached events) */
    uint32_t *scratch_ends;
    size_t scratch_ends_capacity;
    fmt_static_text uncached;
};

fmt_text_cache *fmt_text_cache_new(uint32_t segments, fmt_static_builder build, fmt_name_escaper escape_name,
                                   void *writer)
{
    if (segments == 0 || segments > FMT_TEXT_MAX_SEGMENTS) return NULL;
    fmt_text_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->segments = segments;
    c->build = build;
    c->escape_name = escape_name;
    c->writer = writer;
    const char *env = getenv("ETLCONV_TEXT_CACHE");
    c->disabled = env && strcmp(env, "off") == 0;
    c->slots = calloc(SLOTS, sizeof *c->slots);
    if (!c->slots) {
        free(c);
        return NULL;
    }
    return c;
}

static void clear(fmt_text_cache *c)
{
    for (size_t i = 0; i < SLOTS; i++) {
        free(c->slots[i]);
        c->slots[i] = NULL;
    }
    c->last = NULL;
    c->count = c->bytes = 0;
}

void fmt_text_cache_free(fmt_text_cache *c)
{
    if (!c) return;
    clear(c);
    free(c->slots);
    free(c->scratch_ends);
    etl_textbuf_free(&c->scratch);
    free(c);
}

static int from_schema(const etl_decoded_event *ev)
{
    return ev->info && ev->info->provider_name && ev->info->provider_name[0];
}

static uint64_t hash_key(const text_key *k)
{
    /* three independent products (serial ^ descriptor, GUID ^ descriptor, GUID ^ kind/flags) */
    uint64_t h = (k->words[0] ^ k->words[3]) * 0x9E3779B97F4A7C15ull +
                 (k->words[1] ^ k->words[4]) * 0xC2B2AE3D27D4EB4Full +
                 (k->words[2] ^ k->words[5]) * 0x165667B19E3779F9ull;
    return h ^ h >> 29;
}

static int same_key(const text_key *a, const text_key *b)
{
    return ((a->words[0] ^ b->words[0]) | (a->words[1] ^ b->words[1]) | (a->words[2] ^ b->words[2]) |
            (a->words[3] ^ b->words[3]) | (a->words[4] ^ b->words[4]) | (a->words[5] ^ b->words[5])) == 0;
}

/* Whether entry e was built with the provider name `provider` (NULL: the schema's). */
static int same_provider(const entry *e, const char *provider)
{
    return (e->provider == NULL) == (provider == NULL) && (!provider || strcmp(e->provider, provider) == 0);
}

/* Builds the static text of ev into the scratch buffer; c->uncached describes it. 0 or -1. */
static int build(fmt_text_cache *c, const etl_decoded_event *ev, int with_names)
{
    uint32_t properties = 0;
    if (with_names && c->escape_name && ev->info && ev->info->properties &&
        ev->info->property_count <= MAX_CACHED_PROPERTIES)
        properties = ev->info->property_count;
    size_t ends = c->segments + properties;
    if (ends > c->scratch_ends_capacity) {
        uint32_t *grown = realloc(c->scratch_ends, ends * sizeof *grown);
        if (!grown) return -1;
        c->scratch_ends = grown;
        c->scratch_ends_capacity = ends;
    }
    etl_textbuf_reset(&c->scratch);
    c->build(c->writer, ev, &c->scratch, c->scratch_ends);
    for (uint32_t i = 0; i < properties; i++) {
        const char *name = ev->info->properties[i].name;
        c->escape_name(&c->scratch, name ? name : "");
        c->scratch_ends[c->segments + i] = (uint32_t)c->scratch.length;
    }
    etl_textbuf_reserve(&c->scratch, FMT_STATIC_TEXT_PAD); /* the readable bytes after the text */
    if (c->scratch.failed || c->scratch.length > UINT32_MAX) return -1;
    c->uncached = (fmt_static_text){fmt_buf_cstr(&c->scratch), c->scratch_ends, c->segments, properties};
    return 0;
}

static void make_key(const etl_decoded_event *ev, text_key *k)
{
    const etl_event_record *r = ev->record;
    k->words[0] = ev->info ? ev->info->serial : 0;
    memcpy(&k->words[1], &r->header.provider_id, 16);
    memcpy(&k->words[3], &r->header.descriptor, 16);
    k->words[5] = (uint64_t)r->kind << 16 | r->header.flags;
}

/* Stores the scratch build as an entry at `slot`; the entry, or NULL when it is not worth keeping. */
static entry *store(fmt_text_cache *c, size_t slot, const text_key *k, const char *provider)
{
    size_t text_bytes = c->scratch.length + 1;
    size_t provider_bytes = provider ? strlen(provider) + 1 : 0;
    size_t ends = c->uncached.segments + c->uncached.property_count;
    if (text_bytes + provider_bytes > MAX_ENTRY_TEXT) return NULL;
    size_t size = sizeof(entry) + ends * sizeof(uint32_t) + text_bytes + provider_bytes + FMT_STATIC_TEXT_PAD;
    entry *e = malloc(size);
    if (!e) return NULL;
    uint32_t *ends_copy = (uint32_t *)(void *)(e + 1);
    char *text = (char *)(ends_copy + ends);
    memcpy(ends_copy, c->scratch_ends, ends * sizeof(uint32_t));
    memcpy(text, c->uncached.text, text_bytes);
    memset(text + text_bytes + provider_bytes, 0, FMT_STATIC_TEXT_PAD);
    e->key = *k;
    e->provider = NULL;
    e->size = size;
    if (provider) {
        char *copy = text + text_bytes;
        memcpy(copy, provider, provider_bytes);
        e->provider = copy;
    }
    e->text = (fmt_static_text){text, ends_copy, c->uncached.segments, c->uncached.property_count};
    c->slots[slot] = e;
    c->count++;
    c->bytes += size;
    return e;
}

const fmt_static_text *fmt_text_cache_get(fmt_text_cache *c, const etl_decoded_event *ev)
{
    if (c->disabled || ev->wpp || (ev->info && ev->info->serial == 0)) {
        if (build(c, ev, 1) != 0) return NULL;
        return &c->uncached;
    }
    text_key k;
    make_key(ev, &k);
    const char *provider = from_schema(ev) ? NULL : ev->provider_name;
    entry *last = c->last;
    if (last && same_key(&last->key, &k) && same_provider(last, provider)) return &last->text;
    size_t home = (size_t)hash_key(&k) & (SLOTS - 1), slot = home;
    for (entry *e; (e = c->slots[slot]) != NULL; slot = (slot + 1) & (SLOTS - 1)) {
        if (!same_key(&e->key, &k)) continue;
        if (same_provider(e, provider)) {
            c->last = e;
            return &e->text;
        }
        /* the provider got a name (or another one) since: rendered again into this slot */
        if (e == c->last) c->last = NULL;
        c->count--;
        c->bytes -= e->size;
        free(e);
        c->slots[slot] = NULL;
        break;
    }
    if (build(c, ev, 1) != 0) return NULL;
    if (c->count >= FMT_TEXT_CACHE_ENTRIES || c->bytes >= FMT_TEXT_CACHE_BYTES) {
        clear(c);
        slot = home;
    }
    entry *e = store(c, slot, &k, provider);
    c->last = e;
    return e ? &e->text : &c->uncached;
}
