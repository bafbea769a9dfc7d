/* tracerpt's -report: a workload report built from decoded events (per provider and event type, per
 * process, per disk, per file, per thread), written as XML or HTML. tracerpt's own report layout has no
 * public sample or schema (shared/docs/tracerpt.md §1.6), so the layout is etlconv's, described in etlconv.1.
 * Memory is bounded: every table keeps at most ETL_REPORT_MAX_ROWS rows and counts what it had to leave out. */
#ifndef ETL_REPORT_H
#define ETL_REPORT_H

#include <stdint.h>

#include "etl/etl_schema.h"
#include "etl/etl_writer.h"

#define ETL_REPORT_MAX_ROWS 100000u

/* Detail levels (-rl): each level adds a table. */
enum {
    ETL_REPORT_LEVEL_PROVIDERS = 1, /* trace facts, providers, event types */
    ETL_REPORT_LEVEL_PROCESSES = 2, /* + processes with their disk and file I/O */
    ETL_REPORT_LEVEL_DISKS = 3,     /* + physical disks (kernel DiskIo) */
    ETL_REPORT_LEVEL_FILES = 4,     /* + files (kernel FileIo / DiskIo by file object) */
    ETL_REPORT_LEVEL_THREADS = 5    /* + threads */
};

typedef struct etl_report etl_report;

etl_report *etl_report_new(int level);
/* Counts one event. Returns 0, or -1 when memory ran out. */
int etl_report_add(etl_report *report, const etl_decoded_event *event);
/* Writes the report (html != 0: a standalone HTML page). Returns 0, or the sink's failure. */
int etl_report_write(const etl_report *report, const etl_run_totals *totals, int html, const etl_sink *sink);
void etl_report_free(etl_report *report);

/* -int: one entry per distinct event layout seen (provider, id, version, opcode, fields with their types). */
typedef struct etl_layout_list etl_layout_list;
etl_layout_list *etl_layout_list_new(void);
int etl_layout_list_add(etl_layout_list *list, const etl_decoded_event *event);
int etl_layout_list_write(const etl_layout_list *list, const etl_sink *sink);
void etl_layout_list_free(etl_layout_list *list);

#endif
