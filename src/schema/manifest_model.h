/* Internal model shared by the manifest sources: the XML manifest parser (manifest.c), the compiled-manifest
 * reader (wevt_template.c) and the manifest writer (manifest_export.c). Each source fills one
 * etl_schema_set (event descriptions in TDH form, all strings in the set's arena); the set is then
 * registered into a registry, which deep-copies it. Tests compare two sets directly. */
#ifndef ETL_SCHEMA_MANIFEST_MODEL_H
#define ETL_SCHEMA_MANIFEST_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "etl/etl_schema.h"

/* ---- arena: many small strings and arrays, freed at once ------------------------------------------- */

typedef struct etl_arena_block etl_arena_block;
typedef struct etl_arena {
    etl_arena_block *head;
    size_t total;        /* bytes allocated from the system so far */
    size_t limit;        /* refuse to grow beyond this (hostile input bound) */
} etl_arena;

void etl_arena_init(etl_arena *arena, size_t limit);
void etl_arena_free(etl_arena *arena);
void *etl_arena_alloc(etl_arena *arena, size_t size);          /* zeroed, 8-aligned; NULL on limit/ENOMEM */
char *etl_arena_strdup(etl_arena *arena, const char *text);      /* NULL text → NULL */
char *etl_arena_strndup(etl_arena *arena, const char *text, size_t length);

/* ---- one parsed source ------------------------------------------------------------------------------- */

typedef struct etl_set_provider {
    etl_guid guid;
    const char *name;      /* NULL when the source does not carry it (CRIM v3) */
    const char *message;   /* provider display string, NULL if none */
} etl_set_provider;

typedef struct etl_schema_set {
    etl_arena arena;
    etl_event_info *events;
    size_t event_count, event_cap;
    etl_set_provider *providers;
    size_t provider_count, provider_cap;
    uint64_t unresolved_strings;   /* $(string.X) / message ids that had no text (counted, not fatal) */
} etl_schema_set;

#define ETL_SCHEMA_SET_ARENA_LIMIT ((size_t)512 << 20)

void etl_schema_set_init(etl_schema_set *set);
void etl_schema_set_free(etl_schema_set *set);
/* Appends an (uninitialised → zeroed) event / provider; NULL on ENOMEM. */
etl_event_info *etl_schema_set_add_event(etl_schema_set *set);
etl_set_provider *etl_schema_set_add_provider(etl_schema_set *set);
/* Sorts events by (provider GUID, id, version); handy for comparisons and export. */
void etl_schema_set_sort(etl_schema_set *set);
/* 1 when two descriptions are the same to a caller: every field but the serial, strings and maps by content,
 * an array that is NULL as one with no entries (registry.c). */
int etl_event_info_same(const etl_event_info *a, const etl_event_info *b);
/* 1 when two sets give a registry the same descriptions and providers, in the same order: every field, every
 * string by content, maps by content (NULL arrays and empty ones alike, as etl_schema_registry_add copies). */
int etl_schema_set_same(const etl_schema_set *a, const etl_schema_set *b);
/* Adds every event (ETL_KEY_MANIFEST) and provider name to the registry with the given source. */
int etl_schema_set_register(const etl_schema_set *set, etl_schema_registry *registry, etl_schema_source source,
                            etl_error *err);

/* Builds the keyword_names array of an event from a provider's keyword table: one display name per table
 * entry whose mask is a subset of the event's mask, in ascending mask order (TDH order). Channel bits that
 * are not provider keywords produce no name. */
typedef struct etl_keyword_def {
    uint64_t mask;
    const char *display;
} etl_keyword_def;
int etl_schema_keyword_names(etl_arena *arena, const etl_keyword_def *defs, size_t def_count, uint64_t mask,
                             etl_event_info *event);

/* ---- winmeta.xml well-known names (schemas.md §1.6) ------------------------------------------------ */

typedef struct etl_winmeta_entry {
    const char *name;      /* "win:Informational" */
    uint64_t value;        /* level/opcode/task value, keyword mask, channel value */
    const char *display;   /* en-US display string; NULL when winmeta has none */
} etl_winmeta_entry;

enum etl_winmeta_kind { ETL_WINMETA_LEVEL, ETL_WINMETA_OPCODE, ETL_WINMETA_TASK, ETL_WINMETA_KEYWORD,
                        ETL_WINMETA_CHANNEL };
/* By name ("win:Start"; the local part after any prefix is also accepted when the prefix is "win"). */
const etl_winmeta_entry *etl_winmeta_find(enum etl_winmeta_kind kind, const char *name);
const etl_winmeta_entry *etl_winmeta_find_value(enum etl_winmeta_kind kind, uint64_t value);

/* ---- win:/xs: type names (schemas.md §1.5) --------------------------------------------------------- */

int etl_manifest_in_type(const char *name, uint16_t *out);      /* 0 on success */
int etl_manifest_out_type(const char *name, uint16_t *out);
uint16_t etl_manifest_default_out_type(uint16_t in_type);
const char *etl_manifest_in_type_name(uint16_t in_type);        /* NULL when the type has no manifest name */
const char *etl_manifest_out_type_name(uint16_t out_type);

/* ---- sources ------------------------------------------------------------------------------------------ */

#define ETL_MANIFEST_MAX_BYTES ((size_t)64 << 20)
/* Elements per manifest document (the largest real manifest here, ClrEtwAll.man, has 5,590 tags). */
#define ETL_MANIFEST_MAX_ELEMENTS 1000000u
#define ETL_MANIFEST_MAX_ELEMENTS_TEXT "1,000,000"
/* Namespace of the attributes -export adds for descriptor values that have no name (docs/schemas.md). */
#define ETL_MANIFEST_EXT_NS "urn:etlconv:manifest-extensions"

/* XML instrumentation manifest → set. */
int etl_manifest_parse(etl_schema_set *set, const char *xml, size_t length, const char *origin, etl_error *err);

/* RT_MESSAGETABLE resource: lookups return UTF-8 text in `arena` (trailing CR/LF stripped), NULL if absent.
 * An id missing from the table is looked up in `fallback` (one level: a binary's own table behind its .mui). */
typedef struct etl_message_table {
    const uint8_t *data;
    size_t size;
    uint32_t block_count;
    const struct etl_message_table *fallback;
} etl_message_table;
int etl_message_table_open(etl_message_table *table, const uint8_t *data, size_t size);
const char *etl_message_table_lookup(const etl_message_table *table, uint32_t id, etl_arena *arena);

/* CRIM blob (WEVT_TEMPLATE resource) → set; `messages` may be NULL (no display strings then). */
int etl_wevt_parse(etl_schema_set *set, const uint8_t *crim, size_t size, const etl_message_table *messages,
                   const char *origin, etl_error *err);

/* A PE file's WEVT_TEMPLATE (+ RT_MESSAGETABLE or .mui) → set. ETL_OK, 1 when the file is a PE without a
 * WEVT_TEMPLATE resource, or an error. */
int etl_pe_schema_parse(etl_schema_set *set, const char *path, etl_error *err);
/* The same for many binaries: `cache` keeps the listing of the last folder and its language folders, so a
 * walk does not re-read them for every binary. */
typedef struct etl_mui_cache etl_mui_cache;
etl_mui_cache *etl_mui_cache_new(void);
void etl_mui_cache_free(etl_mui_cache *cache);
int etl_pe_schema_parse_cached(etl_schema_set *set, const char *path, etl_mui_cache *cache, etl_error *err);

/* -export core: one instrumentation manifest for these descriptions (grouped by provider; one per
 * (provider, id, version), the first wins). */
int etl_manifest_write(const etl_event_info *const *events, size_t n, FILE *out, etl_error *err);

/* Error helper: fills err (if non-NULL) with "origin: offset 0x..: text" and returns code. */
int etl_schema_fail(etl_error *err, int code, const char *origin, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* The local part of a QName-like manifest value ("win:UInt32" → "UInt32"): real manifests use the literal
 * win:/xs: prefixes, and names are matched by local part whatever prefix a dump chose. */
static inline const char *etl_qname_local(const char *name)
{
    const char *colon = strchr(name, ':');
    return colon ? colon + 1 : name;
}

/* Whole file into memory (NUL-terminated), refusing files above `limit` bytes. */
int etl_schema_read_file(const char *path, size_t limit, unsigned char **data, size_t *size, etl_error *err);

/* UTF-16LE (up to `units` code units, stops at NUL) → UTF-8 in the arena. */
char *etl_arena_utf16(etl_arena *arena, const uint8_t *p, size_t units);

#endif
