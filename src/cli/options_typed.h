/* Options of the typed outputs (issue 15): --json-bigint, --split, --split-max-open, --style. */
#ifndef ETLCONV_OPTIONS_TYPED_H
#define ETLCONV_OPTIONS_TYPED_H

#include "options.h"

/* When argv[*i] is one of these options, consumes it (and its value) and returns 1; *status is then 0 or
 * ETLCONV_EXIT_FAILURE after a one-line error. Returns 0 for any other argument. */
int etlconv_parse_typed_option(int argc, char **argv, int *i, etlconv_options *o, int *status);

/* After all options: picks the split or ECS writer for the chosen format and refuses combinations that
 * cannot work. Returns 0 or ETLCONV_EXIT_FAILURE after a one-line error. */
int etlconv_finish_typed_options(etlconv_options *o);

#endif
