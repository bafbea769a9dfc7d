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

etl_record_place etl_record_place_of(const etl_event_record *r)
{
    return (etl_record_place){r->file_offset, r->file_index, r->record_offset, r->buffer_compressed};
}

uint64_t etl_record_place_offset(const etl_record_place *at)
{
    return at->buffer_compressed ? at->file_offset : at->file_offset + ETL_BUFFER_HEADER_SIZE + at->record_offset;
}

int etl_record_place_text(const etl_record_place *at, char *out, size_t size)
{
    unsigned long long offset = etl_record_place_offset(at);
    if (at->buffer_compressed)
        return snprintf(out, size, "offset 0x%llx (compressed buffer, record 0x%x bytes into its decompressed records)",
                        offset, (unsigned)at->record_offset);
    return snprintf(out, size, "offset 0x%llx", offset);
}
