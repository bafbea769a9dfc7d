/* Writers of the diff report: text (colour optional), JSON and JUnit XML, fed by report.c in order: counts,
 * then hunks of each stream. */
#ifndef ETL_DIFF_REPORT_OUT_H
#define ETL_DIFF_REPORT_OUT_H

#include "diff/diff_internal.h"

typedef struct report_out report_out;

report_out *report_out_new(etl_diff *d, int format, FILE *out, FILE *junit, const char *old_name,
                           const char *new_name);
void report_out_free(report_out *ro);
/* Each returns 0, or -1 when memory ran short or a line could not be read back. */
int report_out_count(report_out *ro, uint32_t type, uint64_t old_count, uint64_t new_count, int differs);
int report_out_counts_end(report_out *ro);
/* Positions are 0-based inside the stream's compared events. */
int report_out_hunk_begin(report_out *ro, uint32_t stream, uint32_t a_start, uint32_t a_count, uint32_t b_start,
                          uint32_t b_count);
/* A context event (op ' '): old event index a, new event index b. */
int report_out_event(report_out *ro, char op, uint32_t a, uint32_t b);
/* A change block: old events deleted, new events added; pairs of the same event type are shown as changed
 * fields. */
int report_out_change(report_out *ro, const uint32_t *dels, uint32_t ndel, const uint32_t *adds, uint32_t nadd);
int report_out_hunk_end(report_out *ro);
uint64_t report_out_hunk_count(const report_out *ro);
int report_out_end(report_out *ro, int different);

#endif
