/* A hand-built EVENT_HEADER-style record for decoding tests of manifest-described events. */
#ifndef TESTS_SUPPORT_SYNTHETIC_RECORD_H
#define TESTS_SUPPORT_SYNTHETIC_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl.h"

/* 64-bit record of provider `guid` (text form) with the given descriptor fields, PID 1, TID 2, and `payload`
 * as user data (kept by pointer). Returns 0, or -1 when the GUID text does not parse. */
int synthetic_record(etl_event_record *rec, const char *guid, uint16_t id, uint8_t version, uint8_t level,
                     uint8_t opcode, const uint8_t *payload, size_t length);

#endif
