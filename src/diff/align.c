/* Sequence alignment (see align.h). */
#include "align.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PATIENCE_DEPTH 64

typedef struct aligner {
    const uint64_t *ha, *hb;
    const int64_t *ta, *tb;
    int64_t tolerance;
    align_runs *out;
    int32_t *trace;   /* Myers: V arrays of every d, (d+1)^2 entries */
    size_t trace_capacity;
} aligner;

static int eq(const aligner *al, uint32_t i, uint32_t j)
{
    if (al->ha[i] != al->hb[j]) return 0;
    if (!al->ta) return 1;
    int64_t d = al->ta[i] - al->tb[j];
    return d <= al->tolerance && -d <= al->tolerance;
}

static void emit(aligner *al, uint32_t a, uint32_t b, uint32_t len)
{
    align_runs *o = al->out;
    if (len == 0 || o->failed) return;
    if (o->count) {
        align_run *last = &o->runs[o->count - 1];
        if (last->a + last->len == a && last->b + last->len == b) {
            last->len += len;
            return;
        }
    }
    if (o->count == o->capacity) {
        size_t cap = o->capacity ? o->capacity * 2 : 16;
        align_run *r = realloc(o->runs, cap * sizeof *r);
        if (!r) {
            o->failed = 1;
            return;
        }
        o->runs = r;
        o->capacity = cap;
    }
    o->runs[o->count++] = (align_run){a, b, len};
}

/* Myers' greedy forward search keeping every V for the backtrack; 0 when D would exceed ALIGN_MAX_D or
 * memory is short (the caller then treats the region as replaced). */
static int myers(aligner *al, uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1)
{
    int64_t n = a1 - a0, m = b1 - b0;
    int64_t max = n + m < ALIGN_MAX_D ? n + m : ALIGN_MAX_D;
    if ((n + m) * max > ALIGN_MAX_WORK) max = ALIGN_MAX_WORK / (n + m);  /* O((N+M)D) time stays bounded */
    if (max < 1) return 0;
    size_t need = (size_t)(max + 1) * (size_t)(max + 1);
    if (need > al->trace_capacity) {
        int32_t *t = realloc(al->trace, need * sizeof *t);
        if (!t) return 0;
        al->trace = t;
        al->trace_capacity = need;
    }
    int32_t *v = calloc((size_t)(2 * max + 3), sizeof *v);
    if (!v) return 0;
    int32_t *vk = v + max + 1;  /* vk[k], k in -max-1 .. max+1 */
    int64_t found = -1;
    for (int64_t d = 0; d <= max && found < 0; d++) {
        for (int64_t k = -d; k <= d; k += 2) {
            int64_t x = (k == -d || (k != d && vk[k - 1] < vk[k + 1])) ? vk[k + 1] : vk[k - 1] + 1;
            int64_t y = x - k;
            while (x < n && y < m && eq(al, a0 + (uint32_t)x, b0 + (uint32_t)y)) x++, y++;
            vk[k] = (int32_t)x;
            if (x >= n && y >= m) found = d;
        }
        memcpy(al->trace + (size_t)d * (size_t)d, vk - d, (size_t)(2 * d + 1) * sizeof *vk);
    }
    free(v);
    if (found < 0) return 0;
    /* backtrack: matched diagonals from the end to the start, then emitted in order */
    size_t mark = al->out->count;
    int64_t x = n, y = m;
    for (int64_t d = found; d >= 0; d--) {
        int64_t k = x - y, mx = 0, my = 0;
        if (d > 0) {
            const int32_t *prev = al->trace + (size_t)(d - 1) * (size_t)(d - 1) + (d - 1);  /* prev[k] */
            int down = k == -d || (k != d && prev[k - 1] < prev[k + 1]);
            int64_t px = down ? prev[k + 1] : prev[k - 1];
            mx = down ? px : px + 1;
            my = mx - k;
            if (x > mx) emit(al, a0 + (uint32_t)mx, b0 + (uint32_t)my, (uint32_t)(x - mx));
            x = px;
            y = px - (down ? k + 1 : k - 1);
        } else if (x > 0) {
            emit(al, a0, b0, (uint32_t)x);
        }
    }
    /* the runs were appended last-first: reverse them (merging only ever joined a run to its successor in
     * this reversed order, which cannot happen: runs of one backtrack are separated by edits) */
    align_run *r = al->out->runs;
    for (size_t i = mark, j = al->out->count; j > i + 1; i++, j--) {
        align_run t = r[i];
        r[i] = r[j - 1];
        r[j - 1] = t;
    }
    return 1;
}

/* Patience anchors: positions unique on both sides in this region, longest increasing in b. */
typedef struct anchor {
    uint32_t a, b;
} anchor;

typedef struct count_slot {
    uint64_t hash;
    uint32_t a_count, b_count, a_pos, b_pos;
} count_slot;

static size_t find_anchors(const aligner *al, uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1, anchor **out)
{
    *out = NULL;
    size_t n = (size_t)(a1 - a0) + (b1 - b0), slots = 16;
    while (slots < 2 * n) slots *= 2;
    count_slot *t = calloc(slots, sizeof *t);
    if (!t) return 0;
    for (int side = 0; side < 2; side++) {
        uint32_t lo = side ? b0 : a0, hi = side ? b1 : a1;
        const uint64_t *h = side ? al->hb : al->ha;
        for (uint32_t i = lo; i < hi; i++) {
            size_t s = (size_t)(h[i] ^ h[i] >> 32) & (slots - 1);
            while ((t[s].a_count || t[s].b_count) && t[s].hash != h[i]) s = (s + 1) & (slots - 1);
            t[s].hash = h[i];
            if (side) {
                t[s].b_count++;
                t[s].b_pos = i;
            } else {
                t[s].a_count++;
                t[s].a_pos = i;
            }
        }
    }
    anchor *cand = malloc((a1 - a0) * sizeof *cand);
    uint32_t *tails = malloc((a1 - a0) * sizeof *tails), *prev = malloc((a1 - a0) * sizeof *prev);
    size_t nc = 0, len = 0;
    if (cand && tails && prev) {
        for (uint32_t i = a0; i < a1; i++) {
            size_t s = (size_t)(al->ha[i] ^ al->ha[i] >> 32) & (slots - 1);
            while (t[s].hash != al->ha[i]) s = (s + 1) & (slots - 1);
            if (t[s].a_count == 1 && t[s].b_count == 1 && eq(al, i, t[s].b_pos)) cand[nc++] = (anchor){i, t[s].b_pos};
        }
        /* longest increasing subsequence of b (patience sorting); tails hold candidate indices */
        for (size_t i = 0; i < nc; i++) {
            size_t lo = 0, hi = len;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (cand[tails[mid]].b < cand[i].b) lo = mid + 1; else hi = mid;
            }
            prev[i] = lo ? tails[lo - 1] : UINT32_MAX;
            tails[lo] = (uint32_t)i;
            if (lo == len) len++;
        }
        anchor *res = len ? malloc(len * sizeof *res) : NULL;
        if (res) {
            uint32_t k = tails[len - 1];
            for (size_t i = len; i-- > 0; k = prev[k]) res[i] = cand[k];
            *out = res;
        } else {
            len = 0;
        }
    }
    free(cand);
    free(tails);
    free(prev);
    free(t);
    return len;
}

static void diff_range(aligner *al, uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1, int depth)
{
    uint32_t p = 0;
    while (a0 + p < a1 && b0 + p < b1 && eq(al, a0 + p, b0 + p)) p++;
    emit(al, a0, b0, p);
    a0 += p, b0 += p;
    uint32_t s = 0;
    while (a1 - s > a0 && b1 - s > b0 && eq(al, a1 - s - 1, b1 - s - 1)) s++;
    a1 -= s, b1 -= s;
    if (a0 < a1 && b0 < b1) {
        anchor *anchors = NULL;
        size_t na = depth < MAX_PATIENCE_DEPTH ? find_anchors(al, a0, a1, b0, b1, &anchors) : 0;
        if (na) {
            uint32_t pa = a0, pb = b0;
            for (size_t i = 0; i < na; i++) {
                diff_range(al, pa, anchors[i].a, pb, anchors[i].b, depth + 1);
                emit(al, anchors[i].a, anchors[i].b, 1);
                pa = anchors[i].a + 1, pb = anchors[i].b + 1;
            }
            diff_range(al, pa, a1, pb, b1, depth + 1);
        } else {
            myers(al, a0, a1, b0, b1);  /* 0: no common events found within the bound */
        }
        free(anchors);
    }
    emit(al, a1, b1, s);
}

int etl_align(const uint64_t *ha, uint32_t na, const uint64_t *hb, uint32_t nb, const int64_t *ta,
              const int64_t *tb, int64_t tolerance, align_runs *out)
{
    aligner al = {ha, hb, ta, tb, tolerance, out, NULL, 0};
    out->count = 0;
    out->failed = 0;
    diff_range(&al, 0, na, 0, nb, 0);
    free(al.trace);
    return out->failed ? -1 : 0;
}

void align_runs_free(align_runs *r)
{
    free(r->runs);
    memset(r, 0, sizeof *r);
}
