/* Schema sources chosen on the command line: the bundled manifests and the user's -import paths, parsed once
 * per run into the base registry every conversion of the run shares. */
#include <stdio.h>
#include <string.h>

#include "convert.h"
#include "options_wpp.h"
#include "schema/sources.h"

int etlconv_load_schemas(const etlconv_options *opt, etl_schema_registry *registry)
{
    etl_error err;
    int status = ETLCONV_EXIT_OK;
    if (!opt->no_bundled) {
        memset(&err, 0, sizeof err);
        if (etl_schema_load_bundled(registry, &err) != ETL_OK && !opt->quiet)
            fprintf(stderr, "etlconv: warning: bundled schemas: %s\n", err.message);
    }
    for (size_t i = 0; i < opt->import_count; i++) {
        memset(&err, 0, sizeof err);
        etl_schema_load_stats stats;
        int rc = etl_schema_load_path_stats(registry, opt->imports[i], ETL_SOURCE_USER_MANIFEST, &err, &stats);
        unsigned loaded = stats.loaded;
        /* a folder of Windows binaries skips most files: say how many, so that nothing is dropped silently */
        if (!opt->quiet && (stats.without_manifest || stats.not_pe || stats.not_manifest))
            fprintf(stderr, "etlconv: %s: %u files loaded, %u refused; skipped %u binaries without WEVT_TEMPLATE, "
                    "%u non-PE files named like binaries and %u XML files that are no event schema\n",
                    opt->imports[i], stats.loaded, stats.failed, stats.without_manifest, stats.not_pe,
                    stats.not_manifest);
        if (rc == ETL_OK && loaded == 0) {
            /* a folder without a single schema: converting as if it had been used would only mislead */
            fprintf(stderr, "etlconv: %s: no instrumentation manifest or binary with a WEVT_TEMPLATE found\n",
                    opt->imports[i]);
            return ETLCONV_EXIT_FAILURE;
        }
        if (rc == ETL_OK) continue;
        const char *what = err.message[0] ? err.message : etl_status_name(rc);
        if (loaded == 0) {
            /* nothing of what the user named could be used: converting without it would only mislead */
            if (err.message[0])
                fprintf(stderr, "etlconv: %s\n", what);
            else
                fprintf(stderr, "etlconv: %s: cannot load schema: %s\n", opt->imports[i], what);
            return ETLCONV_EXIT_FAILURE;
        }
        /* a refused provider, template or file leaves the rest usable: convert, and say what is missing */
        if (!opt->quiet)
            fprintf(stderr, "etlconv: warning: %s (the rest of %s was loaded)\n", what, opt->imports[i]);
        status = ETLCONV_EXIT_WARNINGS;
    }
    int wpp = etlconv_wpp_load(opt, registry);  /* -tmf/-tp/-pdb/-i, TRACE_FORMAT_SEARCH_PATH */
    return wpp > status ? wpp : status;
}

int etlconv_load_base_schemas(const etlconv_options *opt, etl_schema_registry *base)
{
    int status = etlconv_load_schemas(opt, base);
    if (status == ETLCONV_EXIT_FAILURE) return status;
    /* every decoder registers the kernel tables; in the base, once, they are found there by the overlays */
    if (etl_kernel_mof_register(base) != ETL_OK || etl_schema_registry_share(base) != ETL_OK) {
        fprintf(stderr, "etlconv: out of memory\n");
        return ETLCONV_EXIT_FAILURE;
    }
    return status;
}
