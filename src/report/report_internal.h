/* The report's counters, shared by the collecting side (report.c) and the writer (report_write.c). */
#ifndef ETL_REPORT_INTERNAL_H
#define ETL_REPORT_INTERNAL_H

#include "report/report.h"
#include "report/report_table.h"

struct etl_report {
    int level;
    uint64_t events;
    uint64_t disk_events, file_events;
    int64_t first_time, last_time;
    rt_table providers;    /* key GUID; text 0 GUID, 1 name; values 0 events, 1 payload bytes */
    rt_table event_types;  /* text 0 GUID, 1 provider, 2 event; values 0 events, 1 bytes, 2 id, 3 version, 4 opcode, 5 task */
    rt_table processes;    /* key PID; text 1 image name; values: see report.c process_row */
    rt_table disks;        /* key disk number; values 0 reads, 1 read bytes, 2 writes, 3 write bytes */
    rt_table file_objects; /* key file object/key; values: see report.c count_file */
    rt_table threads;      /* key TID; values 0 events, 1 PID + 1 (0: unknown) */
    rt_table file_names;   /* key file object/key; text 1 name */
};

/* The name a FileIo name event gave the file object/key, or NULL. */
const char *etl_report_file_name(const etl_report *r, uint64_t object);

#endif
