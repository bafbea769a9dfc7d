/* --activity ID and --group activity: the CLI's wiring of the activity engine (src/activity) and of the
 * grouping sink (formats/group_activity.c) into the conversion run. */
#ifndef ETLCONV_ACTIVITY_CLI_H
#define ETLCONV_ACTIVITY_CLI_H

#include "cli/convert.h"
#include "etl/etl_activity.h"
#include "etl/etl_group.h"

typedef struct etlconv_activity_run {
    etl_activity_table *links;  /* --activity: first pass over the inputs (links may come after the events) */
    const etlconv_options *opt;
    etl_group_sink *group;      /* --group activity */
} etlconv_activity_run;

/* First pass for --activity; 0 or -1 (message printed). */
int etlconv_activity_prepare(etlconv_activity_run *a, const etlconv_options *opt, const etlconv_job *job);
/* 1 when the record passes --activity (always without it). */
int etlconv_activity_match(const etlconv_activity_run *a, const etl_event_record *record);
/* The sink the main writer should write to: `out`, or a grouping sink in front of it. NULL: out of memory. */
const etl_sink *etlconv_activity_sink(etlconv_activity_run *a, const etl_sink *out, const char *format_name);
/* Around the main writer's event call; flush before its end. 0 or -1 (message printed). */
int etlconv_activity_event_begin(etlconv_activity_run *a, const etl_event_record *record);
void etlconv_activity_event_end(etlconv_activity_run *a);
int etlconv_activity_flush(etlconv_activity_run *a);
void etlconv_activity_free(etlconv_activity_run *a);

#endif
