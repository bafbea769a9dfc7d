/* tracerpt's remaining options (-report, -f, -rl, -df, -int, -config, -rt, -export's default), the
 * tracerpt-compatible mode, and the checks that make a command line either mean something or fail. */
#ifndef ETLCONV_OPTIONS_TRACERPT_H
#define ETLCONV_OPTIONS_TRACERPT_H

#include <stdio.h>

#include "options.h"

/* Before parsing: the tracerpt mode when argv[0] is "tracerpt"/"tracerpt.exe" (or --tracerpt appears), and
 * every "-config FILE" replaced by the words of FILE. May replace *argv (freed by etlconv_tracerpt_release).
 * Returns 0, or ETLCONV_EXIT_FAILURE after a one-line error. */
int etlconv_tracerpt_prepare(int *argc, char ***argv);
void etlconv_tracerpt_release(void);
int etlconv_tracerpt_mode(void);

/* 1 when `arg` is one of the options parsed by etlconv_tracerpt_option. */
int etlconv_tracerpt_option_name(const char *arg);
/* Parses argv[*i] (and its value words). Returns 0, or ETLCONV_EXIT_FAILURE after a one-line error. */
int etlconv_tracerpt_option(int argc, char **argv, int *i, etlconv_options *o);

/* The value word after an option whose value tracerpt makes optional (-o, -export, -report, -summary):
 * NULL when absent (end of line, an input trace, or, in tracerpt mode, another option); a usage error
 * (returns -1 after printing it) when another option follows in etlconv mode: nothing is swallowed. */
int etlconv_optional_value(int argc, char **argv, int *i, const char **value);
/* The required value of `name`: another option in its place is a usage error naming both. */
int etlconv_required_value(int argc, char **argv, int *i, const char *name, const char **value);

/* After parsing: tracerpt's default file names, compressed output, filter sanity (--event > 65535, --from
 * after --to, malformed GUIDs). Returns 0 or ETLCONV_EXIT_FAILURE after a one-line error. */
int etlconv_tracerpt_finish(etlconv_options *o);

/* tracerpt's closing console line, in tracerpt mode only. */
void etlconv_tracerpt_done(const etlconv_options *o, int status);

#endif
