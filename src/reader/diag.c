/* One-line error texts that always name the file and, where it applies, the byte offset. */
#include "reader/diag.h"

#include <stdio.h>

int etl_error_set(etl_error *err, int code, const char *path, uint64_t offset, const char *fmt, ...)
{
    if (!err) return code;
    err->code = code;
    err->offset = offset;
    int n;
    if (offset == UINT64_MAX) n = snprintf(err->message, sizeof err->message, "%s: ", path);
    else n = snprintf(err->message, sizeof err->message, "%s: offset 0x%llx: ", path, (unsigned long long)offset);
    if (n < 0) n = 0;
    if ((size_t)n < sizeof err->message) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message + n, sizeof err->message - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return code;
}

const char *etl_status_name(int code)
{
    switch (code) {
    case ETL_OK: return "ok";
    case ETL_ERR_ARG: return "invalid argument";
    case ETL_ERR_IO: return "I/O error";
    case ETL_ERR_NOMEM: return "out of memory";
    case ETL_ERR_EMPTY: return "empty file";
    case ETL_ERR_FORMAT: return "not a valid ETL structure";
    case ETL_ERR_TRUNCATED: return "truncated";
    case ETL_ERR_DECOMPRESS: return "decompression failed";
    case ETL_ERR_SCHEMA: return "schema error";
    case ETL_STOPPED: return "stopped by callback";
    default: return "unknown error";
    }
}

const char *etl_header_kind_name(etl_header_kind kind)
{
    static const char *const names[ETL_KIND_COUNT] = {
        "SYSTEM32", "SYSTEM64", "COMPACT32", "COMPACT64", "PERFINFO32", "PERFINFO64", "FULL32",
        "FULL64", "INSTANCE32", "INSTANCE64", "EVENT32", "EVENT64", "MESSAGE(WPP)", "ERROR"};
    return (unsigned)kind < ETL_KIND_COUNT ? names[kind] : "UNKNOWN";
}
