/* Internal to the property walker (walk.c: the general path; walk_plain.c: the plan's fast path for plain
 * integers). Not part of libetl's interface. */
#ifndef ETL_DECODE_WALK_INT_H
#define ETL_DECODE_WALK_INT_H

#include "decode/render_int.h"
#include "decode/walk.h"
#include "util/le.h"

/* WALK_END: an optional tail was absent — stop walking, successfully. */
enum { WALK_OK = 0, WALK_STOP = 1, WALK_END = 2, WALK_NOMEM = -1 };

typedef struct walk_state {
    etl_walk *w;
    const etl_event_info *info;
    const uint8_t *payload;
    size_t size;
    size_t pos;
    size_t steps;  /* elements visited, bounds the work of hostile counts */
    size_t zero_width;  /* array elements that occupied no payload bytes */
    const etl_render_context *ctx;
    const etl_walk_plan *plan;  /* NULL: every value takes the general path */
    size_t pointer_size;
    int sizing;         /* etl_walk_event_sized: no text, only an upper bound of its length */
    size_t text_bound;
} walk_state;

/* Text written so far (sizing: at least as much as rendering would have written). */
static inline size_t text_used(const walk_state *s) { return s->sizing ? s->text_bound : s->w->text.length; }

static inline size_t remaining(const walk_state *s) { return s->size - s->pos; }

/* Room for `extra` more bytes of text (+ NUL), without a call when there is room already. */
static inline int reserve_text(etl_textbuf *t, size_t extra)
{
    if (t->data && !t->failed && t->capacity - t->length > extra) return 0;
    return etl_textbuf_reserve(t, extra);
}

#if defined(__GNUC__)
#define WALK_INLINE __attribute__((always_inline)) inline
#else
#define WALK_INLINE inline
#endif

/* Doubles the per-field arrays (fields, value bytes). */
int etl_walk_grow_fields(etl_walk *w);

/* Room for `extra` more fields. */
static inline int reserve_fields(etl_walk *w, size_t extra)
{
    while (w->field_count + extra > w->field_capacity)
        if (etl_walk_grow_fields(w) != 0) return -1;
    return 0;
}

/* A plain integer's value from its 1, 2, 4 or 8 little-endian bytes. */
static inline uint64_t plain_value(const uint8_t *p, size_t size)
{
    return size == 1 ? p[0] : size == 2 ? etl_le16(p) : size == 4 ? etl_le32(p) : etl_le64(p);
}

/* The general path for top-level or nested property `index` (walk.c). */
int etl_walk_property(walk_state *s, uint32_t index, unsigned depth);
/* The fast path (walk_plain.c): one plain top-level property; a run of plain scalars (0: not taken). */
int etl_walk_plain_top(walk_state *s, uint32_t index);
uint32_t etl_walk_plain_run(walk_state *s, uint32_t first);

#endif
