/* Per-schema static text of the writers (issue 14). Much of an event's text is fixed by its schema and header
 * descriptor (provider name and GUID, EventID..Keywords, display names, RenderingInfo, CSV/table/JSON name
 * columns, the escaped property names): a writer renders those parts once per
 * (schema serial, provider GUID, descriptor, record kind and flags) into segments, and copies them afterwards.
 *
 * Keying: etl_event_info.serial is unique and never reused (a TraceLogging description freed and another one
 * allocated at the same address get different serials); events without a schema use serial 0. The provider
 * name, when it does not come from the schema (the registry may learn a provider's name mid-trace), is
 * compared by content on every hit. Everything else the builders read is a function of the key (the
 * decoder's names come from the schema and the descriptor). WPP messages decoded with a TMF and events whose
 * schema has no serial are rendered every time. Bounded: at most FMT_TEXT_CACHE_ENTRIES entries and
 * FMT_TEXT_CACHE_BYTES bytes, then the cache starts over. ETLCONV_TEXT_CACHE=off in the environment renders
 * every event afresh through the same builders (tests compare both). */
#ifndef ETL_FORMATS_TEXT_CACHE_H
#define ETL_FORMATS_TEXT_CACHE_H

#include <stdint.h>

#include "format_util.h"

typedef struct fmt_text_cache fmt_text_cache;

#define FMT_TEXT_MAX_SEGMENTS 8
#define FMT_TEXT_CACHE_ENTRIES 1024u
#define FMT_TEXT_CACHE_BYTES (8u << 20)
/* Bytes after the end of a static text (past its NUL) that may be read: a writer copies cached parts in
 * whole 16-byte blocks, at least two (fmt_w_padded), instead of calling memcpy for each. */
#define FMT_STATIC_TEXT_PAD 32

/* The static parts of one event kind: segment k is text[start(k), ends[k]), start(k) = k ? ends[k-1] : 0;
 * then, when names are cached, the escaped name of info->properties[i] is part segments + i. The text is
 */
typedef struct fmt_static_text {
    const char *text;
    const uint32_t *ends;
    uint32_t segments;
    uint32_t property_count;  /* names cached (0: none) */
} fmt_static_text;

static inline const char *fmt_static_part(const fmt_static_text *t, uint32_t k, size_t *length)
{
    uint32_t start = k ? t->ends[k - 1] : 0;
    *length = t->ends[k] - start;
    return t->text + start;
}

/* Builds the segments of `ev` into `text`, storing the end of segment k in ends[k] (k < segments). */
typedef void (*fmt_static_builder)(void *writer, const etl_decoded_event *ev, fmt_buf *text, uint32_t *ends);
/* Appends a property name in the writer's escaping. */
typedef void (*fmt_name_escaper)(fmt_buf *text, const char *name);


/* `escape_name` may be NULL (no names cached). NULL on allocation failure. */
fmt_text_cache *fmt_text_cache_new(uint32_t segments, fmt_static_builder build, fmt_name_escaper escape_name,
                                   void *writer);
void fmt_text_cache_free(fmt_text_cache *cache);

/* The static text of `ev` (cached, or built now); valid until the next call. NULL when memory ran out. */
const fmt_static_text *fmt_text_cache_get(fmt_text_cache *cache, const etl_decoded_event *ev);

/* The cached escaped names of one event's properties, for fmt_static_name in a loop over its fields. */
typedef struct fmt_static_names {
    const fmt_static_text *text;
    const etl_property_info *properties;  /* ev->info->properties (NULL: nothing cached) */
    uintptr_t span;                       /* bytes of the cached part of that array */
    const char *base;                     /* text->text */
    const uint32_t *ends;                 /* text->ends + text->segments - 1: name i is [ends[i], ends[i + 1]) */
} fmt_static_names;

static inline fmt_static_names fmt_static_names_of(const fmt_static_text *t, const etl_decoded_event *ev)
{
    fmt_static_names n = {t, NULL, 0, t->text, t->ends + t->segments - 1};
    if (t->property_count && ev->info && ev->info->properties) {
        n.properties = ev->info->properties;
        n.span = (uintptr_t)t->property_count * sizeof *n.properties;
    }
    return n;
}

/* The cached escaped name of field f (length in *length), or NULL when f's name is not a cached one (no
 * property, a property of another array, a name that is not the property's). */
static inline const char *fmt_static_name(const fmt_static_names *n, const etl_field *f, size_t *length)
{
    uintptr_t offset = (uintptr_t)f->property - (uintptr_t)n->properties;
    if (offset >= n->span || offset % sizeof *f->property) return NULL;
    const etl_property_info *p = n->properties + offset / sizeof *f->property;
    if (f->name != p->name) return NULL;
    const uint32_t *at = n->ends + offset / sizeof *f->property; /* segments >= 1: a name part never starts at 0 */
    *length = at[1] - at[0];
    return n->base + at[0];
}

#endif
