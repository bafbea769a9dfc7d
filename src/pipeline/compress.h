/* Compressed output streams (issue 14): gzip or zstd written to a file descriptor, optionally on worker
 * threads. gzip output is a series of gzip members of COMPRESS_BLOCK bytes of input each (RFC 1952 allows
 * several members; gzip -d, zcat and zlib's gzread read them as one stream), so blocks compress in
 * parallel and memory stays at about 2 x threads x block. zstd uses libzstd's own worker threads. */
#ifndef ETL_PIPELINE_COMPRESS_H
#define ETL_PIPELINE_COMPRESS_H

#include <stddef.h>

typedef enum etl_compression {
    ETL_COMPRESS_GZIP = 1,
    ETL_COMPRESS_ZSTD = 2
} etl_compression;

/* Fast defaults: output is produced at conversion speed (gzip 1, zstd 1). */
#define ETL_GZIP_DEFAULT_LEVEL 1
#define ETL_ZSTD_DEFAULT_LEVEL 1
#define ETL_GZIP_MAX_LEVEL 12  /* libdeflate's levels (zlib's stop at 9) */

typedef struct etl_compressor etl_compressor;

/* level 0 = the default; threads <= 1 = compress in the caller's thread (also when no thread can start).
 * NULL when memory is short or the level is not the kind's (errno EINVAL: gzip above ETL_GZIP_MAX_LEVEL). The
 * descriptor stays open (the caller closes it). */
etl_compressor *etl_compressor_new(etl_compression kind, int level, int threads, int fd);
/* 0, or -1 with errno set (write error, or EIO for a compression failure); later calls fail again. */
int etl_compressor_write(etl_compressor *c, const void *data, size_t length);
/* Compresses what is left and writes the end of the stream; 0 or -1 with errno. */
int etl_compressor_finish(etl_compressor *c);
/* Stops the workers and frees everything (after finish, or to give up). */
void etl_compressor_free(etl_compressor *c);

#endif
