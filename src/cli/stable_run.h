/* --stable in a conversion: the stable view between the decoder and the writers, and the writer options that
 * tell writers what to leave out. */
#ifndef ETLCONV_STABLE_RUN_H
#define ETLCONV_STABLE_RUN_H

#include "etl/etl_diff.h"
#include "options.h"

typedef struct etlconv_stable_run {
    etl_stable *stable;          /* NULL when --stable is not in use */
    etl_writer_options writer;   /* the options' writer settings + stable flags and header text */
    char *header;                /* the baseline header's option words */
    const char *format;          /* the main writer: the table form becomes the baseline when stable */
} etlconv_stable_run;

/* Returns 0, or -1 after printing an error. */
int etlconv_stable_begin(etlconv_stable_run *s, const etlconv_options *opt);
/* Every event, in trace order, before filters (ordinals do not depend on them). */
void etlconv_stable_observe(etlconv_stable_run *s, const etl_decoded_event *ev);
/* The event the writers get: the stable view when stable, else ev itself; NULL when out of memory. */
const etl_decoded_event *etlconv_stable_view(etlconv_stable_run *s, const etl_decoded_event *ev);
void etlconv_stable_end(etlconv_stable_run *s);

#endif
