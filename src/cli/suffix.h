/* File-name suffixes that choose an output's compression or format, matched as Windows users type them:
 * "-o out.XML.GZ" is gzip as much as "out.xml.gz". */
#ifndef ETLCONV_SUFFIX_H
#define ETLCONV_SUFFIX_H

#include <string.h>
#include <strings.h>

static inline int etlconv_has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

#endif
