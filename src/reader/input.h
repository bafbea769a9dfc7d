/* Random-access input over a trace file. A gzip-compressed file (.etl.gz) is inflated once into an unnamed
 * temporary file, so memory stays bounded whatever the file size. Regular files (and those temporary files) are
 * also mapped, so buffers are read in place without a copy (etl_input_view); the pages go back
 * every 4 MiB read (etl_input_release over the whole file, reader/stream.c: by the reader, or at -j by a worker
 * outside the reader's turn), so the resident set stays small
 * whatever the file size. Where mapping fails, pread (etl_input_read) does the same work. */
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
    const uint8_t *map;  /* the whole file, read-only; NULL when not mapped */
} etl_input;

int etl_input_open(etl_input *in, const char *path, etl_error *err);
/* Reads exactly `len` bytes at `offset`; ETL_ERR_TRUNCATED when the file ends first, ETL_ERR_IO on failure. */
int etl_input_read(const etl_input *in, uint64_t offset, void *dst, size_t len);
/* [offset, offset + len) in place, or NULL when the input is not mapped or the range is not (or no longer: a
 * file truncated meanwhile) in the file; then read it with etl_input_read. */
const uint8_t *etl_input_view(const etl_input *in, uint64_t offset, size_t len);
/* Done with a viewed range for now: its whole pages leave the resident set (the page cache keeps them; a
 * later view reads them again). */
void etl_input_release(const etl_input *in, uint64_t offset, size_t len);
void etl_input_close(etl_input *in);

#endif
