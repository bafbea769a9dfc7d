/* libetl — activity correlation: the events of a trace grouped by ActivityId, with the links that
 * RelatedActivityId makes between activities (an event of activity A that carries RelatedActivityId R: A was
 * started by, or transferred from, R). Feed events in record order; memory is bounded (ETL_ACTIVITY_MAX).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_ETL_ACTIVITY_H
#define ETL_ETL_ACTIVITY_H

#include "etl_schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Activities remembered; events of further activities are counted in etl_activity_overflow. */
#define ETL_ACTIVITY_MAX 262144u
/* Distinct provider names kept per activity (more are counted in more_providers). */
#define ETL_ACTIVITY_MAX_PROVIDERS 8u

typedef struct etl_activity {
    etl_guid id;
    etl_guid parent;            /* RelatedActivityId of the activity's first event that carries one */
    int has_parent;
    int64_t first_time, last_time;  /* FILETIME of the first and last event */
    uint64_t event_count;
    const char *providers[ETL_ACTIVITY_MAX_PROVIDERS];  /* in first-seen order */
    uint32_t provider_count;
    uint32_t more_providers;    /* events of providers beyond the first ETL_ACTIVITY_MAX_PROVIDERS */
    char first_message[256];    /* the first event's message, else its provider/event name */
} etl_activity;

typedef struct etl_activity_table etl_activity_table;

etl_activity_table *etl_activity_table_new(void);
void etl_activity_table_free(etl_activity_table *t);

/* The record's RelatedActivityId (extended data item); 1 when present. */
int etl_record_related_activity(const etl_event_record *record, etl_guid *out);

/* Counts the event under its activity (events with a zero ActivityId have none and are skipped) and records
 * its RelatedActivityId link. ETL_OK or ETL_ERR_NOMEM. */
int etl_activity_observe(etl_activity_table *t, const etl_decoded_event *event);
/* The same from a bare record (no provider names or messages): enough for the links. */
int etl_activity_observe_record(etl_activity_table *t, const etl_event_record *record);

/* Activities in order of their first event. */
size_t etl_activity_count(const etl_activity_table *t);
const etl_activity *etl_activity_at(const etl_activity_table *t, size_t index);
/* Index of an activity, -1 when unknown. */
long etl_activity_find(const etl_activity_table *t, const etl_guid *id);
uint64_t etl_activity_overflow(const etl_activity_table *t);

/* Is `id` the activity `root` or one linked to it by a RelatedActivityId in either direction (an event of
 * `root` naming `id` as related, or an event of `id` naming `root`)? */
int etl_activity_related(const etl_activity_table *t, const etl_guid *root, const etl_guid *id);

#ifdef __cplusplus
}
#endif

#endif /* ETL_ETL_ACTIVITY_H */
