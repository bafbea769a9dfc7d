/* A progress bar on stderr (percent, events/s, ETA) when stderr is a terminal and the input is large. */
#ifndef ETLCONV_PROGRESS_H
#define ETLCONV_PROGRESS_H

#include <stdint.h>

typedef struct etlconv_progress {
    int enabled;
    double started, last_draw;
    int drawn;
} etlconv_progress;

/* Enabled when !quiet and either forced or stderr is a TTY and total_bytes is at least the threshold. */
void etlconv_progress_start(etlconv_progress *p, int quiet, int force, uint64_t total_bytes);
/* Cheap to call often: redraws at most a few times per second. */
void etlconv_progress_update(etlconv_progress *p, uint64_t done_bytes, uint64_t total_bytes, uint64_t events);
/* Erases the bar. */
void etlconv_progress_finish(etlconv_progress *p);
double etlconv_now(void);

#endif
