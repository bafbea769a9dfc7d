/* Little-endian readers for file bytes. Callers bounds-check before calling. */
#ifndef ETL_UTIL_LE_H
#define ETL_UTIL_LE_H

#include <stdint.h>
#include <string.h>

static inline uint16_t etl_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t etl_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t etl_le64(const uint8_t *p) { return (uint64_t)etl_le32(p) | (uint64_t)etl_le32(p + 4) << 32; }
static inline int64_t etl_les64(const uint8_t *p) { return (int64_t)etl_le64(p); }

#endif
