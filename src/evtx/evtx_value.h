/* BinXml substitution values (MS-EVEN6 value types) for EVTX output: which type a decoded field becomes,
 * and its little-endian bytes. */
#ifndef ETL_EVTX_VALUE_H
#define ETL_EVTX_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl_schema.h"
#include "util/textbuf.h"

/* Value types (libevtx documentation "Value types"; MS-EVEN6 2.2.12). */
enum {
    EVTX_NULL = 0x00, EVTX_STRING = 0x01, EVTX_INT8 = 0x03, EVTX_UINT8 = 0x04, EVTX_INT16 = 0x05,
    EVTX_UINT16 = 0x06, EVTX_INT32 = 0x07, EVTX_UINT32 = 0x08, EVTX_INT64 = 0x09, EVTX_UINT64 = 0x0a,
    EVTX_REAL32 = 0x0b, EVTX_REAL64 = 0x0c, EVTX_BOOL = 0x0d, EVTX_BINARY = 0x0e, EVTX_GUID = 0x0f,
    EVTX_FILETIME = 0x11, EVTX_SYSTEMTIME = 0x12, EVTX_SID = 0x13, EVTX_HEXINT32 = 0x14, EVTX_HEXINT64 = 0x15
};

/* The value type a field of these TDH in/out types (and map: its text is then a name) is written as:
 * etl_value_kind_of's kind, refined into BinXml's types (EVTX_STRING for text and anything without one). */
uint8_t evtx_field_type(uint16_t in_type, uint16_t out_type, const etl_map_info *map, uint8_t pointer_size);

/* Appends the bytes of `text` as a value of `type` (the rendered text of a decoded field, read back: the
 * decoder hands writers text). Returns `type`, or EVTX_STRING (bytes appended as UTF-16) when the text is
 * not in the form the type renders to. */
uint8_t evtx_encode_text(etl_textbuf *out, uint8_t type, const char *text);

/* UTF-8 → UTF-16LE without terminator (malformed sequences become U+FFFD); at most `max_units` units.
 * Returns the number of units appended. */
size_t evtx_put_utf16(etl_textbuf *out, const char *text, size_t max_units);

void evtx_put_le16(etl_textbuf *out, uint16_t v);
void evtx_put_le32(etl_textbuf *out, uint32_t v);
void evtx_put_le64(etl_textbuf *out, uint64_t v);
void evtx_put_guid(etl_textbuf *out, const etl_guid *g);

#endif
