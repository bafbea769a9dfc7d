/* Record headers (etl-format.md §2): the parser lives in reader/record_parse.h (inline for the reader's
 * hot loop); here its callable form and the SID item lookup. */
#include "reader/record.h"

#include "reader/record_parse.h"
#include "reader/trace_internal.h"

#include <stdio.h>

etl_record_result etl_record_parse(const uint8_t *payload, size_t end, size_t off, uint8_t file_pointer_size,
                                   etl_event_record *rec, etl_extended_item *items, size_t max_items,
                                   size_t *advance, int *has_timestamp, const char **why)
{
    return etl_record_parse_inline(payload, end, off, file_pointer_size, rec, items, max_items, advance,
                                   has_timestamp, why);
}

const uint8_t *etl_record_sid(const etl_event_record *r, size_t *size)
{
    for (uint16_t i = 0; r->extended_data && i < r->extended_data_count; i++) {
        const etl_extended_item *x = &r->extended_data[i];
        if (x->ext_type != ETL_EXT_SID || !x->data || x->data_size < 8) continue;
        size_t n = 8 + 4 * (size_t)x->data[1];
        if (x->data[1] > 15 || x->data_size < n) return NULL;
        *size = n;
        return x->data;
    }
    return NULL;
}

uint64_t etl_record_file_position(const etl_event_record *r)
{
    return r->buffer_compressed ? r->file_offset : r->file_offset + ETL_BUFFER_HEADER_SIZE + r->record_offset;
}

int etl_record_position_text(const etl_event_record *r, char *out, size_t size)
{
    unsigned long long at = etl_record_file_position(r);
    if (r->buffer_compressed)
        return snprintf(out, size, "offset 0x%llx (compressed buffer, record 0x%x bytes into its decompressed records)",
                        at, (unsigned)r->record_offset);
    return snprintf(out, size, "offset 0x%llx", at);
}
