/* Text conversion helpers shared by the reader and the decoder. */
#ifndef ETL_UTIL_UTF_H
#define ETL_UTIL_UTF_H

#include <stddef.h>
#include <stdint.h>

/* Converts up to `units` UTF-16LE code units (stopping at a NUL unit) to NUL-terminated UTF-8 in dst
 * (cap > 0). Unpaired surrogates become U+FFFD. Output is truncated at a character boundary when dst is too
 * small. Returns the number of code units consumed, including the terminating NUL when one was found. */
size_t etl_utf16le_to_utf8(const uint8_t *src, size_t units, char *dst, size_t cap);

/* Decodes one UTF-8 sequence of s[0..length) (length >= 1) into *cp; malformed, overlong, surrogate or
 * truncated sequences give U+FFFD. Returns the bytes consumed (at least 1; only the valid prefix of a
 * truncated sequence). */
size_t etl_utf8_decode(const unsigned char *s, size_t length, uint32_t *cp);

/* Writes cp (<= 0x10FFFF) as UTF-8 into out; returns the byte count (1..4). */
size_t etl_utf8_encode(uint32_t cp, char out[4]);

#endif
