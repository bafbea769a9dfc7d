/* Process context (docs/etl-format.md §4.6): process lifetimes with their names, and TID → PID.
 *
 * Names come from the decoded fields rather than byte offsets, so every Process/Thread layout version the
 * schema sources know works. PIDs are reused, so a PID owns a list of lifetimes [start, end] with a name:
 *  - Start opens a lifetime at its timestamp (closing one still open: its End was lost);
 *  - DCStart/DCEnd (rundown) name the lifetime that contains their time, or open one "since the trace began"
 *    (a WPR trace logs its process rundown only at the end);
 *  - End/Defunct close the lifetime that contains their time, or record one that ended then.
 * An event at time t takes the name of the latest lifetime containing t, else of the latest one that started
 * before t (events still in flight after an End). Observing the same event twice changes nothing, so a first
 * pass over the trace (etl_decoder_learn) followed by the decoding pass names processes from the start.
 * Memory and time are bounded by design, whatever the trace holds (a hostile one may log millions of process
 * starts for one PID or a new TID in every header): at most MAX_LIFETIMES lifetimes, MAX_LIFETIMES_PER_PID per
 * PID (every lookup walks a PID's list), MAX_THREADS threads, MAX_NAME_BYTES of names, and at most MAX_PROBES
 * slots probed per hash lookup (crafted ids that collide cannot make a lookup slow). What does not fit is
 * counted (etl_process_table_dropped) and the decoder warns once. */
#include "decode/process_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "decode/render_int.h"
#include "decode/two_way.h"
#include "util/le.h"
#include "util/textbuf.h"

#define NAME_MAX_BYTES 128
#define NO_INDEX UINT32_MAX
#define NO_SLOT SIZE_MAX
#define MAX_LIFETIMES (1u << 18)        /* 8 MiB */
#define MAX_LIFETIMES_PER_PID 256u
#define MAX_THREADS (1u << 19)          /* table of at most 2^20 slots: 8 MiB */
#define MAX_NAME_BYTES (16u << 20)
#define MAX_PROBES 64u

typedef struct lifetime {
    int64_t start, end;   /* INT64_MIN / INT64_MAX: open-ended */
    uint32_t name;        /* offset in `names`, NO_INDEX when none yet */
    uint32_t next;        /* next lifetime of the same PID */
} lifetime;

typedef struct process_slot {
    uint32_t pid;
    uint32_t first;       /* first lifetime, NO_INDEX: empty slot */
    uint32_t lifetimes;   /* length of its list */
    /* The last name lookup's answer and the times it holds for (no lifetime starts or ends inside), valid
     * while `answer_generation` is the table's: events come in time order, so most lookups walk no list. */
    uint32_t answer_name;
    uint64_t answer_generation;
    int64_t answer_from, answer_to;
} process_slot;

typedef struct thread_slot {
    uint32_t tid;
    uint32_t pid;         /* UINT32_MAX: empty slot */
} thread_slot;

/* Which top-level properties of a description name the PID / a TID (-1: none), cached per description so
 * the hot path compares pointers instead of names. */
typedef struct id_properties {
    const etl_event_info *info;
    int32_t pid_property, tid_property;
    uint8_t pid_style[9], tid_style[9];  /* etl_int_style of the property's value by byte size; 0xFF: not asked yet */
} id_properties;

#define ID_CACHE_SIZE 256u  /* two ways per set: keyed by description address (decode/two_way.h) */

struct etl_process_table {
    id_properties id_cache[ID_CACHE_SIZE];
    uint8_t id_cache_older[ID_CACHE_SIZE / ETL_TWO_WAYS];  /* per set: the way filled first, replaced next */
    process_slot *processes;
    size_t process_capacity, process_count;
    lifetime *lifetimes;
    size_t lifetime_count, lifetime_capacity;
    etl_textbuf names;    /* display names, NUL-separated */
    thread_slot *threads;
    size_t thread_capacity, thread_count;
    uint64_t dropped;     /* observations that did not fit the bounds above */
    uint64_t generation;  /* changes with every lifetime or name: cached lookups older than it are stale */
};


etl_process_table *etl_process_table_new(void)
{
    etl_process_table *t = calloc(1, sizeof *t);
    if (t) t->generation = 1;  /* a fresh slot's answer (generation 0) is never valid */
    return t;
}

void etl_process_table_free(etl_process_table *t)
{
    if (!t) return;
    free(t->processes);
    free(t->lifetimes);
    free(t->threads);
    etl_textbuf_free(&t->names);
    free(t);
}

static int same_guid(const etl_guid *a, const etl_guid *b) { return memcmp(a, b, sizeof *a) == 0; }

/* ---- hash tables --------------------------------------------------------------------------------------- */

/* All 32 bits mixed into the low ones (ids are multiples of 4 and cluster). */
static size_t hash_id(uint32_t id, size_t capacity)
{
    id ^= id >> 16;
    id *= 0x85ebca6bu;
    id ^= id >> 13;
    id *= 0xc2b2ae35u;
    id ^= id >> 16;
    return (size_t)id & (capacity - 1);
}

/* The slot holding `pid`, else the empty slot where it goes; NO_SLOT after MAX_PROBES occupied slots. */
static size_t process_slot_of(const etl_process_table *t, uint32_t pid)
{
    size_t i = hash_id(pid, t->process_capacity);
    for (unsigned probes = 0; t->processes[i].first != NO_INDEX && t->processes[i].pid != pid; probes++) {
        if (probes == MAX_PROBES) return NO_SLOT;
        i = (i + 1) & (t->process_capacity - 1);
    }
    return i;
}

static size_t thread_slot_of(const etl_process_table *t, uint32_t tid)
{
    size_t i = hash_id(tid, t->thread_capacity);
    for (unsigned probes = 0; t->threads[i].pid != UINT32_MAX && t->threads[i].tid != tid; probes++) {
        if (probes == MAX_PROBES) return NO_SLOT;
        i = (i + 1) & (t->thread_capacity - 1);
    }
    return i;
}

static int grow_processes(etl_process_table *t)
{
    if ((t->process_count + 1) * 2 <= t->process_capacity) return 0;
    size_t cap = t->process_capacity ? t->process_capacity * 2 : 256;
    process_slot *old = t->processes, *fresh = malloc(cap * sizeof *fresh);
    if (!fresh) return -1;
    for (size_t i = 0; i < cap; i++) fresh[i].first = NO_INDEX;
    size_t old_cap = t->process_capacity;
    t->processes = fresh;
    t->process_capacity = cap;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].first == NO_INDEX) continue;
        size_t slot = process_slot_of(t, old[i].pid);
        if (slot == NO_SLOT) t->dropped++, t->process_count--;
        else t->processes[slot] = old[i];
    }
    free(old);
    return 0;
}

static int grow_threads(etl_process_table *t)
{
    if ((t->thread_count + 1) * 2 <= t->thread_capacity) return 0;
    size_t cap = t->thread_capacity ? t->thread_capacity * 2 : 1024;
    thread_slot *old = t->threads, *fresh = malloc(cap * sizeof *fresh);
    if (!fresh) return -1;
    for (size_t i = 0; i < cap; i++) fresh[i].pid = UINT32_MAX;
    size_t old_cap = t->thread_capacity;
    t->threads = fresh;
    t->thread_capacity = cap;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].pid == UINT32_MAX) continue;
        size_t slot = thread_slot_of(t, old[i].tid);
        if (slot == NO_SLOT) t->dropped++, t->thread_count--;
        else t->threads[slot] = old[i];
    }
    free(old);
    return 0;
}

/* ---- names and lifetimes ------------------------------------------------------------------------------- */

void etl_process_display_name(const char *image, char *out, size_t cap)
{
    const char *base = image;
    for (const char *p = image; *p; p++)
        if (*p == '\\' || *p == '/') base = p + 1;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base) n = (size_t)(dot - base);
    if (n >= cap) {
        n = cap - 1;
        while (n && ((unsigned char)base[n] & 0xC0) == 0x80) n--;
    }
    memcpy(out, base, n);
    out[n] = '\0';
}

static const char *name_at(const etl_process_table *t, uint32_t offset)
{
    return offset == NO_INDEX ? NULL : etl_textbuf_at(&t->names, offset);
}

static int set_name(etl_process_table *t, lifetime *l, const char *image)
{
    char display[NAME_MAX_BYTES];
    etl_process_display_name(image, display, sizeof display);
    if (!display[0]) return ETL_OK;
    if (l->name != NO_INDEX && strcmp(name_at(t, l->name), display) == 0) return ETL_OK;
    if (t->names.length + sizeof display > MAX_NAME_BYTES) {
        t->dropped++;
        return ETL_OK;
    }
    uint32_t offset = (uint32_t)t->names.length;
    etl_textbuf_append(&t->names, display, strlen(display) + 1);
    if (t->names.failed) return ETL_ERR_NOMEM;
    l->name = offset;
    t->generation++;
    return ETL_OK;
}

/* The latest lifetime of `first`'s list that contains ts, NULL if none. */
static lifetime *containing(etl_process_table *t, uint32_t first, int64_t ts)
{
    lifetime *best = NULL;
    for (uint32_t i = first; i != NO_INDEX; i = t->lifetimes[i].next) {
        lifetime *l = &t->lifetimes[i];
        if (l->start <= ts && ts <= l->end && (!best || l->start > best->start)) best = l;
    }
    return best;
}

/* NULL when out of memory; *full set (nothing added) past the bounds. */
static lifetime *add_lifetime(etl_process_table *t, process_slot *slot, int64_t start, int64_t end, int *full)
{
    if (t->lifetime_count >= MAX_LIFETIMES || slot->lifetimes >= MAX_LIFETIMES_PER_PID) {
        t->dropped++;
        *full = 1;
        return NULL;
    }
    if (t->lifetime_count == t->lifetime_capacity) {
        size_t cap = t->lifetime_capacity ? t->lifetime_capacity * 2 : 256;
        if (cap >= NO_INDEX) return NULL;
        lifetime *l = realloc(t->lifetimes, cap * sizeof *l);
        if (!l) return NULL;
        t->lifetimes = l;
        t->lifetime_capacity = cap;
    }
    uint32_t index = (uint32_t)t->lifetime_count++;
    t->lifetimes[index] = (lifetime){start, end, NO_INDEX, slot->first};
    t->generation++;
    slot->first = index;
    slot->lifetimes++;
    return &t->lifetimes[index];
}

static void set_end(etl_process_table *t, lifetime *l, int64_t end)
{
    if (l->end == end) return;  /* observed again: nothing changes, cached lookups stay */
    l->end = end;
    t->generation++;
}

enum process_event { PROCESS_START, PROCESS_END, PROCESS_RUNDOWN };

static int learn_process(etl_process_table *t, uint32_t pid, const char *image, enum process_event kind, int64_t ts)
{
    if (!image || !*image) return ETL_OK;
    if (grow_processes(t) != 0) return ETL_ERR_NOMEM;
    size_t at = process_slot_of(t, pid);
    if (at == NO_SLOT) {
        t->dropped++;
        return ETL_OK;
    }
    process_slot *slot = &t->processes[at];
    int fresh = slot->first == NO_INDEX;
    if (fresh) *slot = (process_slot){pid, NO_INDEX, 0, NO_INDEX, 0, 0, 0};
    lifetime *l = containing(t, slot->first, ts);
    int full = 0;
    switch (kind) {
    case PROCESS_START:
        if (l && l->start == ts) break; /* seen already */
        if (l) set_end(t, l, ts - 1);   /* the previous process with this PID ended unseen */
        l = add_lifetime(t, slot, ts, INT64_MAX, &full);
        break;
    case PROCESS_END:
        if (l) set_end(t, l, ts);
        else l = add_lifetime(t, slot, INT64_MIN, ts, &full);
        break;
    case PROCESS_RUNDOWN:
        if (!l) l = add_lifetime(t, slot, INT64_MIN, INT64_MAX, &full);
        break;
    }
    if (fresh && slot->first != NO_INDEX) t->process_count++;
    return l ? set_name(t, l, image) : full ? ETL_OK : ETL_ERR_NOMEM;
}

static int learn_thread(etl_process_table *t, uint32_t tid, uint32_t pid)
{
    if (t->thread_count) {
        size_t at = thread_slot_of(t, tid);
        if (at != NO_SLOT && t->threads[at].pid == pid) return ETL_OK; /* the usual case: nothing new */
    }
    if (t->thread_count >= MAX_THREADS) {
        size_t at = thread_slot_of(t, tid);
        if (at == NO_SLOT || t->threads[at].pid == UINT32_MAX) { /* a new thread: no room */
            t->dropped++;
            return ETL_OK;
        }
    } else if (grow_threads(t) != 0) {
        return ETL_ERR_NOMEM;
    }
    size_t at = thread_slot_of(t, tid);
    if (at == NO_SLOT) {
        t->dropped++;
        return ETL_OK;
    }
    thread_slot *s = &t->threads[at];
    if (s->pid == UINT32_MAX) t->thread_count++;
    *s = (thread_slot){tid, pid};
    return ETL_OK;
}

/* ---- observing events ------------------------------------------------------------------------------------ */

static const etl_field *top_field(const etl_decoded_event *ev, const char *name)
{
    for (size_t i = 0; i < ev->field_count; i++) {
        const etl_field *f = &ev->fields[i];
        if (f->kind == ETL_FIELD_VALUE && f->depth == 0 && f->array_index < 0 && f->value &&
            strcasecmp(f->name, name) == 0)
            return f;
    }
    return NULL;
}

/* An id field's value: decimal, or 0x… when the schema renders it in hex (kernel MOF). */
static int parse_id(const char *text, uint32_t *out)
{
    if (!text || !*text) return 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 0);
    if (*end || v >= UINT32_MAX) return 0;
    *out = (uint32_t)v;
    return 1;
}

static int field_id(const etl_decoded_event *ev, const char *name, uint32_t *out)
{
    const etl_field *f = top_field(ev, name);
    return f && parse_id(f->value, out);
}

int etl_process_table_observe_header(etl_process_table *t, const etl_event_record *record)
{
    const etl_event_header *h = &record->header;
    /* a record logged by a thread tells which process that thread belongs to (TraceLog learns this too) */
    if (etl_process_table_header_thread(record) && learn_thread(t, h->thread_id, h->process_id) != ETL_OK)
        return ETL_ERR_NOMEM;
    return ETL_OK;
}

int etl_process_table_learns_from(const etl_event_record *record)
{
    if (!etl_process_table_wants(record)) return 0;
    const etl_event_header *h = &record->header;
    uint8_t op = h->descriptor.opcode;
    if (same_guid(&h->provider_id, &etl_process_class_guid)) return h->descriptor.id == 0 && ((op >= 1 && op <= 4) || op == 39);
    if (same_guid(&h->provider_id, &etl_thread_class_guid)) return h->descriptor.id == 0 && op >= 1 && op <= 4;
    return h->descriptor.id == 1 || h->descriptor.id == 2 || h->descriptor.id == 15;  /* Kernel-Process */
}

int etl_process_table_observe(etl_process_table *t, const etl_decoded_event *ev)
{
    const etl_event_header *h = &ev->record->header;
    if (etl_process_table_observe_header(t, ev->record) != ETL_OK) return ETL_ERR_NOMEM;
    /* the events below are the only ones whose fields it learns from (etl_process_table_learns_from) */
    if (!ev->info || ev->status == ETL_DECODE_NO_SCHEMA || !etl_process_table_learns_from(ev->record)) return ETL_OK;
    int64_t ts = h->timestamp;
    uint32_t pid, tid;
    if (same_guid(&h->provider_id, &etl_process_class_guid) && h->descriptor.id == 0) {
        uint8_t op = h->descriptor.opcode; /* Start 1, End 2, DCStart 3, DCEnd 4, Defunct 39 */
        enum process_event kind = op == 1 ? PROCESS_START : op == 2 || op == 39 ? PROCESS_END : PROCESS_RUNDOWN;
        const etl_field *image = top_field(ev, "ImageFileName");
        if ((op >= 1 && op <= 4) || op == 39)
            if (image && field_id(ev, "ProcessId", &pid)) return learn_process(t, pid, image->value, kind, ts);
    } else if (same_guid(&h->provider_id, &etl_thread_class_guid) && h->descriptor.id == 0) {
        uint8_t op = h->descriptor.opcode; /* Start, End, DCStart, DCEnd */
        if (op >= 1 && op <= 4 && field_id(ev, "ProcessId", &pid) && field_id(ev, "TThreadId", &tid))
            return learn_thread(t, tid, pid);
    } else if (same_guid(&h->provider_id, &etl_kernel_process_guid)) {
        uint16_t id = h->descriptor.id; /* ProcessStart 1, ProcessStop 2, ProcessRundown 15 */
        enum process_event kind = id == 1 ? PROCESS_START : id == 2 ? PROCESS_END : PROCESS_RUNDOWN;
        const etl_field *image = top_field(ev, "ImageName");
        if ((id == 1 || id == 2 || id == 15) && image && field_id(ev, "ProcessID", &pid))
            return learn_process(t, pid, image->value, kind, ts);
    }
    return ETL_OK;
}

/* ---- lookups --------------------------------------------------------------------------------------------- */

static uint32_t thread_pid(const etl_process_table *t, uint32_t tid)
{
    if (!t->thread_count || tid == UINT32_MAX) return UINT32_MAX;
    size_t at = thread_slot_of(t, tid);
    return at == NO_SLOT ? UINT32_MAX : t->threads[at].pid;
}

static int32_t find_property(const etl_event_info *info, const char *const *names)
{
    for (const char *const *n = names; *n; n++)
        for (uint32_t i = 0; i < info->top_level_count && i < info->property_count; i++)
            if (info->properties[i].name && strcasecmp(info->properties[i].name, *n) == 0) return (int32_t)i;
    return -1;
}

static id_properties *id_properties_of(etl_process_table *t, const etl_event_info *info)
{
    static const char *const pid_names[] = {"ProcessId", "PID", "StackProcess", NULL};
    static const char *const tid_names[] = {"ThreadId", "TThreadId", "IssuingThreadId", NULL};
    size_t set = etl_address_bits(info) % (ID_CACHE_SIZE / ETL_TWO_WAYS);
    id_properties *c = &t->id_cache[set * ETL_TWO_WAYS];
    if (c[0].info == info) return &c[0];
    if (c[1].info == info) return &c[1];
    c += etl_two_way_fill(&t->id_cache_older[set]);
    c->info = info;
    c->pid_property = find_property(info, pid_names);
    c->tid_property = find_property(info, tid_names);
    memset(c->pid_style, 0xFF, sizeof c->pid_style);
    memset(c->tid_style, 0xFF, sizeof c->tid_style);
    return c;
}

/* A plain number's value from the bytes it was rendered from, as parse_id would read its text: 0 when that
 * text is not a number (mapped name, boolean, time...) or not below UINT32_MAX (negative numbers included). */
static int value_id(const etl_field *f, const etl_field_bytes *b, uint8_t styles[9], uint32_t *out, int *known)
{
    *known = 0;
    if (!b || !b->data || (f->property->map && f->property->map->entry_count) ||
        (b->size != 1 && b->size != 2 && b->size != 4 && b->size != 8))
        return 0;
    /* the property's types are the description's: its style per size is asked once */
    if (styles[b->size] == 0xFF) styles[b->size] = (uint8_t)etl_int_style_of(f->in_type, f->out_type, b->size, 1);
    etl_int_style style = (etl_int_style)styles[b->size];
    switch (f->in_type) {
    case ETL_IN_INT8: case ETL_IN_UINT8: case ETL_IN_INT16: case ETL_IN_UINT16: case ETL_IN_INT32:
    case ETL_IN_UINT32: case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_POINTER: case ETL_IN_SIZET:
    case ETL_IN_HEXINT32: case ETL_IN_HEXINT64: break;
    default: return 0;
    }
    if (style == ETL_INT_OTHER || style == ETL_INT_BOOLEAN) return 0;
    *known = 1;
    const uint8_t *p = b->data;
    uint64_t v = b->size == 1 ? p[0] : b->size == 2 ? etl_le16(p) : b->size == 4 ? etl_le32(p) : etl_le64(p);
    if (style == ETL_INT_SIGNED && etl_int_sign_extend(v, b->size) < 0) return 0;
    if (v >= UINT32_MAX) return 0;
    *out = (uint32_t)v;
    return 1;
}

/* The integer value of a top-level scalar property, decimal or 0x… (kernel MOF renders ids in hex). */
static int property_id(const etl_decoded_event *ev, int32_t index, uint8_t styles[9], uint32_t *out)
{
    if (index < 0) return 0;
    const etl_property_info *prop = &ev->info->properties[index];
    for (size_t i = 0; i < ev->field_count; i++) {
        const etl_field *f = &ev->fields[i];
        if (f->property == prop && f->kind == ETL_FIELD_VALUE && f->array_index < 0) {
            int known, found = value_id(f, ev->field_bytes ? &ev->field_bytes[i] : NULL, styles, out, &known);
            return known ? found : parse_id(f->value, out);
        }
    }
    return 0;
}

uint32_t etl_process_table_event_pid(etl_process_table *t, const etl_decoded_event *ev)
{
    const etl_event_record *rec = ev->record;
    uint32_t header_pid = rec->header.process_id;
    if (rec->kind > ETL_KIND_INSTANCE64 || !ev->info) return header_pid;
    /* kernel events about a process (Process, Thread, Image, TcpIp, StackWalk…) are logged in whatever context
     * the kernel was in; the process they describe is in their payload (PerfView's PID does the same) */
    id_properties *c = id_properties_of(t, ev->info);
    uint32_t id;
    if (property_id(ev, c->pid_property, c->pid_style, &id)) return id;
    if (header_pid != UINT32_MAX) return header_pid;
    if (property_id(ev, c->tid_property, c->tid_style, &id)) return thread_pid(t, id);
    return thread_pid(t, rec->header.thread_id);
}

/* A lifetime's start and the time after its end change which lifetimes contain or precede a time: between
 * two such bounds every time has the same answer. Narrows [*from, *to] around ts to the bounds of l. */
static void narrow(const lifetime *l, int64_t ts, int64_t *from, int64_t *to)
{
    if (l->start <= ts) {
        if (l->start > *from) *from = l->start;
    } else if (l->start - 1 < *to) {
        *to = l->start - 1;
    }
    if (l->end == INT64_MAX) return;
    if (l->end < ts) {
        if (l->end + 1 > *from) *from = l->end + 1;
    } else if (l->end < *to) {
        *to = l->end;
    }
}

const char *etl_process_table_name(etl_process_table *t, uint32_t pid, int64_t timestamp)
{
    if (!t->process_count || pid == UINT32_MAX) return NULL;
    size_t at = process_slot_of(t, pid);
    if (at == NO_SLOT) return NULL;
    process_slot *slot = &t->processes[at];
    if (slot->first == NO_INDEX) return NULL;
    if (slot->answer_generation == t->generation && slot->answer_from <= timestamp && timestamp <= slot->answer_to)
        return name_at(t, slot->answer_name);
    const lifetime *in = NULL, *before = NULL;
    int64_t from = INT64_MIN, to = INT64_MAX;
    for (uint32_t i = slot->first; i != NO_INDEX; i = t->lifetimes[i].next) {
        const lifetime *l = &t->lifetimes[i];
        if (l->name == NO_INDEX) continue;  /* never an answer, whatever the time */
        narrow(l, timestamp, &from, &to);
        if (l->start > timestamp) continue;
        if (timestamp <= l->end) {
            if (!in || l->start > in->start) in = l;
        } else if (!before || l->start > before->start) {
            before = l;
        }
    }
    const lifetime *l = in ? in : before;
    slot->answer_name = l ? l->name : NO_INDEX;
    slot->answer_generation = t->generation;
    slot->answer_from = from;
    slot->answer_to = to;
    return l ? name_at(t, l->name) : NULL;
}

/* ---- copying (the parallel pipeline: one first pass, every worker's decoder) ------------------------------ */

static void *copy_array(const void *src, size_t bytes)
{
    void *dst = malloc(bytes ? bytes : 1);
    if (dst && bytes) memcpy(dst, src, bytes);
    return dst;
}

int etl_process_table_copy(etl_process_table *dst, const etl_process_table *src)
{
    etl_process_table copy;
    memset(&copy, 0, sizeof copy);  /* the id cache names descriptions of src's registry: not copied */
    copy.processes = copy_array(src->processes, src->process_capacity * sizeof *src->processes);
    copy.lifetimes = copy_array(src->lifetimes, src->lifetime_capacity * sizeof *src->lifetimes);
    copy.threads = copy_array(src->threads, src->thread_capacity * sizeof *src->threads);
    etl_textbuf_append(&copy.names, src->names.data, src->names.length);
    if (!copy.processes || !copy.lifetimes || !copy.threads || copy.names.failed) {
        free(copy.processes);
        free(copy.lifetimes);
        free(copy.threads);
        etl_textbuf_free(&copy.names);
        return ETL_ERR_NOMEM;
    }
    copy.process_capacity = src->process_capacity;
    copy.process_count = src->process_count;
    copy.lifetime_count = src->lifetime_count;
    copy.lifetime_capacity = src->lifetime_capacity;
    copy.thread_capacity = src->thread_capacity;
    copy.thread_count = src->thread_count;
    copy.dropped = src->dropped;
    copy.generation = src->generation;  /* the copied slots' cached answers hold for the same lifetimes */
    free(dst->processes);
    free(dst->lifetimes);
    free(dst->threads);
    etl_textbuf_free(&dst->names);
    *dst = copy;
    return ETL_OK;
}

/* ---- description (tests: two first passes learnt the same) ---------------------------------------------- */

static int by_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int etl_process_table_describe(const etl_process_table *t, etl_textbuf *out)
{
    uint32_t *pids = malloc((t->process_count + 1) * sizeof *pids);
    uint32_t *tids = malloc((t->thread_count + 1) * sizeof *tids);
    if (!pids || !tids) {
        free(pids);
        free(tids);
        return ETL_ERR_NOMEM;
    }
    size_t np = 0, nt = 0;
    for (size_t i = 0; i < t->process_capacity; i++)
        if (t->processes[i].first != NO_INDEX) pids[np++] = t->processes[i].pid;
    for (size_t i = 0; i < t->thread_capacity; i++)
        if (t->threads[i].pid != UINT32_MAX) tids[nt++] = t->threads[i].tid;
    qsort(pids, np, sizeof *pids, by_u32);
    qsort(tids, nt, sizeof *tids, by_u32);
    char line[64];
    for (size_t k = 0; k < np; k++) {
        const process_slot *slot = &t->processes[process_slot_of(t, pids[k])];
        snprintf(line, sizeof line, "pid %u:", pids[k]);
        etl_textbuf_puts(out, line);
        for (uint32_t i = slot->first; i != NO_INDEX; i = t->lifetimes[i].next) { /* list order: ties count */
            const lifetime *l = &t->lifetimes[i];
            snprintf(line, sizeof line, " [%lld,%lld] ", (long long)l->start, (long long)l->end);
            etl_textbuf_puts(out, line);
            etl_textbuf_puts(out, l->name == NO_INDEX ? "-" : name_at(t, l->name));
        }
        etl_textbuf_puts(out, "\n");
    }
    for (size_t k = 0; k < nt; k++) {
        snprintf(line, sizeof line, "tid %u pid %u\n", tids[k], thread_pid(t, tids[k]));
        etl_textbuf_puts(out, line);
    }
    free(pids);
    free(tids);
    return out->failed ? ETL_ERR_NOMEM : ETL_OK;
}
uint64_t etl_process_table_dropped(const etl_process_table *t) { return t->dropped; }
