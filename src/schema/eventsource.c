/* .NET EventSource manifests written into the trace (docs/schemas.md §4.6, docs/etl-format.md §5.2): event id
 * 0xFFFE of the EventSource's provider, payload = 8-byte envelope (Format, MajorVersion, MinorVersion,
 * Magic 0x5B, u16 TotalChunks, u16 ChunkNumber) + a chunk of UTF-8 XML. Chunks are reassembled per (provider,
 * process, thread) — the writer emits them back to back from one thread — and the complete manifest is handed
 * to the manifest parser as ETL_SOURCE_EVENTSOURCE.
 *
 * Rules (as PerfView's reassembly): chunk 0 starts a manifest and discards a partial one; every later chunk
 * must be the next one and agree on format/version/total, else the partial manifest is dropped (a lost chunk
 * invalidates it); a complete manifest identical to the last one loaded for that provider is not parsed
 * again. The manifest of Microsoft-Windows-DotNETRuntime is ignored (.NET 6+ emits it, the built-in schema
 * is better). Each provider also gets a description of the ManifestData event itself, so the chunk events
 * decode with PerfView's field names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/eventsource.h"
#include "util/le.h"

enum { MANIFEST_EVENT_ID = 0xFFFE, MANIFEST_MAGIC = 0x5B, ENVELOPE_SIZE = 8 };
enum { ENV_FORMAT = 0, ENV_MAJOR = 1, ENV_MINOR = 2, ENV_MAGIC = 3, ENV_TOTAL_CHUNKS = 4, ENV_CHUNK_NUMBER = 6 };

/* Bounds: one manifest, and all partial manifests together; partial manifests in flight. */
#define MAX_MANIFEST_BYTES (32u * 1024u * 1024u)
#define MAX_PARTIAL_BYTES (64u * 1024u * 1024u)
#define MAX_PARTIALS 64u
#define MAX_PROVIDERS 4096u

static const etl_guid dotnet_runtime_guid = {0xe13c0d23, 0xccbc, 0x4e12,
                                             {0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4}};

typedef struct partial_manifest {
    struct partial_manifest *next;
    etl_guid provider;
    uint32_t process_id, thread_id;
    uint8_t format, major, minor;
    uint16_t total_chunks, next_chunk;
    uint8_t *data;
    size_t length, capacity;
    etl_record_place first;      /* where chunk 0 was, for the report of a manifest that never completes */
} partial_manifest;

typedef struct provider_state {
    struct provider_state *next;
    etl_guid provider;
    uint64_t manifest_hash;     /* of the last manifest loaded, to skip identical re-sends */
    size_t manifest_length;
    uint8_t manifest_data_versions[256 / 8];  /* ManifestData description registered per event version */
} provider_state;

struct etl_eventsource_state {
    etl_schema_registry *registry;
    partial_manifest *partials;
    size_t partial_count, partial_bytes;
    provider_state *providers;
    size_t provider_count;
    etl_eventsource_stats stats;
    char last_error[512];
    etl_eventsource_report_fn report;
    void *report_ctx;
};

etl_eventsource_state *etl_eventsource_new(etl_schema_registry *registry)
{
    etl_eventsource_state *s = calloc(1, sizeof *s);
    if (s) s->registry = registry;
    return s;
}

static void free_partial(partial_manifest *p)
{
    free(p->data);
    free(p);
}

void etl_eventsource_free(etl_eventsource_state *state)
{
    if (!state) return;
    for (partial_manifest *p = state->partials, *next; p; p = next) {
        next = p->next;
        free_partial(p);
    }
    for (provider_state *p = state->providers, *next; p; p = next) {
        next = p->next;
        free(p);
    }
    free(state);
}

const etl_eventsource_stats *etl_eventsource_get_stats(const etl_eventsource_state *state) { return &state->stats; }

const char *etl_eventsource_last_error(const etl_eventsource_state *state)
{
    return state->last_error[0] ? state->last_error : NULL;
}

void etl_eventsource_set_report(etl_eventsource_state *state, etl_eventsource_report_fn fn, void *ctx)
{
    state->report = fn;
    state->report_ctx = ctx;
}

/* One line about the manifest of `provider`; its events stay undecoded. */
static void report(etl_eventsource_state *s, const etl_record_place *at, const etl_guid *provider, const char *what)
{
    if (!s->report) return;
    char guid[40], line[800];
    etl_guid_format(provider, guid, 0);
    snprintf(line, sizeof line, "EventSource manifest of %s %.600s; the provider's events are not decoded with it",
             guid, what);
    s->report(s->report_ctx, at, line);
}

static void report_lost(etl_eventsource_state *s, const etl_event_record *r, const etl_guid *provider,
                        const char *what)
{
    etl_record_place at = etl_record_place_of(r);
    report(s, &at, provider, what);
}

/* Provider states are few (one per EventSource); the list is capped and only touched by manifest events. */
static provider_state *provider_get(etl_eventsource_state *s, const etl_guid *guid)
{
    for (provider_state *p = s->providers; p; p = p->next)
        if (etl_guid_equal(&p->provider, guid)) return p;
    if (s->provider_count >= MAX_PROVIDERS) return NULL;
    provider_state *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->provider = *guid;
    p->next = s->providers;
    s->providers = p;
    s->provider_count++;
    return p;
}

/* ManifestData (event 0xFFFE): the envelope fields as PerfView names them; the chunk bytes are not a field. */
static void register_manifest_data(etl_eventsource_state *s, provider_state *ps, const etl_event_record *record)
{
    uint8_t version = record->header.descriptor.version;
    if (ps->manifest_data_versions[version / 8] & (1u << (version % 8))) return;
    static const etl_property_info envelope[] = {
        {.name = "Format", .in_type = ETL_IN_UINT8},
        {.name = "MajorVersion", .in_type = ETL_IN_UINT8},
        {.name = "MinorVersion", .in_type = ETL_IN_UINT8},
        {.name = "Magic", .in_type = ETL_IN_UINT8},
        {.name = "TotalChunks", .in_type = ETL_IN_UINT16},
        {.name = "ChunkNumber", .in_type = ETL_IN_UINT16},
    };
    etl_event_info info;
    memset(&info, 0, sizeof info);
    info.source = ETL_SOURCE_EVENTSOURCE;
    info.provider_guid = record->header.provider_id;
    info.descriptor = record->header.descriptor;
    info.event_name = "ManifestData";
    info.property_count = info.top_level_count = sizeof envelope / sizeof envelope[0];
    info.properties = envelope;
    /* provider_name stays NULL: the decoder then takes the name the manifest registered. */
    if (etl_schema_registry_add(s->registry, &info, ETL_KEY_MANIFEST) == ETL_OK)
        ps->manifest_data_versions[version / 8] |= (uint8_t)(1u << (version % 8));
}

static partial_manifest **find_partial(etl_eventsource_state *s, const etl_event_record *r)
{
    for (partial_manifest **pp = &s->partials; *pp; pp = &(*pp)->next) {
        partial_manifest *p = *pp;
        if (p->process_id == r->header.process_id && p->thread_id == r->header.thread_id &&
            etl_guid_equal(&p->provider, &r->header.provider_id))
            return pp;
    }
    return NULL;
}

static void drop_partial(etl_eventsource_state *s, partial_manifest **pp)
{
    partial_manifest *p = *pp;
    *pp = p->next;
    s->partial_count--;
    s->partial_bytes -= p->capacity;
    free_partial(p);
}

void etl_eventsource_finish(etl_eventsource_state *state)
{
    if (!state) return;
    while (state->partials) {
        partial_manifest *p = state->partials;
        char what[120];
        snprintf(what, sizeof what, "never completed (%u of %u chunks arrived, the first one here)",
                 (unsigned)p->next_chunk, (unsigned)p->total_chunks);
        state->stats.chunks_dropped += p->next_chunk;
        report(state, &p->first, &p->provider, what);
        drop_partial(state, &state->partials);
    }
}

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static void load_manifest(etl_eventsource_state *s, provider_state *ps, const partial_manifest *p,
                          const etl_event_record *last_chunk)
{
    if (etl_guid_equal(&p->provider, &dotnet_runtime_guid)) {
        s->stats.manifests_ignored++;
        return;
    }
    uint64_t h = fnv1a(p->data, p->length);
    if (ps && ps->manifest_length == p->length && ps->manifest_hash == h) {
        s->stats.manifests_repeated++;
        return;
    }
    char guid[40], origin[96];
    etl_guid_format(&p->provider, guid, 0);
    snprintf(origin, sizeof origin, "EventSource manifest of %s", guid);
    etl_error err;
    memset(&err, 0, sizeof err);
    int rc = etl_schema_load_manifest_memory(s->registry, (const char *)p->data, p->length, origin,
                                             ETL_SOURCE_EVENTSOURCE, &err);
    if (rc != ETL_OK) {
        s->stats.manifests_failed++;
        snprintf(s->last_error, sizeof s->last_error, "%s", err.message[0] ? err.message : origin);
        char what[600];
        snprintf(what, sizeof what, "refused (%s)", err.message[0] ? err.message : "not a valid manifest");
        report_lost(s, last_chunk, &p->provider, what);
        return;
    }
    s->stats.manifests_loaded++;
    if (ps) {
        ps->manifest_hash = h;
        ps->manifest_length = p->length;
    }
}

int etl_eventsource_takes(const etl_event_record *record)
{
    if (!record || record->header.descriptor.id != MANIFEST_EVENT_ID ||
        (record->kind != ETL_KIND_EVENT32 && record->kind != ETL_KIND_EVENT64))
        return 0;
    const uint8_t *d = record->user_data;
    size_t len = d ? record->user_data_length : 0;
    if (len <= ENVELOPE_SIZE || d[ENV_MAGIC] != MANIFEST_MAGIC) return 0;
    for (uint16_t i = 0; i < record->extended_data_count; i++)
        if (record->extended_data[i].ext_type == ETL_EXT_EVENT_SCHEMA_TL) return 0; /* self-describing event */
    return 1;
}

int etl_eventsource_observe(etl_eventsource_state *state, const etl_event_record *record)
{
    if (!state || !etl_eventsource_takes(record)) return 0;  /* nothing else changes the state */
    const uint8_t *d = record->user_data;
    size_t len = record->user_data_length;
    etl_eventsource_state *s = state;
    s->stats.chunks++;
    provider_state *ps = provider_get(s, &record->header.provider_id);
    if (ps) register_manifest_data(s, ps, record);

    uint16_t total = etl_le16(d + ENV_TOTAL_CHUNKS), chunk = etl_le16(d + ENV_CHUNK_NUMBER);
    const uint8_t *bytes = d + ENVELOPE_SIZE;
    size_t n = len - ENVELOPE_SIZE;
    partial_manifest **pp = find_partial(s, record);
    if (total == 0 || chunk >= total) {
        s->stats.chunks_dropped++;
        report_lost(s, record, &record->header.provider_id,
                    "chunk has an impossible number (chunk N of 0, or N >= total)");
        return 1;
    }
    if (chunk == 0) {
        if (pp) drop_partial(s, pp);
        pp = NULL;
    } else if (!pp || (*pp)->next_chunk != chunk || (*pp)->total_chunks != total || (*pp)->format != d[ENV_FORMAT] ||
               (*pp)->major != d[ENV_MAJOR] || (*pp)->minor != d[ENV_MINOR]) {
        /* Out of sequence: a chunk was lost (or never started); the manifest cannot be completed. */
        if (pp) {
            s->stats.chunks_dropped += (*pp)->next_chunk;
            drop_partial(s, pp);
        }
        s->stats.chunks_dropped++;
        char what[120];
        snprintf(what, sizeof what, "lost: chunk %u of %u arrived out of sequence (a chunk is missing)",
                 (unsigned)chunk, (unsigned)total);
        report_lost(s, record, &record->header.provider_id, what);
        return 1;
    }
    if (!pp) {
        if (s->partial_count >= MAX_PARTIALS) { /* evict the oldest partial (the list tail) */
            partial_manifest **last = &s->partials;
            while ((*last)->next) last = &(*last)->next;
            s->stats.chunks_dropped += (*last)->next_chunk;
            report(s, &(*last)->first, &(*last)->provider,
                   "dropped: too many manifests in flight at once (64)");
            drop_partial(s, last);
        }
        partial_manifest *p = calloc(1, sizeof *p);
        if (!p) {
            s->stats.chunks_dropped++;
            return 1;
        }
        p->provider = record->header.provider_id;
        p->process_id = record->header.process_id;
        p->thread_id = record->header.thread_id;
        p->format = d[ENV_FORMAT];
        p->major = d[ENV_MAJOR];
        p->minor = d[ENV_MINOR];
        p->total_chunks = total;
        p->first = etl_record_place_of(record);
        p->next = s->partials;
        s->partials = p;
        s->partial_count++;
        pp = &s->partials;
    }
    partial_manifest *p = *pp;
    if (p->length + n > MAX_MANIFEST_BYTES || s->partial_bytes + n > MAX_PARTIAL_BYTES) {
        s->stats.chunks_dropped += (size_t)p->next_chunk + 1;
        report_lost(s, record, &p->provider, p->length + n > MAX_MANIFEST_BYTES
                                                 ? "dropped: larger than 32 MiB"
                                                 : "dropped: manifests in flight exceed 64 MiB together");
        drop_partial(s, pp);
        return 1;
    }
    if (p->length + n > p->capacity) {
        size_t cap = p->capacity ? p->capacity : 4096;
        while (cap < p->length + n) cap *= 2;
        if (cap > MAX_MANIFEST_BYTES) cap = MAX_MANIFEST_BYTES;
        uint8_t *grown = realloc(p->data, cap);
        if (!grown) {
            s->stats.chunks_dropped += (size_t)p->next_chunk + 1;
            report_lost(s, record, &p->provider, "dropped: out of memory");
            drop_partial(s, pp);
            return 1;
        }
        s->partial_bytes += cap - p->capacity;
        p->data = grown;
        p->capacity = cap;
    }
    memcpy(p->data + p->length, bytes, n);
    p->length += n;
    p->next_chunk = (uint16_t)(chunk + 1);
    if (p->next_chunk == p->total_chunks) {
        load_manifest(s, ps, p, record);
        drop_partial(s, pp);
    }
    return 1;
}
