/* Internal to the XML manifest parser (manifest.c, manifest_template.c): parse context, per-provider
 * tables and small libxml2 helpers. Elements are matched by local name (schemas.md §1.1: CBS manifests put
 * the localization elements in another namespace). */
#ifndef ETL_SCHEMA_MANIFEST_XML_H
#define ETL_SCHEMA_MANIFEST_XML_H

#include <libxml/tree.h>

#include "schema/manifest_model.h"

typedef struct mx_string {
    const char *id;
    const char *value;       /* in the document */
    char *resolved;          /* arena copy, made on first use */
} mx_string;

typedef struct mx_map {
    const char *name;
    etl_map_info *info;
    uint32_t order;          /* declaration order: the first of equal local names wins */
} mx_map;

typedef struct mx_template {
    const char *tid;
    const etl_property_info *properties;
    uint32_t property_count, top_level_count;
    int bad;                 /* failed to parse: its events are skipped */
    const char *user_data;   /* its <UserData> layout (etl_event_info.user_data), or NULL */
} mx_template;

typedef struct mx_context {
    etl_schema_set *set;
    const char *origin;
    mx_string *strings;
    size_t string_count;
    mx_map *maps;
    size_t map_count;
    mx_template *templates;
    size_t template_count;
    int saw_events;          /* an instrumentation element exists (a manifest, maybe without events) */
    etl_error *err;          /* the caller's: receives the first error */
    int first_rc;            /* ETL_OK until something was refused */
    etl_error scratch;       /* later errors go here (counted, not reported) */
    uint64_t skipped;        /* providers/templates/events left out */
} mx_context;

/* Where the next error message goes: the caller's err for the first one, scratch afterwards. */
static inline etl_error *mx_err(mx_context *ctx) { return ctx->first_rc == ETL_OK ? ctx->err : &ctx->scratch; }
static inline void mx_failed(mx_context *ctx, int rc)
{
    if (ctx->first_rc == ETL_OK) ctx->first_rc = rc;
    ctx->skipped++;
}

static inline int mx_is(const xmlNode *n, const char *local)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, local) == 0;
}

/* Unqualified attribute value (NULL if absent or not plain text). */
const char *mx_attr(const xmlNode *n, const char *name);
/* Attribute in namespace `ns_uri` (NULL if absent). */
const char *mx_attr_ns(const xmlNode *n, const char *ns_uri, const char *name);
/* Decimal or 0x-hex unsigned number; 0 on success. */
int mx_number(const char *text, uint64_t *out);
/* "$(string.X)" → string-table text (arena); other text is returned as an arena copy; NULL stays NULL.
 * Unresolvable references count in set->unresolved_strings and yield NULL. */
const char *mx_resolve(mx_context *ctx, const char *text);

/* manifest_template.c: the provider's maps and <templates>; entries go into ctx->maps / ctx->templates. */
int mx_parse_maps(mx_context *ctx, const xmlNode *provider, etl_error *err);
int mx_parse_templates(mx_context *ctx, const xmlNode *provider, etl_error *err);
const mx_template *mx_find_template(const mx_context *ctx, const char *tid);
/* One <template> element (data/struct children) → out->properties; out->tid names it in messages. */
int mx_parse_template(mx_context *ctx, const xmlNode *t, mx_template *out, etl_error *err);

/* manifest.c: a hardened libxml2 parse (no network, a DOCTYPE stops it, size cap); NULL and *rc set on
 * refusal, with err naming `origin` and the line of the first error. */
xmlDocPtr mx_parse_document(const char *xml, size_t length, const char *origin, etl_error *err, int *rc);

/* manifest_wep.c: a WEPExplorer provider dump (root <Providers>) → ctx->set. */
int mx_wep_parse(mx_context *ctx, const xmlNode *root, etl_error *err);

#endif
