/* WPP options (-tmf, -tp, -pdb, -i) and the loading of what they name. */
#ifndef ETLCONV_OPTIONS_WPP_H
#define ETLCONV_OPTIONS_WPP_H

#include "options.h"

/* Records one -tmf/-tp/-pdb/-i value; 0, or -1 when out of memory. */
int etlconv_wpp_option(etlconv_options *o, const char *option, const char *value);
void etlconv_wpp_free_options(etlconv_options *o);

/* Loads $TRACE_FORMAT_SEARCH_PATH, then every -tmf/-tp, -pdb and -i path into the registry's TMF store.
 * Returns 0; ETLCONV_EXIT_WARNINGS when something was refused (warning printed, the rest is used); or
 * ETLCONV_EXIT_FAILURE when a path given on the command line gave no statement at all (error printed). */
int etlconv_wpp_load(const etlconv_options *o, etl_schema_registry *registry);

#endif
