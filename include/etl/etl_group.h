/* libetlformats — grouping a writer's output by activity (--group activity). Put an etl_group_sink between
 * any writer and its real sink: the bytes a writer produces for one event are spooled to an unnamed
 * temporary file under the event's ActivityId; etl_group_sink_flush writes them back grouped (activities in
 * order of their first event, events in time order inside each), so headers and footers a writer writes
 * outside events stay where they are. Memory: 16 bytes per event (at most ETL_GROUP_MAX_EVENTS).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_ETL_GROUP_H
#define ETL_ETL_GROUP_H

#include "etl_writer.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETL_GROUP_MAX_EVENTS (32u << 20)

typedef struct etl_group_sink etl_group_sink;

/* `headings`: write "# activity {GUID}\tN events" (or "# activity (none)\tN events") before each group, for
 * text formats whose lines do not show the activity. NULL when memory or a temporary file is short. */
etl_group_sink *etl_group_sink_new(const etl_sink *out, int headings);
/* The sink to give the writer. */
const etl_sink *etl_group_sink_sink(etl_group_sink *g);
/* The bytes written until etl_group_sink_event_done belong to an event of `activity` (zero: none). 0, or -1
 * past ETL_GROUP_MAX_EVENTS or when memory is short. */
int etl_group_sink_event(etl_group_sink *g, const etl_guid *activity);
void etl_group_sink_event_done(etl_group_sink *g);
/* Writes the spooled events grouped to the real sink (call before the writer's end). 0 or -1. */
int etl_group_sink_flush(etl_group_sink *g);
void etl_group_sink_free(etl_group_sink *g);

#ifdef __cplusplus
}
#endif

#endif /* ETL_ETL_GROUP_H */
