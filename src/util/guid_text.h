/* A GUID's 38 characters, "{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}", without printf: the writers put one or two
 * in every line, and the decoder names every event of a provider without a name by its GUID. */
#ifndef ETL_UTIL_GUID_TEXT_H
#define ETL_UTIL_GUID_TEXT_H

#include "etl/etl.h"

/* Writes the 38 characters at p (no NUL; upper: A-F) and returns p + 38. An all-zero GUID (most activity ids)
 * is one copy. */
char *etl_guid_text(const etl_guid *g, char *p, int upper);

#endif
