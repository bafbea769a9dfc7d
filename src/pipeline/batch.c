/* Batches of copied records for the parallel pipeline (see batch.h). */
#include "pipeline/batch.h"

#include <stdlib.h>
#include <string.h>

int etl_batch_init(etl_batch *b, size_t max_records, size_t max_bytes)
{
    memset(b, 0, sizeof *b);
    b->max_records = max_records;
    b->max_bytes = max_bytes;
    b->records = malloc(max_records * sizeof *b->records);
    b->places = malloc(max_records * sizeof *b->places);
    b->listed = max_records <= UINT32_MAX ? malloc(max_records * sizeof *b->listed) : NULL;
    return b->records && b->places && b->listed ? 0 : ETL_ERR_NOMEM;
}

void etl_batch_free(etl_batch *b)
{
    free(b->records);
    free(b->places);
    free(b->listed);
    free(b->items);
    free(b->item_offsets);
    free(b->bytes);
    etl_textbuf_free(&b->text);
    etl_textbuf_free(&b->reader_notes);
    etl_textbuf_free(&b->owner_notes);
    memset(b, 0, sizeof *b);
}

void etl_batch_reset(etl_batch *b)
{
    b->count = b->item_count = b->used = b->listed_count = 0;
    b->rebase = 0;
    etl_textbuf_reset(&b->text);
    etl_textbuf_reset(&b->reader_notes);
    etl_textbuf_reset(&b->owner_notes);
}

#define SWAP(T, x, y) do { T t_ = (x); (x) = (y); (y) = t_; } while (0)

void etl_batch_swap_memory(etl_batch *a, etl_batch *b)
{
    SWAP(etl_event_record *, a->records, b->records);
    SWAP(etl_batch_place *, a->places, b->places);
    SWAP(etl_extended_item *, a->items, b->items);
    SWAP(size_t *, a->item_offsets, b->item_offsets);
    SWAP(size_t, a->item_cap, b->item_cap);
    SWAP(uint8_t *, a->bytes, b->bytes);
    SWAP(size_t, a->cap, b->cap);
}

void etl_batch_list_last(etl_batch *b)
{
    if (b->count) b->listed[b->listed_count++] = (uint32_t)(b->count - 1);
}

/* Appends n bytes at an 8-aligned offset (records keep the alignment they have in an ETL buffer). */
static size_t put_bytes(etl_batch *b, const uint8_t *data, size_t n)
{
    size_t at = (b->used + 7) & ~(size_t)7;
    if (at + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64 * 1024;
        while (cap < at + n) cap *= 2;
        uint8_t *grown = realloc(b->bytes, cap);
        if (!grown) return ETL_BATCH_NO_PART;
        b->bytes = grown;
        b->cap = cap;
    }
    if (n) memcpy(b->bytes + at, data, n);
    b->used = at + n;
    return at;
}

/* The arena offset of [p, p + n): inside the raw record when it lies there (ETL_BATCH_IN_PLACE when the raw
 * record is), else a copy of its own. */
static size_t place_of(etl_batch *b, const etl_event_record *r, size_t raw_at, const uint8_t *p, size_t n)
{
    if (!p) return ETL_BATCH_NO_PART;
    if (raw_at != ETL_BATCH_NO_PART && etl_batch_in_raw(r, p, n))
        return raw_at == ETL_BATCH_IN_PLACE ? ETL_BATCH_IN_PLACE : raw_at + (size_t)(p - r->raw);
    return put_bytes(b, p, n);
}

static const uint8_t *rebased(const etl_batch *b, size_t at, const uint8_t *kept)
{
    return at == ETL_BATCH_NO_PART ? NULL : at == ETL_BATCH_IN_PLACE ? kept : b->bytes + at;
}

int etl_batch_add_copied(etl_batch *b, const etl_event_record *r, int in_place)
{
    b->rebase = 1;
    if (b->item_count + r->extended_data_count > b->item_cap) {
        size_t cap = b->item_cap ? b->item_cap : 256;
        while (cap < b->item_count + r->extended_data_count) cap *= 2;
        etl_extended_item *items = realloc(b->items, cap * sizeof *items);
        if (items) b->items = items;
        size_t *offsets = realloc(b->item_offsets, cap * sizeof *offsets);
        if (offsets) b->item_offsets = offsets;
        if (!items || !offsets) return ETL_ERR_NOMEM;
        b->item_cap = cap;
    }
    struct etl_batch_place *place = &b->places[b->count];
    size_t raw_at = !r->raw ? ETL_BATCH_NO_PART : in_place ? ETL_BATCH_IN_PLACE : put_bytes(b, r->raw, r->raw_size);
    if (r->raw && raw_at == ETL_BATCH_NO_PART) return ETL_ERR_NOMEM;
    place->raw = raw_at;
    place->user = place_of(b, r, raw_at, r->user_data, r->user_data_length);
    if (r->user_data && place->user == ETL_BATCH_NO_PART) return ETL_ERR_NOMEM;
    place->first_item = b->item_count;
    for (uint16_t i = 0; i < r->extended_data_count; i++) {
        const etl_extended_item *item = &r->extended_data[i];
        size_t at = place_of(b, r, raw_at, item->data, item->data_size);
        if (item->data && at == ETL_BATCH_NO_PART) return ETL_ERR_NOMEM;
        b->items[b->item_count] = *item;
        b->item_offsets[b->item_count++] = at;
    }
    b->records[b->count++] = *r;
    return 0;
}

void etl_batch_seal(etl_batch *b)
{
    if (!b->rebase) return;
    for (size_t i = 0; i < b->item_count; i++) b->items[i].data = rebased(b, b->item_offsets[i], b->items[i].data);
    for (size_t i = 0; i < b->count; i++) {
        etl_event_record *r = &b->records[i];
        const struct etl_batch_place *place = &b->places[i];
        if (place->raw == ETL_BATCH_KEPT) continue;
        r->raw = rebased(b, place->raw, r->raw);
        r->user_data = rebased(b, place->user, r->user_data);
        r->extended_data = r->extended_data_count ? &b->items[place->first_item] : NULL;
    }
}

/* ---- diagnostics --------------------------------------------------------------------------------------- */

typedef struct note_head {
    size_t position;
    int severity, code;
    uint32_t file_index;
    uint64_t offset;
    size_t length;  /* message bytes, then padding to 8 */
} note_head;

int etl_batch_note(etl_textbuf *notes, size_t position, const etl_diagnostic *d)
{
    const char *message = d->message ? d->message : "";
    note_head h = {position, d->severity, d->code, d->file_index, d->offset, strlen(message)};
    static const char pad[8];
    etl_textbuf_append(notes, (const char *)&h, sizeof h);
    etl_textbuf_append(notes, message, h.length);
    etl_textbuf_append(notes, pad, ((h.length + 7) & ~(size_t)7) - h.length);
    return notes->failed ? ETL_ERR_NOMEM : 0;
}

/* The note at *at (advanced past it); 0 at the end. */
static int next_note(const etl_textbuf *notes, size_t *at, note_head *h, const char **message)
{
    if (!notes->data || *at + sizeof *h > notes->length) return 0;
    memcpy(h, notes->data + *at, sizeof *h);
    *message = notes->data + *at + sizeof *h;
    *at += sizeof *h + ((h->length + 7) & ~(size_t)7);
    return 1;
}

static void emit(const note_head *h, const char *message, void (*fn)(void *, const etl_diagnostic *), void *ctx)
{
    char text[1024];  /* diagnostics are one line of at most ~900 bytes */
    size_t n = h->length < sizeof text - 1 ? h->length : sizeof text - 1;
    memcpy(text, message, n);
    text[n] = '\0';
    etl_diagnostic d = {(etl_severity)h->severity, h->code, h->file_index, h->offset, text};
    fn(ctx, &d);
}

void etl_batch_emit_notes(const etl_batch *b, void (*fn)(void *ctx, const etl_diagnostic *d), void *ctx)
{
    size_t ra = 0, oa = 0;
    note_head rh, oh;
    const char *rm = NULL, *om = NULL;
    int have_r = next_note(&b->reader_notes, &ra, &rh, &rm), have_o = next_note(&b->owner_notes, &oa, &oh, &om);
    while (have_r || have_o) {
        if (have_r && (!have_o || rh.position <= oh.position)) {
            emit(&rh, rm, fn, ctx);
            have_r = next_note(&b->reader_notes, &ra, &rh, &rm);
        } else {
            emit(&oh, om, fn, ctx);
            have_o = next_note(&b->owner_notes, &oa, &oh, &om);
        }
    }
}
