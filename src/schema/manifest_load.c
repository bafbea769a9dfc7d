/* Public loaders for XML manifests, and registration of a parsed schema set into a registry. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/manifest_model.h"

int etl_schema_set_register(const etl_schema_set *set, etl_schema_registry *registry, etl_schema_source source,
                            etl_error *err)
{
    for (size_t i = 0; i < set->provider_count; i++) {
        const etl_set_provider *p = &set->providers[i];
        if (p->name && etl_schema_registry_add_provider(registry, &p->guid, p->name, source) != ETL_OK)
            return etl_schema_fail(err, ETL_ERR_NOMEM, "registry", UINT64_MAX, "out of memory");
    }
    for (size_t i = 0; i < set->event_count; i++) {
        etl_event_info info = set->events[i];
        info.source = source;
        if (etl_schema_registry_add(registry, &info, ETL_KEY_MANIFEST) != ETL_OK)
            return etl_schema_fail(err, ETL_ERR_NOMEM, "registry", UINT64_MAX, "out of memory");
    }
    return ETL_OK;
}

int etl_schema_load_manifest_memory(etl_schema_registry *registry, const char *xml, size_t length,
                                    const char *origin, etl_schema_source source, etl_error *err)
{
    if (!registry || !xml) return etl_schema_fail(err, ETL_ERR_ARG, origin, UINT64_MAX, "bad argument");
    etl_schema_set set;
    etl_schema_set_init(&set);
    int rc = etl_manifest_parse(&set, xml, length, origin, err);
    /* what parsed is registered even when a part was refused; the error still reaches the caller */
    if (rc == ETL_OK || set.event_count) {
        etl_error rerr;
        int r2 = etl_schema_set_register(&set, registry, source, rc == ETL_OK ? err : &rerr);
        if (rc == ETL_OK) rc = r2;
    }
    etl_schema_set_free(&set);
    return rc;
}

int etl_schema_load_manifest_file(etl_schema_registry *registry, const char *path, etl_schema_source source,
                                  etl_error *err)
{
    unsigned char *data;
    size_t size;
    int rc = etl_schema_read_file(path, ETL_MANIFEST_MAX_BYTES, &data, &size, err);
    if (rc != ETL_OK) return rc;
    rc = etl_schema_load_manifest_memory(registry, (const char *)data, size, path, source, err);
    free(data);
    return rc;
}

typedef struct export_collect {
    const etl_guid *providers;
    size_t provider_count;
    const etl_event_info **events;
    size_t count, cap;
    int failed;
} export_collect;

static int collect_for_export(const etl_event_info *info, etl_schema_key_kind key, void *ctx)
{
    export_collect *c = ctx;
    if (key != ETL_KEY_MANIFEST) return 0;   /* classic MOF layouts have no manifest form */
    if (c->provider_count) {
        size_t i;
        for (i = 0; i < c->provider_count; i++)
            if (etl_guid_equal(&c->providers[i], &info->provider_guid)) break;
        if (i == c->provider_count) return 0;
    }
    if (c->count == c->cap) {
        size_t ncap = c->cap ? 2 * c->cap : 256;
        const etl_event_info **p = realloc(c->events, ncap * sizeof(*p));
        if (!p) { c->failed = 1; return 1; }
        c->events = p;
        c->cap = ncap;
    }
    c->events[c->count++] = info;
    return 0;
}

int etl_schema_export_manifest(const etl_schema_registry *registry, const etl_guid *providers, size_t n,
                               FILE *out, etl_error *err)
{
    if (!registry || !out || (n && !providers))
        return etl_schema_fail(err, ETL_ERR_ARG, "-export", UINT64_MAX, "bad argument");
    export_collect c = {providers, n, NULL, 0, 0, 0};
    etl_schema_registry_visit(registry, collect_for_export, &c);
    int rc = c.failed ? etl_schema_fail(err, ETL_ERR_NOMEM, "-export", UINT64_MAX, "out of memory")
                      : etl_manifest_write(c.events, c.count, out, err);
    free(c.events);
    return rc;
}

int etl_schema_export_collect(etl_schema_registry *exported, const etl_event_info *info)
{
    if (!exported || !info || info->source == ETL_SOURCE_KERNEL_MOF) return 0; /* built in: nothing to export */
    /* classic layouts are keyed by event-class GUID: no manifest form (etl_manifest_write skips them too) */
    if (!etl_guid_is_zero(&info->event_guid) || info->source == ETL_SOURCE_TMF) return 1;
    const etl_event_info *known = etl_schema_registry_find(exported, ETL_KEY_MANIFEST, &info->provider_guid,
                                                           info->descriptor.id, info->descriptor.version);
    if (known && known->descriptor.id == info->descriptor.id && known->descriptor.version == info->descriptor.version)
        return 0; /* a manifest keeps one description per (provider, id, version): the first */
    etl_event_info copy = *info;
    /* The decoder shows a TraceLogging event's name as its task (tracerpt's RenderingInfo/Task); a manifest
     * event gets it only from a task, and a manifest names each task value once, so each such event gets
     * its own task value (id + 1: TraceLogging records carry task 0, which is not looked at on decoding). */
    if (info->source == ETL_SOURCE_TRACELOGGING && !info->task_name && info->event_name && !info->descriptor.task &&
        info->descriptor.id < UINT16_MAX) {
        copy.task_name = info->event_name;
        copy.descriptor.task = (uint16_t)(info->descriptor.id + 1);
    }
    return etl_schema_registry_add(exported, &copy, ETL_KEY_MANIFEST) == ETL_OK ? 0 : -1;
}
