/* Reading a decoded event's top-level fields by name, the way TdhGetProperty does, back into numbers and
 * bytes: the extractor works from what any schema source decoded, so it needs no layout of its own. */
#ifndef ETL_NET_EVENT_FIELDS_H
#define ETL_NET_EVENT_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl_schema.h"

/* The top-level value field called `name`, NULL when absent. */
const etl_field *net_field(const etl_decoded_event *ev, const char *name);

/* Integer value: decimal or 0x-hex text, or a value-map name turned back into its number. 0 on success. */
int net_field_u64(const etl_decoded_event *ev, const char *name, uint64_t *out);

/* Binary value rendered as "0x" + hex (or "" when empty) into `dst` (at most `cap` bytes); returns the
 * byte count, or -1 when absent, not hex, or too long. */
long net_field_bytes(const etl_decoded_event *ev, const char *name, uint8_t *dst, size_t cap);

/* Text value ("" when absent). */
const char *net_field_text(const etl_decoded_event *ev, const char *name);

#endif
