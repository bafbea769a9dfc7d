/* PID → process name and TID → PID tables (docs/etl-format.md §4.6). Names come from the decoded fields rather
 * than byte offsets, so every Process/Thread layout version the schema sources know works. PIDs and TIDs are
 * reused: a later start event replaces the entry; end events keep it (events still in flight carry the id).
 * Memory grows with the number of distinct ids, which is bounded by the trace's own events. */
#include "decode/process_table.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NAME_MAX_BYTES 128

typedef struct process_slot {
    uint32_t pid;
    int used;
    char name[NAME_MAX_BYTES];
} process_slot;

typedef struct thread_slot {
    uint32_t tid;
    uint32_t pid;  /* UINT32_MAX: empty slot */
} thread_slot;

/* Which top-level properties of a description name the PID / a TID (-1: none), cached per description so
 * the hot path compares pointers instead of names. */
typedef struct id_properties {
    const etl_event_info *info;
    int32_t pid_property, tid_property;
} id_properties;

#define ID_CACHE_SIZE 256u

struct etl_process_table {
    id_properties id_cache[ID_CACHE_SIZE];
    process_slot *processes;
    size_t process_capacity, process_count;
    thread_slot *threads;
    size_t thread_capacity, thread_count;
};

/* kernel Process and Thread classes, Microsoft-Windows-Kernel-Process */
static const etl_guid process_class = {0x3d6fa8d0, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
static const etl_guid thread_class = {0x3d6fa8d1, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
static const etl_guid kernel_process_provider = {0x22fb2cd6, 0x0e7b, 0x422b,
                                                 {0xa0, 0xc7, 0x2f, 0xad, 0x1f, 0xd0, 0xe7, 0x16}};

etl_process_table *etl_process_table_new(void) { return calloc(1, sizeof(etl_process_table)); }

void etl_process_table_free(etl_process_table *t)
{
    if (!t) return;
    free(t->processes);
    free(t->threads);
    free(t);
}

static size_t hash_id(uint32_t id, size_t capacity) { return (size_t)(id * 2654435761u) & (capacity - 1); }

static size_t process_slot_of(const etl_process_table *t, uint32_t pid)
{
    size_t i = hash_id(pid, t->process_capacity);
    while (t->processes[i].used && t->processes[i].pid != pid) i = (i + 1) & (t->process_capacity - 1);
    return i;
}

static size_t thread_slot_of(const etl_process_table *t, uint32_t tid)
{
    size_t i = hash_id(tid, t->thread_capacity);
    while (t->threads[i].pid != UINT32_MAX && t->threads[i].tid != tid) i = (i + 1) & (t->thread_capacity - 1);
    return i;
}

static int grow_processes(etl_process_table *t)
{
    if ((t->process_count + 1) * 2 <= t->process_capacity) return 0;
    size_t cap = t->process_capacity ? t->process_capacity * 2 : 256;
    process_slot *old = t->processes, *fresh = calloc(cap, sizeof *fresh);
    if (!fresh) return -1;
    size_t old_cap = t->process_capacity;
    t->processes = fresh;
    t->process_capacity = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].used) t->processes[process_slot_of(t, old[i].pid)] = old[i];
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
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].pid != UINT32_MAX) t->threads[thread_slot_of(t, old[i].tid)] = old[i];
    free(old);
    return 0;
}

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
static int field_id(const etl_decoded_event *ev, const char *name, uint32_t *out)
{
    const etl_field *f = top_field(ev, name);
    if (!f || !*f->value) return 0;
    char *end;
    unsigned long long v = strtoull(f->value, &end, 0);
    if (*end || v >= UINT32_MAX) return 0;
    *out = (uint32_t)v;
    return 1;
}

static int learn_name(etl_process_table *t, uint32_t pid, const char *image, int replaces)
{
    if (!image || !*image) return ETL_OK;
    if (grow_processes(t) != 0) return ETL_ERR_NOMEM;
    process_slot *s = &t->processes[process_slot_of(t, pid)];
    if (s->used && !replaces) return ETL_OK;
    if (!s->used) t->process_count++;
    s->used = 1;
    s->pid = pid;
    etl_process_display_name(image, s->name, sizeof s->name);
    return ETL_OK;
}

static int learn_thread(etl_process_table *t, uint32_t tid, uint32_t pid)
{
    if (t->thread_count) {
        thread_slot *s = &t->threads[thread_slot_of(t, tid)];
        if (s->pid == pid) return ETL_OK; /* the usual case: nothing new */
    }
    if (grow_threads(t) != 0) return ETL_ERR_NOMEM;
    thread_slot *s = &t->threads[thread_slot_of(t, tid)];
    if (s->pid == UINT32_MAX) t->thread_count++;
    *s = (thread_slot){tid, pid};
    return ETL_OK;
}

int etl_process_table_observe(etl_process_table *t, const etl_decoded_event *ev)
{
    const etl_event_header *rh = ev->record ? &ev->record->header : NULL;
    /* a record logged by a thread tells which process that thread belongs to (TraceLog learns this too) */
    if (rh && rh->process_id != UINT32_MAX && rh->thread_id != UINT32_MAX && rh->thread_id != 0 &&
        learn_thread(t, rh->thread_id, rh->process_id) != ETL_OK)
        return ETL_ERR_NOMEM;
    if (!ev->info || !ev->record) return ETL_OK;
    const etl_event_header *h = &ev->record->header;
    uint32_t pid, tid;
    if (etl_guid_equal(&h->provider_id, &process_class) && h->descriptor.id == 0) {
        uint8_t op = h->descriptor.opcode; /* Start, End, DCStart, DCEnd, Defunct */
        if ((op >= 1 && op <= 4) || op == 39) {
            const etl_field *image = top_field(ev, "ImageFileName");
            if (image && field_id(ev, "ProcessId", &pid)) return learn_name(t, pid, image->value, op == 1 || op == 3);
        }
    } else if (etl_guid_equal(&h->provider_id, &thread_class) && h->descriptor.id == 0) {
        uint8_t op = h->descriptor.opcode; /* Start, DCStart */
        if ((op == 1 || op == 3) && field_id(ev, "ProcessId", &pid) && field_id(ev, "TThreadId", &tid))
            return learn_thread(t, tid, pid);
    } else if (etl_guid_equal(&h->provider_id, &kernel_process_provider)) {
        uint16_t id = h->descriptor.id; /* ProcessStart, ProcessRundown */
        const etl_field *image = top_field(ev, "ImageName");
        if ((id == 1 || id == 15) && image && field_id(ev, "ProcessID", &pid)) return learn_name(t, pid, image->value, 1);
    }
    return ETL_OK;
}

static uint32_t thread_pid(const etl_process_table *t, uint32_t tid)
{
    if (!t->thread_count || tid == UINT32_MAX) return UINT32_MAX;
    return t->threads[thread_slot_of(t, tid)].pid;
}

static int32_t find_property(const etl_event_info *info, const char *const *names)
{
    for (const char *const *n = names; *n; n++)
        for (uint32_t i = 0; i < info->top_level_count && i < info->property_count; i++)
            if (info->properties[i].name && strcasecmp(info->properties[i].name, *n) == 0) return (int32_t)i;
    return -1;
}

static const id_properties *id_properties_of(etl_process_table *t, const etl_event_info *info)
{
    static const char *const pid_names[] = {"ProcessId", "PID", "StackProcess", NULL};
    static const char *const tid_names[] = {"ThreadId", "TThreadId", "IssuingThreadId", NULL};
    id_properties *c = &t->id_cache[((uintptr_t)info >> 4) % ID_CACHE_SIZE];
    if (c->info != info) {
        c->info = info;
        c->pid_property = find_property(info, pid_names);
        c->tid_property = find_property(info, tid_names);
    }
    return c;
}

/* The integer value of a top-level scalar property, decimal or 0x… (kernel MOF renders ids in hex). */
static int property_id(const etl_decoded_event *ev, int32_t index, uint32_t *out)
{
    if (index < 0) return 0;
    const etl_property_info *prop = &ev->info->properties[index];
    for (size_t i = 0; i < ev->field_count; i++) {
        const etl_field *f = &ev->fields[i];
        if (f->property != prop || f->kind != ETL_FIELD_VALUE || f->array_index >= 0 || !f->value || !*f->value)
            continue;
        char *end;
        unsigned long long v = strtoull(f->value, &end, 0);
        if (*end || v >= UINT32_MAX) return 0;
        *out = (uint32_t)v;
        return 1;
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
    const id_properties *c = id_properties_of(t, ev->info);
    uint32_t id;
    if (property_id(ev, c->pid_property, &id)) return id;
    if (header_pid != UINT32_MAX) return header_pid;
    if (property_id(ev, c->tid_property, &id)) return thread_pid(t, id);
    return thread_pid(t, rec->header.thread_id);
}

const char *etl_process_table_name(const etl_process_table *t, uint32_t pid)
{
    if (!t->process_count || pid == UINT32_MAX) return NULL;
    const process_slot *s = &t->processes[process_slot_of(t, pid)];
    return s->used && s->name[0] ? s->name : NULL;
}
