/* Compiled schema sets: writing and bounded reading (compiled_set.h says what and why).
 *
 * Layout, little-endian, sections back to back in this order:
 *   header   80 bytes: "ETLCSET\0", u32 version, u32 header size (80), u64 source size, u64 source hash,
 *            u64 hash of everything after the header, u32 counts of events, providers, properties, maps,
 *            map entries, keyword references, u32 string bytes, u32 count of deferral GUIDs, u64
 *            unresolved_strings (the set's counter)
 *   events   108 bytes each: u32 source, provider GUID, event GUID (16 bytes each: u32 u16 u16 u8[8]),
 *            descriptor (u16 id, u8 version, channel, level, opcode, u16 task, u64 keyword), 9 string
 *            references (provider, event, task, opcode, level, channel names, message, provider message,
 *            user data), u32 first keyword reference, u32 keyword count, u32 first property, u32 property
 *            count, u32 top-level count
 *   providers 24 bytes: GUID, name and message string references
 *   properties 24 bytes: u32 name reference, u32 flags, u16 in type, out type, struct start, struct count,
 *            count, length, u32 map (index + 1; 0 = none)
 *   maps     16 bytes: u32 name reference, u32 flags, u32 first entry, u32 entry count
 *   map entries 8 bytes: u32 value, u32 name reference
 *   keyword references 4 bytes each: string references
 *   deferral GUIDs 16 bytes each: what etl_deferred_scan_guids finds in the source (deferred_files.h)
 *   strings  NUL-terminated UTF-8, the last byte a NUL; a string reference is offset + 1, 0 = NULL.
 * Maps shared by several properties stay shared; equal strings are stored once. */
#include <stdlib.h>
#include <string.h>

#include "schema/compiled_set.h"
#include "util/le.h"

#define HEADER_SIZE 80u
#define EVENT_SIZE 108u
#define PROVIDER_SIZE 24u
#define PROPERTY_SIZE 24u
#define MAP_SIZE 16u
#define ENTRY_SIZE 8u
#define REF_SIZE 4u
#define GUID_SIZE 16u
static const char MAGIC[8] = "ETLCSET";

/* 16 bytes per 64x64->128-bit multiply, folded into the state (about 0.6 instructions a byte; zlib's CRC-32
 * costs 3): the bundled manifests are hashed at every run, so this is on the path the compiled form shortens.
 * A product of zero (one factor exactly 0) leaves the state as it was instead of clearing it. */
static uint64_t fold_mul(uint64_t a, uint64_t b)
{
    unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

uint64_t etl_compiled_source_hash(const unsigned char *data, size_t size)
{
    const uint64_t k1 = 0xA0761D6478BD642FULL, k2 = 0xE7037ED1A0B428DBULL, k3 = 0x8EBC6AF09C88C6E3ULL;
    uint64_t h = fold_mul(size ^ k1, k3);
    size_t i = 0;
    for (; i + 16 <= size; i += 16) h ^= fold_mul(etl_le64(data + i) ^ k1, etl_le64(data + i + 8) ^ h ^ k2);
    unsigned char tail[16] = {0};
    if (size > i) memcpy(tail, data + i, size - i);
    h ^= fold_mul(etl_le64(tail) ^ k1, etl_le64(tail + 8) ^ h ^ k2);
    return fold_mul(h ^ k3, (uint64_t)size ^ k1);
}

/* ---- writing ------------------------------------------------------------------------------------------- */

typedef struct out_buf {
    unsigned char *data;
    size_t size, cap;
    int failed;
} out_buf;

static unsigned char *reserve(out_buf *b, size_t n)
{
    if (b->failed) return NULL;
    if (b->cap - b->size < n) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->size < n) cap *= 2;
        unsigned char *p = realloc(b->data, cap);
        if (!p) {
            b->failed = 1;
            return NULL;
        }
        b->data = p;
        b->cap = cap;
    }
    unsigned char *p = b->data + b->size;
    b->size += n;
    return p;
}

static void put_u8(out_buf *b, unsigned v)
{
    unsigned char *p = reserve(b, 1);
    if (p) p[0] = (unsigned char)v;
}

static void put_u16(out_buf *b, unsigned v)
{
    unsigned char *p = reserve(b, 2);
    if (p) p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8);
}

static void put_u32(out_buf *b, uint32_t v)
{
    unsigned char *p = reserve(b, 4);
    if (p)
        for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(out_buf *b, uint64_t v)
{
    put_u32(b, (uint32_t)v);
    put_u32(b, (uint32_t)(v >> 32));
}

static void put_guid(out_buf *b, const etl_guid *g)
{
    put_u32(b, g->data1);
    put_u16(b, g->data2);
    put_u16(b, g->data3);
    for (int i = 0; i < 8; i++) put_u8(b, g->data4[i]);
}

/* Strings stored once each: an open-addressing table of offsets into the string section. */
typedef struct string_pool {
    out_buf text;
    uint32_t *slots;     /* offset + 1, 0 = empty */
    size_t slot_count, used;
} string_pool;

static uint64_t hash_text(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static uint32_t intern(string_pool *p, const char *s)
{
    if (!s) return 0;
    if ((p->used + 1) * 2 > p->slot_count) {
        size_t count = p->slot_count ? p->slot_count * 2 : 1024;
        uint32_t *slots = calloc(count, sizeof *slots);
        if (!slots) return p->text.failed = 1, 0;
        for (size_t i = 0; i < p->slot_count; i++) {
            if (!p->slots[i]) continue;
            const char *t = (const char *)p->text.data + p->slots[i] - 1;
            size_t j = hash_text(t, strlen(t)) & (count - 1);
            while (slots[j]) j = (j + 1) & (count - 1);
            slots[j] = p->slots[i];
        }
        free(p->slots);
        p->slots = slots;
        p->slot_count = count;
    }
    size_t n = strlen(s);
    size_t j = hash_text(s, n) & (p->slot_count - 1);
    for (; p->slots[j]; j = (j + 1) & (p->slot_count - 1))
        if (strcmp((const char *)p->text.data + p->slots[j] - 1, s) == 0) return p->slots[j];
    if (p->text.size + n + 1 >= UINT32_MAX) return p->text.failed = 1, 0;
    uint32_t ref = (uint32_t)p->text.size + 1;
    unsigned char *d = reserve(&p->text, n + 1);
    if (!d) return 0;
    memcpy(d, s, n + 1);
    p->slots[j] = ref;
    p->used++;
    return ref;
}

/* The distinct maps of a set, in order of first use (shared maps stay shared). */
typedef struct map_list {
    const etl_map_info **maps;
    size_t count, cap;
} map_list;

static uint32_t map_index(map_list *l, const etl_map_info *m, int *failed)
{
    if (!m) return 0;
    for (size_t i = l->count; i > 0; i--)   /* recent maps first: properties of one event share them */
        if (l->maps[i - 1] == m) return (uint32_t)i;
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        const etl_map_info **p = realloc(l->maps, cap * sizeof *p);
        if (!p) return *failed = 1, 0;
        l->maps = p;
        l->cap = cap;
    }
    l->maps[l->count++] = m;
    return (uint32_t)l->count;
}

int etl_compiled_set_write(const etl_schema_set *set, const etl_guid *guids, size_t guid_count, size_t source_size,
                           uint64_t source_hash, unsigned char **blob, size_t *blob_size)
{
    out_buf events = {0}, providers = {0}, props = {0}, maps = {0}, entries = {0}, keywords = {0}, deferral = {0};
    string_pool strings = {{0}, NULL, 0, 0};
    map_list mlist = {NULL, 0, 0};
    int failed = 0;
    uint32_t prop_total = 0, keyword_total = 0, entry_total = 0;
    *blob = NULL;
    *blob_size = 0;
    intern(&strings, "");   /* the string section is never empty: its last byte is a NUL */
    for (size_t i = 0; i < set->event_count; i++) {
        const etl_event_info *e = &set->events[i];
        uint32_t kcount = e->keyword_names ? e->keyword_name_count : 0;
        uint32_t pcount = e->properties ? e->property_count : 0;
        put_u32(&events, (uint32_t)e->source);
        put_guid(&events, &e->provider_guid);
        put_guid(&events, &e->event_guid);
        put_u16(&events, e->descriptor.id);
        put_u8(&events, e->descriptor.version);
        put_u8(&events, e->descriptor.channel);
        put_u8(&events, e->descriptor.level);
        put_u8(&events, e->descriptor.opcode);
        put_u16(&events, e->descriptor.task);
        put_u64(&events, e->descriptor.keyword);
        const char *text[9] = {e->provider_name, e->event_name, e->task_name, e->opcode_name, e->level_name,
                               e->channel_name, e->message, e->provider_message, e->user_data};
        for (int t = 0; t < 9; t++) put_u32(&events, intern(&strings, text[t]));
        put_u32(&events, keyword_total);
        put_u32(&events, kcount);
        put_u32(&events, prop_total);
        put_u32(&events, pcount);
        put_u32(&events, e->top_level_count > pcount ? pcount : e->top_level_count);
        for (uint32_t k = 0; k < kcount; k++) put_u32(&keywords, intern(&strings, e->keyword_names[k]));
        for (uint32_t p = 0; p < pcount; p++) {
            const etl_property_info *q = &e->properties[p];
            put_u32(&props, intern(&strings, q->name));
            put_u32(&props, q->flags);
            put_u16(&props, q->in_type);
            put_u16(&props, q->out_type);
            put_u16(&props, q->struct_start);
            put_u16(&props, q->struct_count);
            put_u16(&props, q->count);
            put_u16(&props, q->length);
            size_t before = mlist.count;
            put_u32(&props, map_index(&mlist, q->map, &failed));
            if (mlist.count == before) continue;
            const etl_map_info *m = q->map;   /* first use: write it */
            uint32_t ecount = m->entries ? m->entry_count : 0;
            put_u32(&maps, intern(&strings, m->name));
            put_u32(&maps, m->flags);
            put_u32(&maps, entry_total);
            put_u32(&maps, ecount);
            for (uint32_t x = 0; x < ecount; x++) {
                put_u32(&entries, m->entries[x].value);
                put_u32(&entries, intern(&strings, m->entries[x].name));
            }
            entry_total += ecount;
        }
        keyword_total += kcount;
        prop_total += pcount;
    }
    for (size_t i = 0; i < set->provider_count; i++) {
        put_guid(&providers, &set->providers[i].guid);
        put_u32(&providers, intern(&strings, set->providers[i].name));
        put_u32(&providers, intern(&strings, set->providers[i].message));
    }
    for (size_t i = 0; i < guid_count; i++) put_guid(&deferral, &guids[i]);
    out_buf *parts[] = {&events, &providers, &props, &maps, &entries, &keywords, &deferral, &strings.text};
    out_buf all = {0};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) failed |= parts[i]->failed;
    if (!failed) {
        reserve(&all, HEADER_SIZE);   /* written below, once the body's hash is known */
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
            unsigned char *d = parts[i]->size ? reserve(&all, parts[i]->size) : NULL;
            if (d) memcpy(d, parts[i]->data, parts[i]->size);
        }
        failed = all.failed;
    }
    if (!failed) {
        out_buf head = {0};
        unsigned char *h = reserve(&head, 8);
        if (h) memcpy(h, MAGIC, 8);
        put_u32(&head, ETL_COMPILED_SET_VERSION);
        put_u32(&head, HEADER_SIZE);
        put_u64(&head, source_size);
        put_u64(&head, source_hash);
        put_u64(&head, etl_compiled_source_hash(all.data + HEADER_SIZE, all.size - HEADER_SIZE));
        put_u32(&head, (uint32_t)set->event_count);
        put_u32(&head, (uint32_t)set->provider_count);
        put_u32(&head, prop_total);
        put_u32(&head, (uint32_t)mlist.count);
        put_u32(&head, entry_total);
        put_u32(&head, keyword_total);
        put_u32(&head, (uint32_t)strings.text.size);
        put_u32(&head, (uint32_t)guid_count);
        put_u64(&head, set->unresolved_strings);
        failed = head.failed || head.size != HEADER_SIZE;
        if (!failed) memcpy(all.data, head.data, HEADER_SIZE);
        free(head.data);
    }
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) free(parts[i]->data);
    free(strings.slots);
    free(mlist.maps);
    if (failed) {
        free(all.data);
        return ETL_ERR_NOMEM;
    }
    *blob = all.data;
    *blob_size = all.size;
    return ETL_OK;
}

/* ---- reading ------------------------------------------------------------------------------------------- */

typedef struct reader {
    const unsigned char *blob;
    const char *strings;          /* the set's copy of the string section */
    uint32_t string_bytes;
    const char *origin;
    etl_error *err;
    size_t at;                    /* offset of the record being read, for the error */
    int bad;
} reader;

static int damaged(reader *r, const char *why)
{
    if (!r->bad) etl_schema_fail(r->err, ETL_ERR_FORMAT, r->origin, r->at, "compiled schema: %s", why);
    r->bad = 1;
    return ETL_ERR_FORMAT;
}

/* A string reference: NULL, or a string inside the section (which ends with a NUL, so it is terminated). */
static const char *string_at(reader *r, const unsigned char *p)
{
    uint32_t ref = etl_le32(p);
    if (!ref) return NULL;
    if (ref - 1 >= r->string_bytes) return damaged(r, "string reference out of range"), NULL;
    return r->strings + ref - 1;
}

/* first + count within total (no overflow: 64-bit sum of two 32-bit values) */
static int in_range(uint32_t first, uint32_t count, uint32_t total) { return (uint64_t)first + count <= total; }

/* The sections of a blob whose header, sizes and body hash check out. */
typedef struct sections {
    uint32_t n_events, n_providers, n_props, n_maps, n_entries, n_refs, n_guids;
    const unsigned char *ev, *pv, *pp, *mp, *ep, *kp, *gp, *sp;
} sections;

/* 0 when usable, 1 when stale (another version or other source bytes), ETL_ERR_FORMAT when damaged. */
static int open_blob(reader *r, size_t blob_size, size_t source_size, uint64_t source_hash, sections *x)
{
    const unsigned char *blob = r->blob;
    if (blob_size < HEADER_SIZE || memcmp(blob, MAGIC, 8) != 0) return damaged(r, "no header");
    if (etl_le32(blob + 8) != ETL_COMPILED_SET_VERSION || etl_le64(blob + 16) != (uint64_t)source_size ||
        etl_le64(blob + 24) != source_hash)
        return 1;   /* another format version, or the manifest changed since it was compiled */
    r->at = 12;
    if (etl_le32(blob + 12) != HEADER_SIZE) return damaged(r, "bad header size");
    x->n_events = etl_le32(blob + 40), x->n_providers = etl_le32(blob + 44), x->n_props = etl_le32(blob + 48);
    x->n_maps = etl_le32(blob + 52), x->n_entries = etl_le32(blob + 56), x->n_refs = etl_le32(blob + 60);
    r->string_bytes = etl_le32(blob + 64);
    x->n_guids = etl_le32(blob + 68);
    const uint64_t expect = (uint64_t)HEADER_SIZE + (uint64_t)x->n_events * EVENT_SIZE +
                            (uint64_t)x->n_providers * PROVIDER_SIZE + (uint64_t)x->n_props * PROPERTY_SIZE +
                            (uint64_t)x->n_maps * MAP_SIZE + (uint64_t)x->n_entries * ENTRY_SIZE +
                            (uint64_t)x->n_refs * REF_SIZE + (uint64_t)x->n_guids * GUID_SIZE + r->string_bytes;
    r->at = 40;
    if (expect != blob_size) return damaged(r, "section sizes do not add up to the file size");
    if (!r->string_bytes || blob[blob_size - 1] != 0) return damaged(r, "string section not terminated");
    r->at = 32;
    if (etl_le64(blob + 32) != etl_compiled_source_hash(blob + HEADER_SIZE, blob_size - HEADER_SIZE))
        return damaged(r, "checksum mismatch");
    /* each count times its record size fits in blob_size: every section lies inside the blob */
    x->ev = blob + HEADER_SIZE;
    x->pv = x->ev + (size_t)x->n_events * EVENT_SIZE;
    x->pp = x->pv + (size_t)x->n_providers * PROVIDER_SIZE;
    x->mp = x->pp + (size_t)x->n_props * PROPERTY_SIZE;
    x->ep = x->mp + (size_t)x->n_maps * MAP_SIZE;
    x->kp = x->ep + (size_t)x->n_entries * ENTRY_SIZE;
    x->gp = x->kp + (size_t)x->n_refs * REF_SIZE;
    x->sp = x->gp + (size_t)x->n_guids * GUID_SIZE;
    return 0;
}

int etl_compiled_set_guids(const unsigned char *blob, size_t blob_size, size_t source_size, uint64_t source_hash,
                           etl_guid *out, size_t max, size_t *count, const char *origin, etl_error *err)
{
    reader r = {blob, NULL, 0, origin, err, 0, 0};
    sections x;
    *count = 0;
    int rc = open_blob(&r, blob_size, source_size, source_hash, &x);
    if (rc) return rc;
    if (x.n_guids > max) return 1;   /* more than the caller keeps: it scans the source itself */
    for (uint32_t i = 0; i < x.n_guids; i++) out[i] = etl_guid_read(x.gp + (size_t)i * GUID_SIZE);
    *count = x.n_guids;
    return ETL_OK;
}

int etl_compiled_set_read(etl_schema_set *set, const unsigned char *blob, size_t blob_size, size_t source_size,
                          uint64_t source_hash, const char *origin, etl_error *err)
{
    reader r = {blob, NULL, 0, origin, err, 0, 0};
    sections x;
    int rc = open_blob(&r, blob_size, source_size, source_hash, &x);
    if (rc) return rc;
    const uint32_t n_events = x.n_events, n_providers = x.n_providers, n_props = x.n_props, n_maps = x.n_maps,
                   n_entries = x.n_entries, n_refs = x.n_refs;
    const unsigned char *ev = x.ev, *pv = x.pv, *pp = x.pp, *mp = x.mp, *ep = x.ep, *kp = x.kp, *sp = x.sp;
    /* everything below is bounded by the blob: each count times its record size fits in blob_size */
    etl_schema_set_free(set);
    etl_schema_set_init(set);
    char *strings = etl_arena_alloc(&set->arena, r.string_bytes);
    etl_property_info *props = n_props ? etl_arena_alloc(&set->arena, (size_t)n_props * sizeof *props) : NULL;
    etl_map_info *maps = n_maps ? etl_arena_alloc(&set->arena, (size_t)n_maps * sizeof *maps) : NULL;
    etl_map_entry *entries = n_entries ? etl_arena_alloc(&set->arena, (size_t)n_entries * sizeof *entries) : NULL;
    const char **refs = n_refs ? etl_arena_alloc(&set->arena, (size_t)n_refs * sizeof *refs) : NULL;
    set->events = n_events ? malloc((size_t)n_events * sizeof *set->events) : NULL;
    set->providers = n_providers ? malloc((size_t)n_providers * sizeof *set->providers) : NULL;
    if (!strings || (n_props && !props) || (n_maps && !maps) || (n_entries && !entries) || (n_refs && !refs) ||
        (n_events && !set->events) || (n_providers && !set->providers)) {
        etl_schema_set_free(set);
        etl_schema_set_init(set);
        return etl_schema_fail(err, ETL_ERR_NOMEM, origin, UINT64_MAX, "out of memory");
    }
    memcpy(strings, sp, r.string_bytes);
    r.strings = strings;
    set->event_cap = n_events;
    set->provider_cap = n_providers;
    set->unresolved_strings = etl_le64(blob + 72);
    for (uint32_t i = 0; i < n_entries && !r.bad; i++) {
        const unsigned char *p = ep + (size_t)i * ENTRY_SIZE;
        r.at = (size_t)(p - blob);
        entries[i].value = etl_le32(p);
        entries[i].name = string_at(&r, p + 4);
    }
    for (uint32_t i = 0; i < n_maps && !r.bad; i++) {
        const unsigned char *p = mp + (size_t)i * MAP_SIZE;
        r.at = (size_t)(p - blob);
        uint32_t first = etl_le32(p + 8), count = etl_le32(p + 12);
        if (!in_range(first, count, n_entries)) damaged(&r, "map entries out of range");
        maps[i] = (etl_map_info){string_at(&r, p), etl_le32(p + 4), count, count ? entries + first : NULL};
    }
    for (uint32_t i = 0; i < n_refs && !r.bad; i++) {
        r.at = (size_t)(kp - blob) + (size_t)i * REF_SIZE;
        refs[i] = string_at(&r, kp + (size_t)i * REF_SIZE);
    }
    for (uint32_t i = 0; i < n_props && !r.bad; i++) {
        const unsigned char *p = pp + (size_t)i * PROPERTY_SIZE;
        r.at = (size_t)(p - blob);
        uint32_t map = etl_le32(p + 20);
        if (map > n_maps) damaged(&r, "map reference out of range");
        props[i] = (etl_property_info){string_at(&r, p),   etl_le32(p + 4),       etl_le16(p + 8),
                                       etl_le16(p + 10),    etl_le16(p + 12),      etl_le16(p + 14),
                                       etl_le16(p + 16),    etl_le16(p + 18),      map && !r.bad ? &maps[map - 1] : NULL};
    }
    for (uint32_t i = 0; i < n_events && !r.bad; i++) {
        const unsigned char *p = ev + (size_t)i * EVENT_SIZE;
        etl_event_info *e = &set->events[i];
        r.at = (size_t)(p - blob);
        memset(e, 0, sizeof *e);
        uint32_t source = etl_le32(p);
        if (source >= ETL_SOURCE_COUNT) damaged(&r, "bad schema source");
        e->source = (etl_schema_source)source;
        e->provider_guid = etl_guid_read(p + 4);
        e->event_guid = etl_guid_read(p + 20);
        e->descriptor.id = etl_le16(p + 36);
        e->descriptor.version = p[38];
        e->descriptor.channel = p[39];
        e->descriptor.level = p[40];
        e->descriptor.opcode = p[41];
        e->descriptor.task = etl_le16(p + 42);
        e->descriptor.keyword = etl_le64(p + 44);
        const char **text[9] = {&e->provider_name, &e->event_name,   &e->task_name,
                                &e->opcode_name,   &e->level_name,   &e->channel_name,
                                &e->message,       &e->provider_message, &e->user_data};
        for (int t = 0; t < 9; t++) *text[t] = string_at(&r, p + 52 + 4 * t);
        uint32_t kfirst = etl_le32(p + 88), kcount = etl_le32(p + 92), pfirst = etl_le32(p + 96),
                 pcount = etl_le32(p + 100), top = etl_le32(p + 104);
        if (!in_range(kfirst, kcount, n_refs) || !in_range(pfirst, pcount, n_props) || top > pcount)
            damaged(&r, "event's keywords or properties out of range");
        if (r.bad) break;
        e->keyword_names = kcount ? refs + kfirst : NULL;
        e->keyword_name_count = kcount;
        e->properties = pcount ? props + pfirst : NULL;
        e->property_count = pcount;
        e->top_level_count = top;
        set->event_count = i + 1;
    }
    for (uint32_t i = 0; i < n_providers && !r.bad; i++) {
        const unsigned char *p = pv + (size_t)i * PROVIDER_SIZE;
        r.at = (size_t)(p - blob);
        set->providers[i] = (etl_set_provider){etl_guid_read(p), string_at(&r, p + 16), string_at(&r, p + 20)};
        set->provider_count = i + 1;
    }
    if (r.bad) {
        etl_schema_set_free(set);
        etl_schema_set_init(set);
        return ETL_ERR_FORMAT;
    }
    return ETL_OK;
}
