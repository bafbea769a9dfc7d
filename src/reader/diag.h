/* Error and diagnostic formatting shared by the reader. */
#ifndef ETL_READER_DIAG_H
#define ETL_READER_DIAG_H

#include <stdarg.h>

#include "etl/etl.h"

/* Fills *err (when not NULL) with "PATH: offset 0xOFF: message" and returns `code`. */
int etl_error_set(etl_error *err, int code, const char *path, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
