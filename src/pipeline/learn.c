/* The first pass (pipeline/learn.h), two ways to the same process table.
 *
 * Merged: etl_process in time order, etl_decoder_learn on every record; at -j N, N-1 threads decompress ahead.
 * etl_learn_processes reads by stream, but merged on several threads when the trace has compressed buffers.
 *
 * By stream: what the pass learns depends on the merged order only through (a) the process and thread events
 * (applied in order: lifetimes open, close and get names) and (b) for each TID, the record that last gave its
 * PID. Each thread reads streams unmerged (decompressing and parsing is then spread over every thread, and no
 * merge heap runs): on one thread, whole streams; on several, every stream is shared out in runs of about
 * RUN_BYTES of buffers taken in turn (one processor's stream can hold most of a trace). A thread keeps a copy
 * of each process/thread event the table learns from
 * (etl_process_table_learns_from: starts, ends, rundowns; not context switches) and, per TID, the last PID
 * its record headers gave, each with the record's merge key. The calling thread then applies, in merge-key
 * order, the kept events and the last header PID of each TID (earlier ones are overwritten by it in the merged
 * pass, and nothing reads the thread map in between). When every stream is in merge order (time never goes
 * back inside a stream), the merged order is exactly the order of the merge keys (trace.c: FILETIME, raw
 * time, processor, position; the first file's header record first), so the table ends the same. A shared
 * stream is in order when each thread's runs are and each run begins no earlier than the run before it ends
 * (runs_in_order). Several files (their tie rule depends on the previous record), a stream out of order, a
 * run that begins with a record without a time of its own (etl_process_stream), or more than COPY_BUDGET of
 * kept events: the merged pass instead. */
#include "pipeline/learn.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "decode/process_table.h"

#define COPY_BUDGET ((size_t)32 << 20)  /* bytes of kept process/thread events, all threads together */
#define MAX_WALKERS 64u
#define MAX_TIDS_PER_ROUND 65536u  /* distinct threads one walker notes in a round (7 MiB of table) */

enum { WALK_OK, WALK_UNORDERED, WALK_TOO_BIG, WALK_FAILED, WALK_GATHERING /* replay: no limit */ };

/* A record's place in etl_process's order (trace.c stream_before, one file). */
typedef struct merge_key {
    int64_t time, raw;
    uint64_t position;
    uint32_t processor;
    int header_first;
} merge_key;

typedef struct tid_seen {
    uint32_t tid, pid;
    merge_key at;
    int used;
} tid_seen;

typedef struct kept_event {  /* followed by its extended items, payload and items' data */
    merge_key at;
    etl_event_record record;
} kept_event;

typedef struct stream_mark {
    merge_key last;  /* the stream's previous record (read by this walker) */
    int have_last;
    size_t run;      /* the run `last` is in (shared streams) */
} stream_mark;

/* A stream several walkers read, each its runs of buffers (etl_trace_stream_share): each walker checks the
 * order inside what it reads; the first and last record of each run show, at the end, whether the runs follow
 * each other in order too. */
typedef struct run_ends {
    merge_key first, last;
    int have;
} run_ends;

typedef struct stream_share {
    size_t run;        /* buffers per run */
    size_t run_count;
    run_ends *runs;
} stream_share;

typedef struct walk_shared {
    const char *const *paths;
    size_t path_count, stream_count;
    unsigned walkers;
    stream_mark *marks;     /* per walker and stream: walker k's at k x stream_count */
    stream_share *shares;   /* per stream when several walkers read it (each stream is), else NULL */
    int64_t round_end;      /* this round reads the records before this time */
    int last_round;         /* ... or all that are left */
    unsigned round, finished, helpers;
    int done;
    pthread_mutex_t lock;
    pthread_cond_t go, came_back;
} walk_shared;

typedef struct walker {
    walk_shared *shared;
    unsigned index;         /* reads the streams whose owner this is */
    etl_trace *trace;       /* its own handle: a stream's position lives in it from round to round */
    tid_seen *tids;
    size_t tid_capacity, tid_count;
    kept_event **kept;
    size_t kept_count, kept_capacity, kept_bytes, budget;
    stream_mark *mark;      /* of the stream being read */
    stream_share *share;    /* of the stream being read; NULL: this walker reads it whole */
    int status;
    etl_decoder *warm;      /* the calling thread's walker: loads the schemas the replay decodes with, meanwhile */
    pthread_t thread;
} walker;

static int key_before(const merge_key *a, const merge_key *b)
{
    if (a->header_first != b->header_first) return a->header_first;
    if (a->time != b->time) return a->time < b->time;
    if (a->raw != b->raw) return a->raw < b->raw;
    if (a->processor != b->processor) return a->processor < b->processor;
    return a->position < b->position;
}

/* ---- the last PID of each TID -------------------------------------------------------------------------- */

static size_t tid_slot(const tid_seen *table, size_t capacity, uint32_t tid)
{
    size_t i = (size_t)(tid * 2654435761u) & (capacity - 1);
    while (table[i].used && table[i].tid != tid) i = (i + 1) & (capacity - 1);
    return i;
}

static int grow_tids(walker *w)
{
    if ((w->tid_count + 1) * 2 <= w->tid_capacity) return 0;
    size_t capacity = w->tid_capacity ? w->tid_capacity * 2 : 1024;
    tid_seen *fresh = calloc(capacity, sizeof *fresh);
    if (!fresh) return -1;
    for (size_t i = 0; i < w->tid_capacity; i++)
        if (w->tids[i].used) fresh[tid_slot(fresh, capacity, w->tids[i].tid)] = w->tids[i];
    free(w->tids);
    w->tids = fresh;
    w->tid_capacity = capacity;
    return 0;
}

/* tid had pid at `at`: kept when it is the latest so far. */
static int note_tid(walker *w, uint32_t tid, uint32_t pid, const merge_key *at)
{
    if (w->tid_capacity) {
        tid_seen *s = &w->tids[tid_slot(w->tids, w->tid_capacity, tid)];
        if (s->used) {
            if (key_before(&s->at, at)) {
                s->pid = pid;
                s->at = *at;
            }
            return 0;
        }
    }
    if (w->tid_count >= MAX_TIDS_PER_ROUND && w->status != WALK_GATHERING) {
        w->status = WALK_TOO_BIG;
        return -1;
    }
    if (grow_tids(w) != 0) return -1;
    w->tids[tid_slot(w->tids, w->tid_capacity, tid)] = (tid_seen){tid, pid, *at, 1};
    w->tid_count++;
    return 0;
}

/* ---- kept process/thread events ------------------------------------------------------------------------- */

/* A copy of what etl_decoder_learn reads of a record: the header, payload and extended items (not `raw`, which
 * decoding never reads). */
static int keep_event(walker *w, const etl_event_record *r, const merge_key *at)
{
    uint16_t items = r->extended_data ? r->extended_data_count : 0;
    size_t bytes = sizeof(kept_event) + items * sizeof(etl_extended_item) + r->user_data_length;
    for (uint16_t i = 0; i < items; i++) bytes += r->extended_data[i].data_size;
    if (w->kept_bytes + bytes > w->budget) {
        w->status = WALK_TOO_BIG;
        return -1;
    }
    if (w->kept_count == w->kept_capacity) {
        size_t n = w->kept_capacity ? w->kept_capacity * 2 : 256;
        kept_event **grown = realloc(w->kept, n * sizeof *grown);
        if (!grown) return -1;
        w->kept = grown;
        w->kept_capacity = n;
    }
    kept_event *k = malloc(bytes);
    if (!k) return -1;
    k->at = *at;
    k->record = *r;
    k->record.raw = NULL;
    k->record.raw_size = 0;
    etl_extended_item *copies = (etl_extended_item *)(k + 1);
    uint8_t *p = (uint8_t *)(copies + items);
    if (r->user_data) memcpy(p, r->user_data, r->user_data_length);
    k->record.user_data = r->user_data ? p : NULL;
    p += r->user_data_length;
    for (uint16_t i = 0; i < items; i++) {
        copies[i] = r->extended_data[i];
        if (r->extended_data[i].data) memcpy(p, r->extended_data[i].data, r->extended_data[i].data_size);
        copies[i].data = r->extended_data[i].data ? p : NULL;
        p += r->extended_data[i].data_size;
    }
    k->record.extended_data = items ? copies : NULL;
    w->kept[w->kept_count++] = k;
    w->kept_bytes += bytes;
    return 0;
}

/* ---- reading streams ------------------------------------------------------------------------------------ */

static int on_stream_record(const etl_event_record *r, uint64_t position, int header_first, void *ctx)
{
    walker *w = ctx;
    merge_key at = {r->header.timestamp, r->raw_timestamp, position, r->buffer_context.processor_index,
                    header_first};
    if (!header_first) {
        stream_mark *m = w->mark;  /* the merge keeps a stream's order: its keys must not go back */
        if (m->have_last && (at.time < m->last.time || (at.time == m->last.time && at.raw < m->last.raw))) {
            w->status = WALK_UNORDERED;
            return 1;
        }
        if (!w->shared->last_round && at.time >= w->shared->round_end)
            return 1;  /* the next round's: kept in the stream for it */
        if (w->share) {
            size_t run = (size_t)(position >> 32) / w->share->run;
            if (run >= w->share->run_count) {  /* cannot be: the stream has no such buffer */
                w->status = WALK_UNORDERED;
                return 1;
            }
            if (!m->have_last || run != m->run) {  /* the run's first record; the last comes at the run's end */
                if (m->have_last) w->share->runs[m->run].last = m->last;
                w->share->runs[run].first = at;
                w->share->runs[run].have = 1;
                m->run = run;
            }
        }
        m->last = at;
        m->have_last = 1;
    }
    if (etl_process_table_learns_from(r)) {
        if (keep_event(w, r, &at) != 0) goto failed;
        /* loading a schema (a manifest parsed on first use) costs more than reading many streams: done while
         * the other threads read, on a decoder of the same registry whose table is thrown away */
        if (w->warm && etl_decoder_learn(w->warm, r) != ETL_OK) goto failed;
        return 0;
    }
    const etl_event_header *h = &r->header;  /* all that observing this record learns (process_table.h) */
    if (h->process_id != UINT32_MAX && h->thread_id != UINT32_MAX && h->thread_id != 0 &&
        note_tid(w, h->thread_id, h->process_id, &at) != 0)
        goto failed;
    return 0;
failed:
    if (w->status == WALK_OK) w->status = WALK_FAILED;
    return 1;
}

/* This walker's streams, up to the round's end. */
static void walk_round(walker *w)
{
    walk_shared *sh = w->shared;
    for (size_t i = 0; i < sh->stream_count && w->status == WALK_OK; i++) {
        w->mark = &sh->marks[w->index * sh->stream_count + i];
        w->share = sh->shares ? &sh->shares[i] : NULL;
        int rc = etl_process_stream(w->trace, i, on_stream_record, w);
        if (rc < 0 && w->status == WALK_OK) w->status = WALK_FAILED;
        if (w->share && w->mark->have_last) w->share->runs[w->mark->run].last = w->mark->last;
    }
}

static void *walker_thread(void *arg)
{
    walker *w = arg;
    walk_shared *sh = w->shared;
    unsigned seen = 0;
    for (;;) {
        pthread_mutex_lock(&sh->lock);
        while (sh->round == seen && !sh->done) pthread_cond_wait(&sh->go, &sh->lock);
        seen = sh->round;
        int done = sh->done;
        pthread_mutex_unlock(&sh->lock);
        if (done) return NULL;
        walk_round(w);
        pthread_mutex_lock(&sh->lock);
        sh->finished++;
        pthread_cond_signal(&sh->came_back);
        pthread_mutex_unlock(&sh->lock);
    }
}

/* One round on every walker: the helpers and the calling thread's own streams. */
static void run_round(walker *walkers, walk_shared *sh)
{
    pthread_mutex_lock(&sh->lock);
    sh->finished = 0;
    sh->round++;
    pthread_cond_broadcast(&sh->go);
    pthread_mutex_unlock(&sh->lock);
    walk_round(&walkers[0]);
    pthread_mutex_lock(&sh->lock);
    while (sh->finished < sh->helpers) pthread_cond_wait(&sh->came_back, &sh->lock);
    pthread_mutex_unlock(&sh->lock);
}

static void walker_forget(walker *w)
{
    for (size_t i = 0; i < w->kept_count; i++) free(w->kept[i]);
    w->kept_count = 0;
    w->kept_bytes = 0;
    if (w->tids) memset(w->tids, 0, w->tid_capacity * sizeof *w->tids);
    w->tid_count = 0;
}

static void walker_free(walker *w)
{
    walker_forget(w);
    free(w->kept);
    free(w->tids);
    etl_close(w->trace);
}

/* ---- applying what the streams gave, in merge order ------------------------------------------------------ */

static int by_key(const void *a, const void *b)
{
    const merge_key *x = a, *y = b;
    return key_before(x, y) ? -1 : key_before(y, x);
}

static int by_kept_key(const void *a, const void *b)
{
    return by_key(&(*(kept_event *const *)a)->at, &(*(kept_event *const *)b)->at);
}

static int by_tid_key(const void *a, const void *b)
{
    return by_key(&((const tid_seen *)a)->at, &((const tid_seen *)b)->at);
}

static int replay(etl_decoder *decoder, walker *walkers, unsigned count)
{
    walker *all = &walkers[0];  /* gathers the others' TIDs and events */
    all->status = WALK_GATHERING;
    for (unsigned i = 1; i < count; i++) {
        walker *w = &walkers[i];
        for (size_t k = 0; k < w->tid_capacity; k++)
            if (w->tids[k].used && note_tid(all, w->tids[k].tid, w->tids[k].pid, &w->tids[k].at) != 0)
                return ETL_ERR_NOMEM;
        size_t n = all->kept_count + w->kept_count;
        if (n > all->kept_capacity) {
            kept_event **grown = realloc(all->kept, n * sizeof *grown);
            if (!grown) return ETL_ERR_NOMEM;
            all->kept = grown;
            all->kept_capacity = n;
        }
        if (w->kept_count) memcpy(all->kept + all->kept_count, w->kept, w->kept_count * sizeof *w->kept);
        all->kept_count = n;
        w->kept_count = 0;
    }
    all->status = WALK_OK;
    tid_seen *tids = malloc((all->tid_count + 1) * sizeof *tids);
    if (!tids) return ETL_ERR_NOMEM;
    size_t tid_count = 0;
    for (size_t k = 0; k < all->tid_capacity; k++)
        if (all->tids[k].used) tids[tid_count++] = all->tids[k];
    qsort(tids, tid_count, sizeof *tids, by_tid_key);
    if (all->kept_count) qsort(all->kept, all->kept_count, sizeof *all->kept, by_kept_key);
    int rc = ETL_OK;
    size_t t = 0, e = 0;
    while (rc == ETL_OK && (t < tid_count || e < all->kept_count)) {
        if (e == all->kept_count || (t < tid_count && key_before(&tids[t].at, &all->kept[e]->at))) {
            /* A record that only names its thread's process. It names no place in the file, and needs none: the
             * replay's decoder gives no diagnostics, and a table that left something out sends the trace to the
             * merged pass, whose warning names the real record (test_learn.c). */
            etl_event_record header;
            memset(&header, 0, sizeof header);
            header.header.thread_id = tids[t].tid;
            header.header.process_id = tids[t].pid;
            header.header.timestamp = tids[t].at.time;
            header.kind = ETL_KIND_EVENT64;
            rc = etl_decoder_learn(decoder, &header);
            t++;
        } else {
            rc = etl_decoder_learn(decoder, &all->kept[e++]->record);
        }
    }
    free(tids);
    for (unsigned i = 0; i < count; i++) walker_forget(&walkers[i]);
    return rc == ETL_OK ? ETL_OK : ETL_ERR_NOMEM;
}

/* Every stream is read by every walker, each its runs of about RUN_BYTES in turn: processors are far from
 * equally busy (one stream can hold most of a trace), and the runs spread each round's records evenly. */
#define RUN_BYTES ((uint64_t)1 << 20)

static int share_streams(walk_shared *sh, walker *walkers, uint64_t run_bytes)
{
    sh->shares = calloc(sh->stream_count ? sh->stream_count : 1, sizeof *sh->shares);
    if (!sh->shares) return -1;
    for (size_t i = 0; i < sh->stream_count; i++) {
        stream_share *share = &sh->shares[i];
        size_t buffers = etl_trace_stream_buffer_count(walkers[0].trace, i);
        uint64_t bytes = etl_trace_stream_bytes(walkers[0].trace, i);
        uint64_t run = bytes ? run_bytes * buffers / bytes : 1;
        share->run = run < 1 ? 1 : run > buffers ? (buffers ? buffers : 1) : (size_t)run;
        share->run_count = buffers / share->run + 1;
        share->runs = calloc(share->run_count, sizeof *share->runs);
        if (!share->runs) return -1;
        for (unsigned w = 0; w < sh->walkers; w++)
            if (etl_trace_stream_share(walkers[w].trace, i, share->run, w, sh->walkers) != ETL_OK) return -1;
    }
    return 0;
}

/* Whether each shared stream's runs follow each other in time (each walker checked inside its own runs). */
static int runs_in_order(const walk_shared *sh)
{
    for (size_t i = 0; sh->shares && i < sh->stream_count; i++) {
        const stream_share *share = &sh->shares[i];
        const merge_key *before = NULL;
        for (size_t r = 0; r < share->run_count; r++) {
            const run_ends *e = &share->runs[r];
            if (!e->have) continue;
            if (before && (e->first.time < before->time || (e->first.time == before->time && e->first.raw < before->raw)))
                return 0;
            before = &e->last;
        }
    }
    return 1;
}

static void free_shares(walk_shared *sh)
{
    for (size_t i = 0; sh->shares && i < sh->stream_count; i++) free(sh->shares[i].runs);
    free(sh->shares);
}

/* Rounds of about ROUND_BYTES of trace each, by time (the buffers' flush times): what is kept is applied after
 * each round, so memory holds about one round's process/thread events. */
#define ROUND_BYTES ((uint64_t)64 << 20)

typedef struct round_plan {
    unsigned rounds;
    int64_t first, last;
} round_plan;

static round_plan plan_rounds(const etl_trace *t, const char *path, uint64_t round_bytes)
{
    round_plan p = {1, 0, 0};
    struct stat st;
    if (!etl_trace_time_range(t, &p.first, &p.last) || p.last <= p.first || stat(path, &st) != 0) return p;
    uint64_t rounds = ((uint64_t)st.st_size + round_bytes - 1) / round_bytes;
    p.rounds = rounds < 1 ? 1 : rounds > 4096 ? 4096 : (unsigned)rounds;
    return p;
}

static int64_t round_end(const round_plan *p, unsigned round)
{
    if (round + 1 >= p->rounds) return INT64_MAX;
    return p->first + (int64_t)((double)(p->last - p->first) * (round + 1) / p->rounds);
}

/* Opens paths for a first pass; `next` (NULL: none) is the handle the decoding pass reads afterwards: the
 * buffers this one decompresses go to it when they all fit (etl_trace_hand_over). */
static int open_first(etl_trace **out, const char *const *paths, size_t count, etl_trace *next)
{
    etl_error err;
    int rc = etl_open(out, paths, count, NULL, &err);
    if (rc == ETL_OK && next) etl_trace_hand_over(*out, next);  /* out of memory: decompressed twice */
    return rc;
}

static int learn_by_stream(etl_decoder *decoder, etl_schema_registry *registry, const char *const *paths,
                           size_t count, unsigned threads, uint64_t round_bytes, uint64_t run_bytes,
                           etl_trace *next)
{
    walker walkers[MAX_WALKERS];
    memset(walkers, 0, sizeof walkers);
    /* the decoding pass's handle has indexed the files: shared when nothing compressed is to be handed over */
    int share_next = next && etl_trace_get_stats(next)->buffers_compressed == 0;
    if (count != 1 || !registry ||
        (!(share_next && (walkers[0].trace = etl_trace_stream_reader(next))) &&
         open_first(&walkers[0].trace, paths, count, next) != ETL_OK))
        return ETL_LEARN_BY_STREAM_NOT;
    walk_shared sh;
    memset(&sh, 0, sizeof sh);
    sh.paths = paths;
    sh.path_count = count;
    sh.stream_count = etl_trace_stream_count(walkers[0].trace);
    unsigned n = threads ? threads : 1;
    if (n > MAX_WALKERS) n = MAX_WALKERS;
    uint64_t bytes = 0;  /* a walker per run of the trace at most: a small trace is not worth a thread */
    for (size_t i = 0; i < sh.stream_count; i++) bytes += etl_trace_stream_bytes(walkers[0].trace, i);
    if (!run_bytes) run_bytes = RUN_BYTES;
    if (n > bytes / run_bytes + 1) n = (unsigned)(bytes / run_bytes + 1);
    for (unsigned i = 1; i < n; i++)  /* each helper reads through a handle of its own on the same files */
        if (!(walkers[i].trace = etl_trace_stream_reader(walkers[0].trace))) {
            n = i;
            break;
        }
    sh.marks = calloc((sh.stream_count ? sh.stream_count : 1) * n, sizeof *sh.marks);
    pthread_mutex_init(&sh.lock, NULL);
    pthread_cond_init(&sh.go, NULL);
    pthread_cond_init(&sh.came_back, NULL);
    /* The replay learns into a decoder of its own, without diagnostics, and hands its table over only when all
     * went through and nothing was left out at the table's bounds (which observations are left out depends on
     * the order: the merged pass decides then, and warns where it should). */
    etl_decoder *into = etl_decoder_new(registry, walkers[0].trace);
    if (into) etl_decoder_set_flags(into, etl_decoder_flags(decoder));
    int rc = sh.marks && into ? ETL_OK : ETL_ERR_NOMEM;
    for (unsigned i = 0; i < n; i++) {
        walkers[i].shared = &sh;
        walkers[i].index = i;
        walkers[i].budget = COPY_BUDGET / n;
    }
    for (unsigned i = 1; rc == ETL_OK && i < n; i++) {
        if (pthread_create(&walkers[i].thread, NULL, walker_thread, &walkers[i]) != 0) break;
        sh.helpers++;
    }
    sh.walkers = sh.helpers + 1;  /* helpers wait for the first round: the streams go to those that started */
    if (rc == ETL_OK && sh.walkers > 1 && share_streams(&sh, walkers, run_bytes) != 0)
        rc = ETL_ERR_NOMEM;
    if (rc == ETL_OK && sh.helpers && !(walkers[0].warm = etl_decoder_new(registry, walkers[0].trace)))
        rc = ETL_ERR_NOMEM;
    round_plan plan = plan_rounds(walkers[0].trace, paths[0], round_bytes ? round_bytes : ROUND_BYTES);
    for (unsigned r = 0; rc == ETL_OK && r < plan.rounds; r++) {
        sh.round_end = round_end(&plan, r);
        sh.last_round = r + 1 == plan.rounds;
        run_round(walkers, &sh);
        for (unsigned i = 0; i < sh.walkers; i++)
            if (walkers[i].status != WALK_OK) rc = ETL_LEARN_BY_STREAM_NOT;
        if (rc == ETL_OK) rc = replay(into, walkers, sh.walkers);
        /* what a full table leaves out depends on the order: the merged pass decides (see below), so the rounds
         * left would be read for nothing */
        if (rc == ETL_OK && etl_process_table_dropped(etl_decoder_process_table(into))) rc = ETL_LEARN_BY_STREAM_NOT;
    }
    pthread_mutex_lock(&sh.lock);
    sh.done = 1;
    pthread_cond_broadcast(&sh.go);
    pthread_mutex_unlock(&sh.lock);
    for (unsigned i = 1; i <= sh.helpers; i++) pthread_join(walkers[i].thread, NULL);
    if (rc == ETL_OK && !runs_in_order(&sh)) rc = ETL_LEARN_BY_STREAM_NOT;
    if (rc == ETL_OK && etl_process_table_dropped(etl_decoder_process_table(into))) rc = ETL_LEARN_BY_STREAM_NOT;
    if (rc == ETL_OK) rc = etl_decoder_copy_processes(decoder, into);
    etl_decoder_free(walkers[0].warm);
    etl_decoder_free(into);
    pthread_cond_destroy(&sh.go);
    pthread_cond_destroy(&sh.came_back);
    pthread_mutex_destroy(&sh.lock);
    free(sh.marks);
    free_shares(&sh);
    for (unsigned i = n; i-- > 0;) walker_free(&walkers[i]);  /* the helpers' handles share walker 0's files */
    return rc;
}

int etl_learn_processes_by_stream(etl_decoder *decoder, etl_schema_registry *registry, const char *const *paths,
                                  size_t count, unsigned threads, uint64_t round_bytes, uint64_t run_bytes)
{
    return learn_by_stream(decoder, registry, paths, count, threads, round_bytes, run_bytes, NULL);
}

/* ---- merged ----------------------------------------------------------------------------------------------- */

static int on_learn_record(const etl_event_record *record, void *ctx)
{
    return etl_decoder_learn(ctx, record) != ETL_OK;
}

static int learn_merged(etl_decoder *decoder, const char *const *paths, size_t count, unsigned threads,
                        etl_trace *next)
{
    etl_trace *trace;
    if (open_first(&trace, paths, count, next) != ETL_OK) return ETL_OK;
    if (threads >= 2) etl_trace_set_prefetch(trace, threads - 1);
    int rc = etl_process(trace, on_learn_record, decoder);
    etl_close(trace);
    return rc == ETL_STOPPED ? ETL_ERR_NOMEM : ETL_OK;
}

int etl_learn_processes_merged(etl_decoder *decoder, const char *const *paths, size_t count, unsigned threads)
{
    return learn_merged(decoder, paths, count, threads, NULL);
}

int etl_learn_processes(etl_decoder *decoder, etl_schema_registry *registry, const char *const *paths, size_t count,
                        unsigned threads, etl_trace *next)
{
    for (size_t i = 0; i < count; i++) {
        struct stat st;  /* a pipe cannot be read twice */
        if (stat(paths[i], &st) != 0 || !S_ISREG(st.st_mode)) return ETL_OK;
    }
    /* Compressed buffers with spare threads: the merged pass with decompress-ahead. By stream, shared out in
     * runs, is faster when it goes through (a 256 MB copy of net.4.5.2.x86: 0.45 s against 0.7 s on 2
     * threads), but a trace whose process table fills up (a PID with hundreds of lifetimes, as in the 1 GB
     * copies) is read by stream until the table drops something and then merged after all: compressed, that
     * costs more than it saves. Otherwise by stream. */
    int compressed = threads >= 2 && next && etl_trace_get_stats(next)->buffers_compressed > 0;
    if (threads >= 2 && !next) {
        etl_trace *t;
        etl_error err;
        if (etl_open(&t, paths, count, NULL, &err) == ETL_OK) {
            compressed = etl_trace_get_stats(t)->buffers_compressed > 0;
            etl_close(t);
        }
    }
    int rc = compressed ? ETL_LEARN_BY_STREAM_NOT : learn_by_stream(decoder, registry, paths, count, threads, 0, 0, next);
    return rc == ETL_LEARN_BY_STREAM_NOT ? learn_merged(decoder, paths, count, threads, next) : rc;
}
