/* PID → process name table (docs/etl-format.md §4.6). Names come from the decoded fields rather than from byte
 * offsets, so every Process layout version the schema sources know works. PIDs are reused: a later start
 * event for the same PID replaces the name; end events keep it (events still in flight carry the PID). */
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

struct etl_process_table {
    process_slot *slots;
    size_t capacity, count;
};

/* {3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}: kernel Process class */
static const etl_guid process_class = {0x3d6fa8d0, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
/* {22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716}: Microsoft-Windows-Kernel-Process */
static const etl_guid kernel_process_provider = {0x22fb2cd6, 0x0e7b, 0x422b,
                                                 {0xa0, 0xc7, 0x2f, 0xad, 0x1f, 0xd0, 0xe7, 0x16}};

etl_process_table *etl_process_table_new(void) { return calloc(1, sizeof(etl_process_table)); }

void etl_process_table_free(etl_process_table *t)
{
    if (!t) return;
    free(t->slots);
    free(t);
}

static size_t slot_of(const etl_process_table *t, uint32_t pid)
{
    size_t mask = t->capacity - 1;
    size_t i = (size_t)(pid * 2654435761u) & mask;
    while (t->slots[i].used && t->slots[i].pid != pid) i = (i + 1) & mask;
    return i;
}

static int grow(etl_process_table *t)
{
    if ((t->count + 1) * 2 <= t->capacity) return 0;
    size_t cap = t->capacity ? t->capacity * 2 : 256;
    process_slot *old = t->slots;
    size_t old_cap = t->capacity;
    t->slots = calloc(cap, sizeof *t->slots);
    if (!t->slots) {
        t->slots = old;
        return -1;
    }
    t->capacity = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].used) t->slots[slot_of(t, old[i].pid)] = old[i];
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
    if (n >= cap) { /* cut on a UTF-8 character boundary */
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
        if (f->kind == ETL_FIELD_VALUE && f->depth == 0 && f->array_index < 0 && strcasecmp(f->name, name) == 0)
            return f;
    }
    return NULL;
}

int etl_process_table_observe(etl_process_table *t, const etl_decoded_event *ev)
{
    if (!ev->info || !ev->record) return ETL_OK;
    const etl_event_record *rec = ev->record;
    const char *image_field;
    int replaces; /* start events replace a reused PID's name; end/rundown events only fill gaps */
    if (etl_guid_equal(&rec->header.provider_id, &process_class) && rec->header.descriptor.id == 0) {
        uint8_t op = rec->header.descriptor.opcode;
        if (op != 1 && op != 2 && op != 3 && op != 4 && op != 39) return ETL_OK;
        image_field = "ImageFileName";
        replaces = op == 1 || op == 3;
    } else if (etl_guid_equal(&rec->header.provider_id, &kernel_process_provider)) {
        uint16_t id = rec->header.descriptor.id;
        if (id != 1 && id != 15) return ETL_OK; /* ProcessStart, ProcessRundown */
        image_field = "ImageName";
        replaces = 1;
    } else {
        return ETL_OK;
    }
    const etl_field *pid_field = top_field(ev, "ProcessId");
    const etl_field *image = top_field(ev, image_field);
    if (!pid_field || !image || !pid_field->value || !image->value || !*image->value) return ETL_OK;
    char *end;
    unsigned long long pid = strtoull(pid_field->value, &end, 0); /* decimal, or 0x… with a hex out-type */
    if (*end || pid > UINT32_MAX) return ETL_OK;

    if (grow(t) != 0) return ETL_ERR_NOMEM;
    process_slot *s = &t->slots[slot_of(t, (uint32_t)pid)];
    if (s->used && !replaces) return ETL_OK;
    if (!s->used) t->count++;
    s->used = 1;
    s->pid = (uint32_t)pid;
    etl_process_display_name(image->value, s->name, sizeof s->name);
    return ETL_OK;
}

const char *etl_process_table_name(const etl_process_table *t, uint32_t pid)
{
    if (!t->count) return NULL;
    const process_slot *s = &t->slots[slot_of(t, pid)];
    return s->used && s->name[0] ? s->name : NULL;
}
