/* TraceLogging self-describing events: turns the EVENT_SCHEMA_TL (event metadata) and PROV_TRAITS (provider
 * name) extended items of a record into an etl_event_info with TDH in/out types (docs/schemas.md §4,
 * docs/etl-format.md §5.1).
 *
 * Property layout follows TRACE_EVENT_INFO: the top-level fields come first, struct members are appended
 * breadth-first (struct_start/struct_count). A scalar BINARY field (in-type 14) becomes two properties as TDH
 * presents it: a synthetic UINT16 "<name>.Length" followed by the BINARY with PARAM_LENGTH pointing at it
 * (the payload holds the u16 length then the bytes, so the walker needs nothing special). Arrays of BINARY,
 * which TDH refuses, and custom-serialized fields (arity 0x60) become BINARY elements with INLINE_LENGTH.
 *
 * The cache is keyed by (provider GUID, metadata bytes, traits bytes): TraceLogging events share event id 0,
 * so the metadata is the only identity. Level/opcode/keyword vary per record with the same metadata; the
 * description carries the descriptor of the first record seen, callers take those from the record. Memory is
 * bounded by flushing the whole cache, so a returned description is valid until the next lookup.
 *
 * Arrays of INT8/UINT8/UINT16 with out-type STRING (TraceLogging "char arrays") stay arrays of characters
 * here, as the metadata says; showing them as one string is a rendering choice. */
#include <stdlib.h>
#include <string.h>

#include "schema/sources.h"
#include "util/le.h"

/* Bounds: a full flush past these keeps memory bounded on traces with endless distinct shapes. */
#define TL_CACHE_MAX_ENTRIES 65536u
#define TL_CACHE_MAX_BYTES (64u * 1024u * 1024u)
#define TL_MAX_STRUCT_DEPTH 32
#define TL_MAX_PROPERTIES 65535u

/* TraceLogging in-type byte: low 5 bits type, 0x60 arity, 0x80 an out-type byte follows. */
#define TL_IN_TYPE_MASK 0x1F
#define TL_ARITY_MASK 0x60
#define TL_ARITY_CCOUNT 0x20
#define TL_ARITY_VCOUNT 0x40
#define TL_ARITY_CUSTOM 0x60
#define TL_CHAIN 0x80
#define TL_OUT_TYPE_MASK 0x7F
#define TL_IN_STRUCT 24
#define TL_IN_MAX 25

typedef struct tl_entry {
    struct tl_entry *next;
    uint64_t hash;
    etl_guid provider;
    uint16_t metadata_length;
    uint16_t traits_length;
    const uint8_t *key;          /* metadata bytes then traits bytes, inside this allocation */
    size_t bytes;
    etl_event_info info;
} tl_entry;

/* One parsed metadata field, before layout. */
typedef struct tl_field {
    const uint8_t *name;
    size_t name_length;
    uint8_t in_type;       /* TraceLogging in-type (low 5 bits) */
    uint8_t arity;         /* TL_ARITY_* */
    uint8_t out_type;      /* TraceLogging out-type, or member count for STRUCT */
    uint8_t has_tags;
    uint16_t fixed_count;
    uint32_t span;         /* flat fields this item covers (struct: itself + its members, recursively) */
} tl_field;

struct etl_tracelogging_cache {
    tl_entry **buckets;
    size_t bucket_count;   /* power of two */
    size_t entry_count;
    size_t total_bytes;
    uint64_t flushes;
    tl_field *fields;      /* scratch, reused across parses */
    size_t field_capacity;
    uint32_t *queue;       /* scratch for the breadth-first layout */
    size_t queue_capacity;
};

etl_tracelogging_cache *etl_tracelogging_cache_new(void)
{
    etl_tracelogging_cache *cache = calloc(1, sizeof *cache);
    if (!cache) return NULL;
    cache->bucket_count = 256;
    cache->buckets = calloc(cache->bucket_count, sizeof *cache->buckets);
    if (!cache->buckets) {
        free(cache);
        return NULL;
    }
    return cache;
}

static void cache_flush(etl_tracelogging_cache *cache)
{
    for (size_t i = 0; i < cache->bucket_count; i++) {
        tl_entry *e = cache->buckets[i];
        while (e) {
            tl_entry *next = e->next;
            free(e);
            e = next;
        }
        cache->buckets[i] = NULL;
    }
    cache->entry_count = 0;
    cache->total_bytes = 0;
}

uint64_t etl_tracelogging_cache_flushes(const etl_tracelogging_cache *cache) { return cache ? cache->flushes : 0; }

void etl_tracelogging_cache_free(etl_tracelogging_cache *cache)
{
    if (!cache) return;
    cache_flush(cache);
    free(cache->buckets);
    free(cache->fields);
    free(cache->queue);
    free(cache);
}

/* Word-at-a-time multiplicative hash: every record of a TraceLogging event hashes its metadata, so this is on
 * the hot path (byte-wise FNV cost ~1 ns per byte). */
static uint64_t hash_bytes(uint64_t h, const uint8_t *p, size_t n)
{
    const uint64_t k = 0x9E3779B97F4A7C15ull;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    uint64_t tail = 0;
    if (n) memcpy(&tail, p, n);
    h = (h ^ tail ^ (uint64_t)n << 56) * k;
    return h ^ h >> 32;
}

static uint64_t key_hash(const etl_guid *provider, const uint8_t *meta, uint16_t meta_len, const uint8_t *traits,
                         uint16_t traits_len)
{
    uint8_t g[16 + 4];
    memcpy(g, &provider->data1, 4);
    memcpy(g + 4, &provider->data2, 2);
    memcpy(g + 6, &provider->data3, 2);
    memcpy(g + 8, provider->data4, 8);
    g[16] = (uint8_t)meta_len;
    g[17] = (uint8_t)(meta_len >> 8);
    g[18] = (uint8_t)traits_len;
    g[19] = (uint8_t)(traits_len >> 8);
    uint64_t h = hash_bytes(0xcbf29ce484222325ull, g, sizeof g);
    h = hash_bytes(h, meta, meta_len);
    return hash_bytes(h, traits, traits_len);
}

/* ---- metadata parsing ------------------------------------------------------------------------------- */

/* Tag bytes: 7 bits each, bit 7 = another byte follows. Returns bytes consumed, 0 when truncated. */
static size_t skip_tags(const uint8_t *p, size_t avail, uint32_t *tags)
{
    uint32_t value = 0;
    size_t i = 0;
    for (;;) {
        if (i >= avail) return 0;
        uint8_t b = p[i];
        if (i < 4) value |= (uint32_t)(b & 0x7F) << (21 - 7 * i);
        i++;
        if (!(b & 0x80)) break;
    }
    if (tags) *tags = value;
    return i;
}

/* NUL-terminated UTF-8 string inside [p, p+avail): returns its length, or SIZE_MAX if unterminated. */
static size_t cstr_length(const uint8_t *p, size_t avail)
{
    const uint8_t *nul = memchr(p, 0, avail);
    return nul ? (size_t)(nul - p) : SIZE_MAX;
}

static int grow_fields(etl_tracelogging_cache *cache, size_t need)
{
    if (need <= cache->field_capacity) return 0;
    size_t cap = cache->field_capacity ? cache->field_capacity : 64;
    while (cap < need) cap *= 2;
    tl_field *f = realloc(cache->fields, cap * sizeof *f);
    if (!f) return -1;
    cache->fields = f;
    cache->field_capacity = cap;
    return 0;
}

/* Parses the field list after the event name. Returns the field count or -1 with *error set. */
static long parse_fields(etl_tracelogging_cache *cache, const uint8_t *p, size_t avail, const char **error)
{
    /* Every field needs at least 2 bytes (empty name + in-type), which bounds the scratch array. */
    if (grow_fields(cache, avail / 2 + 1) != 0) {
        *error = "out of memory";
        return -1;
    }
    size_t n = 0, off = 0;
    while (off < avail) {
        tl_field *f = &cache->fields[n];
        memset(f, 0, sizeof *f);
        size_t len = cstr_length(p + off, avail - off);
        if (len == SIZE_MAX) {
            *error = "TraceLogging metadata: unterminated field name";
            return -1;
        }
        f->name = p + off;
        f->name_length = len;
        off += len + 1;
        if (off >= avail) {
            *error = "TraceLogging metadata: field without in-type";
            return -1;
        }
        uint8_t in = p[off++];
        f->in_type = in & TL_IN_TYPE_MASK;
        f->arity = in & TL_ARITY_MASK;
        if (f->in_type > TL_IN_MAX) {
            *error = "TraceLogging metadata: unknown in-type";
            return -1;
        }
        if (in & TL_CHAIN) {
            if (off >= avail) {
                *error = "TraceLogging metadata: truncated out-type";
                return -1;
            }
            uint8_t out = p[off++];
            f->out_type = out & TL_OUT_TYPE_MASK;
            if (out & TL_CHAIN) {
                uint32_t tags = 0;
                size_t used = skip_tags(p + off, avail - off, &tags);
                if (used == 0) {
                    *error = "TraceLogging metadata: truncated field tags";
                    return -1;
                }
                off += used;
                f->has_tags = tags != 0;
            }
        }
        if (f->in_type == TL_IN_STRUCT && f->out_type == 0) {
            *error = "TraceLogging metadata: struct without member count";
            return -1;
        }
        if (f->arity == TL_ARITY_CCOUNT) {
            if (avail - off < 2) {
                *error = "TraceLogging metadata: truncated fixed count";
                return -1;
            }
            f->fixed_count = etl_le16(p + off);
            off += 2;
        } else if (f->arity == TL_ARITY_CUSTOM) {
            if (f->in_type == TL_IN_STRUCT) {
                *error = "TraceLogging metadata: custom-serialized struct";
                return -1;
            }
            if (avail - off < 2 || avail - off - 2 < etl_le16(p + off)) {
                *error = "TraceLogging metadata: truncated custom schema";
                return -1;
            }
            off += 2 + (size_t)etl_le16(p + off);
        }
        n++;
    }
    return (long)n;
}

/* Computes spans: a struct covers itself plus its N member items. Returns the flat index after the item
 * starting at `i`, or 0 on error (0 is never a valid "after" index). */
static uint32_t compute_span(tl_field *fields, uint32_t n, uint32_t i, int depth, const char **error)
{
    if (depth > TL_MAX_STRUCT_DEPTH) {
        *error = "TraceLogging metadata: structs nested too deeply";
        return 0;
    }
    uint32_t next = i + 1;
    if (fields[i].in_type == TL_IN_STRUCT) {
        for (unsigned m = 0; m < fields[i].out_type; m++) {
            if (next >= n) {
                *error = "TraceLogging metadata: struct has fewer members than declared";
                return 0;
            }
            next = compute_span(fields, n, next, depth + 1, error);
            if (next == 0) return 0;
        }
    }
    fields[i].span = next - i;
    return next;
}

/* TraceLogging out-type numbering → TDH out-type (docs/schemas.md §4.4). */
static uint16_t map_out_type(uint8_t tl_out, uint8_t tl_in)
{
    unsigned size = 0;
    switch (tl_in) {
    case ETL_IN_INT8: case ETL_IN_UINT8: size = 1; break;
    case ETL_IN_INT16: case ETL_IN_UINT16: size = 2; break;
    case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_HEXINT32: case ETL_IN_BOOLEAN: case ETL_IN_FLOAT:
        size = 4; break;
    case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_HEXINT64: case ETL_IN_DOUBLE: size = 8; break;
    default: break;
    }
    switch (tl_out) {
    case 0: return ETL_OUT_NULL;
    case 1: return ETL_OUT_NOPRINT;
    case 2: return ETL_OUT_STRING;
    case 3: return ETL_OUT_BOOLEAN;
    case 4:
        if (tl_in == ETL_IN_BINARY || tl_in == ETL_IN_MANIFEST_COUNTEDBINARY) return ETL_OUT_HEXBINARY;
        return size == 1 ? ETL_OUT_HEXINT8 : size == 2 ? ETL_OUT_HEXINT16 : size == 4 ? ETL_OUT_HEXINT32
             : size == 8 ? ETL_OUT_HEXINT64 : ETL_OUT_NULL;
    case 5: return ETL_OUT_PID;
    case 6: return ETL_OUT_TID;
    case 7: return ETL_OUT_PORT;
    case 8: return ETL_OUT_IPV4;
    case 9: return ETL_OUT_IPV6;
    case 10: return ETL_OUT_SOCKETADDRESS;
    case 11: return ETL_OUT_XML;
    case 12: return ETL_OUT_JSON;
    case 13: return ETL_OUT_WIN32ERROR;
    case 14: return ETL_OUT_NTSTATUS;
    case 15: return ETL_OUT_HRESULT;
    case 16: return ETL_OUT_DATETIME;
    case 17:
        return size == 1 ? ETL_OUT_BYTE : size == 2 ? ETL_OUT_SHORT : size == 4 ? ETL_OUT_INT
             : size == 8 ? ETL_OUT_LONG : ETL_OUT_NULL;
    case 18:
        return size == 1 ? ETL_OUT_UNSIGNEDBYTE : size == 2 ? ETL_OUT_UNSIGNEDSHORT
             : size == 4 ? ETL_OUT_UNSIGNEDINT : size == 8 ? ETL_OUT_UNSIGNEDLONG : ETL_OUT_NULL;
    default:
        /* From 32 up the numbers are TDH's; unknown values fall back to the in-type's default. */
        return tl_out >= 32 && tl_out <= ETL_OUT_DATETIME_UTC ? tl_out : ETL_OUT_NULL;
    }
}

/* ---- UTF-8 names ------------------------------------------------------------------------------------ */

/* Copies `len` bytes of UTF-8 to `dst`, replacing every invalid sequence by U+FFFD, and NUL-terminates.
 * `dst` must hold 3 * len + 1 bytes. Returns bytes written (without the NUL). */
static size_t copy_utf8(char *dst, const uint8_t *src, size_t len)
{
    static const uint32_t min_cp[4] = {0, 0x80, 0x800, 0x10000};
    size_t o = 0, i = 0;
    while (i < len) {
        uint8_t c = src[i];
        size_t extra = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 4;
        int ok = extra < 4 && extra < len - i;
        if (ok && extra) {
            uint32_t cp = c & (0x3Fu >> extra);
            for (size_t k = 1; ok && k <= extra; k++) {
                ok = (src[i + k] & 0xC0) == 0x80;
                cp = cp << 6 | (src[i + k] & 0x3F);
            }
            ok = ok && cp >= min_cp[extra] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
        }
        if (!ok) {
            memcpy(dst + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
            continue;
        }
        memcpy(dst + o, src + i, extra + 1);
        o += extra + 1;
        i += extra + 1;
    }
    dst[o] = '\0';
    return o;
}

/* ---- building the description ------------------------------------------------------------------------ */

#define LENGTH_SUFFIX ".Length"

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* Output properties for one item list (`count` items starting at flat index `first`). */
static size_t group_size(const tl_field *fields, uint32_t first, uint32_t count)
{
    size_t out = 0;
    for (uint32_t k = 0, i = first; k < count; k++, i += fields[i].span)
        out += (fields[i].in_type == ETL_IN_BINARY && fields[i].arity == 0) ? 2 : 1;
    return out;
}

typedef struct layout {
    etl_property_info *props;
    char *strings;          /* string arena cursor */
    size_t next_index;      /* next free property slot */
} layout;

static const char *store_name(layout *lo, const uint8_t *name, size_t len, const char *suffix)
{
    char *start = lo->strings;
    size_t n = copy_utf8(start, name, len);
    if (suffix) {
        size_t s = strlen(suffix);
        memcpy(start + n, suffix, s + 1);
        n += s;
    }
    lo->strings += n + 1;
    return start;
}

/* Emits the items of one group at lo->next_index; struct items get their member group reserved later
 * (breadth-first), recorded in `queue` as (property index, flat index of the struct). */
static void emit_group(layout *lo, const tl_field *fields, uint32_t first, uint32_t count, uint32_t *queue,
                       size_t *queue_tail)
{
    for (uint32_t k = 0, i = first; k < count; k++, i += fields[i].span) {
        const tl_field *f = &fields[i];
        etl_property_info *p;
        if (f->in_type == ETL_IN_BINARY && f->arity == 0) {
            p = &lo->props[lo->next_index++];
            p->name = store_name(lo, f->name, f->name_length, LENGTH_SUFFIX);
            p->in_type = ETL_IN_UINT16;
            p->out_type = ETL_OUT_NULL;
            etl_property_info *bin = &lo->props[lo->next_index++];
            bin->name = store_name(lo, f->name, f->name_length, NULL);
            bin->flags = ETL_PROP_PARAM_LENGTH | (f->has_tags ? ETL_PROP_HAS_TAGS : 0);
            bin->in_type = ETL_IN_BINARY;
            bin->out_type = map_out_type(f->out_type, f->in_type);
            bin->length = (uint16_t)(lo->next_index - 2);
            continue;
        }
        p = &lo->props[lo->next_index];
        p->name = store_name(lo, f->name, f->name_length, NULL);
        p->flags = f->has_tags ? ETL_PROP_HAS_TAGS : 0;
        if (f->arity == TL_ARITY_CCOUNT) {
            p->flags |= ETL_PROP_PARAM_FIXED_COUNT;
            p->count = f->fixed_count;
        } else if (f->arity == TL_ARITY_VCOUNT) {
            p->flags |= ETL_PROP_INLINE_COUNT;
        }
        if (f->in_type == TL_IN_STRUCT) {
            p->flags |= ETL_PROP_STRUCT;
            queue[(*queue_tail)++] = (uint32_t)lo->next_index;
            queue[(*queue_tail)++] = i;
        } else if (f->arity == TL_ARITY_CUSTOM) {
            p->in_type = ETL_IN_BINARY;      /* opaque serializer bytes behind a u16 size */
            p->out_type = ETL_OUT_HEXBINARY;
            p->flags |= ETL_PROP_INLINE_LENGTH | ETL_PROP_HAS_CUSTOM_SCHEMA;
        } else {
            /* In-types 0..25 have TDH's numbers (22/23/25 = the MANIFEST_COUNTED* types, u16 byte count). */
            p->in_type = f->in_type;
            p->out_type = map_out_type(f->out_type, f->in_type);
            if (f->in_type == ETL_IN_BINARY) p->flags |= ETL_PROP_INLINE_LENGTH; /* array of binary */
        }
        lo->next_index++;
    }
}

static tl_entry *build_entry(etl_tracelogging_cache *cache, const etl_event_record *record, const uint8_t *meta,
                             uint16_t meta_len, const uint8_t *traits, uint16_t traits_len, const char **error)
{
    /* Layout: u16 TotalSize, event tags, event name, fields. */
    size_t off = 2;
    size_t used = skip_tags(meta + off, meta_len - off, NULL);
    if (used == 0) {
        *error = "TraceLogging metadata: truncated event tags";
        return NULL;
    }
    off += used;
    size_t name_len = cstr_length(meta + off, meta_len - off);
    if (name_len == SIZE_MAX) {
        *error = "TraceLogging metadata: unterminated event name";
        return NULL;
    }
    const uint8_t *event_name = meta + off;
    off += name_len + 1;

    long parsed = parse_fields(cache, meta + off, meta_len - off, error);
    if (parsed < 0) return NULL;
    uint32_t n = (uint32_t)parsed;
    tl_field *fields = cache->fields;
    uint32_t top_items = 0;
    for (uint32_t i = 0; i < n; top_items++) {
        i = compute_span(fields, n, i, 0, error);
        if (i == 0) return NULL;
    }

    /* Provider name from the traits: u16 TotalSize, UTF-8 name, then traits (ignored here). A malformed
     * traits blob only loses the name; the event still decodes. */
    const uint8_t *provider_name = NULL;
    size_t provider_len = 0;
    if (traits && traits_len >= 3) {
        size_t total = etl_le16(traits);
        if (total > traits_len) total = traits_len;
        if (total > 2) {
            size_t len = cstr_length(traits + 2, total - 2);
            if (len != SIZE_MAX) {
                provider_name = traits + 2;
                provider_len = len;
            }
        }
    }

    /* Sizes: properties, strings (3x for U+FFFD replacement), key bytes. */
    size_t prop_total = 0, string_bytes = 3 * name_len + 1 + 3 * provider_len + 1;
    for (uint32_t i = 0; i < n; i++) {
        const tl_field *f = &fields[i];
        int synthetic = f->in_type == ETL_IN_BINARY && f->arity == 0;
        prop_total += synthetic ? 2 : 1;
        string_bytes += (3 * f->name_length + 1) * (synthetic ? 2 : 1) + (synthetic ? sizeof LENGTH_SUFFIX : 0);
    }
    if (prop_total > TL_MAX_PROPERTIES) {
        *error = "TraceLogging metadata: too many fields";
        return NULL;
    }
    size_t props_off = align_up(sizeof(tl_entry), _Alignof(etl_property_info));
    size_t strings_off = props_off + prop_total * sizeof(etl_property_info);
    size_t key_off = strings_off + string_bytes;
    size_t bytes = key_off + meta_len + traits_len;
    tl_entry *e = calloc(1, bytes);
    if (!e) {
        *error = "out of memory";
        return NULL;
    }
    uint8_t *base = (uint8_t *)e;
    layout lo = {(etl_property_info *)(void *)(base + props_off), (char *)base + strings_off, 0};

    e->bytes = bytes;
    e->provider = record->header.provider_id;
    e->metadata_length = meta_len;
    e->traits_length = traits_len;
    memcpy(base + key_off, meta, meta_len);
    if (traits_len) memcpy(base + key_off + meta_len, traits, traits_len);
    e->key = base + key_off;

    etl_event_info *info = &e->info;
    info->source = ETL_SOURCE_TRACELOGGING;
    info->serial = etl_event_info_next_serial();
    info->provider_guid = record->header.provider_id;
    info->descriptor = record->header.descriptor;
    info->event_name = store_name(&lo, event_name, name_len, NULL);
    info->provider_name = provider_name ? store_name(&lo, provider_name, provider_len, NULL) : NULL;

    /* Breadth-first: the top-level group, then each struct's members in the order the structs appear.
     * The queue holds at most one (index, flat) pair per field. */
    if (cache->queue_capacity < 2 * (size_t)n + 2) {
        uint32_t *q = realloc(cache->queue, (2 * (size_t)n + 2) * sizeof *q);
        if (!q) {
            free(e);
            *error = "out of memory";
            return NULL;
        }
        cache->queue = q;
        cache->queue_capacity = 2 * (size_t)n + 2;
    }
    size_t head = 0, tail = 0;
    emit_group(&lo, fields, 0, top_items, cache->queue, &tail);
    info->top_level_count = (uint32_t)group_size(fields, 0, top_items);
    while (head < tail) {
        uint32_t prop_index = cache->queue[head++];
        uint32_t flat = cache->queue[head++];
        etl_property_info *sp = &lo.props[prop_index];
        sp->struct_start = (uint16_t)lo.next_index;
        sp->struct_count = (uint16_t)group_size(fields, flat + 1, fields[flat].out_type);
        emit_group(&lo, fields, flat + 1, fields[flat].out_type, cache->queue, &tail);
    }
    info->property_count = (uint32_t)lo.next_index;
    info->properties = lo.props;
    return e;
}

/* ---- lookup ------------------------------------------------------------------------------------------- */

static int cache_grow(etl_tracelogging_cache *cache)
{
    size_t count = cache->bucket_count * 2;
    tl_entry **b = calloc(count, sizeof *b);
    if (!b) return -1;
    for (size_t i = 0; i < cache->bucket_count; i++) {
        tl_entry *e = cache->buckets[i];
        while (e) {
            tl_entry *next = e->next;
            size_t slot = (size_t)e->hash & (count - 1);
            e->next = b[slot];
            b[slot] = e;
            e = next;
        }
    }
    free(cache->buckets);
    cache->buckets = b;
    cache->bucket_count = count;
    return 0;
}

const etl_event_info *etl_tracelogging_lookup(etl_tracelogging_cache *cache, const etl_event_record *record,
                                              const char **error)
{
    if (error) *error = NULL;
    if (!cache || !record) return NULL;
    const etl_extended_item *meta_item = NULL, *traits_item = NULL;
    for (uint16_t i = 0; i < record->extended_data_count; i++) {
        const etl_extended_item *it = &record->extended_data[i];
        if (it->ext_type == ETL_EXT_EVENT_SCHEMA_TL && !meta_item) meta_item = it;
        else if (it->ext_type == ETL_EXT_PROV_TRAITS && !traits_item) traits_item = it;
    }
    if (!meta_item) return NULL;

    const char *dummy;
    if (!error) error = &dummy;
    if (meta_item->data_size < 4 || !meta_item->data) {
        *error = "TraceLogging metadata: item too short";
        return NULL;
    }
    uint16_t meta_len = etl_le16(meta_item->data);
    if (meta_len > meta_item->data_size || meta_len < 4) {
        *error = "TraceLogging metadata: size field out of bounds";
        return NULL;
    }
    const uint8_t *traits = traits_item && traits_item->data ? traits_item->data : NULL;
    uint16_t traits_len = traits ? traits_item->data_size : 0;

    uint64_t h = key_hash(&record->header.provider_id, meta_item->data, meta_len, traits, traits_len);
    size_t slot = (size_t)h & (cache->bucket_count - 1);
    for (tl_entry *e = cache->buckets[slot]; e; e = e->next) {
        if (e->hash == h && e->metadata_length == meta_len && e->traits_length == traits_len &&
            etl_guid_equal(&e->provider, &record->header.provider_id) &&
            memcmp(e->key, meta_item->data, meta_len) == 0 &&
            (traits_len == 0 || memcmp(e->key + meta_len, traits, traits_len) == 0))
            return &e->info;
    }

    tl_entry *e = build_entry(cache, record, meta_item->data, meta_len, traits, traits_len, error);
    if (!e) return NULL;
    if (cache->entry_count >= TL_CACHE_MAX_ENTRIES || cache->total_bytes + e->bytes > TL_CACHE_MAX_BYTES) {
        /* Descriptions handed out earlier die here; callers only hold one until their next lookup. */
        cache_flush(cache);
        cache->flushes++;
    }
    if (cache->entry_count >= cache->bucket_count && cache->bucket_count < TL_CACHE_MAX_ENTRIES)
        (void)cache_grow(cache); /* on failure the chains just get longer */
    e->hash = h;
    slot = (size_t)h & (cache->bucket_count - 1);
    e->next = cache->buckets[slot];
    cache->buckets[slot] = e;
    cache->entry_count++;
    cache->total_bytes += e->bytes;
    return &e->info;
}
