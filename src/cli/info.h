/* `etlconv --info FILE...`: machine-readable key<TAB>value facts about a trace (header fields and counts). */
#ifndef ETLCONV_INFO_H
#define ETLCONV_INFO_H

#include <stdio.h>

/* Returns the process exit status: 0 success, 1 read with errors, 2 could not open. Errors go to stderr. */
int etlconv_info(int file_count, char **files, FILE *out);

#endif
