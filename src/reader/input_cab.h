/* Cabinet (.cab) inputs, as `netsh trace` and pktmon/wlan reports ship their traces: every .etl member of a
 * cabinet is one input of the trace, named "REPORT.cab::MEMBER.etl" (Windows names cannot hold ':'), and is
 * extracted by Debian's libmspack (MSZIP, LZX, Quantum) into an unnamed temporary file when it is opened. */
#ifndef ETL_READER_INPUT_CAB_H
#define ETL_READER_INPUT_CAB_H

#include <stddef.h>

#include "reader/input.h"

/* Bounds against hostile cabinets: .etl members per cabinet, and their declared sizes together. */
#define ETL_CAB_MAX_MEMBERS 1024u
#define ETL_CAB_MAX_TOTAL_BYTES (16ull << 30)
#define ETL_CAB_SEPARATOR "::"

typedef struct etl_cab_paths {
    char **paths;   /* every input, cabinets replaced by their members */
    size_t count;
} etl_cab_paths;

/* Expands the cabinets among `paths` (recognised by their "MSCF" signature, whatever the name). A cabinet
 * without .etl members, over the bounds, or unreadable is an error naming it. Non-cabinet paths are copied. */
int etl_cab_expand(const char *const *paths, size_t count, etl_cab_paths *out, etl_error *err);
void etl_cab_paths_free(etl_cab_paths *p);

/* For etl_input_open: is `path` a "CABINET::MEMBER" name? Then etl_cab_input_open extracts the member. */
int etl_cab_is_member_path(const char *path);
int etl_cab_input_open(etl_input *in, const char *path, etl_error *err);

#endif
