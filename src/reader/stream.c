/* One processor's buffers of one file, read one buffer at a time. An uncompressed buffer of a mapped file is
 * read in place; a compressed one is decompressed once from the mapping into the stream's payload. Memory:
 * every stream's payload counts against the trace's memory budget; past it, the payloads of the streams whose
 * records come last are freed and read again when the merge reaches them (docs/robustness.md). Mapped buffers
 * hold no payload, and their pages leave the resident set when the stream moves on (reader/input.h). */
#include <stdlib.h>
#include <string.h>

#include "reader/decompress.h"
#include "reader/prefetch.h"
#include "reader/record_parse.h"
#include "reader/trace_internal.h"

static int ensure(uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    uint8_t *nb = realloc(*buf, need);
    if (!nb) return -1;
    *buf = nb;
    *cap = need;
    return 0;
}

static void release_payload(etl_trace *t, etl_stream *s)
{
    t->resident -= s->payload_cap;
    free(s->payload);
    s->payload = NULL;
    s->payload_cap = 0;
}

/* Frees other streams' payloads, the one whose record comes last first, until `need` more bytes fit in the
 * memory budget. An evicted stream keeps its position and reloads its buffer when the merge reaches it. */
static void make_room(etl_trace *t, const etl_stream *keep, size_t need)
{
    while (t->resident + need > t->memory_budget) {
        etl_stream *victim = NULL;
        for (size_t i = 0; i < t->stream_count; i++) {
            etl_stream *v = &t->streams[i];
            if (v == keep || !v->payload) continue;
            if (!victim || v->key_filetime > victim->key_filetime) victim = v;
        }
        if (!victim) return;
        release_payload(t, victim);
        if (victim->current && !victim->mapped) victim->evicted = 1;
    }
}

/* Room for `need` payload bytes in stream s, within the budget. */
static int reserve_payload(etl_trace *t, etl_stream *s, size_t need)
{
    if (need <= s->payload_cap) return 0;
    make_room(t, s, need - s->payload_cap);
    size_t old = s->payload_cap;
    if (ensure(&s->payload, &s->payload_cap, need)) return -1;
    t->resident += s->payload_cap - old;
    return 0;
}

/* Bytes of mapped input read (records parsed, compressed bytes decompressed) between two sweeps, where every
 * mapping is given back whole (pages still in use are read again from the page cache). Buffers are not given
 * back one by one: a madvise per buffer was tens of thousands of system calls per GB, and with -j each one
 * interrupts the other cores to flush their TLBs. The kernel maps pages around each fault ("fault-around"),
 * some of other streams' buffers (a by-stream first pass reads one stream at a time), so the file range read
 * since the last sweep is bounded too. The resident set keeps about this much of the files plus a few pages
 * per stream (twice this much when the sweeps are deferred, below), whatever the file size, the buffer size or
 * the number of streams. */
#define MAPPED_SWEEP_BYTES ((uint64_t)4 << 20)

static void release_files(const etl_trace *t)
{
    for (size_t i = 0; i < t->file_count; i++) etl_input_release(&t->files[i].input, 0, t->files[i].input.size);
}

/* A sweep gives back 1,000-odd pages: 0.2-0.3 ms, which a -j reader's turn must not hold (the other worker
 * waited out each one; etl_trace_defer_release). Deferred, the sweep only marks the release as due, unless the
 * last one is still due or being done: then it is done here too, so what is resident stays bounded by two
 * sweeps' reading (a caller that claimed a release and stalled before its madvise passed the pages read since
 * cannot let the reader defer again). */
enum { RELEASE_IDLE, RELEASE_DUE, RELEASE_RUNNING };

static void sweep_mapped(etl_trace *t)
{
    t->mapped_read = 0;
    t->mapped_lo = t->mapped_hi = 0;
    if (t->defer_release) {
        int state = RELEASE_IDLE;
        if (atomic_compare_exchange_strong_explicit(&t->release_due, &state, RELEASE_DUE, memory_order_relaxed,
                                                    memory_order_relaxed))
            return;
        if (state == RELEASE_DUE)  /* taken over (a caller may claim it meanwhile: then both release) */
            atomic_compare_exchange_strong_explicit(&t->release_due, &state, RELEASE_IDLE, memory_order_relaxed,
                                                    memory_order_relaxed);
    }
    release_files(t);
}

void etl_trace_defer_release(etl_trace *t, int on)
{
    if (t) t->defer_release = on != 0;
}

void etl_trace_read_ahead(etl_trace *t, int on)
{
    if (t) t->read_ahead = on != 0;
}

int etl_trace_release_due(etl_trace *t)
{
    /* a load first: called after every batch, and the exchange would take the line at every call */
    if (!t || atomic_load_explicit(&t->release_due, memory_order_relaxed) != RELEASE_DUE) return 0;
    int state = RELEASE_DUE;
    if (!atomic_compare_exchange_strong_explicit(&t->release_due, &state, RELEASE_RUNNING, memory_order_acquire,
                                                 memory_order_relaxed))
        return 0;
    release_files(t);
    t->stats.releases_deferred++;  /* by one caller at a time: the one that holds RELEASE_RUNNING */
    atomic_store_explicit(&t->release_due, RELEASE_IDLE, memory_order_release);
    return 1;
}

/* A mapped range of `bytes` was read and released. */
static void count_mapped(etl_trace *t, uint64_t bytes)
{
    t->mapped_read += bytes;
    if (t->mapped_read >= MAPPED_SWEEP_BYTES) sweep_mapped(t);
}

/* A mapped buffer [offset, offset + size) was read: what is resident follows the file range read, not only the
 * bytes read (see above). */
static void note_mapped_range(etl_trace *t, uint64_t offset, uint64_t size)
{
    if (!t->mapped_hi) t->mapped_lo = offset, t->mapped_hi = offset + size;
    if (offset < t->mapped_lo) t->mapped_lo = offset;
    if (offset + size > t->mapped_hi) t->mapped_hi = offset + size;
    if (t->mapped_hi - t->mapped_lo >= MAPPED_SWEEP_BYTES) sweep_mapped(t);
}

/* Points s->data at buffer b's records: in place when the file is mapped and b is not compressed, else
 * decompressed or read into s->payload. ETL_OK, ETL_ERR_NOMEM, or ETL_ERR_IO/ETL_ERR_DECOMPRESS after a
 * report (the buffer's events are lost). */
static int read_payload(etl_trace *t, etl_stream *s, const etl_buffer_ref *b)
{
    etl_trace_file *f = &t->files[s->file_index];
    size_t expected = b->valid - ETL_BUFFER_HEADER_SIZE;
    uint64_t at = b->offset + ETL_BUFFER_HEADER_SIZE;
    if (!(b->flags & ETL_BUFFER_FLAG_COMPRESSED)) {
        const uint8_t *view = etl_input_view(&f->input, at, expected);
        if (view) {
            s->data = view;
            s->mapped = 1;
            return ETL_OK;
        }
    } else if (f->kept) {  /* decompressed by a first pass (etl_trace_hand_over)? */
        size_t cap;
        uint8_t *kept = etl_hand_over_take(t, s->file_index, b, &cap);
        if (kept) {
            release_payload(t, s);
            make_room(t, s, cap);
            s->payload = kept;
            s->payload_cap = cap;
            t->resident += cap;
            s->data = kept;
            t->stats.buffers_handed_over++;
            return ETL_OK;
        }
    }
    if (reserve_payload(t, s, expected ? expected : 1)) return ETL_ERR_NOMEM;
    s->data = s->payload;
    if (b->flags & ETL_BUFFER_FLAG_COMPRESSED) {
        size_t in_len = b->disk_size - ETL_BUFFER_HEADER_SIZE;
        /* decompressed ahead by another thread (reader/prefetch.h)? */
        size_t cap_before = s->payload_cap;
        int rc = t->prefetch ? etl_prefetch_take(t->prefetch, s->file_index, b, &s->payload, &s->payload_cap)
                             : ETL_PREFETCH_MISS;
        const uint8_t *in = rc == ETL_PREFETCH_MISS ? etl_input_view(&f->input, at, in_len) : NULL;
        if (rc != ETL_PREFETCH_MISS) {
            s->data = s->payload;
            t->resident += s->payload_cap - cap_before;  /* a payload of another capacity came in */
            t->stats.buffers_prefetched += rc == ETL_OK;
            note_mapped_range(t, b->offset, b->disk_size);
            count_mapped(t, in_len);
        } else if (!in) {
            if (ensure(&t->scratch, &t->scratch_cap, in_len ? in_len : 1)) return ETL_ERR_NOMEM;
            if (etl_input_read(&f->input, at, t->scratch, in_len) != ETL_OK) {
                etl_trace_diag(t, ETL_ERROR, ETL_ERR_IO, s->file_index, b->offset, "cannot read buffer");
                return ETL_ERR_IO;
            }
            in = t->scratch;
        }
        if (rc == ETL_PREFETCH_MISS) {
            etl_compression_format used;
            rc = etl_decompress_etl_buffer(in, in_len, s->payload, expected, &used);
            if (in != t->scratch) {  /* decompressed once: given back at the next sweep */
                note_mapped_range(t, b->offset, b->disk_size);
                count_mapped(t, in_len);
            }
        }
        if (rc != ETL_OK) {
            etl_trace_diag(t, ETL_ERROR, ETL_ERR_DECOMPRESS, s->file_index, b->offset,
                           "compressed buffer does not decompress to its stated %zu bytes; its events are lost",
                           expected);
            return ETL_ERR_DECOMPRESS;
        }
    } else if (etl_input_read(&f->input, at, s->payload, expected) != ETL_OK) {
        etl_trace_diag(t, ETL_ERROR, ETL_ERR_IO, s->file_index, b->offset, "cannot read buffer");
        return ETL_ERR_IO;
    }
    return ETL_OK;
}

/* The stream leaves its current buffer: a mapped one's pages go back at the next sweep. */
static void leave_buffer(etl_trace *t, etl_stream *s)
{
    if (!s->mapped) return;
    s->mapped = 0;
    note_mapped_range(t, s->current->offset, s->current->valid);
}

/* Loads buffers until one has a readable payload. Returns ETL_OK (has_record may be 0 at the end). */
static int load_next_buffer(etl_trace *t, etl_stream *s)
{
    if (s->current) leave_buffer(t, s);
    if (s->current && t->hand_to && s->payload_len && !s->mapped &&
        etl_hand_over_give(t, s->file_index, s->current, s->payload, s->payload_len, s->payload_cap)) {
        t->resident -= s->payload_cap;  /* the block is the second pass's now */
        s->payload = NULL;
        s->payload_cap = 0;
    }
    while (s->next_buffer < s->buffer_count) {
        int run_start = 0;  /* a run after another handle's (etl_trace_stream_share) */
        if (s->share_of > 1 && s->next_buffer % s->share_run == 0) {
            size_t run = s->next_buffer / s->share_run;
            size_t skip = (s->share_which + s->share_of - run % s->share_of) % s->share_of;
            if (skip) {
                s->next_buffer = (run + skip) * s->share_run;
                continue;
            }
            run_start = s->next_buffer > 0;
        }
        const etl_buffer_ref *b = &s->buffers[s->next_buffer++];
        s->current = b;
        s->pos = 0;
        s->prefetched = 0;
        s->payload_len = 0;
        t->stats.bytes_done += b->disk_size;
        int rc = read_payload(t, s, b);
        if (rc == ETL_ERR_NOMEM) return rc;
        if (rc != ETL_OK) continue;
        s->payload_len = b->valid - ETL_BUFFER_HEADER_SIZE;
        if (s->last_raw == 0) s->last_raw = b->timestamp;
        /* the time of the record before this run is the other handle's: a record without a time of its own
         * before the run's first timed one gets this mark (etl_process_stream refuses it; any time it could
         * take from this handle would also break the order the first pass checks) */
        if (run_start) s->last_raw = ETL_STREAM_TIME_UNKNOWN;
        return ETL_OK;
    }
    s->current = NULL;
    release_payload(t, s); /* exhausted: hold nothing */
    return ETL_OK;
}

/* Asks for the lines up to READ_AHEAD bytes past the current record (etl_trace_read_ahead). The -j pipeline's
 * reader only parses and copies, and waited for each record's first line from memory: the first load of a
 * record header was 45 % of position() at -j 2 against 14 % at -j 1 (perf, 1 GB net.4.5.x86 copy, AMD EPYC
 * host); with 1024 bytes ahead the pipeline's reading took 16 % less time against its rendering (256: 11 %). */
#define READ_AHEAD 1024
static inline void read_ahead(etl_stream *s)
{
    size_t want = s->pos + s->advance + READ_AHEAD;
    if (want > s->payload_len) want = s->payload_len;
    size_t at = s->prefetched > s->pos ? s->prefetched : s->pos;
    for (; at < want; at += 64) __builtin_prefetch(s->data + at);
    s->prefetched = (uint32_t)at;
}

/* Parses the record at s->pos, moving to later buffers as needed. */
static int position(etl_trace *t, etl_stream *s)
{
    etl_trace_file *f = &t->files[s->file_index];
    s->has_record = 0;
    for (;;) {
        if (!s->current) return ETL_OK;
        const char *why = NULL;
        int has_ts = 1;
        etl_record_result r = etl_record_parse_inline(s->data, s->payload_len, s->pos, f->pointer_size, &s->record,
                                                      s->items, ETL_MAX_EXTENDED_ITEMS, &s->advance, &has_ts, &why);
        if (r == ETL_RECORD_OK) {
            etl_event_record *rec = &s->record;
            if (has_ts) s->last_raw = rec->raw_timestamp;
            else rec->raw_timestamp = s->last_raw;
            rec->buffer_context.processor_index = s->current->processor;
            rec->buffer_context.logger_id = s->current->logger_id;
            rec->file_index = s->file_index;
            rec->file_offset = s->current->offset;
            rec->buffer_compressed = (s->current->flags & ETL_BUFFER_FLAG_COMPRESSED) != 0;
            s->key_filetime = etl_clock_to_filetime(&f->clock, rec->raw_timestamp);
            rec->header.timestamp = (t->options.flags & ETL_OPEN_RAW_TIMESTAMP) ? rec->raw_timestamp : s->key_filetime;
            s->has_record = 1;
            if (t->read_ahead) read_ahead(s);
            return ETL_OK;
        }
        if (r == ETL_RECORD_BAD) {
            int compressed = (s->current->flags & ETL_BUFFER_FLAG_COMPRESSED) != 0;
            if (compressed)  /* worded as etl_record_place_text words a record of a compressed buffer */
                etl_trace_diag(t, ETL_ERROR, ETL_ERR_FORMAT, s->file_index, s->current->offset,
                               "compressed buffer, record 0x%zx bytes into its decompressed records: %s; "
                               "rest of buffer skipped", s->pos, why);
            else
                etl_trace_diag(t, ETL_ERROR, ETL_ERR_FORMAT, s->file_index,
                               s->current->offset + ETL_BUFFER_HEADER_SIZE + s->pos, "%s; rest of buffer skipped", why);
        }
        int rc = load_next_buffer(t, s);
        if (rc != ETL_OK) return rc;
    }
}

int etl_stream_start(etl_trace *t, etl_stream *s)
{
    int rc = load_next_buffer(t, s);
    if (rc != ETL_OK) return rc;
    return position(t, s);
}

int etl_stream_make_resident(etl_trace *t, etl_stream *s)
{
    if (!s->evicted) return ETL_OK;
    s->evicted = 0;
    int rc = read_payload(t, s, s->current);
    if (rc == ETL_ERR_NOMEM) return rc;
    if (rc == ETL_OK) {
        /* Same record as before: only its pointers into the payload change. */
        etl_event_record kept = s->record;
        etl_trace_file *f = &t->files[s->file_index];
        const char *why = NULL;
        int has_ts;
        if (etl_record_parse(s->data, s->payload_len, s->pos, f->pointer_size, &s->record, s->items,
                             ETL_MAX_EXTENDED_ITEMS, &s->advance, &has_ts, &why) == ETL_RECORD_OK) {
            s->record.raw_timestamp = kept.raw_timestamp;
            s->record.header.timestamp = kept.header.timestamp;
            s->record.buffer_context = kept.buffer_context;
            s->record.file_index = kept.file_index;
            s->record.file_offset = kept.file_offset;
            s->record.buffer_compressed = kept.buffer_compressed;
            return ETL_OK;
        }
    }
    /* The buffer read differently the second time (the file changed underneath): go on with the next. */
    rc = load_next_buffer(t, s);
    if (rc != ETL_OK) return rc;
    rc = position(t, s);
    return rc != ETL_OK ? rc : 1;
}

int etl_stream_next(etl_trace *t, etl_stream *s)
{
    if (s->mapped) count_mapped(t, s->advance);
    s->pos += s->advance;
    s->order++;
    return position(t, s);
}
