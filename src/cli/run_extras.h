/* What a conversion produces besides the dump and the summary: tracerpt's -report and -int files, and the
 * end-of-run check that every --provider filter matched something (a misspelt name must not pass silently). */
#ifndef ETLCONV_RUN_EXTRAS_H
#define ETLCONV_RUN_EXTRAS_H

#include "options.h"
#include "report/report.h"

#define EXTRAS_MAX_PROVIDERS 64  /* distinct provider names remembered for the "did you mean" list */

typedef struct etlconv_extras {
    const etlconv_options *opt;
    const char *report_path;       /* NULL: no report */
    const char *interpreted_path;  /* NULL: no -int */
    etl_report *report;
    etl_layout_list *layouts;
    unsigned char *provider_hit;   /* per --provider filter: 1 once an event of it was seen */
    char *seen[EXTRAS_MAX_PROVIDERS];
    size_t seen_count;
} etlconv_extras;

/* Returns 0, or -1 after a one-line error (out of memory). */
int etlconv_extras_start(etlconv_extras *x, const etlconv_options *opt, const char *report_path,
                         const char *interpreted_path);
/* Every decoded event, before the filters. `passed`: it went through them. */
int etlconv_extras_event(etlconv_extras *x, const etl_decoded_event *ev, int passed);
/* Writes the files (atomically, like every output) and warns about --provider names that matched nothing.
 * Returns 0, or -1 after a one-line error. */
int etlconv_extras_finish(etlconv_extras *x, const etl_run_totals *totals);
void etlconv_extras_free(etlconv_extras *x);

#endif
