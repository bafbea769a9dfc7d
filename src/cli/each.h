/* --each: one output per input under -o DIR. Names: DIR/NAME.EXT (NAME = the input's base name without
 * .gz/.etl); when two inputs share a base name (every pktmon trace is PktMon.etl) each of them mirrors its
 * folder under DIR (a/PktMon.etl → DIR/a/PktMon.xml; "/", "." and ".." components dropped), and inputs still
 * alike after that get "~2", "~3"... in command-line order. Every input is converted as if alone (its own
 * overlay over the run's base registry, see etlconv_load_base_schemas); --jobs N converts N at once in worker
 * processes. */
#ifndef ETLCONV_EACH_H
#define ETLCONV_EACH_H

#include "options.h"

/* DIR/[folders/]NAME[~N] without extension; NULL when out of memory. */
char *etlconv_each_stem(const etlconv_options *opt, size_t index);
/* `base`: the run's schemas (etlconv_load_base_schemas), `schema_status` what loading them returned. */
int etlconv_run_each(const etlconv_options *opt, const etl_schema_registry *base, int schema_status,
                     etl_schema_registry *exported);

#endif
