/* Schema sources chosen on the command line: the bundled manifests and the user's -import paths. */
#include <stdio.h>
#include <string.h>

#include "convert.h"

int etlconv_load_schemas(const etlconv_options *opt, etl_schema_registry *registry)
{
    etl_error err;
    if (!opt->no_bundled) {
        memset(&err, 0, sizeof err);
        if (etl_schema_load_bundled(registry, &err) != ETL_OK && !opt->quiet)
            fprintf(stderr, "etlconv: warning: bundled schemas: %s\n", err.message);
    }
    for (size_t i = 0; i < opt->import_count; i++) {
        memset(&err, 0, sizeof err);
        int rc = etl_schema_load_path(registry, opt->imports[i], ETL_SOURCE_USER_MANIFEST, &err);
        if (rc != ETL_OK) {
            if (err.message[0])
                fprintf(stderr, "etlconv: %s\n", err.message);
            else
                fprintf(stderr, "etlconv: %s: cannot load schema: %s\n", opt->imports[i], etl_status_name(rc));
            return ETLCONV_EXIT_FAILURE;
        }
    }
    return 0;
}
