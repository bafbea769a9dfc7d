/* Options of issue 13: --stable and --mask for every conversion, and those of `etlconv diff`. */
#ifndef ETLCONV_OPTIONS_DIFF_H
#define ETLCONV_OPTIONS_DIFF_H

#include "options.h"

/* When argv[*i] is one of these options, consumes it (and its value) and returns 1; o->diff.failed is set
 * after a one-line error. Returns 0 for other options. */
int etlconv_diff_option(int argc, char **argv, int *i, etlconv_options *o);
void etlconv_diff_options_free(etlconv_options *o);

/* The words that reproduce the stable output's options (--stable, --mask, filters), escaped for a baseline
 * header (space → \x20, backslash → \\). Returns a malloc'd string, NULL when out of memory. */
char *etlconv_stable_options_text(const etlconv_options *o);
/* Splits such a text back into words (in place); returns the count stored in words[] (at most max). */
size_t etlconv_stable_options_split(char *text, char **words, size_t max);

#endif
