/* The typing rule of etlconv's typed outputs (JSON Lines, split tables, schema.sql, ECS, EVTX...): which kind
 * of value a property holds, decided by its TDH in/out types and map only — never by the value — so one field
 * always has one type in every event. Writers turn the kind into their own type (JSON number/string/boolean,
 * SQL INTEGER/REAL/TEXT). The rule is documented in etlconv.1 (TYPED OUTPUT). */
#ifndef ETL_DECODE_VALUE_KIND_H
#define ETL_DECODE_VALUE_KIND_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl_schema.h"

typedef enum etl_value_kind {
    ETL_VALUE_STRING = 0, /* strings, GUIDs, times, SIDs, IP/socket addresses, pointers, binary (0x hex), and
                           * integers the schema shows in hex (HexInt*, SizeT, NTSTATUS, HRESULT, Win32Error) */
    ETL_VALUE_INTEGER,    /* integers shown in decimal, every width (64-bit ones may exceed 2^53) */
    ETL_VALUE_FLOAT,      /* FLOAT/DOUBLE; NaN and infinities have no JSON/SQL number: null */
    ETL_VALUE_BOOLEAN,    /* BOOLEAN in-type or out-type */
    ETL_VALUE_MAPPED      /* integer with a value map or bitmap: the names as text, the number kept beside */
} etl_value_kind;

etl_value_kind etl_value_kind_of(uint16_t in_type, uint16_t out_type, const etl_map_info *map);

/* The kind of a property of a schema (structs: ETL_VALUE_STRING; callers handle them apart). */
etl_value_kind etl_property_value_kind(const etl_property_info *prop);

/* 1 when an integer in-type is 64 bits wide (INT64, UINT64, HEXINT64, SIZET): the values a JSON reader that
 * keeps numbers as doubles (jq 1.6, JavaScript) may round above 2^53. */
int etl_value_is_wide(uint16_t in_type);

/* `rendered` when it is a decimal integer (the text render.c writes for ETL_VALUE_INTEGER); NULL when not (a
 * value whose size did not fit its type is shown as hex bytes: writers write null). */
const char *etl_value_integer_text(const char *rendered);

/* The number behind an ETL_VALUE_MAPPED field, from its bytes (1, 2, 4 or 8 little-endian bytes); 0 when
 * there are none. */
int etl_value_mapped_number(const etl_field_bytes *bytes, uint64_t *out);

/* 1 when `text` is a JSON number (RFC 8259 grammar): floats rendered as "nan"/"inf" are not. */
int etl_value_is_json_number(const char *text);

/* Short name of a kind for listings and schema.sql comments: "string", "integer", "float", "boolean",
 * "mapped". */
const char *etl_value_kind_name(etl_value_kind kind);

#endif
