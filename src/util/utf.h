/* Text conversion helpers shared by the reader and the decoder. */
#ifndef ETL_UTIL_UTF_H
#define ETL_UTIL_UTF_H

#include <stddef.h>
#include <stdint.h>

/* Converts up to `units` UTF-16LE code units (stopping at a NUL unit) to NUL-terminated UTF-8 in dst
 * (cap > 0). Unpaired surrogates become U+FFFD. Output is truncated at a character boundary when dst is too
 * small. Returns the number of code units consumed, including the terminating NUL when one was found. */
size_t etl_utf16le_to_utf8(const uint8_t *src, size_t units, char *dst, size_t cap);

#endif
