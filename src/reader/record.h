/* Parsing one record of a (decompressed) buffer into an EVENT_RECORD-shaped etl_event_record. */
#ifndef ETL_READER_RECORD_H
#define ETL_READER_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl.h"

typedef enum etl_record_result {
    ETL_RECORD_OK = 1,
    ETL_RECORD_END = 0,     /* 0xFFFFFFFF filler or no room for another marker: the buffer is done */
    ETL_RECORD_BAD = -1     /* corrupt or unknown: stop walking this buffer */
} etl_record_result;

/* Parses the record at payload[off] (payload has `end` valid bytes). On ETL_RECORD_OK fills *rec (its
 * extended items go to items[0..max_items)) and *advance (aligned size to the next record). On
 * ETL_RECORD_BAD sets *why. `has_timestamp` is cleared for WPP messages logged without one. */
etl_record_result etl_record_parse(const uint8_t *payload, size_t end, size_t off, uint8_t file_pointer_size,
                                   etl_event_record *rec, etl_extended_item *items, size_t max_items,
                                   size_t *advance, int *has_timestamp, const char **why);

/* Kernel group byte (+ type) → event-class GUID; -1 for an unknown group. */
int etl_kernel_group_guid(uint8_t group, uint8_t type, etl_guid *out);

#endif
