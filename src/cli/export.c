/* -export (see export.h): collect the descriptions events were decoded with; the library writes the
 * manifest, this file gives it a safe output file. */
#include "export.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output.h"

int etlconv_export_collect(etl_schema_registry *exported, const etl_event_info *info)
{
    if (!info || info->source == ETL_SOURCE_KERNEL_MOF) return 0;  /* built in: nothing to export */
    /* classic layouts are keyed by event-class GUID: no manifest form (manifest_export.c skips them too) */
    if (!etl_guid_is_zero(&info->event_guid) || info->source == ETL_SOURCE_TMF) return 1;
    const etl_event_info *known = etl_schema_registry_find(exported, ETL_KEY_MANIFEST, &info->provider_guid,
                                                           info->descriptor.id, info->descriptor.version);
    if (known && known->descriptor.id == info->descriptor.id && known->descriptor.version == info->descriptor.version)
        return 0;  /* the manifest keeps one description per (provider, id, version): the first */
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

int etlconv_export_schemas(const etl_schema_registry *exported, const char *path, int overwrite)
{
    etlconv_output *out = etlconv_output_open(path, overwrite);
    if (!out) return -1;
    FILE *stream = etlconv_output_stream(out);
    if (!stream) {
        fprintf(stderr, "etlconv: %s: -export writes a plain manifest; drop the .gz\n", path);
        etlconv_output_abort(out);
        return -1;
    }
    etl_error err;
    memset(&err, 0, sizeof err);
    int rc = etl_schema_export_manifest(exported, NULL, 0, stream, &err);
    if (rc != ETL_OK) {
        fprintf(stderr, "etlconv: %s: %s\n", path, err.message[0] ? err.message : etl_status_name(rc));
        etlconv_output_abort(out);
        return -1;
    }
    return etlconv_output_commit(out);
}
