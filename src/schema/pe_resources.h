/* Minimal PE32/PE32+ resource reader (schemas.md §2.10): enough to find WEVT_TEMPLATE and
 * RT_MESSAGETABLE. Works on an in-memory copy of the file; everything is bounds-checked. */
#ifndef ETL_SCHEMA_PE_RESOURCES_H
#define ETL_SCHEMA_PE_RESOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl.h"

typedef struct etl_pe_image {
    const uint8_t *data;
    size_t size;
    const char *origin;
    size_t section_table;      /* file offset of the section table */
    uint16_t section_count;
    size_t rsrc_offset;        /* file offset of the resource directory root */
    size_t rsrc_limit;         /* end (exclusive file offset) of the bytes the resource tree may use */
} etl_pe_image;

#define ETL_RT_MESSAGETABLE 11u

/* ETL_OK, or ETL_ERR_FORMAT/TRUNCATED with err naming the file and offset. A PE without a resource
 * directory opens fine (rsrc_offset = 0) and has no resources. */
int etl_pe_open(etl_pe_image *pe, const uint8_t *data, size_t size, const char *origin, etl_error *err);

/* Finds type (a name like "WEVT_TEMPLATE" when type_name != NULL, else numeric type_id) → name id 1 (else
 * the first numeric name) → language (0x409, another English, 0, the first). Returns ETL_OK and the
 * bytes, 1 when the resource is absent, or an error when the directory is malformed. */
int etl_pe_find_resource(const etl_pe_image *pe, const char *type_name, uint32_t type_id, const uint8_t **data,
                         size_t *size, etl_error *err);

#endif
