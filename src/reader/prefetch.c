/* Decompress-ahead threads (reader/prefetch.h). One lock guards the slots; payloads are decompressed and
 * copied outside it. */
#include "reader/prefetch.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "reader/clock.h"
#include "reader/decompress.h"

/* Blocks are at least this large so that tiny buffers cannot make the spare list long (at most
 * ETL_PREFETCH_BYTES / 64 KiB blocks exist at once). */
#define MIN_BLOCK ((size_t)64 << 10)

enum slot_state { SLOT_WAITING, SLOT_BUSY, SLOT_READY, SLOT_TAKEN };

typedef struct slot {
    uint8_t *data;         /* READY: the payload (NULL when the buffer could not be viewed: a miss) */
    size_t cap;
    int rc;                /* READY: what the decompressor returned */
    uint8_t state;
} slot;

typedef struct work {
    int64_t flushed;       /* when the merge is expected to want it: its predecessor's flush, by SequenceNumber */
    int64_t need;          /* ... and by flush time (FILETIME) */
    uint32_t file, buffer; /* t->files[file].buffers[buffer] */
} work;

typedef struct block {
    uint8_t *data;
    size_t cap;
} block;

struct etl_prefetch {
    const etl_trace *t;
    size_t *file_base;     /* slot of file i's first buffer */
    slot *slots;           /* one per buffer of every file */
    work *order;           /* compressed buffers in the order they are decompressed */
    size_t order_count, next;
    block *spares;         /* taken payloads kept for reuse */
    size_t spare_count, spare_cap;
    size_t held;           /* bytes of every block: ready, being filled, spare */
    size_t spare_bytes;    /* of which spare */
    unsigned room_waiters; /* threads waiting for room (see wait_for_room) */
    unsigned busy_waiters; /* readers waiting for a buffer being decompressed (etl_prefetch_take) */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int stop;
    unsigned idle;         /* threads waiting for room or done (etl_prefetch_settle) */
    pthread_t *threads;
    unsigned thread_count;
};

static int by_need(const void *a, const void *b)
{
    const work *x = a, *y = b;
    if (x->flushed != y->flushed) return x->flushed < y->flushed ? -1 : 1;
    if (x->need != y->need) return x->need < y->need ? -1 : 1;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    return x->buffer < y->buffer ? -1 : x->buffer > y->buffer;
}

static size_t payload_size(const etl_buffer_ref *b) { return b->valid - ETL_BUFFER_HEADER_SIZE; }

/* Under the lock: a block of at least `need` bytes within the budget, or NULL (wait until one is taken). */
static uint8_t *get_block(etl_prefetch *pf, size_t need, size_t *cap)
{
    for (size_t i = 0; i < pf->spare_count; i++)
        if (pf->spares[i].cap >= need) {
            uint8_t *data = pf->spares[i].data;
            *cap = pf->spares[i].cap;
            pf->spare_bytes -= *cap;
            pf->spares[i] = pf->spares[--pf->spare_count];
            return data;
        }
    size_t size = need > MIN_BLOCK ? need : MIN_BLOCK;
    while (pf->held + size > ETL_PREFETCH_BYTES && pf->spare_count) {  /* spares too small: make room */
        block *b = &pf->spares[--pf->spare_count];
        pf->held -= b->cap;
        pf->spare_bytes -= b->cap;
        free(b->data);
    }
    if (pf->held && pf->held + size > ETL_PREFETCH_BYTES) return NULL;
    uint8_t *data = malloc(size);
    if (data) {
        pf->held += size;
        *cap = size;
    }
    return data;
}

/* Under the lock: a block goes back to the spares (or is freed when the list cannot grow). */
static void put_block(etl_prefetch *pf, uint8_t *data, size_t cap)
{
    if (!data) return;
    if (pf->spare_count == pf->spare_cap) {
        size_t n = pf->spare_cap ? pf->spare_cap * 2 : 16;
        block *grown = realloc(pf->spares, n * sizeof *grown);
        if (!grown) {
            pf->held -= cap;
            free(data);
            return;
        }
        pf->spares = grown;
        pf->spare_cap = n;
    }
    pf->spares[pf->spare_count++] = (block){data, cap};
    pf->spare_bytes += cap;
}

/* Room for payloads: unused budget and spare blocks. */
static size_t room(const etl_prefetch *pf)
{
    return (pf->held < ETL_PREFETCH_BYTES ? ETL_PREFETCH_BYTES - pf->held : 0) + pf->spare_bytes;
}

/* Under the lock, when the budget is full: waits until half of it is free again (or the run stops), so a
 * helper decompresses a run of buffers per wake-up instead of one per buffer the reader takes (a futex wake
 * and two context switches each). */
static void wait_for_room(etl_prefetch *pf)
{
    pf->idle++;
    pf->room_waiters++;
    pthread_cond_broadcast(&pf->changed);
    do pthread_cond_wait(&pf->changed, &pf->lock);
    while (!pf->stop && room(pf) < ETL_PREFETCH_BYTES / 2);
    pf->room_waiters--;
    pf->idle--;
}

/* Under the lock (released while decompressing): decompresses the next buffer due. 1: done, 0: no buffer is
 * left, -1: no room in the budget. */
static int decompress_next(etl_prefetch *pf)
{
    while (pf->next < pf->order_count) {  /* buffers the reader already read itself are passed over */
        const work *w = &pf->order[pf->next];
        if (pf->slots[pf->file_base[w->file] + w->buffer].state == SLOT_WAITING) break;
        pf->next++;
    }
    if (pf->next == pf->order_count) return 0;
    const work *w = &pf->order[pf->next];
    const etl_trace_file *f = &pf->t->files[w->file];
    const etl_buffer_ref *b = &f->buffers[w->buffer];
    size_t expected = payload_size(b), cap = 0;
    uint8_t *data = get_block(pf, expected, &cap);
    if (!data) return -1;
    slot *s = &pf->slots[pf->file_base[w->file] + w->buffer];
    s->state = SLOT_BUSY;
    pf->next++;
    pthread_mutex_unlock(&pf->lock);

    uint64_t at = b->offset + ETL_BUFFER_HEADER_SIZE;
    size_t in_len = b->disk_size - ETL_BUFFER_HEADER_SIZE;
    const uint8_t *in = etl_input_view(&f->input, at, in_len);
    int rc = ETL_PREFETCH_MISS;
    if (in) {
        etl_compression_format used;
        rc = etl_decompress_etl_buffer(in, in_len, data, expected, &used);  /* its pages: the reader's sweeps */
    }

    pthread_mutex_lock(&pf->lock);
    if (rc == ETL_PREFETCH_MISS) {
        put_block(pf, data, cap);
        data = NULL;
    }
    *s = (slot){data, cap, rc, SLOT_READY};
    /* only a reader waiting for a buffer needs to know: a thread waiting for room would wake for nothing, once
     * per buffer the -j workers decompress (etl_trace_prefetch_help) */
    if (pf->busy_waiters) pthread_cond_broadcast(&pf->changed);
    return 1;
}

static void *prefetch_thread(void *arg)
{
    etl_prefetch *pf = arg;
    pthread_mutex_lock(&pf->lock);
    int rc;
    while (!pf->stop && (rc = decompress_next(pf)) != 0)
        if (rc < 0) wait_for_room(pf);
    pf->idle++;
    pthread_cond_broadcast(&pf->changed);
    pthread_mutex_unlock(&pf->lock);
    return NULL;
}

int etl_trace_prefetch_help(etl_trace *t)
{
    etl_prefetch *pf = t ? t->prefetch : NULL;
    if (!pf) return 0;
    pthread_mutex_lock(&pf->lock);
    int rc = pf->stop ? 0 : decompress_next(pf);
    pthread_mutex_unlock(&pf->lock);
    return rc > 0;
}

/* The compressed, mapped buffers with a payload, in the order the merge is expected to want them. */
static int plan(etl_prefetch *pf, etl_trace *t)
{
    size_t total = 0, compressed = 0;
    pf->file_base = malloc((t->file_count ? t->file_count : 1) * sizeof *pf->file_base);
    if (!pf->file_base) return -1;
    for (size_t i = 0; i < t->file_count; i++) {
        pf->file_base[i] = total;
        total += t->files[i].buffer_count;
        if (!t->files[i].input.map) continue;
        for (size_t k = 0; k < t->files[i].buffer_count; k++) {
            const etl_buffer_ref *b = &t->files[i].buffers[k];
            if ((b->flags & ETL_BUFFER_FLAG_COMPRESSED) && b->valid > ETL_BUFFER_HEADER_SIZE &&
                b->disk_size > ETL_BUFFER_HEADER_SIZE && !etl_hand_over_has(t, (uint32_t)i, k))
                compressed++;
        }
    }
    if (!compressed) return -1;
    pf->slots = calloc(total, sizeof *pf->slots);
    pf->order = malloc(compressed * sizeof *pf->order);
    if (!pf->slots || !pf->order) return -1;
    /* One file: its buffers' SequenceNumbers (one counter per session, the order the buffers were flushed in,
     * which orders each stream) rank the flushes; flush times can be unusable (a generated trace's wrapped
     * ones made the helper fill its budget with buffers wanted last). Several files have no common sequence:
     * flush times. */
    int by_sequence = t->file_count == 1;
    for (size_t i = 0; i < t->stream_count; i++) {
        const etl_stream *s = &t->streams[i];
        const etl_trace_file *f = &t->files[s->file_index];
        if (!f->input.map) continue;
        for (size_t k = 0; k < s->buffer_count; k++) {
            const etl_buffer_ref *b = &s->buffers[k];
            if (!(b->flags & ETL_BUFFER_FLAG_COMPRESSED) || b->valid <= ETL_BUFFER_HEADER_SIZE ||
                b->disk_size <= ETL_BUFFER_HEADER_SIZE ||
                etl_hand_over_has(t, s->file_index, (size_t)(b - f->buffers)))
                continue;  /* a first pass decompressed it already (etl_trace_hand_over) */
            int64_t need = k ? etl_clock_to_filetime(&f->clock, s->buffers[k - 1].timestamp) : INT64_MIN;
            int64_t flushed = !by_sequence ? 0 : k ? s->buffers[k - 1].sequence : INT64_MIN;
            pf->order[pf->order_count++] = (work){flushed, need, s->file_index, (uint32_t)(b - f->buffers)};
        }
    }
    qsort(pf->order, pf->order_count, sizeof *pf->order, by_need);
    return 0;
}

etl_prefetch *etl_prefetch_start(etl_trace *t, unsigned threads)
{
    if (!t) return NULL;
    etl_prefetch *pf = calloc(1, sizeof *pf);
    if (!pf) return NULL;
    pf->t = t;
    if (plan(pf, t) != 0 || pthread_mutex_init(&pf->lock, NULL) != 0) {
        free(pf->file_base);
        free(pf->slots);
        free(pf->order);
        free(pf);
        return NULL;
    }
    pthread_cond_init(&pf->changed, NULL);
    pf->threads = calloc(threads, sizeof *pf->threads);
    for (unsigned i = 0; pf->threads && i < threads; i++) {
        if (pthread_create(&pf->threads[i], NULL, prefetch_thread, pf) != 0) break;
        pf->thread_count++;
    }
    if (threads && !pf->thread_count) {
        etl_prefetch_free(pf);
        return NULL;
    }
    return pf;
}

int etl_prefetch_take(etl_prefetch *pf, uint32_t file_index, const etl_buffer_ref *b, uint8_t **payload,
                      size_t *cap)
{
    const etl_trace_file *f = &pf->t->files[file_index];
    if (b < f->buffers || b >= f->buffers + f->buffer_count) return ETL_PREFETCH_MISS;
    pthread_mutex_lock(&pf->lock);
    slot *s = &pf->slots[pf->file_base[file_index] + (size_t)(b - f->buffers)];
    while (s->state == SLOT_BUSY) {
        pf->busy_waiters++;
        pthread_cond_wait(&pf->changed, &pf->lock);
        pf->busy_waiters--;
    }
    int rc = s->state == SLOT_READY && s->data ? s->rc : ETL_PREFETCH_MISS;
    if (rc == ETL_OK && *payload) {  /* the payloads change hands: the reader's old one becomes a spare */
        uint8_t *old = *payload;
        size_t old_cap = *cap;
        *payload = s->data;
        *cap = s->cap;
        pf->held += old_cap - s->cap;
        put_block(pf, old, old_cap);
    } else if (s->state == SLOT_READY) {
        put_block(pf, s->data, s->cap);
        if (rc == ETL_OK) rc = ETL_PREFETCH_MISS;
    }
    s->state = SLOT_TAKEN;  /* read again later (evicted): by the reader itself */
    s->data = NULL;
    int wake = pf->room_waiters && room(pf) >= ETL_PREFETCH_BYTES / 2;
    pthread_mutex_unlock(&pf->lock);
    if (wake) pthread_cond_broadcast(&pf->changed);  /* after unlocking: woken, it need not wait for the lock */
    return rc;
}

void etl_prefetch_settle(etl_trace *t)
{
    etl_prefetch *pf = t->prefetch;
    if (!pf) return;
    pthread_mutex_lock(&pf->lock);
    while (pf->idle < pf->thread_count) pthread_cond_wait(&pf->changed, &pf->lock);
    pthread_mutex_unlock(&pf->lock);
}

void etl_prefetch_free(etl_prefetch *pf)
{
    if (!pf) return;
    pthread_mutex_lock(&pf->lock);
    pf->stop = 1;
    pthread_cond_broadcast(&pf->changed);
    pthread_mutex_unlock(&pf->lock);
    for (unsigned i = 0; i < pf->thread_count; i++) pthread_join(pf->threads[i], NULL);
    size_t total = 0;
    for (size_t i = 0; i < pf->t->file_count; i++) total += pf->t->files[i].buffer_count;
    for (size_t i = 0; i < total; i++) free(pf->slots[i].data);
    for (size_t i = 0; i < pf->spare_count; i++) free(pf->spares[i].data);
    pthread_cond_destroy(&pf->changed);
    pthread_mutex_destroy(&pf->lock);
    free(pf->threads);
    free(pf->spares);
    free(pf->file_base);
    free(pf->slots);
    free(pf->order);
    free(pf);
}

int etl_trace_set_prefetch(etl_trace *t, unsigned threads)
{
    if (!t || t->is_view || t->processed) return ETL_ERR_ARG;
    if (t->prefetch) return ETL_OK;
    t->prefetch = etl_prefetch_start(t, threads);
    return ETL_OK;
}
