/* Schemas embedded by WPR/xperf merges: KernelTraceControl MetaData events (task GUID
 * {bbccf6c1-6cd1-48c4-80ff-839482e37671}, classic FULL_HEADER records). Opcode 32 (EventInfo) carries one
 * TRACE_EVENT_INFO blob as TDH resolved it on the capturing machine, opcode 33 (EventMapInfo) a provider
 * GUID and one EVENT_MAP_INFO blob (docs/etl-format.md §4.3, §4.4). Each EventInfo becomes an etl_event_info
 * registered as ETL_SOURCE_EMBEDDED_TDH.
 *
 * Maps arrive next to the EventInfo that names them, before or after it. An event whose maps are not all
 * known yet is held back until they arrive or until the next ordinary record (the event it describes
 * follows its metadata); a map that arrives even later re-registers the events naming it (the registry lets
 * a source replace its own entries). */
#include <stdlib.h>
#include <string.h>

#include "schema/embedded_tdh.h"
#include "schema/manifest_model.h"
#include "util/le.h"
#include "util/utf.h"


/* TRACE_EVENT_INFO */
enum {
    TEI_PROVIDER_GUID = 0x00, TEI_EVENT_GUID = 0x10, TEI_DESCRIPTOR = 0x20, TEI_DECODING_SOURCE = 0x30,
    TEI_PROVIDER_NAME = 0x34, TEI_LEVEL_NAME = 0x38, TEI_CHANNEL_NAME = 0x3C, TEI_KEYWORDS_NAME = 0x40,
    TEI_TASK_NAME = 0x44, TEI_OPCODE_NAME = 0x48, TEI_EVENT_MESSAGE = 0x4C, TEI_PROVIDER_MESSAGE = 0x50,
    TEI_EVENT_NAME = 0x5C, TEI_PROPERTY_COUNT = 0x64, TEI_TOP_LEVEL_COUNT = 0x68, TEI_PROPERTIES = 0x70
};
/* EVENT_PROPERTY_INFO (24 bytes) */
enum {
    EPI_SIZE = 24, EPI_FLAGS = 0x00, EPI_NAME = 0x04, EPI_IN_TYPE = 0x08, EPI_OUT_TYPE = 0x0A,
    EPI_STRUCT_START = 0x08, EPI_STRUCT_COUNT = 0x0A, EPI_MAP_NAME = 0x0C, EPI_COUNT = 0x10, EPI_LENGTH = 0x12
};
/* EVENT_MAP_INFO, EVENT_MAP_ENTRY */
enum { EMI_NAME = 0, EMI_FLAG = 4, EMI_ENTRY_COUNT = 8, EMI_VALUE_TYPE = 12, EMI_ENTRIES = 16, EME_SIZE = 8 };
enum { DECODING_XML = 0, DECODING_WBEM = 1 };
enum { MAP_VALUE_ULONG = 0 };
#define TDH_PROPERTY_FLAGS 0xFFu /* PROPERTY_FLAGS: Struct .. HasCustomSchema */

/* Memory bound for everything kept here (blobs are at most 64 KiB each; merged traces carry hundreds). */
#define EMBEDDED_MAX_BYTES (64u * 1024u * 1024u)
#define MAP_BUCKETS 1024u
/* Events kept for maps that may come later; past this the oldest is registered as it is and forgotten, so a
 * hostile stream of map-less events cannot make every map arrival scan an unbounded list. */
#define MAX_WAITING 1024u

typedef struct stored_map {
    struct stored_map *next;
    etl_guid provider;
    etl_map_info map;      /* name, entries and strings live in this allocation */
} stored_map;

typedef struct stored_event {
    struct stored_event *next;
    size_t bytes;
    etl_event_info info;
    etl_property_info *props;  /* writable view of info.properties */
    const char **map_names;    /* per property: the map it names, NULL if none */
    unsigned keys;             /* KEY_BIT(ETL_KEY_MANIFEST) | KEY_BIT(ETL_KEY_CLASSIC) */
    uint32_t unresolved;       /* properties naming a map not seen yet */
    int registered;
} stored_event;

struct etl_embedded_state {
    etl_schema_registry *registry;
    stored_map *maps[MAP_BUCKETS];
    stored_event *waiting;     /* events naming maps not seen yet, newest first */
    uint32_t waiting_count;
    uint32_t pending;          /* of those, not registered yet */
    size_t bytes;
    etl_embedded_stats stats;
};

etl_embedded_state *etl_embedded_new(etl_schema_registry *registry)
{
    etl_embedded_state *s = calloc(1, sizeof *s);
    if (s) s->registry = registry;
    return s;
}

void etl_embedded_free(etl_embedded_state *state)
{
    if (!state) return;
    for (unsigned i = 0; i < MAP_BUCKETS; i++) {
        for (stored_map *m = state->maps[i], *next; m; m = next) {
            next = m->next;
            free(m);
        }
    }
    for (stored_event *e = state->waiting, *next; e; e = next) {
        next = e->next;
        free(e);
    }
    free(state);
}

const etl_embedded_stats *etl_embedded_get_stats(const etl_embedded_state *state) { return &state->stats; }

/* ---- blob strings ------------------------------------------------------------------------------------ */

/* Length in bytes of the NUL-terminated UTF-16 string at `off` (0 = absent), or SIZE_MAX when the offset
 * or the terminator is outside the blob. */
static size_t wstr_bytes(const uint8_t *blob, size_t len, uint32_t off)
{
    if (off == 0) return 0;
    if (off >= len) return SIZE_MAX;
    for (size_t i = off; i + 1 < len; i += 2)
        if (blob[i] == 0 && blob[i + 1] == 0) return i - off;
    return SIZE_MAX;
}

/* UTF-16LE → UTF-8 into `dst` (3 bytes per code unit + 1). trim 1: trailing spaces and line breaks go
 * (message-table strings carry them; names never need them); trim 2: only line breaks go (value-map names,
 * whose trailing space Windows prints). Returns the byte after the terminator. */
static char *utf16_to_utf8(char *dst, const uint8_t *src, size_t bytes, int trim)
{
    etl_utf16le_to_utf8(src, bytes / 2, dst, bytes / 2 * 3 + 1);
    char *o = dst + strlen(dst);
    while (trim && o > dst && (o[-1] == '\r' || o[-1] == '\n' || (trim == 1 && (o[-1] == ' ' || o[-1] == '\t'))))
        o--;
    *o = '\0';
    return o + 1;
}

/* A string arena sized up front: `need` accumulates worst-case bytes, then strings are appended. */
typedef struct arena {
    char *cur;
    char *end;
} arena;

static size_t utf8_capacity(size_t utf16_bytes) { return utf16_bytes / 2 * 3 + 1; }

/* Copies the string at `off` into the arena; NULL when absent. The caller has validated the offset. */
static const char *arena_wstr(arena *a, const uint8_t *blob, size_t len, uint32_t off, int trim)
{
    size_t n = wstr_bytes(blob, len, off);
    if (off == 0 || n == SIZE_MAX) return NULL;
    char *start = a->cur;
    a->cur = utf16_to_utf8(start, blob + off, n, trim);
    return start;
}

static uint32_t name_hash(const etl_guid *g, const char *name)
{
    uint32_t h = 2166136261u ^ g->data1;
    for (const char *p = name; *p; p++) h = (h ^ (uint8_t)*p) * 16777619u;
    return h & (MAP_BUCKETS - 1);
}

static const etl_map_info *find_map(const etl_embedded_state *s, const etl_guid *provider, const char *name)
{
    for (const stored_map *m = s->maps[name_hash(provider, name)]; m; m = m->next)
        if (etl_guid_equal(&m->provider, provider) && strcmp(m->map.name, name) == 0) return &m->map;
    return NULL;
}

/* ---- EventMapInfo -------------------------------------------------------------------------------------- */

#define KEY_BIT(kind) (1u << (kind))

static int register_event(etl_embedded_state *s, stored_event *e)
{
    int rc = ETL_OK;
    if (e->keys & KEY_BIT(ETL_KEY_MANIFEST)) rc = etl_schema_registry_add(s->registry, &e->info, ETL_KEY_MANIFEST);
    if (rc == ETL_OK && (e->keys & KEY_BIT(ETL_KEY_CLASSIC)))
        rc = etl_schema_registry_add(s->registry, &e->info, ETL_KEY_CLASSIC);
    if (rc != ETL_OK) {
        s->stats.register_failures++;
        return rc;
    }
    if (!e->registered) {
        e->registered = 1;
        s->pending--;
        s->stats.events_registered++;
    }
    return ETL_OK;
}

/* Links every property naming `name` (or every map, when name is NULL) of provider `provider`'s events. */
static uint32_t link_maps(etl_embedded_state *s, stored_event *e)
{
    uint32_t unresolved = 0;
    for (uint32_t i = 0; i < e->info.property_count; i++) {
        if (!e->map_names[i] || e->props[i].map) continue;
        e->props[i].map = find_map(s, &e->info.provider_guid, e->map_names[i]);
        if (!e->props[i].map) unresolved++;
    }
    e->unresolved = unresolved;
    return unresolved;
}

static void forget_event(etl_embedded_state *s, stored_event *e)
{
    if (!e->registered) s->pending--;
    s->waiting_count--;
    s->bytes -= e->bytes;
    free(e);
}

static int observe_map(etl_embedded_state *s, const uint8_t *payload, size_t length)
{
    if (length < 16 + EMI_ENTRIES) return -1;
    etl_guid provider = etl_guid_read(payload);
    const uint8_t *b = payload + 16;
    size_t len = length - 16;
    uint32_t flags = etl_le32(b + EMI_FLAG), count = etl_le32(b + EMI_ENTRY_COUNT);
    uint32_t value_type = etl_le32(b + EMI_VALUE_TYPE);
    if (count > (len - EMI_ENTRIES) / EME_SIZE) return -1;
    size_t name_bytes = wstr_bytes(b, len, etl_le32(b + EMI_NAME));
    if (name_bytes == SIZE_MAX || name_bytes == 0) return -1;
    /* Pattern maps and string-keyed maps have no (u32 value → name) form: keep the name, no entries. */
    int numeric = !(flags & ETL_MAP_PATTERNMAP) && value_type == MAP_VALUE_ULONG;
    size_t need = sizeof(stored_map) + utf8_capacity(name_bytes);
    if (numeric) {
        need += (size_t)count * sizeof(etl_map_entry);
        for (uint32_t i = 0; i < count; i++) {
            size_t n = wstr_bytes(b, len, etl_le32(b + EMI_ENTRIES + EME_SIZE * i));
            if (n == SIZE_MAX) return -1;
            need += utf8_capacity(n);
        }
    }
    if (s->bytes + need > EMBEDDED_MAX_BYTES) {
        s->stats.dropped_for_memory++;
        return 0;
    }
    stored_map *m = calloc(1, need);
    if (!m) return -1;
    s->bytes += need;
    etl_map_entry *entries = (etl_map_entry *)(void *)(m + 1);
    arena a = {(char *)(entries + (numeric ? count : 0)), (char *)m + need};
    m->provider = provider;
    m->map.flags = flags;
    m->map.name = arena_wstr(&a, b, len, etl_le32(b + EMI_NAME), 1);
    if (numeric) {
        for (uint32_t i = 0; i < count; i++) {
            const uint8_t *entry = b + EMI_ENTRIES + EME_SIZE * i;
            entries[i].value = etl_le32(entry + 4);
            /* kept exactly: Windows renders "Tx " with its space ("Direction Tx , Type Ethernet ,") */
            const char *name = arena_wstr(&a, b, len, etl_le32(entry), 2);
            entries[i].name = name ? name : "";
        }
        m->map.entry_count = count;
        m->map.entries = entries;
    }
    /* Newest definition first, so a re-sent map wins in find_map. */
    uint32_t slot = name_hash(&provider, m->map.name);
    m->next = s->maps[slot];
    s->maps[slot] = m;
    s->stats.maps++;

    /* Hand the map to events that were waiting for it; re-register the ones already registered without it. */
    for (stored_event **pp = &s->waiting; *pp;) {
        stored_event *e = *pp;
        uint32_t before = e->unresolved;
        if (etl_guid_equal(&e->info.provider_guid, &provider) && link_maps(s, e) != before &&
            (e->registered || e->unresolved == 0))
            register_event(s, e);
        if (e->unresolved == 0 && e->registered) {
            *pp = e->next;
            forget_event(s, e);
        } else {
            pp = &e->next;
        }
    }
    return 0;
}

/* TDH stored winmeta names as written in the manifest ("win:Start", "win:Informational"); show them as a
 * manifest would, with winmeta's display names ("Start", "Information"). Provider-defined names stay. */
static const char *winmeta_display(enum etl_winmeta_kind kind, const char *name)
{
    if (!name || strncmp(name, "win:", 4) != 0) return name;
    const etl_winmeta_entry *w = etl_winmeta_find(kind, name);
    return w && w->display ? w->display : name;
}

/* ---- EventInfo ------------------------------------------------------------------------------------------ */

static int known_in_type(uint16_t t) { return t <= ETL_IN_MANIFEST_COUNTEDBINARY || (t >= 300 && t <= 310); }

static int observe_event_info(etl_embedded_state *s, const uint8_t *b, size_t len)
{
    if (len < TEI_PROPERTIES) return -1;
    uint32_t decoding = etl_le32(b + TEI_DECODING_SOURCE);
    if (decoding != DECODING_XML && decoding != DECODING_WBEM) {
        s->stats.skipped_other_sources++; /* WPP / TraceLogging: those carry or need their own metadata */
        return 0;
    }
    if (decoding == DECODING_WBEM) {
        etl_guid event_guid = etl_guid_read(b + TEI_EVENT_GUID);
        if (etl_guid_is_zero(&event_guid)) return -1; /* a MOF event is known by its class GUID only */
    }
    uint32_t count = etl_le32(b + TEI_PROPERTY_COUNT), top = etl_le32(b + TEI_TOP_LEVEL_COUNT);
    if (count > 0xFFFF || count > (len - TEI_PROPERTIES) / EPI_SIZE || top > count) return -1;

    /* Validate every offset and size the strings before allocating. */
    static const uint32_t string_fields[] = {TEI_PROVIDER_NAME, TEI_LEVEL_NAME, TEI_CHANNEL_NAME,
                                             TEI_TASK_NAME, TEI_OPCODE_NAME, TEI_EVENT_MESSAGE,
                                             TEI_PROVIDER_MESSAGE, TEI_EVENT_NAME};
    size_t need_strings = 0;
    for (size_t i = 0; i < sizeof string_fields / sizeof string_fields[0]; i++) {
        size_t n = wstr_bytes(b, len, etl_le32(b + string_fields[i]));
        if (n == SIZE_MAX) return -1;
        need_strings += utf8_capacity(n);
    }
    /* Keywords: consecutive strings ended by an empty one. */
    uint32_t keyword_count = 0;
    uint32_t kw_off = etl_le32(b + TEI_KEYWORDS_NAME);
    for (uint32_t off = kw_off; off != 0;) {
        size_t n = wstr_bytes(b, len, off);
        if (n == SIZE_MAX) return -1;
        if (n == 0) break;
        keyword_count++;
        need_strings += utf8_capacity(n);
        off += (uint32_t)n + 2;
    }
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *p = b + TEI_PROPERTIES + (size_t)EPI_SIZE * i;
        uint32_t flags = etl_le32(p + EPI_FLAGS);
        size_t n = wstr_bytes(b, len, etl_le32(p + EPI_NAME));
        if (n == SIZE_MAX) return -1;
        need_strings += utf8_capacity(n);
        if ((flags & ETL_PROP_PARAM_COUNT) && etl_le16(p + EPI_COUNT) >= count) return -1;
        if ((flags & ETL_PROP_PARAM_LENGTH) && etl_le16(p + EPI_LENGTH) >= count) return -1;
        if (flags & ETL_PROP_STRUCT) {
            uint32_t start = etl_le16(p + EPI_STRUCT_START), members = etl_le16(p + EPI_STRUCT_COUNT);
            if (start <= i || start + members > count) return -1; /* members follow their struct: no cycles */
            continue;
        }
        if (!known_in_type(etl_le16(p + EPI_IN_TYPE))) return -1;
        n = wstr_bytes(b, len, etl_le32(p + EPI_MAP_NAME));
        if (n == SIZE_MAX) return -1;
        need_strings += utf8_capacity(n);
    }

    size_t need = sizeof(stored_event) + (size_t)count * (sizeof(etl_property_info) + sizeof(const char *)) +
                  (size_t)keyword_count * sizeof(const char *) + need_strings;
    if (s->bytes + need > EMBEDDED_MAX_BYTES) {
        s->stats.dropped_for_memory++;
        return 0;
    }
    stored_event *e = calloc(1, need);
    if (!e) return -1;
    s->bytes += need;
    e->props = (etl_property_info *)(void *)(e + 1);
    e->map_names = (const char **)(void *)(e->props + count);
    const char **keywords = e->map_names + count;
    arena a = {(char *)(keywords + keyword_count), (char *)e + need};

    etl_event_info *info = &e->info;
    info->source = ETL_SOURCE_EMBEDDED_TDH;
    info->provider_guid = etl_guid_read(b + TEI_PROVIDER_GUID);
    info->event_guid = etl_guid_read(b + TEI_EVENT_GUID);
    const uint8_t *d = b + TEI_DESCRIPTOR;
    info->descriptor.id = etl_le16(d);
    info->descriptor.version = d[2];
    info->descriptor.channel = d[3];
    info->descriptor.level = d[4];
    info->descriptor.opcode = d[5];
    info->descriptor.task = etl_le16(d + 6);
    info->descriptor.keyword = etl_le64(d + 8);
    info->provider_name = arena_wstr(&a, b, len, etl_le32(b + TEI_PROVIDER_NAME), 1);
    info->level_name = winmeta_display(ETL_WINMETA_LEVEL, arena_wstr(&a, b, len, etl_le32(b + TEI_LEVEL_NAME), 1));
    info->channel_name = arena_wstr(&a, b, len, etl_le32(b + TEI_CHANNEL_NAME), 1);
    info->task_name = winmeta_display(ETL_WINMETA_TASK, arena_wstr(&a, b, len, etl_le32(b + TEI_TASK_NAME), 1));
    info->opcode_name =
        winmeta_display(ETL_WINMETA_OPCODE, arena_wstr(&a, b, len, etl_le32(b + TEI_OPCODE_NAME), 1));
    info->message = arena_wstr(&a, b, len, etl_le32(b + TEI_EVENT_MESSAGE), 0);
    info->provider_message = arena_wstr(&a, b, len, etl_le32(b + TEI_PROVIDER_MESSAGE), 1);
    info->event_name = arena_wstr(&a, b, len, etl_le32(b + TEI_EVENT_NAME), 1);
    for (uint32_t k = 0, off = kw_off; k < keyword_count; k++) {
        size_t n = wstr_bytes(b, len, off);
        keywords[k] = winmeta_display(ETL_WINMETA_KEYWORD, arena_wstr(&a, b, len, off, 1));
        off += (uint32_t)n + 2;
    }
    info->keyword_names = keyword_count ? keywords : NULL;
    info->keyword_name_count = keyword_count;
    info->property_count = count;
    info->top_level_count = top;
    info->properties = e->props;
    /* Manifest events are looked up by (provider, id, version); an event GUID (classic class, or the task GUID
     * a manifest may declare, as the .NET runtime's do) also keys it by (GUID, opcode, version). */
    e->keys = (decoding == DECODING_XML ? KEY_BIT(ETL_KEY_MANIFEST) : 0) |
              (etl_guid_is_zero(&info->event_guid) ? 0 : KEY_BIT(ETL_KEY_CLASSIC));

    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *p = b + TEI_PROPERTIES + (size_t)EPI_SIZE * i;
        etl_property_info *prop = &e->props[i];
        prop->flags = etl_le32(p + EPI_FLAGS) & TDH_PROPERTY_FLAGS; /* never our own extension bits */
        const char *name = arena_wstr(&a, b, len, etl_le32(p + EPI_NAME), 1);
        prop->name = name ? name : "";
        prop->count = etl_le16(p + EPI_COUNT);
        prop->length = etl_le16(p + EPI_LENGTH);
        if (prop->flags & ETL_PROP_STRUCT) {
            prop->struct_start = etl_le16(p + EPI_STRUCT_START);
            prop->struct_count = etl_le16(p + EPI_STRUCT_COUNT);
        } else {
            prop->in_type = etl_le16(p + EPI_IN_TYPE);
            prop->out_type = etl_le16(p + EPI_OUT_TYPE);
            e->map_names[i] = arena_wstr(&a, b, len, etl_le32(p + EPI_MAP_NAME), 1);
            if (e->map_names[i] && !e->map_names[i][0]) e->map_names[i] = NULL;
        }
    }
    e->bytes = need;
    s->stats.event_infos++;
    if (info->provider_name && info->provider_name[0])
        etl_schema_registry_add_provider(s->registry, &info->provider_guid, info->provider_name,
                                         ETL_SOURCE_EMBEDDED_TDH);
    s->waiting_count++;
    s->pending++;
    if (link_maps(s, e) == 0) { /* complete: the registry keeps its own copy */
        register_event(s, e);
        forget_event(s, e);
        return 0;
    }
    e->next = s->waiting;
    s->waiting = e;
    if (s->waiting_count > MAX_WAITING) { /* the oldest waiter is the list tail */
        stored_event **pp = &s->waiting;
        while ((*pp)->next) pp = &(*pp)->next;
        stored_event *old = *pp;
        *pp = NULL;
        if (!old->registered) register_event(s, old);
        forget_event(s, old);
    }
    return 0;
}

/* ---- entry point ---------------------------------------------------------------------------------------- */

/* Registers the events still waiting for maps, with whatever maps are known by now. */
static void flush_pending(etl_embedded_state *s)
{
    for (stored_event *e = s->waiting; e && s->pending; e = e->next)
        if (!e->registered) register_event(s, e);
}

uint32_t etl_embedded_pending(const etl_embedded_state *state) { return state ? state->pending : 0; }

int etl_embedded_observe(etl_embedded_state *state, const etl_event_record *record)
{
    if (!state || !record) return 0;
    uint8_t opcode = record->header.descriptor.opcode;
    if (!etl_embedded_takes(record)) {  /* any other record: the events held back are registered now */
        if (state->pending) flush_pending(state);
        return 0;
    }
    const uint8_t *payload = record->user_data;
    size_t length = payload ? record->user_data_length : 0;
    int rc = opcode == ETL_METADATA_EVENT_INFO ? observe_event_info(state, payload, length)
                                         : observe_map(state, payload, length);
    if (rc != 0) state->stats.malformed++;
    return 1;
}
