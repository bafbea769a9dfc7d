/* The stable view of decoded events (include/etl/etl_diff.h): what stays the same when the same program
 * does the same thing on another machine, on another day, in another run. */
#include "etl/etl_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "diff/ordinal_map.h"
#include "util/textbuf.h"

#define TICKS_PER_SECOND 10000000LL
#define NO_ID 0xFFFFFFFFu
#define MIN_MAPPED_ADDRESS 0x10000u /* Windows maps nothing below 64 KiB */

typedef struct mask {
    char *provider;  /* NULL: any */
    etl_guid provider_guid;
    char *event;     /* NULL: any */
    char *field;
} mask;

struct etl_stable {
    unsigned flags;
    int have_first;
    int64_t first_time;
    ordinal_map pids, tids, activities;
    mask *masks;
    size_t mask_count;
    /* the view handed out */
    etl_event_record record;
    etl_decoded_event event;
    etl_field *fields;
    size_t field_capacity;
    size_t *replaced;           /* per field: offset of its new value in `values`, or SIZE_MAX */
    etl_extended_item related_item;
    uint8_t related_bytes[16];
    etl_textbuf values;
};

/* The log-file header facts that change with every recording or machine (fields of the EventTrace class:
 * Header, PartitionInfoExtension). */
static const char *const volatile_header_fields[] = {
    "EndTime", "BuffersWritten", "StartBuffers", "EventsLost", "BuffersLost", "CPUSpeed", "BootTime",
    "StartTime", "PerfFreq", "TimerResolution", "NumberOfProcessors", "ProviderVersion", "Version",
    "LogFileNameString", "LogFileName", "LoggerName", "TimeZoneInformation",
    "QpcOffsetFromRoot", "PartitionId", "ParentId",  /* PartitionInfoExtension: this machine's partition */
};

static const etl_guid event_trace_class = {0x68fdd900, 0x4a3e, 0x11d1, {0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3}};

etl_stable *etl_stable_new(unsigned flags)
{
    etl_stable *s = calloc(1, sizeof *s);
    if (s) s->flags = flags | ETL_STABLE_ON;
    return s;
}

void etl_stable_free(etl_stable *s)
{
    if (!s) return;
    ordinal_map_free(&s->pids);
    ordinal_map_free(&s->tids);
    ordinal_map_free(&s->activities);
    for (size_t i = 0; i < s->mask_count; i++) {
        free(s->masks[i].provider);
        free(s->masks[i].event);
        free(s->masks[i].field);
    }
    free(s->masks);
    free(s->fields);
    free(s->replaced);
    etl_textbuf_free(&s->values);
    free(s);
}

unsigned etl_stable_flags(const etl_stable *s)
{
    return s->flags;
}

/* "*" means any: NULL. */
static int dup_part(const char *text, char **out)
{
    *out = NULL;
    if (strcmp(text, "*") == 0) return 0;
    return (*out = strdup(text)) ? 0 : -1;
}

/* One "time", "NAME" or "PROVIDER:EVENT:FIELD" (NUL-terminated, modified in place). */
static int add_one_mask(etl_stable *s, char *spec)
{
    if (!*spec) return -1;
    if (strcasecmp(spec, "time") == 0) {
        s->flags |= ETL_STABLE_NO_TIME;
        return 0;
    }
    char *provider = NULL, *event = NULL, *field = spec;
    char *c1 = strchr(spec, ':');
    if (c1) {
        char *c2 = strchr(c1 + 1, ':');
        if (!c2 || strchr(c2 + 1, ':') || c1 == spec || c2 == c1 + 1 || !c2[1]) return -1;
        *c1 = *c2 = '\0';
        provider = spec;
        event = c1 + 1;
        field = c2 + 1;
    }
    mask m;
    memset(&m, 0, sizeof m);
    mask *grown = realloc(s->masks, (s->mask_count + 1) * sizeof *grown);
    if (!grown) return -1;
    s->masks = grown;
    if ((provider && dup_part(provider, &m.provider) != 0) || (event && dup_part(event, &m.event) != 0) ||
        dup_part(field, &m.field) != 0) {
        free(m.provider);
        free(m.event);
        return -1;
    }
    if (m.provider) etl_guid_parse(m.provider, &m.provider_guid);
    s->masks[s->mask_count++] = m;
    return 0;
}

int etl_stable_add_mask(etl_stable *s, const char *spec)
{
    char *copy = strdup(spec ? spec : "");
    if (!copy) return -1;
    int rc = 0;
    for (char *p = copy, *comma; p && rc == 0; p = comma ? comma + 1 : NULL) {
        comma = strchr(p, ',');
        if (comma) *comma = '\0';
        rc = add_one_mask(s, p);
    }
    free(copy);
    return rc;
}

/* ---- observing ------------------------------------------------------------------------------------------ */

static void guid_key(const etl_guid *g, uint8_t key[16])
{
    memcpy(key, &g->data1, 4);
    memcpy(key + 4, &g->data2, 2);
    memcpy(key + 6, &g->data3, 2);
    memcpy(key + 8, g->data4, 8);
}

static uint32_t activity_ordinal(etl_stable *s, const etl_guid *g)
{
    if (etl_guid_is_zero(g)) return 0;
    uint8_t key[16];
    guid_key(g, key);
    return ordinal_map_get(&s->activities, key);
}

static int related_activity(const etl_event_record *r, etl_guid *out)
{
    for (uint16_t i = 0; r->extended_data && i < r->extended_data_count; i++) {
        const etl_extended_item *x = &r->extended_data[i];
        if (x->ext_type == ETL_EXT_RELATED_ACTIVITYID && x->data_size >= 16 && x->data) {
            *out = etl_guid_read(x->data);
            return 1;
        }
    }
    return 0;
}

static uint32_t id_ordinal(ordinal_map *map, uint32_t id)
{
    return id == NO_ID ? NO_ID : ordinal_map_get32(map, id);
}

void etl_stable_observe(etl_stable *s, const etl_decoded_event *ev)
{
    const etl_event_header *h = &ev->record->header;
    if (!s->have_first) {
        s->have_first = 1;
        s->first_time = h->timestamp;
    }
    id_ordinal(&s->pids, h->process_id);
    id_ordinal(&s->pids, ev->process_id);
    id_ordinal(&s->tids, h->thread_id);
    activity_ordinal(s, &h->activity_id);
    etl_guid related;
    if (related_activity(ev->record, &related)) activity_ordinal(s, &related);
}

/* ---- the view ------------------------------------------------------------------------------------------- */

/* The GUID that stands for activity ordinal n: {00000000-0000-0000-0000-0000nnnnnnnn}. */
static etl_guid ordinal_guid(uint32_t n)
{
    etl_guid g;
    memset(&g, 0, sizeof g);
    for (int i = 0; i < 4; i++) g.data4[4 + i] = (uint8_t)(n >> (24 - 8 * i));
    return g;
}

static void guid_bytes(const etl_guid *g, uint8_t out[16])
{
    for (int i = 0; i < 4; i++) out[i] = (uint8_t)(g->data1 >> (8 * i));
    out[4] = (uint8_t)g->data2, out[5] = (uint8_t)(g->data2 >> 8);
    out[6] = (uint8_t)g->data3, out[7] = (uint8_t)(g->data3 >> 8);
    memcpy(out + 8, g->data4, 8);
}

static int name_is(const char *a, const char *b)
{
    return a && b && strcasecmp(a, b) == 0;
}

static int masked_by_user(const etl_stable *s, const etl_decoded_event *ev, const char *field)
{
    for (size_t i = 0; i < s->mask_count; i++) {
        const mask *m = &s->masks[i];
        if (m->field && !name_is(m->field, field)) continue;
        if (m->event && !name_is(m->event, ev->event_name)) continue;
        if (m->provider && !name_is(m->provider, ev->provider_name) &&
            !(!etl_guid_is_zero(&m->provider_guid) && etl_guid_equal(&m->provider_guid, &ev->record->header.provider_id)))
            continue;
        return 1;
    }
    return 0;
}

static unsigned value_width(const etl_field *f, unsigned pointer_size)
{
    switch (f->in_type) {
    case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_HEXINT32: return 4;
    case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_HEXINT64: return 8;
    case ETL_IN_POINTER: case ETL_IN_SIZET: return pointer_size;
    default: return 0;
    }
}

/* The pointer and absolute-time rules of etl_stable_apply. */
static int volatile_value(const etl_field *f, unsigned pointer_size)
{
    if (f->in_type == ETL_IN_POINTER || f->in_type == ETL_IN_SIZET || f->out_type == ETL_OUT_CODE_POINTER) return 1;
    if (f->in_type == ETL_IN_FILETIME || f->in_type == ETL_IN_SYSTEMTIME || f->out_type == ETL_OUT_ETWTIME) return 1;
    int hex = f->in_type == ETL_IN_HEXINT32 || f->in_type == ETL_IN_HEXINT64 || f->out_type == ETL_OUT_HEXINT32 ||
              f->out_type == ETL_OUT_HEXINT64;
    if (!hex || value_width(f, pointer_size) != pointer_size || !f->value) return 0;
    char *end;
    unsigned long long v = strtoull(f->value, &end, 0);
    return end != f->value && v >= MIN_MAPPED_ADDRESS;
}

/* Field names of process and thread ids in kernel MOF classes, which declare them as plain integers. */
static const char *const process_id_names[] = {"ProcessId", "ParentId", "ParentProcessId", "SourceProcessId",
                                               "TargetProcessId", "ClientProcessId"};
static const char *const thread_id_names[] = {"ThreadId", "TThreadId", "SourceThreadId", "TargetThreadId",
                                              "NewThreadId", "OldThreadId", "ReadyThreadId"};

/* 'P' for a process id, 'T' for a thread id (out-type PID/TID, or an integer named like one), else 0. */
static char id_kind(const etl_field *f)
{
    if (f->out_type == ETL_OUT_PID) return 'P';
    if (f->out_type == ETL_OUT_TID) return 'T';
    if (f->in_type != ETL_IN_UINT32 && f->in_type != ETL_IN_INT32 && f->in_type != ETL_IN_HEXINT32 &&
        f->in_type != ETL_IN_UINT64 && f->in_type != ETL_IN_HEXINT64)
        return 0;
    for (size_t i = 0; i < sizeof process_id_names / sizeof process_id_names[0]; i++)
        if (name_is(f->name, process_id_names[i])) return 'P';
    for (size_t i = 0; i < sizeof thread_id_names / sizeof thread_id_names[0]; i++)
        if (name_is(f->name, thread_id_names[i])) return 'T';
    return 0;
}

static int is_header_event(const etl_decoded_event *ev)
{
    const etl_event_header *h = &ev->record->header;
    return etl_guid_equal(&h->provider_id, &event_trace_class);
}

static int volatile_header_field(const char *name)
{
    for (size_t i = 0; i < sizeof volatile_header_fields / sizeof volatile_header_fields[0]; i++)
        if (name_is(name, volatile_header_fields[i])) return 1;
    return 0;
}

static int reserve_fields(etl_stable *s, size_t n)
{
    if (n <= s->field_capacity) return 0;
    size_t cap = s->field_capacity ? s->field_capacity : 64;
    while (cap < n) cap *= 2;
    etl_field *f = realloc(s->fields, cap * sizeof *f);
    if (!f) return -1;
    s->fields = f;
    size_t *r = realloc(s->replaced, cap * sizeof *r);
    if (!r) return -1;
    s->replaced = r;
    s->field_capacity = cap;
    return 0;
}

/* The field's value in the view, or SIZE_MAX to keep it; new text goes to s->values. */
static size_t new_value(etl_stable *s, const etl_decoded_event *ev, const etl_field *f)
{
    size_t at = s->values.length;
    char kind;
    if (masked_by_user(s, ev, f->name) || volatile_value(f, ev->record->pointer_size)) {
        etl_textbuf_puts(&s->values, ETL_STABLE_MASKED);
    } else if ((kind = id_kind(f)) && f->value) {
        char *end;
        unsigned long long v = strtoull(f->value, &end, 0);
        if (end == f->value || *end || v > UINT32_MAX) return SIZE_MAX;
        uint32_t n = id_ordinal(kind == 'P' ? &s->pids : &s->tids, (uint32_t)v);
        etl_textbuf_printf(&s->values, "%c%u", kind, (unsigned)n);
    } else {
        return SIZE_MAX;
    }
    etl_textbuf_putc(&s->values, '\0');
    return at;
}

int etl_stable_apply(etl_stable *s, const etl_decoded_event *in, const etl_decoded_event **out)
{
    etl_stable_observe(s, in);
    const etl_event_record *r = in->record;
    s->record = *r;
    etl_event_header *h = &s->record.header;
    int64_t rel = (s->flags & ETL_STABLE_NO_TIME) ? 0 : r->header.timestamp - s->first_time;
    h->timestamp = rel;
    s->record.raw_timestamp = rel;
    h->process_id = id_ordinal(&s->pids, r->header.process_id);
    h->thread_id = id_ordinal(&s->tids, r->header.thread_id);
    h->kernel_time = h->user_time = 0;
    h->processor_time = 0;
    h->activity_id = ordinal_guid(activity_ordinal(s, &r->header.activity_id));
    if (etl_guid_is_zero(&r->header.activity_id)) memset(&h->activity_id, 0, sizeof h->activity_id);
    s->record.buffer_context.processor_index = 0;
    s->record.wpp_sequence = 0;
    s->record.file_offset = 0;
    s->record.record_offset = 0;
    s->record.buffer_compressed = 0;
    s->record.file_index = 0;
    /* Extended data: only the related activity id survives (SIDs, stacks, session ids are machine facts). */
    etl_guid related;
    s->record.extended_data_count = 0;
    s->record.extended_data = NULL;
    if (related_activity(r, &related)) {
        etl_guid g = ordinal_guid(activity_ordinal(s, &related));
        guid_bytes(&g, s->related_bytes);
        s->related_item.ext_type = ETL_EXT_RELATED_ACTIVITYID;
        s->related_item.data_size = 16;
        s->related_item.data = s->related_bytes;
        s->record.extended_data = &s->related_item;
        s->record.extended_data_count = 1;
    }

    s->event = *in;
    s->event.record = &s->record;
    s->event.process_id = id_ordinal(&s->pids, in->process_id);
    if (reserve_fields(s, in->field_count ? in->field_count : 1) != 0) return ETL_ERR_NOMEM;
    etl_textbuf_reset(&s->values);
    int header = is_header_event(in);
    size_t n = 0;
    for (size_t i = 0; i < in->field_count; i++) {
        const etl_field *f = &in->fields[i];
        if (header && f->depth == 0 && volatile_header_field(f->name)) continue;
        s->fields[n] = *f;
        s->replaced[n] = f->kind == ETL_FIELD_VALUE ? new_value(s, in, f) : SIZE_MAX;
        n++;
    }
    if (s->values.failed) return ETL_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        if (s->replaced[i] != SIZE_MAX) s->fields[i].value = etl_textbuf_at(&s->values, s->replaced[i]);
    s->event.fields = s->fields;
    s->event.field_count = n;
    /* a message quotes field values (addresses, times): it would carry what the fields no longer show */
    s->event.message = NULL;
    *out = &s->event;
    return ETL_OK;
}

char *etl_stable_time(int64_t ticks, char *buf)
{
    uint64_t a = ticks < 0 ? 0 - (uint64_t)ticks : (uint64_t)ticks;
    snprintf(buf, 32, "%c%llu.%07llu", ticks < 0 ? '-' : '+', (unsigned long long)(a / TICKS_PER_SECOND),
             (unsigned long long)(a % TICKS_PER_SECOND));
    return buf;
}
