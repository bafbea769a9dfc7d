/* `etlconv schemas` (schemas_command.h): option parsing and the walk over traces; the listing itself is
 * formats/schema_list.c, the manifest the library's -export writer. */
#include "schemas_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "etl/etl_schema_list.h"
#include "convert.h"
#include "export.h"
#include "output.h"

#define MAX_POOLS 64  /* TraceLogging events sharing (provider, id, version) under different names */

typedef enum { OUT_TEXT, OUT_JSON, OUT_MANIFEST } out_format;

typedef struct listing {
    etl_schema_registry *pool[MAX_POOLS];  /* descriptions seen in traces (deep copies) */
    size_t pools;
    etl_schema_registry *manifest;         /* -of manifest: what -export would collect */
    uint64_t *seen;                        /* open-addressing set of description keys (hashes) */
    size_t seen_count, seen_capacity;
    etl_provider_count *counts;            /* --info */
    size_t count_count, count_capacity;
    int failed;
} listing;

static int usage(const char *what, const char *arg)
{
    fprintf(stderr, "etlconv: schemas: %s%s%s (try 'etlconv --help')\n", what, arg ? " " : "", arg ? arg : "");
    return ETLCONV_EXIT_FAILURE;
}

static int is_trace(const char *a)
{
    size_t n = strlen(a);
    return (n >= 4 && strcasecmp(a + n - 4, ".etl") == 0) || (n >= 7 && strcasecmp(a + n - 7, ".etl.gz") == 0);
}

static uint64_t info_key(const etl_event_info *i)
{
    uint64_t h = 1469598103934665603ULL;
    const uint8_t *parts[2] = {(const uint8_t *)&i->provider_guid, (const uint8_t *)&i->event_guid};
    for (int p = 0; p < 2; p++)
        for (size_t k = 0; k < sizeof(etl_guid); k++) h = (h ^ parts[p][k]) * 1099511628211ULL;
    uint64_t d = (uint64_t)i->descriptor.id << 24 | (uint64_t)i->descriptor.version << 16 | i->descriptor.opcode;
    h = (h ^ d) * 1099511628211ULL;
    for (const char *s = i->event_name ? i->event_name : ""; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h ? h : 1;
}

/* 1 when `key` was new (and is now in the set), 0 when seen, -1 when out of memory. */
static int remember(listing *l, uint64_t key)
{
    if ((l->seen_count + 1) * 2 > l->seen_capacity) {
        size_t cap = l->seen_capacity ? l->seen_capacity * 2 : 1024;
        uint64_t *n = calloc(cap, sizeof *n);
        if (!n) return -1;
        for (size_t i = 0; i < l->seen_capacity; i++) {
            if (!l->seen[i]) continue;
            size_t j = l->seen[i] & (cap - 1);
            while (n[j]) j = (j + 1) & (cap - 1);
            n[j] = l->seen[i];
        }
        free(l->seen);
        l->seen = n;
        l->seen_capacity = cap;
    }
    size_t j = key & (l->seen_capacity - 1);
    for (; l->seen[j]; j = (j + 1) & (l->seen_capacity - 1))
        if (l->seen[j] == key) return 0;
    l->seen[j] = key;
    l->seen_count++;
    return 1;
}

/* Keeps a deep copy of a description an event was decoded with, in the first pool registry whose key for it
 * is free (a registry keeps one description per key). */
static int keep_description(listing *l, const etl_event_info *info)
{
    int rc = remember(l, info_key(info));
    if (rc <= 0) return rc;
    int classic = !etl_guid_is_zero(&info->event_guid);
    etl_schema_key_kind kind = classic ? ETL_KEY_CLASSIC : ETL_KEY_MANIFEST;
    const etl_guid *g = classic ? &info->event_guid : &info->provider_guid;
    uint16_t id = classic ? info->descriptor.opcode : info->descriptor.id;
    for (size_t p = 0; p < MAX_POOLS; p++) {
        if (p == l->pools && !(l->pool[l->pools++] = etl_schema_registry_new())) return -1;
        const etl_event_info *there = etl_schema_registry_find(l->pool[p], kind, g, id, info->descriptor.version);
        int taken = there && there->descriptor.version == info->descriptor.version &&
                    (classic ? there->descriptor.opcode == id : there->descriptor.id == id);
        if (!taken) return etl_schema_registry_add(l->pool[p], info, kind) == ETL_OK ? 0 : -1;
    }
    return 0;  /* more same-key shapes than pools: listed once per pool only */
}

static int count_event(listing *l, const etl_decoded_event *ev)
{
    const etl_guid *g = &ev->record->header.provider_id;
    etl_provider_count *c = NULL;
    for (size_t i = l->count_count; i-- > 0;)
        if (etl_guid_equal(&l->counts[i].guid, g)) {
            c = &l->counts[i];
            break;
        }
    if (!c) {
        if (l->count_count == l->count_capacity) {
            size_t cap = l->count_capacity ? l->count_capacity * 2 : 32;
            etl_provider_count *n = realloc(l->counts, cap * sizeof *n);
            if (!n) return -1;
            l->counts = n;
            l->count_capacity = cap;
        }
        c = &l->counts[l->count_count++];
        memset(c, 0, sizeof *c);
        c->guid = *g;
    }
    if (!c->name && ev->provider_name) {  /* a copy: TraceLogging names live only as long as the record */
        char *name = malloc(strlen(ev->provider_name) + 1);
        if (!name) return -1;
        c->name = strcpy(name, ev->provider_name);
    }
    c->events++;
    if (ev->status == ETL_DECODE_OK) c->decoded++;
    else if (ev->status == ETL_DECODE_ERROR) c->errors++;
    else c->undecoded++;
    if (ev->status != ETL_DECODE_NO_SCHEMA) c->source = ev->source;
    return 0;
}

typedef struct walk_ctx {
    listing *l;
    etl_decoder *decoder;
    int info;
} walk_ctx;

static int on_record(const etl_event_record *record, void *ctx)
{
    walk_ctx *w = ctx;
    const etl_decoded_event *ev;
    if (etl_decode_event(w->decoder, record, &ev) != ETL_OK) return w->l->failed = 1;
    if (w->info) return count_event(w->l, ev) != 0 ? (w->l->failed = 1) : 0;
    if (ev->info && keep_description(w->l, ev->info) != 0) return w->l->failed = 1;
    if (ev->info && w->l->manifest && etl_schema_export_collect(w->l->manifest, ev->info) < 0) return w->l->failed = 1;
    return 0;
}

static void on_diagnostic(const etl_diagnostic *d, void *ctx)
{
    (void)ctx;
    if (d->severity == ETL_ERROR) fprintf(stderr, "etlconv: error: %s\n", d->message);
}

static int walk_trace(listing *l, etl_schema_registry *registry, char **inputs, size_t n, int info)
{
    etl_open_options oo = {0, on_diagnostic, NULL};
    etl_trace *trace;
    etl_error err;
    memset(&err, 0, sizeof err);
    if (etl_open(&trace, (const char *const *)inputs, n, &oo, &err) != ETL_OK) {
        fprintf(stderr, "etlconv: %s\n", err.message);
        return ETLCONV_EXIT_FAILURE;
    }
    walk_ctx w = {l, etl_decoder_new(registry, trace), info};
    int rc = w.decoder ? etl_process(trace, on_record, &w) : ETL_ERR_NOMEM;
    int errors = etl_trace_get_stats(trace)->errors != 0;
    etl_decoder_free(w.decoder);
    etl_close(trace);
    if (rc < 0 || l->failed) {
        fprintf(stderr, "etlconv: schemas: %s\n", l->failed ? "out of memory" : etl_status_name(rc));
        return ETLCONV_EXIT_FAILURE;
    }
    return errors ? ETLCONV_EXIT_WARNINGS : ETLCONV_EXIT_OK;
}

typedef struct gather {
    const etl_event_info **infos;
    size_t count, capacity;
    int failed;
} gather;

static int gather_info(const etl_event_info *info, etl_schema_key_kind key, void *ctx)
{
    (void)key;
    gather *g = ctx;
    if (g->count == g->capacity) {
        size_t cap = g->capacity ? g->capacity * 2 : 256;
        const etl_event_info **n = realloc(g->infos, cap * sizeof *n);
        if (!n) return g->failed = 1;
        g->infos = n;
        g->capacity = cap;
    }
    g->infos[g->count++] = info;
    return 0;
}

static int write_listing(etl_schema_registry *const *registries, size_t n, out_format format, const char *path,
                         int overwrite)
{
    gather g = {0};
    for (size_t i = 0; i < n; i++) etl_schema_registry_visit(registries[i], gather_info, &g);
    etlconv_output *out = g.failed ? NULL : etlconv_output_open(path, overwrite);
    FILE *stream = out ? etlconv_output_stream(out) : NULL;
    int rc = -1;
    if (out && !stream) fprintf(stderr, "etlconv: %s: schemas writes plain text; drop the .gz\n", path);
    if (stream) rc = etl_schema_list_write(stream, g.infos, g.count, format == OUT_JSON ? ETL_SCHEMA_LIST_JSON
                                                                                        : ETL_SCHEMA_LIST_TEXT);
    free(g.infos);
    if (rc != 0) {
        if (g.failed) fprintf(stderr, "etlconv: out of memory\n");
        etlconv_output_abort(out);
        return ETLCONV_EXIT_FAILURE;
    }
    return etlconv_output_commit(out) == 0 ? ETLCONV_EXIT_OK : ETLCONV_EXIT_FAILURE;
}

static int write_counts(const listing *l, out_format format, const char *path, int overwrite)
{
    etlconv_output *out = etlconv_output_open(path, overwrite);
    FILE *stream = out ? etlconv_output_stream(out) : NULL;
    if (!stream || etl_provider_counts_write(stream, l->counts, l->count_count,
                                             format == OUT_JSON ? ETL_SCHEMA_LIST_JSON : ETL_SCHEMA_LIST_TEXT) != 0) {
        etlconv_output_abort(out);
        return ETLCONV_EXIT_FAILURE;
    }
    return etlconv_output_commit(out) == 0 ? ETLCONV_EXIT_OK : ETLCONV_EXIT_FAILURE;
}

int etlconv_schemas_command(int argc, char **argv)
{
    etlconv_options opt;  /* only the schema-loading members are used (etlconv_load_schemas) */
    memset(&opt, 0, sizeof opt);
    char **traces = calloc((size_t)argc + 1, sizeof *traces);
    char **imports = calloc((size_t)argc + 1, sizeof *imports);
    size_t trace_count = 0;
    int info = 0, in_imports = 0, status = ETLCONV_EXIT_FAILURE;
    out_format format = OUT_TEXT;
    const char *output = NULL;
    listing l;
    memset(&l, 0, sizeof l);
    etl_schema_registry *registry = etl_schema_registry_new();
    if (!traces || !imports || !registry) {
        fprintf(stderr, "etlconv: out of memory\n");
        goto done;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0') {
            if (in_imports && !is_trace(a)) imports[opt.import_count++] = argv[i];
            else traces[trace_count++] = argv[i], in_imports = 0;
            continue;
        }
        in_imports = 0;
        if (strcmp(a, "-import") == 0 || strcmp(a, "--import") == 0 || strcmp(a, "--manifest") == 0) {
            in_imports = 1;
        } else if (strcmp(a, "-of") == 0 || strcmp(a, "--format") == 0) {
            const char *v = i + 1 < argc ? argv[++i] : "";
            if (strcasecmp(v, "text") == 0) format = OUT_TEXT;
            else if (strcasecmp(v, "json") == 0 || strcasecmp(v, "jsonl") == 0) format = OUT_JSON;
            else if (strcasecmp(v, "manifest") == 0 || strcasecmp(v, "man") == 0) format = OUT_MANIFEST;
            else {
                status = usage("unknown format (text, json or manifest):", v);
                goto done;
            }
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (i + 1 >= argc) {
                status = usage("option needs a value:", a);
                goto done;
            }
            output = argv[++i];
        } else if (strcmp(a, "--info") == 0 || strcmp(a, "-info") == 0) {
            info = 1;
        } else if (strcmp(a, "-y") == 0 || strcmp(a, "--yes") == 0) {
            opt.overwrite = 1;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            opt.quiet = 1;
        } else if (strcmp(a, "--no-bundled-schemas") == 0) {
            opt.no_bundled = 1;
        } else {
            status = usage("unknown option", a);
            goto done;
        }
    }
    opt.imports = imports;
    if (info && (!trace_count || format == OUT_MANIFEST)) {
        status = usage("--info needs a trace and lists as text or json", NULL);
        goto done;
    }
    int load_status = ETLCONV_EXIT_OK;
    if (trace_count) {
        /* the schemas the traces' events were decoded with, from every source */
        load_status = etlconv_load_schemas(&opt, registry);
        if (load_status == ETLCONV_EXIT_FAILURE) goto done;
        if (format == OUT_MANIFEST && !(l.manifest = etl_schema_registry_new())) goto done;
        status = walk_trace(&l, registry, traces, trace_count, info);
        if (status == ETLCONV_EXIT_FAILURE) goto done;
        int rc = info ? write_counts(&l, format, output, opt.overwrite)
                 : format == OUT_MANIFEST ? (etlconv_export_schemas(l.manifest, output, opt.overwrite) ? 2 : 0)
                                          : write_listing(l.pool, l.pools, format, output, opt.overwrite);
        if (rc > status) status = rc;
    } else {
        /* schema files alone (or the bundled manifests when none are named) */
        opt.no_bundled = opt.no_bundled || opt.import_count > 0;
        load_status = etlconv_load_schemas(&opt, registry);
        if (load_status == ETLCONV_EXIT_FAILURE) goto done;
        status = format == OUT_MANIFEST ? (etlconv_export_schemas(registry, output, opt.overwrite) ? 2 : 0)
                                        : write_listing(&registry, 1, format, output, opt.overwrite);
    }
    if (status == ETLCONV_EXIT_OK) status = load_status;
done:
    for (size_t p = 0; p < l.pools; p++) etl_schema_registry_free(l.pool[p]);
    etl_schema_registry_free(l.manifest);
    etl_schema_registry_free(registry);
    free(l.seen);
    for (size_t i = 0; i < l.count_count; i++) free((char *)l.counts[i].name);
    free(l.counts);
    free(traces);
    free(imports);
    return status;
}
