/* Output files: written to an unnamed file (O_TMPFILE) or a hidden temporary file in the same directory and
 * named only when complete and the run succeeded, so a failed or interrupted run never leaves a half file;
 * refuses to replace an existing file unless asked to. A name ending in ".gz" is compressed with zlib. */
#ifndef ETLCONV_OUTPUT_H
#define ETLCONV_OUTPUT_H

#include "etl/etl_writer.h"

typedef struct etlconv_output etlconv_output;

/* path NULL or "-": stdout. Returns NULL after printing a one-line error. */
etlconv_output *etlconv_output_open(const char *path, int overwrite);
const etl_sink *etlconv_output_sink(etlconv_output *out);
/* The stdio stream behind an uncompressed output (for APIs that take a FILE*), NULL for ".gz". */
FILE *etlconv_output_stream(etlconv_output *out);
/* Finishes the file (flush, close, fsync). Returns 0, or -1 after printing an error (the file is dropped).
 * A file output then waits, complete but unnamed, for etlconv_outputs_publish (the run succeeded) or
 * etlconv_outputs_discard (it failed): exit 2 never leaves a complete output behind. */
int etlconv_output_commit(etlconv_output *out);
/* Names every committed file (link, or rename with -y). 0, or -1 after printing an error. */
int etlconv_outputs_publish(void);
/* Drops every committed file. */
void etlconv_outputs_discard(void);
/* Drops the output (removes the temporary file). */
void etlconv_output_abort(etlconv_output *out);

/* Removes every temporary file still open (for signal handlers: async-signal-safe). */
void etlconv_output_cleanup_on_signal(void);

#endif
