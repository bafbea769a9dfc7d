/* --group activity: a sink that spools each event's bytes and writes them back grouped by activity
 * (include/etl/etl_group.h). Groups are numbered in order of their first event; the events are placed
 * with a counting sort on that number, which keeps time order inside a group. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl_activity.h"
#include "etl/etl_group.h"

typedef struct spooled {
    uint64_t offset;
    uint32_t length;
    uint32_t group;
} spooled;

struct etl_group_sink {
    etl_sink out, in;
    int headings;
    FILE *spool;
    uint64_t spool_size;
    etl_activity_table *activities;  /* GUID → index in first-seen order */
    uint32_t *group_of_activity;     /* activity index → group number */
    size_t group_of_capacity;
    uint32_t none_group;             /* group of the events without activity, UINT32_MAX until seen */
    uint32_t group_count;
    etl_guid *group_ids;             /* group number → activity (zero for none) */
    spooled *events;
    size_t event_count, event_capacity;
    int in_event, failed;
};

static int group_write(void *ctx, const void *data, size_t length)
{
    etl_group_sink *g = ctx;
    if (!g->in_event) return g->out.write(g->out.ctx, data, length);
    spooled *e = &g->events[g->event_count - 1];
    if (g->failed || length > UINT32_MAX - e->length || fwrite(data, 1, length, g->spool) != length) {
        g->failed = 1;
        return -1;
    }
    e->length += (uint32_t)length;
    g->spool_size += length;
    return 0;
}

etl_group_sink *etl_group_sink_new(const etl_sink *out, int headings)
{
    etl_group_sink *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->out = *out;
    g->in.write = group_write;
    g->in.ctx = g;
    g->headings = headings;
    g->none_group = UINT32_MAX;
    g->spool = tmpfile();
    g->activities = etl_activity_table_new();
    if (!g->spool || !g->activities) {
        etl_group_sink_free(g);
        return NULL;
    }
    return g;
}

const etl_sink *etl_group_sink_sink(etl_group_sink *g)
{
    return &g->in;
}

static int new_group(etl_group_sink *g, const etl_guid *id, uint32_t *out)
{
    if ((g->group_count & (g->group_count - 1)) == 0) {  /* grow at powers of two */
        etl_guid *grown = realloc(g->group_ids, (g->group_count ? g->group_count * 2 : 1) * sizeof *grown);
        if (!grown) return -1;
        g->group_ids = grown;
    }
    g->group_ids[g->group_count] = *id;
    *out = g->group_count++;
    return 0;
}

static int group_of(etl_group_sink *g, const etl_guid *activity, uint32_t *out)
{
    if (etl_guid_is_zero(activity)) {
        if (g->none_group == UINT32_MAX && new_group(g, activity, &g->none_group) != 0) return -1;
        *out = g->none_group;
        return 0;
    }
    size_t before = etl_activity_count(g->activities);
    etl_event_record r;
    memset(&r, 0, sizeof r);
    r.header.activity_id = *activity;
    if (etl_activity_observe_record(g->activities, &r) != ETL_OK) return -1;
    long k = etl_activity_find(g->activities, activity);
    if (k < 0) return -1;  /* more activities than the table holds */
    if (etl_activity_count(g->activities) > before) {
        if ((size_t)k >= g->group_of_capacity) {
            size_t cap = g->group_of_capacity ? g->group_of_capacity * 2 : 256;
            uint32_t *grown = realloc(g->group_of_activity, cap * sizeof *grown);
            if (!grown) return -1;
            g->group_of_activity = grown;
            g->group_of_capacity = cap;
        }
        if (new_group(g, activity, &g->group_of_activity[k]) != 0) return -1;
    }
    *out = g->group_of_activity[k];
    return 0;
}

int etl_group_sink_event(etl_group_sink *g, const etl_guid *activity)
{
    if (g->failed || g->event_count >= ETL_GROUP_MAX_EVENTS) return g->failed = 1, -1;
    if (g->event_count == g->event_capacity) {
        size_t cap = g->event_capacity ? g->event_capacity * 2 : 4096;
        spooled *grown = realloc(g->events, cap * sizeof *grown);
        if (!grown) return g->failed = 1, -1;
        g->events = grown;
        g->event_capacity = cap;
    }
    spooled *e = &g->events[g->event_count];
    if (group_of(g, activity, &e->group) != 0) return g->failed = 1, -1;
    e->offset = g->spool_size;
    e->length = 0;
    g->event_count++;
    g->in_event = 1;
    return 0;
}

void etl_group_sink_event_done(etl_group_sink *g)
{
    g->in_event = 0;
}

static int copy_out(etl_group_sink *g, const spooled *e, char *buf, size_t cap)
{
    if (fseeko(g->spool, (off_t)e->offset, SEEK_SET) != 0) return -1;
    for (uint32_t left = e->length; left > 0;) {
        size_t n = left < cap ? left : cap;
        if (fread(buf, 1, n, g->spool) != n || g->out.write(g->out.ctx, buf, n) != 0) return -1;
        left -= (uint32_t)n;
    }
    return 0;
}

int etl_group_sink_flush(etl_group_sink *g)
{
    g->in_event = 0;
    if (g->failed || fflush(g->spool) != 0) return -1;
    /* counting sort by group: start[k] = first slot of group k */
    size_t *start = calloc((size_t)g->group_count + 1, sizeof *start);
    size_t *order = malloc((g->event_count ? g->event_count : 1) * sizeof *order);
    char *buf = malloc(1 << 16);
    int rc = start && order && buf ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < g->event_count; i++) start[g->events[i].group + 1]++;
    for (uint32_t k = 0; rc == 0 && k < g->group_count; k++) start[k + 1] += start[k];
    for (size_t i = 0; rc == 0 && i < g->event_count; i++) order[start[g->events[i].group]++] = i;
    size_t pos = 0;
    for (uint32_t k = 0; rc == 0 && k < g->group_count; k++) {
        size_t end = start[k];  /* after the placement loop start[k] is the end of group k */
        if (g->headings) {
            char head[96], guid[40];
            int n = snprintf(head, sizeof head, "# activity %s\t%zu events\n",
                             etl_guid_is_zero(&g->group_ids[k]) ? "(none)" : etl_guid_format(&g->group_ids[k], guid, 0),
                             end - pos);
            if (g->out.write(g->out.ctx, head, (size_t)n) != 0) rc = -1;
        }
        for (; rc == 0 && pos < end; pos++)
            if (copy_out(g, &g->events[order[pos]], buf, 1 << 16) != 0) rc = -1;
    }
    free(start);
    free(order);
    free(buf);
    g->event_count = 0;
    return rc;
}

void etl_group_sink_free(etl_group_sink *g)
{
    if (!g) return;
    if (g->spool) fclose(g->spool);
    etl_activity_table_free(g->activities);
    free(g->group_of_activity);
    free(g->group_ids);
    free(g->events);
    free(g);
}
