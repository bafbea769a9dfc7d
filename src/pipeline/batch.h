/* A batch of the parallel pipeline (parallel.h): copies of consecutive records of the merged trace (their
 * bytes in one arena, their etl_event_record and extended items rebased onto it; the bytes of records read in
 * place from a mapped file are not copied), the text its owner rendered, and the diagnostics that belong to
 * its records. */
#ifndef ETL_PIPELINE_BATCH_H
#define ETL_PIPELINE_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl.h"
#include "util/cache_line.h"
#include "util/span.h"
#include "util/textbuf.h"

typedef struct etl_batch_place {
    size_t raw, user;  /* arena offsets, or one of the markers below */
    size_t first_item;
} etl_batch_place;

#define ETL_BATCH_NO_PART SIZE_MAX          /* the record has no such part */
#define ETL_BATCH_IN_PLACE (SIZE_MAX - 1)   /* the pointer stays: the bytes are in place for the batch's life */
#define ETL_BATCH_KEPT (SIZE_MAX - 2)       /* (raw) the whole record as it was: in place, no extended items */

typedef struct etl_batch {
    /* its own cache lines: the reader fills one batch while a worker reads its neighbour's records and count */
    ETL_CACHE_LINE_ALIGNED size_t count;
    size_t max_records, max_bytes;
    etl_event_record *records;   /* max_records; pointers valid after etl_batch_seal */
    uint32_t *listed;            /* max_records: positions of the records non-owners observe (etl_batch_list) */
    size_t listed_count;
    etl_batch_place *places;     /* where each record's parts lie in the arena while the batch fills */
    etl_extended_item *items;
    size_t *item_offsets;        /* where each item's data lies in the arena while the batch fills */
    size_t item_count, item_cap;
    uint8_t *bytes;              /* the arena */
    size_t used, cap;
    int rebase;                  /* a record's pointers need rebasing onto the arena or items (etl_batch_seal) */
    etl_textbuf text;            /* what the owner rendered */
    etl_textbuf reader_notes;    /* diagnostics raised while reading, by record position */
    etl_textbuf owner_notes;     /* diagnostics raised while the owner rendered, by record position */
    /* the pipeline's bookkeeping (under its mutex) */
    unsigned pending;            /* workers + the writer that still have to pass this batch; 0: free */
    int rendered;
    unsigned renderer;           /* the worker that renders it */
} etl_batch;

/* 0, or ETL_ERR_NOMEM. */
int etl_batch_init(etl_batch *b, size_t max_records, size_t max_bytes);
void etl_batch_free(etl_batch *b);
/* Empties the batch for reuse (keeps its memory). */
void etl_batch_reset(etl_batch *b);
/* Exchanges the memory two batches hold records in (records, places, extended items, arena): a -j reader fills
 * memory its own core wrote last (see parallel.c, lend_hot_records). Neither may be read again before its
 * etl_batch_reset; both must have the same max_records. */
void etl_batch_swap_memory(etl_batch *a, etl_batch *b);
/* Whether [p, p + n) lies inside the record's raw bytes. */
static inline int etl_batch_in_raw(const etl_event_record *r, const uint8_t *p, size_t n)
{
    return etl_span_holds(r->raw, r->raw_size, p, n);
}

/* etl_batch_add's general case: parts copied into the arena, extended items into the batch's own. */
int etl_batch_add_copied(etl_batch *b, const etl_event_record *record, int in_place);

/* Copies the record in; 0, or ETL_ERR_NOMEM. `in_place` (etl_trace_record_in_place): the bytes the record
 * points at stay where they are for the batch's life, so only its struct and extended items are copied.
 * Inline: it runs for every record of a -j run, and most records are in place and have no extended items,
 * which leaves nothing to copy but the struct and nothing for etl_batch_seal to rebase (962 -> 949 M instructions,
 * net.4.5.x86 xml at -j 2). */
static inline int etl_batch_add(etl_batch *b, const etl_event_record *record, int in_place)
{
    /* the payload lies in the raw record as the parsers leave it (else the general case copies it) */
    if (!in_place || record->extended_data_count ||
        (record->user_data && !etl_batch_in_raw(record, record->user_data, record->user_data_length)))
        return etl_batch_add_copied(b, record, in_place);
    b->places[b->count].raw = ETL_BATCH_KEPT;
    etl_event_record *copy = &b->records[b->count++];
    *copy = *record;
    copy->extended_data = NULL;
    return 0;
}

static inline int etl_batch_full(const etl_batch *b) { return b->count >= b->max_records || b->used >= b->max_bytes; }
/* Lists the record added last: the workers that do not own the batch observe it (parallel.h). */
void etl_batch_list_last(etl_batch *b);
/* Points the records into the arena (after the last etl_batch_add). */
void etl_batch_seal(etl_batch *b);

/* Keeps a diagnostic for record `position` (it is printed before that record's own diagnostics when it
 * comes from the reader). 0, or ETL_ERR_NOMEM. */
int etl_batch_note(etl_textbuf *notes, size_t position, const etl_diagnostic *d);
/* The batch's diagnostics in the order one thread raises them: by position, the reader's first. */
void etl_batch_emit_notes(const etl_batch *b, void (*fn)(void *ctx, const etl_diagnostic *d), void *ctx);

#endif
