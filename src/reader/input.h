/* Random-access input over a trace file. A gzip-compressed file (.etl.gz) is inflated once into an unnamed
 * temporary file, so memory stays bounded whatever the file size. */
#ifndef ETL_READER_INPUT_H
#define ETL_READER_INPUT_H

#include <stdint.h>
#include <stdio.h>

#include "etl/etl.h"

typedef struct etl_input {
    int fd;
    FILE *temp;          /* inflated copy of a gzip input, NULL otherwise */
    uint64_t size;
    int was_gzip;
} etl_input;

int etl_input_open(etl_input *in, const char *path, etl_error *err);
/* Reads exactly `len` bytes at `offset`; ETL_ERR_TRUNCATED when the file ends first, ETL_ERR_IO on failure. */
int etl_input_read(const etl_input *in, uint64_t offset, void *dst, size_t len);
void etl_input_close(etl_input *in);

#endif
