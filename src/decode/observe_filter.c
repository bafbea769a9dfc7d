/* The records an observing decoder must see (observe_filter.h).
 *
 * etl_decoder_observe(d, r) does three things; for a record the filter does not list each changes nothing:
 *  - etl_eventsource_observe: returns before touching its state unless etl_eventsource_takes(r).
 *  - etl_embedded_observe: unless etl_embedded_takes(r), it only registers the events held back for maps
 *    (flush_pending), and only while some are pending. Only a MetaData record (listed) makes events pending, and
 *    the first record after it that is not one is listed too: it flushes them, so pending is 0 again after it and
 *    every later non-MetaData record up to the next MetaData record is a no-op. (When that flush fails, out of
 *    memory, every following record retries: the decoder then says it needs every record,
 *    etl_decoder_needs_every_record.) A decoder that owns a later record observes it first (etl_decode_begin), so
 *    nothing it decodes can come before a flush the list puts where one thread has it.
 *  - etl_decoder_learn: nothing with ETL_DECODER_NO_PROCESSES (then nothing below is listed); else process and
 *    thread events (etl_process_table_learns_from) are listed. Any other record
 *    amounts to etl_process_table_observe_header, which does nothing unless etl_process_table_header_thread(r),
 *    and then learn_thread(TID, PID), which returns at once when the table maps TID to PID already.
 * The cache below holds, per slot (TID hash), the last (TID, PID) a listed header gave in trace order. Claim: while
 * the table has dropped nothing (etl_process_table_dropped == 0), a cached (TID, PID) is in the table of a
 * decoder that observed every record so far. Observing the listed record that cached it left TID -> PID there
 * (learn_thread inserts or overwrites; the table full or NO_SLOT would have counted a drop). What could change it
 * since: a header with the same TID and another PID (it maps to the same slot: the slot now holds that pair, or a
 * later one's, so the old pair no longer matches), a thread event (payload TThreadId -> ProcessId: every process
 * or thread event clears the cache; its own header is not cached, its payload may remap that TID), or a rehash of
 * the thread table (grow_threads) that loses an entry, which counts a drop. Entries are never removed otherwise.
 * So a record whose header matches the cache is a no-op for learn_thread: skipping it changes neither the table
 * nor its dropped count. Once the table dropped something (a hostile trace: 2^19 threads, or 64 colliding
 * probes), the claim no longer holds (a dropped TID may fit after a rehash; a drop's count only matters as
 * nonzero, note_process_bounds, but the missing entry matters): etl_decoder_needs_every_record says so and the
 * worker observes every record from there on. The header-pair test is the table's own
 * (etl_process_table_header_thread), so skipped records without a pair are no-ops there too.
 *
 * Decoders learn the same in every worker only when they see the same records in the same order; listing does
 * not reorder anything, and a decoder that decodes a record (its owner) observes it as fully as the list would.
 * The TraceLogging and lookup caches a learning decoder touches only remember what a lookup gives. */
#include "decode/observe_filter.h"

#include <stdlib.h>
#include <string.h>

#include "decode/process_table.h"
#include "schema/sources.h"

#define CACHE_SLOTS 1024u  /* 12 KiB; thread ids are multiples of 4 */

typedef struct cached_pair {
    uint32_t tid, pid;
    uint32_t epoch;        /* valid when the filter's epoch: bumping it clears the cache */
} cached_pair;

struct etl_observe_filter {
    unsigned flags;
    uint32_t epoch;        /* from 1; entries of epoch 0 were never set */
    int flush_next;        /* a MetaData record passed: the next other record registers what it held back */
    cached_pair cache[CACHE_SLOTS];
};

etl_observe_filter *etl_observe_filter_new(unsigned flags)
{
    etl_observe_filter *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->flags = flags;
    f->epoch = 1;
    return f;
}

void etl_observe_filter_free(etl_observe_filter *f) { free(f); }

static void clear_cache(etl_observe_filter *f)
{
    if (++f->epoch == 0) {  /* wrapped: entries of every epoch would look valid again */
        memset(f->cache, 0, sizeof f->cache);
        f->epoch = 1;
    }
}

int etl_observe_filter_wants(etl_observe_filter *f, const etl_event_record *record)
{
    int wanted = 0;
    if (!(f->flags & ETL_DECODER_NO_TRACE_SCHEMAS)) {  /* etl_decoder_observe feeds these sources only then */
        if (etl_embedded_takes(record)) {
            f->flush_next = 1;
            wanted = 1;
        } else if (f->flush_next) {
            f->flush_next = 0;
            wanted = 1;
        }
        if (etl_eventsource_takes(record)) wanted = 1;
    }
    if (f->flags & ETL_DECODER_NO_PROCESSES) return wanted;  /* etl_decoder_learn learns nothing then */
    if (etl_process_table_wants(record) && etl_process_table_learns_from(record)) {  /* the first: inline */
        clear_cache(f);
        return 1;
    }
    if (etl_process_table_header_thread(record)) {
        uint32_t tid = record->header.thread_id, pid = record->header.process_id;
        cached_pair *c = &f->cache[(tid >> 2) & (CACHE_SLOTS - 1)];
        if (c->epoch != f->epoch || c->tid != tid || c->pid != pid) {
            *c = (cached_pair){tid, pid, f->epoch};
            wanted = 1;
        }
    }
    return wanted;
}
