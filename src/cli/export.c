/* -export (see export.h): the library writes the manifest; this file only gives it a safe output file. */
#include "export.h"

#include <stdio.h>
#include <string.h>

#include "output.h"

int etlconv_export_schemas(const etl_schema_registry *registry, const char *path, int overwrite)
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
    int rc = etl_schema_export_manifest(registry, NULL, 0, stream, &err);
    if (rc != ETL_OK) {
        fprintf(stderr, "etlconv: %s: %s\n", path, err.message[0] ? err.message : etl_status_name(rc));
        etlconv_output_abort(out);
        return -1;
    }
    return etlconv_output_commit(out);
}
