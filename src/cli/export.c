/* -export (see export.h): the library collects the descriptions events were decoded with
 * (etl_schema_export_collect) and writes the manifest; this file gives it a safe output file. */
#include "export.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output.h"

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
