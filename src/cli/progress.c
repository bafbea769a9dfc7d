/* Progress bar (see progress.h). */
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_MIN_BYTES (64ull << 20)  /* smaller inputs convert in about a second: no bar */
#define PROGRESS_REDRAW_SECONDS 0.25
#define BAR_WIDTH 30

double etlconv_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void etlconv_progress_start(etlconv_progress *p, int quiet, int force, uint64_t total_bytes)
{
    p->enabled = !quiet && (force || (isatty(STDERR_FILENO) && total_bytes >= PROGRESS_MIN_BYTES));
    p->started = etlconv_now();
    /* --progress draws at the first update, however fast the conversion runs */
    p->last_draw = force ? p->started - PROGRESS_REDRAW_SECONDS : p->started;
    p->drawn = 0;
}

void etlconv_progress_update(etlconv_progress *p, uint64_t done, uint64_t total, uint64_t events)
{
    if (!p->enabled || total == 0) return;
    double now = etlconv_now();
    if (now - p->last_draw < PROGRESS_REDRAW_SECONDS) return;
    p->last_draw = now;
    double fraction = done > total ? 1.0 : (double)done / (double)total;
    double elapsed = now - p->started;
    double rate = elapsed > 0 ? events / elapsed : 0;
    double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
    char bar[BAR_WIDTH + 1];
    int filled = (int)(fraction * BAR_WIDTH);
    for (int i = 0; i < BAR_WIDTH; i++) bar[i] = i < filled ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    fprintf(stderr, "\r[%s] %3d%%  %8.0f events/s  ETA %d:%02d ", bar, (int)(fraction * 100), rate,
            (int)eta / 60, (int)eta % 60);
    fflush(stderr);
    p->drawn = 1;
}

void etlconv_progress_finish(etlconv_progress *p)
{
    if (p->drawn) fprintf(stderr, "\r%*s\r", BAR_WIDTH + 45, "");
    p->drawn = 0;
}
