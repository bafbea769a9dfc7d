/* Inputs that can be read only once — "-" (stdin), a FIFO, /dev/stdin, a character device — are copied once
 * into a temporary file in $TMPDIR (64 KiB at a time: memory stays bounded; the copy is on disk), so the
 * process-name pass and the time-ordered merge read a regular file, as with .gz inputs. The copies are
 * removed at exit and on SIGINT/SIGTERM/SIGHUP/SIGPIPE. */
#ifndef ETLCONV_SPOOL_H
#define ETLCONV_SPOOL_H

#include "options.h"

/* Replaces such entries of o->inputs by their copies. Returns 0, or ETLCONV_EXIT_FAILURE after a one-line
 * error naming the input (unreadable, disk full, stdin named twice). */
int etlconv_spool_inputs(etlconv_options *o);
/* The name the user gave for `path` ("-" for stdin) if it is a copy, else path itself. */
const char *etlconv_spool_display_name(const char *path);
/* Removes the copies (async-signal-safe: only unlink). */
void etlconv_spool_cleanup(void);
/* Removes the copies and frees their names. */
void etlconv_spool_release(void);

#endif
