/* Activity table: events grouped by ActivityId, and the RelatedActivityId links between activities
 * (etl_activity.h). Two open-addressing hash tables (activities by GUID, links by GUID pair) and an intern
 * list of provider names; all bounded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl_activity.h"

#define MAX_LINKS (4u * ETL_ACTIVITY_MAX)
#define MAX_PROVIDER_NAMES 4096u

typedef struct link { etl_guid from, to; } link;

struct etl_activity_table {
    etl_activity *items;
    size_t count, capacity;
    uint32_t *slots;          /* index + 1, 0 = empty */
    size_t slot_count;        /* power of two */
    link *links;              /* open addressing; from all-zero = empty */
    size_t link_count, link_slots;
    char **names;             /* interned provider names */
    size_t name_count;
    uint64_t overflow;
};

static uint64_t guid_hash(const etl_guid *g)
{
    uint64_t h = 1469598103934665603ull;
    const uint8_t bytes[16] = {
        (uint8_t)g->data1, (uint8_t)(g->data1 >> 8), (uint8_t)(g->data1 >> 16), (uint8_t)(g->data1 >> 24),
        (uint8_t)g->data2, (uint8_t)(g->data2 >> 8), (uint8_t)g->data3, (uint8_t)(g->data3 >> 8),
        g->data4[0], g->data4[1], g->data4[2], g->data4[3], g->data4[4], g->data4[5], g->data4[6], g->data4[7]};
    for (int i = 0; i < 16; i++) h = (h ^ bytes[i]) * 1099511628211ull;
    return h;
}

etl_activity_table *etl_activity_table_new(void)
{
    return calloc(1, sizeof(etl_activity_table));
}

void etl_activity_table_free(etl_activity_table *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->name_count; i++) free(t->names[i]);
    free(t->names);
    free(t->items);
    free(t->slots);
    free(t->links);
    free(t);
}

int etl_record_related_activity(const etl_event_record *record, etl_guid *out)
{
    for (uint16_t i = 0; record->extended_data && i < record->extended_data_count; i++) {
        const etl_extended_item *x = &record->extended_data[i];
        if (x->ext_type == ETL_EXT_RELATED_ACTIVITYID && x->data_size >= 16 && x->data) {
            *out = etl_guid_read(x->data);
            return 1;
        }
    }
    return 0;
}

long etl_activity_find(const etl_activity_table *t, const etl_guid *id)
{
    if (!t->slot_count) return -1;
    for (size_t s = guid_hash(id) & (t->slot_count - 1);; s = (s + 1) & (t->slot_count - 1)) {
        if (!t->slots[s]) return -1;
        if (etl_guid_equal(&t->items[t->slots[s] - 1].id, id)) return (long)t->slots[s] - 1;
    }
}

static int rehash(etl_activity_table *t)
{
    size_t n = t->slot_count ? t->slot_count * 2 : 1024;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots) return ETL_ERR_NOMEM;
    for (size_t i = 0; i < t->count; i++) {
        size_t s = guid_hash(&t->items[i].id) & (n - 1);
        while (slots[s]) s = (s + 1) & (n - 1);
        slots[s] = (uint32_t)i + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->slot_count = n;
    return ETL_OK;
}

/* The activity `id`, created when new; NULL when the table is full (counted) or memory is short (*nomem). */
static etl_activity *get(etl_activity_table *t, const etl_guid *id, int *nomem)
{
    long k = etl_activity_find(t, id);
    if (k >= 0) return &t->items[k];
    if (t->count >= ETL_ACTIVITY_MAX) {
        t->overflow++;
        return NULL;
    }
    if ((t->count + 1) * 2 > t->slot_count && rehash(t) != ETL_OK) {
        *nomem = 1;
        return NULL;
    }
    if (t->count == t->capacity) {
        size_t cap = t->capacity ? t->capacity * 2 : 256;
        etl_activity *grown = realloc(t->items, cap * sizeof *grown);
        if (!grown) {
            *nomem = 1;
            return NULL;
        }
        t->items = grown;
        t->capacity = cap;
    }
    etl_activity *a = &t->items[t->count];
    memset(a, 0, sizeof *a);
    a->id = *id;
    size_t s = guid_hash(id) & (t->slot_count - 1);
    while (t->slots[s]) s = (s + 1) & (t->slot_count - 1);
    t->slots[s] = (uint32_t)++t->count;
    return a;
}

static size_t link_slot(const link *links, size_t n, const etl_guid *from, const etl_guid *to)
{
    size_t s = (guid_hash(from) * 31 + guid_hash(to)) & (n - 1);
    while (!etl_guid_is_zero(&links[s].from) &&
           !(etl_guid_equal(&links[s].from, from) && etl_guid_equal(&links[s].to, to)))
        s = (s + 1) & (n - 1);
    return s;
}

static int add_link(etl_activity_table *t, const etl_guid *from, const etl_guid *to)
{
    if (t->link_slots && !etl_guid_is_zero(&t->links[link_slot(t->links, t->link_slots, from, to)].from))
        return ETL_OK;
    if (t->link_count >= MAX_LINKS) return ETL_OK;  /* beyond the bound: the link is not remembered */
    if ((t->link_count + 1) * 2 > t->link_slots) {
        size_t n = t->link_slots ? t->link_slots * 2 : 1024;
        link *links = calloc(n, sizeof *links);
        if (!links) return ETL_ERR_NOMEM;
        for (size_t i = 0; i < t->link_slots; i++)
            if (!etl_guid_is_zero(&t->links[i].from))
                links[link_slot(links, n, &t->links[i].from, &t->links[i].to)] = t->links[i];
        free(t->links);
        t->links = links;
        t->link_slots = n;
    }
    link *l = &t->links[link_slot(t->links, t->link_slots, from, to)];
    l->from = *from;
    l->to = *to;
    t->link_count++;
    return ETL_OK;
}

static int has_link(const etl_activity_table *t, const etl_guid *from, const etl_guid *to)
{
    return t->link_slots && !etl_guid_is_zero(&t->links[link_slot(t->links, t->link_slots, from, to)].from);
}

int etl_activity_related(const etl_activity_table *t, const etl_guid *root, const etl_guid *id)
{
    return etl_guid_equal(root, id) || has_link(t, root, id) || has_link(t, id, root);
}

static const char *intern(etl_activity_table *t, const char *name)
{
    for (size_t i = 0; i < t->name_count; i++)
        if (strcmp(t->names[i], name) == 0) return t->names[i];
    if (t->name_count >= MAX_PROVIDER_NAMES) return NULL;
    char **grown = realloc(t->names, (t->name_count + 1) * sizeof *grown);
    if (!grown) return NULL;
    t->names = grown;
    char *copy = strdup(name);
    if (!copy) return NULL;
    return t->names[t->name_count++] = copy;
}

static int observe(etl_activity_table *t, const etl_event_record *r, const etl_decoded_event *ev)
{
    const etl_guid *id = &r->header.activity_id;
    if (etl_guid_is_zero(id)) return ETL_OK;
    int nomem = 0;
    etl_activity *a = get(t, id, &nomem);
    if (!a) return nomem ? ETL_ERR_NOMEM : ETL_OK;
    etl_guid related;
    int has_related = etl_record_related_activity(r, &related) && !etl_guid_is_zero(&related);
    if (a->event_count++ == 0) {
        a->first_time = r->header.timestamp;
        if (ev)
            snprintf(a->first_message, sizeof a->first_message, "%s", ev->message && ev->message[0] ? ev->message
                                                                                                   : ev->event_name);
    }
    a->last_time = r->header.timestamp;
    if (has_related) {
        if (!a->has_parent) {
            a->parent = related;
            a->has_parent = 1;
        }
        if (add_link(t, id, &related) != ETL_OK) return ETL_ERR_NOMEM;
    }
    if (ev && ev->provider_name) {
        uint32_t k = 0;
        while (k < a->provider_count && strcmp(a->providers[k], ev->provider_name) != 0) k++;
        if (k == a->provider_count) {
            const char *name = a->provider_count < ETL_ACTIVITY_MAX_PROVIDERS ? intern(t, ev->provider_name) : NULL;
            if (name) a->providers[a->provider_count++] = name;
            else a->more_providers++;
        }
    }
    return ETL_OK;
}

int etl_activity_observe(etl_activity_table *t, const etl_decoded_event *event)
{
    return observe(t, event->record, event);
}

int etl_activity_observe_record(etl_activity_table *t, const etl_event_record *record)
{
    return observe(t, record, NULL);
}

size_t etl_activity_count(const etl_activity_table *t)
{
    return t ? t->count : 0;
}

const etl_activity *etl_activity_at(const etl_activity_table *t, size_t index)
{
    return t && index < t->count ? &t->items[index] : NULL;
}

uint64_t etl_activity_overflow(const etl_activity_table *t)
{
    return t ? t->overflow : 0;
}
