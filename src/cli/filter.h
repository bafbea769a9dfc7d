/* Event filters tracerpt lacks (--provider, --event, --level, --keywords, --pid, --tid, --from, --to). */
#ifndef ETLCONV_FILTER_H
#define ETLCONV_FILTER_H

#include "options.h"

/* Resolves relative --from/--to against the trace start (FILETIME). */
void etlconv_filter_bind(etlconv_filters *f, int64_t trace_start);
int etlconv_filter_active(const etlconv_filters *f);
/* 1 when the event passes every filter. */
int etlconv_filter_match(const etlconv_filters *f, const etl_decoded_event *ev);

#endif
