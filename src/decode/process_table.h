/* PID → process name, learnt from process start/rundown events as they are decoded (PerfView's PName). */
#ifndef ETL_DECODE_PROCESS_TABLE_H
#define ETL_DECODE_PROCESS_TABLE_H

#include "etl/etl_schema.h"

typedef struct etl_process_table etl_process_table;

etl_process_table *etl_process_table_new(void);
void etl_process_table_free(etl_process_table *t);

/* Learns from a decoded event: kernel Process Start/End/DCStart/DCEnd/Defunct (ImageFileName, whatever the
 * layout version) and Microsoft-Windows-Kernel-Process ProcessStart/ProcessRundown (ImageName). Returns
 * ETL_OK or ETL_ERR_NOMEM. */
int etl_process_table_observe(etl_process_table *t, const etl_decoded_event *event);

/* Display name (image name without directory and extension, as TraceEvent's ProcessName), NULL if unknown. */
const char *etl_process_table_name(const etl_process_table *t, uint32_t pid);

/* "Idle" from "Idle", "Test.x86" from "\Device\...\Test.x86.exe": writes at most cap-1 bytes. */
void etl_process_display_name(const char *image, char *out, size_t cap);

#endif
