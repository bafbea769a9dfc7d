/* -export FILE: the event schemas the registry holds, written as an instrumentation manifest that
 * -import (here or on Windows) can read back. */
#ifndef ETLCONV_EXPORT_H
#define ETLCONV_EXPORT_H

#include "etl/etl_schema.h"

/* Returns 0, or -1 after printing a one-line error. Written atomically like every output. */
int etlconv_export_schemas(const etl_schema_registry *registry, const char *path, int overwrite);

#endif
