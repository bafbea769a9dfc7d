/* Shared by output.c (writing) and output_publish.c (naming the finished files). */
#ifndef ETLCONV_OUTPUT_INTERNAL_H
#define ETLCONV_OUTPUT_INTERNAL_H

#include <stdio.h>

#include <zlib.h>

#include "output.h"

struct etlconv_output {
    char *path;        /* final name; NULL for stdout */
    char *temp_path;   /* hidden temporary name, when no unnamed file could be made */
    int unnamed_fd;    /* the O_TMPFILE file, kept open until it is named; -1 otherwise */
    FILE *file;        /* plain output (stdout or the temporary file) */
    gzFile gz;         /* compressed output */
    int overwrite;
    int write_failed;
    etl_sink sink;
    struct etlconv_output *next_pending;
};

/* Adds or removes a temporary name from those the signal handler removes. */
void etlconv_output_track(const char *temp, int add);
/* Frees o (closes its unnamed file: the file vanishes). */
void etlconv_output_release(etlconv_output *o);
/* Keeps a complete file until etlconv_outputs_publish / etlconv_outputs_discard. Returns 0. */
int etlconv_output_pending(etlconv_output *o);

#endif
