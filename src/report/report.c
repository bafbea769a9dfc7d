/* -report: counts per provider/event type, process, disk, file and thread (see report.h). Kernel I/O comes
 * from the NT Kernel Logger classes DiskIo (Read 10 / Write 11: DiskNumber, TransferSize, FileObject) and
 * FileIo (Read 67 / Write 68: FileObject, FileKey, IoSize; names from Name 0, FileCreate 32, FileDelete 35,
 * FileRundown 36 and Create 64's OpenPath), as laid out in src/schema/kernel_mof.tsv. */
#include "report/report_internal.h"

#include <stdlib.h>
#include <string.h>

static const etl_guid DISKIO_CLASS = {0x3d6fa8d4, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
static const etl_guid FILEIO_CLASS = {0x90cbdc39, 0x4a3e, 0x11d1, {0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3}};

enum { DISKIO_READ = 10, DISKIO_WRITE = 11, FILEIO_NAME = 0, FILEIO_FILE_CREATE = 32, FILEIO_FILE_DELETE = 35,
       FILEIO_FILE_RUNDOWN = 36, FILEIO_CREATE = 64, FILEIO_READ = 67, FILEIO_WRITE = 68 };

#define MAX_FILE_OBJECTS 200000u  /* file-object → name map: bounded like the tables */

etl_report *etl_report_new(int level)
{
    etl_report *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->level = level < 1 ? 1 : level > 5 ? 5 : level;
    rt_init(&r->providers, ETL_REPORT_MAX_ROWS);
    rt_init(&r->event_types, ETL_REPORT_MAX_ROWS);
    rt_init(&r->processes, ETL_REPORT_MAX_ROWS);
    rt_init(&r->disks, ETL_REPORT_MAX_ROWS);
    rt_init(&r->file_objects, ETL_REPORT_MAX_ROWS);
    rt_init(&r->threads, ETL_REPORT_MAX_ROWS);
    rt_init(&r->file_names, MAX_FILE_OBJECTS);
    r->first_time = INT64_MAX;
    r->last_time = INT64_MIN;
    return r;
}

void etl_report_free(etl_report *r)
{
    if (!r) return;
    rt_free(&r->providers);
    rt_free(&r->event_types);
    rt_free(&r->processes);
    rt_free(&r->disks);
    rt_free(&r->file_objects);
    rt_free(&r->threads);
    rt_free(&r->file_names);
    free(r);
}

static uint64_t guid_key(const etl_guid *g)
{
    return ((uint64_t)g->data1 << 32 | (uint64_t)g->data2 << 16 | g->data3) ^
           rt_hash_text((const char *)g->data4, 0) * 31;
}

/* The value of the top-level field `name` as a number (decimal or 0x hex); 0 and *found = 0 when absent. */
static uint64_t field_number(const etl_decoded_event *ev, const char *name, int *found)
{
    for (size_t i = 0; i < ev->field_count; i++) {
        const etl_field *f = &ev->fields[i];
        if (f->kind == ETL_FIELD_VALUE && f->depth == 0 && f->name && strcmp(f->name, name) == 0 && f->value) {
            char *end;
            uint64_t v = strtoull(f->value, &end, 0);
            if (found) *found = end != f->value;
            return v;
        }
    }
    if (found) *found = 0;
    return 0;
}

static const char *field_text(const etl_decoded_event *ev, const char *name)
{
    for (size_t i = 0; i < ev->field_count; i++) {
        const etl_field *f = &ev->fields[i];
        if (f->kind == ETL_FIELD_VALUE && f->depth == 0 && f->name && strcmp(f->name, name) == 0) return f->value;
    }
    return NULL;
}

static int count_type(etl_report *r, const etl_decoded_event *ev)
{
    const etl_event_header *h = &ev->record->header;
    char guid[40];
    etl_guid_format(&h->provider_id, guid, 0);
    int nomem = 0;
    rt_row *p = rt_get(&r->providers, guid_key(&h->provider_id), guid, &nomem);
    if (p) {
        p->value[0]++;
        p->value[1] += ev->record->user_data_length;
        if (rt_set_text(p, 1, ev->provider_name) != 0) return -1;
    }
    uint64_t key = guid_key(&h->provider_id) ^ ((uint64_t)h->descriptor.id << 40 | (uint64_t)h->descriptor.version
                                                << 32 | (uint64_t)h->descriptor.opcode << 24 | h->descriptor.task);
    rt_row *t = rt_get(&r->event_types, key, guid, &nomem);
    if (t) {
        if (!t->value[0]) {
            t->value[2] = h->descriptor.id;
            t->value[3] = h->descriptor.version;
            t->value[4] = h->descriptor.opcode;
            t->value[5] = h->descriptor.task;
            if (rt_set_text(t, 1, ev->provider_name) != 0 || rt_set_text(t, 2, ev->event_name) != 0) return -1;
        }
        t->value[0]++;
        t->value[1] += ev->record->user_data_length;
    }
    return nomem ? -1 : 0;
}

/* Process row values: 0 events, 1 disk reads, 2 disk read bytes, 3 disk writes, 4 disk write bytes,
 * 5 file reads, 6 file read bytes, 7 file writes, 8 file write bytes. */
static rt_row *process_row(etl_report *r, const etl_decoded_event *ev, int *nomem)
{
    uint32_t pid = ev->process_id != 0xFFFFFFFFu ? ev->process_id : ev->record->header.process_id;
    rt_row *p = rt_get(&r->processes, pid, NULL, nomem);
    if (p && ev->process_name && rt_set_text(p, 1, ev->process_name) != 0) *nomem = 1;
    return p;
}

const char *etl_report_file_name(const etl_report *r, uint64_t object)
{
    rt_row *n = object ? rt_find(&r->file_names, object, NULL) : NULL;
    return n ? n->text[1] : NULL;
}

static int remember_name(etl_report *r, uint64_t object, const char *name)
{
    if (!object || !name || !*name) return 0;
    int nomem = 0;
    rt_row *n = rt_get(&r->file_names, object, NULL, &nomem);
    if (!n) return nomem ? -1 : 0;
    if (n->text[1] && strcmp(n->text[1], name) != 0) {  /* the object was reused for another file */
        free(n->text[1]);
        n->text[1] = NULL;
    }
    return rt_set_text(n, 1, name);
}

/* Per file object (names often arrive later, in the rundown at the end of the trace: resolved when written).
 * values: 0 reads, 1 read bytes, 2 writes, 3 write bytes (file I/O), 4 disk reads, 5 disk read bytes,
 * 6 disk writes, 7 disk write bytes, 8 the FileObject when the key is a FileKey. */
static int count_file(etl_report *r, uint64_t key, uint64_t object, int value_base, int write, uint64_t bytes)
{
    if (r->level < ETL_REPORT_LEVEL_FILES) return 0;
    int nomem = 0;
    rt_row *f = rt_get(&r->file_objects, key, NULL, &nomem);
    if (f) {
        f->value[value_base + (write ? 2 : 0)]++;
        f->value[value_base + (write ? 3 : 1)] += bytes;
        if (object != key) f->value[8] = object;
    }
    return nomem ? -1 : 0;
}

static int count_kernel_io(etl_report *r, const etl_decoded_event *ev)
{
    const etl_event_header *h = &ev->record->header;
    int disk = etl_guid_equal(&h->provider_id, &DISKIO_CLASS), file = etl_guid_equal(&h->provider_id, &FILEIO_CLASS);
    if ((!disk && !file) || ev->status == ETL_DECODE_NO_SCHEMA) return 0;
    unsigned op = h->descriptor.opcode;
    int nomem = 0;
    if (file && (op == FILEIO_NAME || op == FILEIO_FILE_CREATE || op == FILEIO_FILE_DELETE || op == FILEIO_FILE_RUNDOWN))
        return remember_name(r, field_number(ev, "FileObject", NULL), field_text(ev, "FileName"));
    if (file && op == FILEIO_CREATE)
        return remember_name(r, field_number(ev, "FileObject", NULL), field_text(ev, "OpenPath"));
    int write;
    uint64_t bytes, object;
    if (disk && (op == DISKIO_READ || op == DISKIO_WRITE)) {
        write = op == DISKIO_WRITE;
        bytes = field_number(ev, "TransferSize", NULL);
        object = field_number(ev, "FileObject", NULL);
        r->disk_events++;
        rt_row *d = rt_get(&r->disks, field_number(ev, "DiskNumber", NULL), NULL, &nomem);
        if (d) {
            d->value[write ? 2 : 0]++;
            d->value[write ? 3 : 1] += bytes;
        }
        rt_row *p = process_row(r, ev, &nomem);
        if (p) {
            p->value[write ? 3 : 1]++;
            p->value[write ? 4 : 2] += bytes;
        }
        if (count_file(r, object, object, 4, write, bytes) != 0) nomem = 1;
    } else if (file && (op == FILEIO_READ || op == FILEIO_WRITE)) {
        write = op == FILEIO_WRITE;
        bytes = field_number(ev, "IoSize", NULL);
        int has_key;
        uint64_t key = field_number(ev, "FileKey", &has_key);
        object = field_number(ev, "FileObject", NULL);
        r->file_events++;
        rt_row *p = process_row(r, ev, &nomem);
        if (p) {
            p->value[write ? 7 : 5]++;
            p->value[write ? 8 : 6] += bytes;
        }
        if (count_file(r, has_key ? key : object, object, 0, write, bytes) != 0) nomem = 1;
    }
    return nomem ? -1 : 0;
}

int etl_report_add(etl_report *r, const etl_decoded_event *ev)
{
    const etl_event_header *h = &ev->record->header;
    r->events++;
    if (h->timestamp < r->first_time) r->first_time = h->timestamp;
    if (h->timestamp > r->last_time) r->last_time = h->timestamp;
    if (count_type(r, ev) != 0) return -1;
    int nomem = 0;
    if (r->level >= ETL_REPORT_LEVEL_PROCESSES) {
        rt_row *p = process_row(r, ev, &nomem);
        if (p) p->value[0]++;
    }
    if (r->level >= ETL_REPORT_LEVEL_THREADS && h->thread_id != 0xFFFFFFFFu) {
        rt_row *t = rt_get(&r->threads, h->thread_id, NULL, &nomem);
        if (t) {
            t->value[0]++;
            if (!t->value[1] && ev->process_id != 0xFFFFFFFFu) t->value[1] = (uint64_t)ev->process_id + 1;
        }
    }
    if (nomem) return -1;
    return count_kernel_io(r, ev);
}
