/* One conversion: open the inputs as one trace, learn process names in a first pass, decode every record,
 * filter, hand events to the writers. */
#ifndef ETLCONV_CONVERT_H
#define ETLCONV_CONVERT_H

#include "options.h"

typedef struct etlconv_job {
    const char *const *inputs;
    size_t input_count;
    const char *output;          /* main writer output: NULL = stdout */
    int write_main;              /* 0: only the summary is produced */
    const char *summary_output;  /* NULL: no summary; "-": stdout */
    etl_schema_registry *export_to; /* -export: every description an event was decoded with goes here */
    const char *report_output;      /* -report FILE, or NULL */
    const char *interpreted_output; /* -int FILE, or NULL */
    struct etl_worker_pool **workers; /* --each: the -j threads kept from one file to the next (created by the
                                       * first parallel conversion); NULL: each conversion starts its own */
} etlconv_job;

/* Returns an ETLCONV_EXIT_* status; errors are printed as one line each. */
int etlconv_convert(const etlconv_options *opt, etl_schema_registry *registry, const etlconv_job *job);

/* Bundled manifests (unless --no-bundled-schemas) and -import files into the registry. Returns 0;
 * ETLCONV_EXIT_WARNINGS when a path loaded only in part (warning printed: the conversion goes on); or
 * ETLCONV_EXIT_FAILURE after printing an error naming the file when nothing of a path could be loaded. */
int etlconv_load_schemas(const etlconv_options *opt, etl_schema_registry *registry);

/* The run's base registry: etlconv_load_schemas, the kernel MOF tables, then shared (read-only, safe from
 * several threads). Every conversion of the run (-j workers, --each files) reads it through an overlay of its
 * own (etl_schema_registry_new_overlay) that keeps what its trace teaches. Same statuses as above. */
int etlconv_load_base_schemas(const etlconv_options *opt, etl_schema_registry *base);

#endif
