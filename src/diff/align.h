/* Sequence alignment of two event streams: common prefix/suffix, then patience anchors (events that occur
 * exactly once on each side, longest increasing subsequence), then Myers' O(ND) diff between anchors with a
 * bound on D (a region more different than that is reported as replaced as a whole). */
#ifndef ETL_DIFF_ALIGN_H
#define ETL_DIFF_ALIGN_H

#include <stddef.h>
#include <stdint.h>

/* a[i..i+len) matches b[j..j+len) */
typedef struct align_run {
    uint32_t a, b, len;
} align_run;

typedef struct align_runs {
    align_run *runs;
    size_t count, capacity;
    int failed;  /* out of memory */
} align_runs;

/* Element identity is the hash; with `ta`/`tb` (may be NULL) two elements also need times within
 * `tolerance` of each other. Runs come out in increasing order, adjacent runs merged. Returns 0, -1 when
 * memory ran short. */
int etl_align(const uint64_t *ha, uint32_t na, const uint64_t *hb, uint32_t nb, const int64_t *ta,
              const int64_t *tb, int64_t tolerance, align_runs *out);
void align_runs_free(align_runs *r);

/* The largest D (edit distance) Myers explores in one region between anchors. */
#define ALIGN_MAX_D 2048
/* ... and the most comparisons ((N+M)·D) it spends on one region. */
#define ALIGN_MAX_WORK 100000000LL

#endif
