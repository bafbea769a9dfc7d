/* The diff report (include/etl/etl_diff.h): the count table per provider/event type, then per stream the
 * alignment's hunks with context, as text (unified-diff-like), one JSON document, and JUnit XML with one
 * test case per event type. */
#include "diff/diff_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "diff/align.h"
#include "diff/report_out.h"

typedef struct change_block {
    uint32_t a0, a1, b0, b1;
} change_block;

typedef struct stream_seq {
    uint32_t *index;  /* event indices of the side, in order */
    uint64_t *hash;
    int64_t *time;
    uint32_t count;
} stream_seq;

static void seq_free(stream_seq *s)
{
    free(s->index);
    free(s->hash);
    free(s->time);
    memset(s, 0, sizeof *s);
}

/* The events of one stream of a side, without the event types the count tolerance set aside. */
static int gather(const etl_diff *d, int s, const uint32_t *order, uint32_t from, uint32_t to,
                  const uint8_t *set_aside, stream_seq *out)
{
    uint32_t n = to - from;
    out->index = malloc((n ? n : 1) * sizeof *out->index);
    out->hash = malloc((n ? n : 1) * sizeof *out->hash);
    out->time = malloc((n ? n : 1) * sizeof *out->time);
    if (!out->index || !out->hash || !out->time) return -1;
    out->count = 0;
    for (uint32_t i = from; i < to; i++) {
        const diff_event *e = &d->side[s].events[order[i]];
        if (set_aside[e->type]) continue;
        out->index[out->count] = order[i];
        out->hash[out->count] = e->hash;
        out->time[out->count] = e->time;
        out->count++;
    }
    return 0;
}

/* Event indices of a side grouped by stream (counting sort): order[start[s] .. start[s+1]). */
static int group_by_stream(const etl_diff *d, int s, uint32_t **order_out, uint32_t **start_out)
{
    uint32_t streams = d->streams.count;
    const diff_side *side = &d->side[s];
    uint32_t *start = calloc((size_t)streams + 2, sizeof *start);
    uint32_t *order = malloc((side->count ? side->count : 1) * sizeof *order);
    if (!start || !order) {
        free(start);
        free(order);
        return -1;
    }
    for (size_t i = 0; i < side->count; i++) start[side->events[i].stream + 2]++;
    for (uint32_t k = 2; k < streams + 2; k++) start[k] += start[k - 1];
    for (size_t i = 0; i < side->count; i++) order[start[side->events[i].stream + 1]++] = (uint32_t)i;
    *order_out = order;
    *start_out = start;  /* start[k] .. start[k+1] is stream k */
    return 0;
}

/* Change blocks between the runs of an alignment. */
static size_t change_blocks(const align_runs *runs, uint32_t na, uint32_t nb, change_block **out)
{
    change_block *b = malloc((runs->count + 1) * sizeof *b);
    size_t n = 0;
    if (!b) return SIZE_MAX;
    uint32_t i = 0, j = 0;
    for (size_t r = 0; r <= runs->count; r++) {
        uint32_t ra = r < runs->count ? runs->runs[r].a : na, rb = r < runs->count ? runs->runs[r].b : nb;
        if (ra > i || rb > j) b[n++] = (change_block){i, ra, j, rb};
        if (r < runs->count) i = ra + runs->runs[r].len, j = rb + runs->runs[r].len;
    }
    *out = b;
    return n;
}

/* One stream: align, then hunks of change blocks closer than 2*context to each other. */
static int report_stream(report_out *ro, etl_diff *d, uint32_t stream, const stream_seq *a, const stream_seq *b)
{
    align_runs runs = {0};
    int rc = etl_align(a->hash, a->count, b->hash, b->count, d->opt.compare_time ? a->time : NULL,
                       d->opt.compare_time ? b->time : NULL, d->opt.time_tolerance, &runs);
    change_block *blocks = NULL;
    size_t nb = rc == 0 ? change_blocks(&runs, a->count, b->count, &blocks) : SIZE_MAX;
    align_runs_free(&runs);
    if (nb == SIZE_MAX) return -1;
    uint32_t ctx = d->opt.context;
    for (size_t k = 0; k < nb && rc == 0;) {
        size_t m = k;
        while (m + 1 < nb && blocks[m + 1].a0 - blocks[m].a1 <= 2 * ctx) m++;
        uint32_t before = blocks[k].a0 < ctx ? blocks[k].a0 : ctx;
        uint32_t after = a->count - blocks[m].a1 < ctx ? a->count - blocks[m].a1 : ctx;
        uint32_t sa = blocks[k].a0 - before, sb = blocks[k].b0 - before;
        uint32_t ea = blocks[m].a1 + after, eb = blocks[m].b1 + after;
        rc = report_out_hunk_begin(ro, stream, sa, ea - sa, sb, eb - sb);
        uint32_t i = sa, j = sb;
        for (size_t q = k; q <= m && rc == 0; q++) {
            for (; i < blocks[q].a0 && rc == 0; i++, j++) rc = report_out_event(ro, ' ', a->index[i], b->index[j]);
            if (rc == 0) rc = report_out_change(ro, a->index + blocks[q].a0, blocks[q].a1 - blocks[q].a0,
                                                b->index + blocks[q].b0, blocks[q].b1 - blocks[q].b0);
            i = blocks[q].a1, j = blocks[q].b1;
        }
        for (; i < ea && rc == 0; i++, j++) rc = report_out_event(ro, ' ', a->index[i], b->index[j]);
        if (rc == 0) rc = report_out_hunk_end(ro);
        k = m + 1;
    }
    free(blocks);
    return rc;
}

/* A count change is no difference when within count_tolerance percent of the larger count. */
static int count_differs(const etl_diff *d, uint64_t o, uint64_t n)
{
    if (o == n) return 0;
    uint64_t diff = o > n ? o - n : n - o, big = o > n ? o : n;
    return (double)diff * 100.0 > d->opt.count_tolerance * (double)big;
}

int etl_diff_report(etl_diff *d, int format, FILE *out, FILE *junit, const char *old_name, const char *new_name,
                    etl_error *err)
{
    uint32_t types = d->types.count;
    uint8_t *set_aside = calloc((size_t)types + 1, 1);
    report_out *ro = report_out_new(d, format, out, junit, old_name, new_name);
    uint32_t *order[2] = {NULL, NULL}, *start[2] = {NULL, NULL};
    int rc = (!set_aside || !ro) ? -1 : 0;
    int different = 0;
    for (uint32_t t = 0; t < types && rc == 0; t++) {
        uint64_t o = d->type_count[0][t], n = d->type_count[1][t];
        int differs = count_differs(d, o, n);
        if (o != n && !differs) set_aside[t] = 1;  /* sampled events within the tolerance: not aligned */
        different |= differs;
        rc = report_out_count(ro, t, o, n, differs);
    }
    if (rc == 0) rc = report_out_counts_end(ro);
    if (rc == 0 && !d->opt.counts_only) {
        if (group_by_stream(d, 0, &order[0], &start[0]) != 0 || group_by_stream(d, 1, &order[1], &start[1]) != 0)
            rc = -1;
        for (uint32_t s = 0; s < d->streams.count && rc == 0; s++) {
            stream_seq a = {0}, b = {0};
            if (gather(d, 0, order[0], start[0][s], start[0][s + 1], set_aside, &a) != 0 ||
                gather(d, 1, order[1], start[1][s], start[1][s + 1], set_aside, &b) != 0)
                rc = -1;
            if (rc == 0) rc = report_stream(ro, d, s, &a, &b);
            seq_free(&a);
            seq_free(&b);
        }
    }
    if (rc == 0) {
        different |= report_out_hunk_count(ro) > 0;
        rc = report_out_end(ro, different);
    }
    if (rc != 0 && err) {
        err->code = ETL_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "diff report: out of memory or write error");
    }
    report_out_free(ro);
    for (int s = 0; s < 2; s++) {
        free(order[s]);
        free(start[s]);
    }
    free(set_aside);
    return rc != 0 ? -1 : different;
}
