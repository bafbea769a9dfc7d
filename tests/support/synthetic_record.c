/* See synthetic_record.h. */
#include "support/synthetic_record.h"

#include <string.h>

int synthetic_record(etl_event_record *rec, const char *guid, uint16_t id, uint8_t version, uint8_t level,
                     uint8_t opcode, const uint8_t *payload, size_t length)
{
    memset(rec, 0, sizeof(*rec));
    if (etl_guid_parse(guid, &rec->header.provider_id) != 0) return -1;
    rec->header.descriptor.id = id;
    rec->header.descriptor.version = version;
    rec->header.descriptor.level = level;
    rec->header.descriptor.opcode = opcode;
    rec->header.process_id = 1;
    rec->header.thread_id = 2;
    rec->kind = ETL_KIND_EVENT64;
    rec->pointer_size = 8;
    rec->kernel_group = 0xFFFF;
    rec->user_data = payload;
    rec->user_data_length = (uint16_t)(length > UINT16_MAX ? UINT16_MAX : length);
    return 0;
}
