/* Text that XML 1.0 can carry: event data and schema names are untrusted and may hold control characters
 * or malformed UTF-8, which no XML parser would read back. */
#ifndef ETL_UTIL_XML_TEXT_H
#define ETL_UTIL_XML_TEXT_H

#include <stdint.h>

#include "util/textbuf.h"

/* The Char production of XML 1.0: TAB, LF, CR, U+0020..U+D7FF, U+E000..U+FFFD, U+10000..U+10FFFF. */
int etl_xml_char_allowed(uint32_t cp);

/* 1 when text is valid UTF-8 made only of allowed characters (the common case: use it as is). */
int etl_xml_text_is_clean(const char *text);

/* Appends text to out with malformed UTF-8 and characters XML cannot carry replaced by U+FFFD. */
void etl_xml_text_clean(etl_textbuf *out, const char *text);

#endif
